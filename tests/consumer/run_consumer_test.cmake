# cmake -P script: install the build tree into a scratch prefix, then configure, build and run the
# consumer project against it. Arguments: -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=...
# and, in a sanitizer build, -DSANITIZE=<list>: an instrumented libbovw.a links only into a program
# linked with the same sanitizers.
file(REMOVE_RECURSE "${WORK_DIR}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${ARGN}")
  endif()
endfunction()
run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
set(flags "")
if(SANITIZE)
  set(flags "-DCMAKE_CXX_FLAGS=-fsanitize=${SANITIZE}" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${SANITIZE}")
endif()
# As on a machine without MPI's development files: bovw::bovw must not need them.
run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/build" "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix"
    -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON ${flags})
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run("${WORK_DIR}/build/consumer")
# The same program built by hand from the installed pkg-config file (found relative to itself).
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB_RECURSE pc_files "${WORK_DIR}/prefix/*/bovw.pc")
list(LENGTH pc_files found)
if(NOT found EQUAL 1)
  message(FATAL_ERROR "expected one installed bovw.pc, found: ${pc_files}")
endif()
get_filename_component(pc_dir "${pc_files}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs bovw OUTPUT_VARIABLE pc_flags RESULT_VARIABLE status
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags --libs bovw failed")
endif()
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
set(sanitize_flag "")
if(SANITIZE)
  set(sanitize_flag "-fsanitize=${SANITIZE}")
endif()
run(c++ -std=c++17 ${sanitize_flag} "${SOURCE_DIR}/main.cpp" -o "${WORK_DIR}/consumer_pkg_config" ${pc_flags})
run("${WORK_DIR}/consumer_pkg_config")
