# `bovw train`, `histogram --images`, `index`, `search` and `evaluate` end to end on a tiny
# UKBench-style set the test builds from tests/data/surf (python3 unittest + numpy + python3-opencv,
# Debian packages; exit status 77, reported as skipped, if they are missing). Included from
# tests/cli/CMakeLists.txt, where Python3_EXECUTABLE and bovw_cli_test are defined; needs the features
# (OpenCV) build.
# Run alone with `ctest -R cli_retrieval --output-on-failure`.
if(BOVW_WITH_OPENCV)
  bovw_cli_test(cli_retrieval test_retrieval.py --data ${PROJECT_SOURCE_DIR}/tests/data)
endif()
