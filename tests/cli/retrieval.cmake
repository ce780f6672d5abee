# `bovw train`, `histogram --images`, `index`, `search` and `evaluate` end to end on a tiny
# UKBench-style set the test builds from tests/data/surf (python3 unittest + numpy + python3-opencv,
# Debian packages; exit status 77, reported as skipped, if they are missing). Included from
# tests/cli/CMakeLists.txt, where Python3_EXECUTABLE and bovw_cli_test are defined; needs the features
# (OpenCV) build.
# Run alone with `ctest -R cli_retrieval --output-on-failure`.
if(BOVW_WITH_OPENCV)
  bovw_cli_test(cli_retrieval test_retrieval.py --data ${PROJECT_SOURCE_DIR}/tests/data)
endif()

# ORB end to end (train --features orb, index, search, histogram against python3-opencv's ORB) on
# Debian's opencv-doc sample images; skipped (77) where opencv-doc is not installed.
if(BOVW_WITH_OPENCV)
  bovw_cli_test(cli_orb test_orb.py --images /usr/share/doc/opencv-doc/examples/data)
endif()

# Geometric verification (index --keypoints, search --verify) on opencv-doc sample images: box in a
# scene and a graffiti viewpoint change found and verified, scores and order, JSON, errors.
if(BOVW_WITH_OPENCV)
  bovw_cli_test(cli_verify test_verify.py --images /usr/share/doc/opencv-doc/examples/data)
endif()

# Sharded databases (index --shards, then search and evaluate on the manifest) against the
# unsharded database of the same images; failed runs leave no manifest; damaged shards named.
if(BOVW_WITH_OPENCV)
  bovw_cli_test(cli_shards test_shards.py --data ${PROJECT_SOURCE_DIR}/tests/data)
endif()

# Inputs that are not regular files (a FIFO as vocabulary, database or shard; /dev/zero or a FIFO as
# an image) and a sparse 2 GB file as a database, vocabulary or .npy: each refused within seconds,
# exit 1, named (issue 19).
if(BOVW_WITH_OPENCV)
  bovw_cli_test(cli_special_files test_special_files.py --data ${PROJECT_SOURCE_DIR}/tests/data)
endif()

# Live databases (index --live, add, remove, convert, list) across processes: adds and removes
# against a fresh index of the final images, add killed with SIGKILL at random moments, searches in
# other processes during writes, two writers, refusals (docs/FORMATS.md, "Live databases").
if(BOVW_WITH_OPENCV)
  bovw_cli_test(cli_live test_live_database.py --data ${PROJECT_SOURCE_DIR}/tests/data)
endif()

# `bovw serve` over HTTP on a free port of 127.0.0.1: searches equal to `bovw search`, PUT/DELETE/list
# round trips, kill -9 during PUTs, searches during writes, every error status, the token, HTTPS,
# SIGTERM, and docs/openapi.yaml against the running server (docs/SERVING.md).
if(BOVW_WITH_OPENCV)
  bovw_cli_test(cli_serve test_serve.py --data ${PROJECT_SOURCE_DIR}/tests/data)
endif()
