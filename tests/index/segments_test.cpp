// An index whose posting lists lie in segments of image ids (index/index_data.hpp: a live database's
// checkpoint, and the images added after it) against the same images with one list per word: the same
// ids, names, order and score bits for every scoring option and both strategies, the same norms, the
// same file bytes; and adds (into the last segment, a new one where it is sealed) and removals (from
// any segment) leave it ranking as an index made afresh of the final images under the same ids.
#include "index/index_test_support.hpp"
#include "index/incremental_norms.hpp"
#include "index/index_editor.hpp"
#include "index/posting_list.hpp"

#include <sstream>

namespace bovw::test {
namespace {

using index_detail::IndexChange;
using index_detail::IndexData;
using index_detail::IndexEditor;
using index_detail::Segment;
using index_detail::SparseImage;

VocabularySignature signature(int words) { return {words, 64, DescriptorType::parse("surf64"), 0}; }

SparseImage sparseImage(ImageId id, const Counts& counts) {
  SparseImage image{id, imageName(id), {}};
  for (std::size_t w = 0; w < counts.size(); ++w)
    if (counts[w] > 0) image.words.push_back({static_cast<std::uint32_t>(w), counts[w]});
  return image;
}

// An index of `images` (id -> histogram) in one segment, made as a live database makes its copy:
// the images under their ids, the others unused.
InvertedIndex indexOf(int words, const std::map<ImageId, Counts>& images, std::uint64_t next_id) {
  InvertedIndex index(signature(words));
  IndexChange change;
  for (const auto& [id, counts] : images) change.added.push_back(sparseImage(id, counts));
  change.next_id = next_id;
  IndexEditor::apply(index, change);
  return index;
}

// The same index with its lists cut into segments at `cuts` (ascending ids), the first sealed, as a
// checkpoint's.
InvertedIndex segmented(const InvertedIndex& whole, const std::vector<ImageId>& cuts) {
  const IndexData& data = IndexEditor::data(whole);
  IndexData split;
  split.vocabulary = data.vocabulary;
  split.names = data.names;
  split.ids = data.ids;
  split.segments.clear();
  for (std::size_t k = 0; k <= cuts.size(); ++k) {
    Segment segment;
    segment.first = k == 0 ? 0 : cuts[k - 1];
    segment.lists.resize(data.words());
    segment.sealed = k == 0;
    split.segments.push_back(std::move(segment));
  }
  for (std::size_t w = 0; w < data.words(); ++w)
    data.segments.front().lists[w].forEach(
        [&](ImageId image, std::int32_t count) { split.segmentOf(image).lists[w].push_back(image, count); });
  for (Segment& segment : split.segments)
    for (auto& list : segment.lists) list.adapt(split.names.size());
  return IndexEditor::make(std::move(split));
}

// Both indexes answer every query alike: ids, names, order and the scores' bits.
void expectSameAnswers(const InvertedIndex& got, const InvertedIndex& reference, std::mt19937_64& rng, int words) {
  for (int q = 0; q < 6; ++q) {
    const Counts query = randomCounts(rng, words, std::uniform_int_distribution<int>(1, 50)(rng));
    const std::size_t top_k = std::uniform_int_distribution<std::size_t>(1, 40)(rng);
    for (const ScoringOptions& options : everyOptionSet())
      for (QueryStrategy strategy : {QueryStrategy::Exhaustive, QueryStrategy::Pruned}) {
        SCOPED_TRACE(toString(options) + " alpha " + std::to_string(options.power) + ", top " + std::to_string(top_k) +
                     (strategy == QueryStrategy::Pruned ? ", pruned" : ", exhaustive"));
        const auto a = got.query(view(query), top_k, options, strategy);
        const auto b = reference.query(view(query), top_k, options, strategy);
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t r = 0; r < a.size(); ++r) {
          EXPECT_EQ(a[r].id, b[r].id) << "rank " << r;
          EXPECT_EQ(a[r].name, b[r].name) << "rank " << r;
          EXPECT_EQ(bits(a[r].score), bits(b[r].score)) << "rank " << r << ": " << a[r].score << " vs " << b[r].score;
        }
      }
  }
  EXPECT_EQ(got.postingCount(), reference.postingCount());
}

// Random images over `words` words, some of them copies (exact ties) or empty, ids with gaps.
std::map<ImageId, Counts> randomImages(std::mt19937_64& rng, int words, int n, std::uint64_t& next_id) {
  std::map<ImageId, Counts> images;
  const int used = std::uniform_int_distribution<int>(1, words)(rng);
  for (int i = 0; i < n; ++i) {
    next_id += std::uniform_int_distribution<int>(0, 9)(rng) == 0 ? 2 : 1;  // now and then a gap
    Counts counts;
    if (!images.empty() && i % 5 == 0)
      counts = std::next(images.begin(), std::uniform_int_distribution<int>(0, static_cast<int>(images.size()) - 1)(rng))->second;
    else
      counts = randomCounts(rng, used, std::uniform_int_distribution<int>(0, 60)(rng));
    counts.resize(static_cast<std::size_t>(words), 0);
    if (i % 4 == 1) counts[0] += 300;  // a count beyond a byte (the lists' large counts)
    images[static_cast<ImageId>(next_id - 1)] = counts;
  }
  return images;
}

// Cuts at random ids of [1, ids), ascending and distinct; one or two.
std::vector<ImageId> randomCuts(std::mt19937_64& rng, std::uint64_t ids) {
  std::vector<ImageId> cuts;
  for (int c = std::uniform_int_distribution<int>(1, 2)(rng); c > 0; --c)
    cuts.push_back(static_cast<ImageId>(std::uniform_int_distribution<std::uint64_t>(1, ids - 1)(rng)));
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

TEST(IndexSegments, AnswerAsOneListPerWord) {
  BOVW_SEEDED_RNG(rng);
  for (int round = 0; round < 4; ++round) {
    const int words = std::uniform_int_distribution<int>(3, 200)(rng);
    std::uint64_t next_id = 0;
    const auto images = randomImages(rng, words, std::uniform_int_distribution<int>(2, 900)(rng), next_id);
    SCOPED_TRACE("K = " + std::to_string(words) + ", " + std::to_string(images.size()) + " images");
    const InvertedIndex whole = indexOf(words, images, next_id);
    const InvertedIndex split = segmented(whole, randomCuts(rng, next_id));
    expectSameAnswers(split, whole, rng, words);
    // The norms of every option set, and the default scoring's moments, bit for bit.
    std::vector<ImageId> ids;
    for (const auto& [id, counts] : images) ids.push_back(id);
    for (const ScoringOptions& options : everyOptionSet()) {
      const std::vector<double> a = split.norms(ids, options), b = whole.norms(ids, options);
      for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(bits(a[i]), bits(b[i])) << "image " << ids[i];
    }
    const auto moments = [](const InvertedIndex& index) {
      return index_detail::IncrementalNorms(IndexEditor::data(index), ScoringOptions{}).moments();
    };
    EXPECT_EQ(moments(split).m0, moments(whole).m0);
    EXPECT_TRUE(moments(split).m1 == moments(whole).m1);
    // The same file, byte for byte: one list per word.
    std::ostringstream a, b;
    split.write(a);
    whole.write(b);
    EXPECT_TRUE(a.str() == b.str()) << "the files differ";
  }
}

TEST(IndexSegments, AddsAndRemovesAsIndexedAfresh) {
  BOVW_SEEDED_RNG(rng);
  for (int round = 0; round < 4; ++round) {
    const int words = std::uniform_int_distribution<int>(3, 150)(rng);
    std::uint64_t next_id = 0;
    auto images = randomImages(rng, words, std::uniform_int_distribution<int>(2, 600)(rng), next_id);
    SCOPED_TRACE("K = " + std::to_string(words) + ", " + std::to_string(images.size()) + " images");
    const std::vector<ImageId> cuts = round % 2 == 0 ? std::vector<ImageId>{} : randomCuts(rng, next_id);
    InvertedIndex index = segmented(indexOf(words, images, next_id), cuts);  // with no cut: one sealed segment
    for (int change = 0; change < 5; ++change) {
      // Some images out, of any segment (a few or many: the two ways removals go), others in.
      IndexChange edit;
      const int removals = change == 2 ? 20 : std::uniform_int_distribution<int>(0, 3)(rng);
      for (int r = 0; r < removals && images.size() > 1; ++r) {
        const auto gone = std::next(images.begin(), std::uniform_int_distribution<int>(0, static_cast<int>(images.size()) - 1)(rng));
        edit.removed.push_back(gone->first);
        images.erase(gone);
      }
      const auto added = randomImages(rng, words, std::uniform_int_distribution<int>(0, 40)(rng), next_id);
      for (const auto& [id, counts] : added) edit.added.push_back(sparseImage(id, counts));
      images.insert(added.begin(), added.end());
      edit.next_id = next_id;
      IndexEditor::apply(index, edit);
      if (change == 3) {  // one image through the public add
        Counts counts = randomCounts(rng, words, 30);
        images[index.add(imageName(next_id), view(counts))] = counts;
        ++next_id;
      }
      const IndexData& data = IndexEditor::data(index);
      EXPECT_LE(data.segments.size(), cuts.size() + 2) << "adds after a sealed segment go into one segment";
      expectSameAnswers(index, indexOf(words, images, next_id), rng, words);
    }
  }
}

}  // namespace
}  // namespace bovw::test
