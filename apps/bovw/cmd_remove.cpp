// `bovw remove`: images out of a live database by name (as `search` prints them), in one durable
// write: all of the names or, if one is not there, none.
#include "commands.hpp"
#include "malloc_huge_pages.hpp"
#include "opening_warning.hpp"

#include <bovw/error.hpp>
#include <bovw/live_database.hpp>

#include <iostream>

namespace bovw::cli {

namespace {

struct RemoveArguments {
  std::string index;
  std::vector<std::string> names;
} args;

}  // namespace

CLI::App* addRemoveCommand(CLI::App& app) {
  auto* command = app.add_subcommand("remove", "Remove images from a live database by name, durably");
  command->add_option("NAME", args.names, "the images' names, as bovw search prints them")->required();
  command->add_option("--index", args.index, "the live database's folder")->required();
  return command;
}

int runRemoveCommand() {
  if (!LiveDatabase::holdsLiveDatabase(args.index))
    throw InvalidInput(args.index, "is not a live database's folder; images are removed from live databases only");
  // A write due to write the checkpoint copies the index through malloc: nothing is written yet.
  if (LiveDatabase::checkpointDue(args.index, 0, args.names.size())) restartWithMallocHugePages();
  // One write per command, and no search: the index is read only if the write is due to checkpoint it.
  LiveDatabase database = LiveDatabase::open(args.index, PostingMemory::Deferred);
  database.remove(args.names);
  warnIfCheckpointRefused(&database);
  std::cout << "bovw remove: removed " << args.names.size() << " images from " << args.index << " (now "
            << database.size() << ")\n";
  return 0;
}

}  // namespace bovw::cli
