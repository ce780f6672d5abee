// `bovw convert`: a database that `bovw index` wrote (one .bovwdb file or the manifest of its
// shards) as a new live database, which `bovw add` and `bovw remove` change. The original is only
// read.
#include "commands.hpp"

#include <bovw/live_database.hpp>

#include <iostream>

namespace bovw::cli {

namespace {

struct ConvertArguments {
  std::string index;
  std::string output;
} args;

}  // namespace

CLI::App* addConvertCommand(CLI::App& app) {
  auto* command = app.add_subcommand("convert", "Make a live database (for add and remove) from a .bovwdb file or a shard manifest");
  command->add_option("--index", args.index, "the database to read: a .bovwdb file or a .bovwshards manifest")->required();
  command->add_option("--output", args.output, "the live database's folder to make (must not exist)")->required();
  return command;
}

int runConvertCommand() {
  checkOutputs({{"--output", args.output}}, {{"--index", args.index}});
  const LiveDatabase live = LiveDatabase::convert(args.index, args.output);
  std::cout << "bovw convert: " << live.database().index().size() << " images; wrote " << args.output << "\n";
  return 0;
}

}  // namespace bovw::cli
