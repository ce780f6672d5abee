// DatabaseEditor: keypoints in before the index ranks an image, out after it stops.
#include "retrieval/database_editor.hpp"

#include <bovw/error.hpp>

namespace bovw::retrieval_detail {

void DatabaseEditor::apply(ImageDatabase& database, DatabaseChange change) {
  KeypointStore* store = database.keypoints_.get();
  if (change.keypoints.size() != change.index.added.size())
    throw InvalidInput("database change: keypoints of " + std::to_string(change.keypoints.size()) + " images for " +
                       std::to_string(change.index.added.size()) + " added");
  for (std::size_t i = 0; i < change.keypoints.size(); ++i)
    if (change.keypoints[i].has_value() != (store != nullptr))
      throw InvalidInput("image '" + change.index.added[i].name + "': " +
                         (store ? "the database stores keypoints but none came with it"
                                : "keypoints came with it but the database stores none"));
  if (store) {
    for (std::size_t i = 0; i < change.keypoints.size(); ++i)
      store->put(change.index.added[i].id, std::move(*change.keypoints[i]));
  }
  try {
    index_detail::IndexEditor::apply(database.index_, change.index);
  } catch (...) {
    if (store)
      for (const auto& image : change.index.added) store->erase(image.id);
    throw;
  }
  if (store)
    for (ImageId id : change.index.removed) store->erase(id);
}

void DatabaseEditor::replaceIndex(ImageDatabase& database, InvertedIndex index) {
  if (database.keypoints_ || database.index_.idCount() != 0)
    throw InvalidInput("database change: an index replaces only an empty database without keypoints");
  index.checkVocabulary(database.index_.vocabulary());
  database.index_ = std::move(index);
}

}  // namespace bovw::retrieval_detail
