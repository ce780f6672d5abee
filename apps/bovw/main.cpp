// The `bovw` program: subcommands over the bovw library, in one process (program.hpp).
#include "program.hpp"

int main(int argc, char** argv) {
  return bovw::cli::runProgram(argc, argv, bovw::cli::Program::Single, bovw::singleProcess());
}
