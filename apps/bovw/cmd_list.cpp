// `bovw list`: the names of a database's images, one per line (by shard, then in the order they
// were added): what `bovw remove` takes, and a way to see what a live database holds right now.
#include "commands.hpp"

#include <bovw/image_search.hpp>

#include <iostream>

namespace bovw::cli {

namespace {

std::string index_path;

}  // namespace

CLI::App* addListCommand(CLI::App& app) {
  auto* command = app.add_subcommand("list", "Print the names of a database's images, one per line");
  command->add_option("--index", index_path, "a .bovwdb file, a shard manifest or a live database's folder")->required();
  return command;
}

int runListCommand() {
  ImageSearchOptions engine;
  engine.live_lists = PostingMemory::Deferred;  // names only, from a live database's store: no index read
  const ImageSearch database = ImageSearch::open(index_path, engine);
  for (const IndexedImage& image : database.images()) std::cout << image.name << "\n";
  return 0;
}

}  // namespace bovw::cli
