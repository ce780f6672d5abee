// `bovw add`: images into a live database while others search it, in one durable write: when the
// command exits 0 the images are in and survive a crash; a command killed before leaves the
// database as it was. The work is bovw::ImageSearch::add's (bovw/image_search.hpp).
#include "commands.hpp"
#include "feature_options.hpp"
#include "image_arguments.hpp"
#include "malloc_huge_pages.hpp"
#include "opening_warning.hpp"
#include "program.hpp"
#include "progress_bar.hpp"
#include "query_options.hpp"

#include <bovw/error.hpp>
#include <bovw/image_search.hpp>
#include <bovw/live_database.hpp>

#include <spdlog/spdlog.h>

#include <iostream>

namespace bovw::cli {

namespace {

struct AddArguments {
  std::string index;
  std::vector<std::string> images;
  bool strict = false;
  bool quiet = false;
  HistogrammerOptions histogrammer;
} args;

}  // namespace

CLI::App* addAddCommand(CLI::App& app) {
  auto* command = app.add_subcommand("add", "Add images to a live database (index --live), durably, while others search it");
  command->add_option("IMAGE", args.images, "images, or folders of them; each is named by its path as given")->required();
  command->add_option("--index", args.index, "the live database's folder (bovw index --live, bovw convert)")->required();
  command->add_flag("--strict", args.strict,
                    "add nothing if any image cannot be read or its name is indexed already (default: skip those "
                    "with a warning)");
  command->add_flag("--quiet", args.quiet, "no progress bar");
  args.histogrammer.addTo(command);
  return command;
}

int runAddCommand() {
  if (!LiveDatabase::holdsLiveDatabase(args.index))
    throw InvalidInput(args.index, "is not a live database's folder; images are added to live databases only "
                                   "(make one with bovw convert --index DB --output NEW, or bovw index --live)");
  const std::vector<std::string> images = imageArguments(args.images, "image to add");
  // A write due to write the checkpoint copies the index through malloc: nothing is written yet.
  if (LiveDatabase::checkpointDue(args.index, images.size(), 0)) restartWithMallocHugePages();
  ProgressBar bar("add", args.quiet);
  QueryOptions how;
  how.histogrammer = args.histogrammer;
  ImageSearchOptions engine = how.engine(bar, args.strict);
  // One write per command, and no search: the index is read only if the write is due to checkpoint it.
  engine.live_lists = PostingMemory::Deferred;
  ImageSearch database = ImageSearch::open(args.index, engine);
  const std::vector<ImageFailure> failures = database.add(images);
  warnIfCheckpointRefused(database.liveDatabase());  // where the write read the index to checkpoint it
  const std::size_t failed = reportFailures(failures, images.size());
  if (failed == images.size()) throw InvalidInput("no image was added to '" + args.index + "'");
  std::cout << "bovw add: added " << images.size() - failed << " images to " << args.index << " (now "
            << database.size() << ")\n";
  return 0;
}

}  // namespace bovw::cli
