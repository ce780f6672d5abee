# The large-vocabulary benchmark (included from bench/retrieval/CMakeLists.txt): vocabulary-tree
# training and exact vs approximate (openmp-ann) assignment with recall@1, on SURF of real images:
#   bovw_large_vocabulary_bench [--images DIR | --descriptors X.npy] [--words 4096,16384,65536] ...
find_package(CLI11 REQUIRED)
add_executable(bovw_large_vocabulary_bench ${CMAKE_CURRENT_LIST_DIR}/large_vocabulary_benchmark.cpp)
target_link_libraries(bovw_large_vocabulary_bench PRIVATE bovw::bovw CLI11::CLI11)
target_compile_options(bovw_large_vocabulary_bench PRIVATE -Wall -Wextra)
