# The vocabulary save/load benchmark (included from bench/retrieval/CMakeLists.txt):
#   bovw_vocabulary_load_bench [--words 1000000] [--dims 64,128] [--formats bovw,npy,yml.gz] ...
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
add_executable(bovw_vocabulary_load_bench ${CMAKE_CURRENT_LIST_DIR}/vocabulary_load_benchmark.cpp)
target_link_libraries(bovw_vocabulary_load_bench PRIVATE bovw::bovw CLI11::CLI11 nlohmann_json::nlohmann_json)
target_compile_options(bovw_vocabulary_load_bench PRIVATE -Wall -Wextra)
