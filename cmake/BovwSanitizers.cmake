# BOVW_SANITIZE: compile and link every target of this project with the given sanitizers
# (docs/SANITIZERS.md). Added before any target exists, so the library, the tests, the examples
# and the benchmarks agree (ASan's and TSan's runtimes require every object to be instrumented
# alike). GoogleTest's prebuilt Debian library stays uninstrumented: ASan and UBSan allow that, and
# TSan sees no shared state in it.
set(BOVW_TEST_TIMEOUT_SCALE 1)
if(BOVW_BUILD_FUZZERS AND NOT BOVW_SANITIZE)
  set(BOVW_SANITIZE "address,undefined")
endif()
if(BOVW_SANITIZE)
  set(BOVW_SANITIZE_FLAGS -fsanitize=${BOVW_SANITIZE} -fno-omit-frame-pointer)
  if(BOVW_SANITIZE MATCHES "undefined")
    # A UBSan report must fail the test that caused it, not scroll by in its output.
    list(APPEND BOVW_SANITIZE_FLAGS -fno-sanitize-recover=undefined)
  endif()
  # Instrumented programs run several times slower: the longest tests (the command-line suites)
  # scale the timeouts they were given for a normal build by this.
  set(BOVW_TEST_TIMEOUT_SCALE 3)
  add_compile_options(${BOVW_SANITIZE_FLAGS})
  add_link_options(-fsanitize=${BOVW_SANITIZE})
  message(STATUS "bovw: sanitizers ${BOVW_SANITIZE}")
endif()

# BOVW_BUILD_FUZZERS: libFuzzer needs clang. The whole library gets libFuzzer's coverage
# instrumentation (fuzzer-no-link) and ASan + UBSan unless BOVW_SANITIZE chose otherwise; only the
# harnesses link libFuzzer itself (tests/fuzz/CMakeLists.txt).
if(BOVW_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "BOVW_BUILD_FUZZERS needs clang (libFuzzer): configure with CXX=clang++-14 "
                        "(docs/FUZZING.md), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
