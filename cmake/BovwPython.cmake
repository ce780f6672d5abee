# The Python interpreter of the CLI tests and of the Python module: the one given
# (-DPython3_EXECUTABLE, as setup.py passes its own); otherwise the first python3 on PATH that can
# import numpy, falling back to Debian's /usr/bin/python3 (a pyenv or virtual-environment python3
# first on PATH often lacks numpy). Sets the cache variable Python3_EXECUTABLE for find_package(Python3).
function(bovw_choose_python3)
  if(DEFINED Python3_EXECUTABLE OR DEFINED CACHE{Python3_EXECUTABLE})
    return()
  endif()
  find_program(BOVW_PATH_PYTHON3 NAMES python3 NO_CACHE)
  foreach(candidate IN ITEMS ${BOVW_PATH_PYTHON3} /usr/bin/python3)
    if(EXISTS "${candidate}")
      execute_process(COMMAND "${candidate}" -c "import numpy" RESULT_VARIABLE numpy_missing OUTPUT_QUIET ERROR_QUIET)
      if(numpy_missing EQUAL 0)
        set(Python3_EXECUTABLE "${candidate}" CACHE FILEPATH "Python 3 interpreter (with numpy)")
        return()
      endif()
    endif()
  endforeach()
endfunction()
