# `bovw train`, `histogram --images`, `index`, `search` and `evaluate` end to end on a tiny
# UKBench-style set the test builds from tests/data/surf (python3 unittest + numpy + python3-opencv,
# Debian packages; exit status 77, reported as skipped, if they are missing). Included from
# tests/cli/CMakeLists.txt, where Python3_EXECUTABLE is chosen; needs the features (OpenCV) build.
# Run alone with `ctest -R cli_retrieval --output-on-failure`.
if(BOVW_WITH_OPENCV)
  add_test(NAME cli_retrieval
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_retrieval.py --bovw $<TARGET_FILE:bovw_cli>
                   --data ${PROJECT_SOURCE_DIR}/tests/data)
  set_tests_properties(cli_retrieval PROPERTIES TIMEOUT 300 LABELS cli SKIP_RETURN_CODE 77)
endif()
