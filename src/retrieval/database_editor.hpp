// Changing many images of an ImageDatabase as one step, keypoints included: what a live database
// (src/live) applies when it opens and when it catches up with another process's write. Searches
// see the database before the change or after it: an added image's keypoints are in before the
// index ranks it, a removed one's leave after the index has dropped it.
#pragma once

#include <bovw/image_database.hpp>

#include "index/index_editor.hpp"
#include "retrieval/keypoint_store.hpp"

#include <optional>
#include <utility>
#include <vector>

namespace bovw::retrieval_detail {

struct DatabaseChange {
  index_detail::IndexChange index;
  // Parallel to index.added: each image's keypoints, present exactly when the database stores them.
  std::vector<std::optional<KeypointStore::StoredImage>> keypoints;
};

struct DatabaseEditor {
  // Throws InvalidInput (as IndexEditor::apply, or for keypoints present where the database stores
  // none, or missing where it does) with the database unchanged.
  static void apply(ImageDatabase& database, DatabaseChange change);
  // IndexEditor::reserve on the database's index.
  static void reserve(ImageDatabase& database, const std::vector<std::uint64_t>& postings) {
    index_detail::IndexEditor::reserve(database.index_, postings);
  }
  // IndexEditor::trim on the database's index.
  static void trim(ImageDatabase& database) { index_detail::IndexEditor::trim(database.index_); }
  // IndexEditor::replaceLists on the database's index.
  static std::vector<index_detail::Segment> replaceLists(ImageDatabase& database,
                                                         std::vector<index_detail::Segment> segments) {
    return index_detail::IndexEditor::replaceLists(database.index_, std::move(segments));
  }
  // Puts `index` (of the database's vocabulary) in place of the database's, which must hold no images
  // and store no keypoints: a live database opening from its checkpoint.
  static void replaceIndex(ImageDatabase& database, InvertedIndex index);
  // The database's keypoint store (to prepare an image's keypoints before a change); null when it
  // stores none.
  static const KeypointStore* keypoints(const ImageDatabase& database) { return database.keypoints_.get(); }
};

}  // namespace bovw::retrieval_detail
