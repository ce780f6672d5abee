// KeypointStore: quantising, sorting and (de)serialising the keypoints kept for verification.
#include "retrieval/keypoint_store.hpp"

#include <bovw/error.hpp>

#include <algorithm>
#include <cmath>

namespace bovw::retrieval_detail {

namespace {

constexpr std::uint32_t kNothingStored = 0xffffffffu;
constexpr double kSteps = 65535.0;  // quantisation steps across the image
constexpr std::size_t kKeypointBytes = 16;  // without scale and angle; 18 with them

std::uint16_t quantise(float coordinate, std::uint32_t extent) {
  return static_cast<std::uint16_t>(std::lround(std::clamp(coordinate / extent, 0.0f, 1.0f) * kSteps));
}

bool lacksScaleAngles(const KeypointStore::StoredImage& image) { return !image.hasScaleAngles(); }

}  // namespace

std::uint8_t KeypointStore::quantiseLogScale(float size) {
  if (!(size > 1.0f)) return 0;  // also NaN
  return static_cast<std::uint8_t>(std::min(255L, std::lround(kLogScaleSteps * std::log2(static_cast<double>(size)))));
}

std::uint8_t KeypointStore::quantiseAngle(float degrees) {
  if (!(degrees >= 0.0f && degrees <= 360.0f)) return 0;  // -1: the detector gives no orientation
  return static_cast<std::uint8_t>(std::lround(degrees * (256.0 / 360.0)) & 0xff);
}

KeypointStore::KeypointStore(KeypointStore&& other) noexcept
    : words_(other.words_),
      images_(std::move(other.images_)),
      without_scale_angles_(other.without_scale_angles_),
      postings_(std::move(other.postings_)),
      resident_(std::move(other.resident_)),
      resident_failure_(std::move(other.resident_failure_)) {}

KeypointStore& KeypointStore::operator=(KeypointStore&& other) noexcept {
  words_ = other.words_;
  images_ = std::move(other.images_);
  without_scale_angles_ = other.without_scale_angles_;
  postings_ = std::move(other.postings_);
  resident_ = std::move(other.resident_);
  resident_failure_ = std::move(other.resident_failure_);
  return *this;
}

std::vector<std::uint32_t> KeypointStore::wordOrder(const std::vector<Keypoint>& keypoints) const {
  const std::size_t n = keypoints.size();
  std::vector<std::uint32_t> order(n);
  if (static_cast<std::size_t>(words_) <= 4 * n) {  // a counting sort: one pass, one scatter
    std::vector<std::uint32_t> first(static_cast<std::size_t>(words_) + 1, 0);
    for (const Keypoint& k : keypoints) ++first[k.word + 1];
    for (std::size_t w = 1; w < first.size(); ++w) first[w] += first[w - 1];
    for (std::size_t i = 0; i < n; ++i) order[first[keypoints[i].word]++] = static_cast<std::uint32_t>(i);
    return order;
  }
  // A large vocabulary next to the image: (word, index) packed into one integer and sorted (unique
  // keys, so the sort is stable; a comparator reaching into the keypoints was most of an add's time).
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = std::uint64_t{keypoints[i].word} << 32 | i;
  std::sort(keys.begin(), keys.end());
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(keys[i]);
  return order;
}

KeypointStore::StoredImage KeypointStore::prepare(const ImageWords& image, const std::string& name) const {
  auto refuse = [&](const std::string& problem) { throw InvalidInput("keypoints of '" + name + "': " + problem); };
  if (image.points.size() != image.words.size() || image.points.size() != image.signatures.size())
    refuse(std::to_string(image.points.size()) + " points, " + std::to_string(image.words.size()) + " words and " +
           std::to_string(image.signatures.size()) + " signatures");
  const bool with_scale_angles = !image.sizes.empty() || !image.angles.empty();
  if (with_scale_angles && (image.sizes.size() != image.points.size() || image.angles.size() != image.points.size()))
    refuse(std::to_string(image.points.size()) + " points, " + std::to_string(image.sizes.size()) + " sizes and " +
           std::to_string(image.angles.size()) + " angles (both one per point, or both absent)");
  if (!image.points.empty() && (image.image_size.width < 1 || image.image_size.height < 1))
    refuse("image size " + std::to_string(image.image_size.width) + " x " + std::to_string(image.image_size.height));
  StoredImage stored;
  stored.width = static_cast<std::uint32_t>(std::max(0, image.image_size.width));
  stored.height = static_cast<std::uint32_t>(std::max(0, image.image_size.height));
  stored.keypoints.reserve(image.points.size());
  std::vector<ScaleAngle> scale_angles;
  for (std::size_t i = 0; i < image.points.size(); ++i) {
    const cv::Point2f p = image.points[i];
    const std::int32_t w = image.words[i];
    if (w < 0 || w >= words_)
      refuse("word " + std::to_string(w) + " outside the vocabulary's " + std::to_string(words_) + " words");
    // Keypoint centres lie inside the image; a little slack for sub-pixel interpolation at the border.
    if (!(p.x >= -1.0f && p.y >= -1.0f && p.x <= image.image_size.width + 1.0f && p.y <= image.image_size.height + 1.0f))
      refuse("point (" + std::to_string(p.x) + ", " + std::to_string(p.y) + ") outside the image");
    stored.keypoints.push_back({static_cast<std::uint32_t>(w), quantise(p.x, stored.width), quantise(p.y, stored.height),
                                image.signatures[i]});
    if (with_scale_angles) scale_angles.push_back({quantiseLogScale(image.sizes[i]), quantiseAngle(image.angles[i])});
  }
  const std::vector<std::uint32_t> order = wordOrder(stored.keypoints);
  std::vector<Keypoint> keypoints;
  keypoints.reserve(order.size());
  for (const std::uint32_t i : order) keypoints.push_back(stored.keypoints[i]);
  stored.keypoints = std::move(keypoints);
  if (with_scale_angles)
    for (const std::uint32_t i : order) stored.scale_angles.push_back(scale_angles[i]);
  return stored;
}

void KeypointStore::put(ImageId id, StoredImage image) {
  const std::lock_guard<std::mutex> one_writer(writing_);
  // images_ changes only under writing_, so reading it here races with nothing.
  const std::vector<std::uint32_t> words =
      prepareCopies(&image, id < images_.size() && images_[id] ? &*images_[id] : nullptr);
  {
    const auto lock = mutex_.write();
    if (images_.size() <= id) images_.resize(static_cast<std::size_t>(id) + 1);
    if (images_[id]) {
      if (lacksScaleAngles(*images_[id])) --without_scale_angles_;
      unfile(id, *images_[id]);
    }
    if (lacksScaleAngles(image)) ++without_scale_angles_;
    file(id, image);
    images_[id] = std::move(image);
    postings_.dropCopies();
  }
  followResident(words);
}

void KeypointStore::append(KeypointStore&& later, ImageId offset) {
  const std::lock_guard<std::mutex> one_writer(writing_);
  const std::lock_guard<std::mutex> later_writer(later.writing_);
  const auto later_lock = later.mutex_.write();
  const auto lock = mutex_.write();
  if (images_.size() > offset)
    throw Error("internal error: keypoints appended at id " + std::to_string(offset) + " below the " +
                std::to_string(images_.size()) + " held");
  images_.resize(std::size_t{offset} + later.images_.size());
  postings_.append(later.postings_, offset);
  for (std::size_t id = 0; id < later.images_.size(); ++id) images_[offset + id] = std::move(later.images_[id]);
  without_scale_angles_ += later.without_scale_angles_;
  later = KeypointStore(later.words_);
  followResident({});
}

void KeypointStore::erase(ImageId id) {
  const std::lock_guard<std::mutex> one_writer(writing_);
  if (id >= images_.size() || !images_[id]) return;
  const std::vector<std::uint32_t> words = prepareCopies(nullptr, &*images_[id]);
  {
    const auto lock = mutex_.write();
    if (lacksScaleAngles(*images_[id])) --without_scale_angles_;
    unfile(id, *images_[id]);
    images_[id].reset();
    postings_.dropCopies();
  }
  followResident(words);
}

void KeypointStore::keepResident(const MakeResident& make) {
  const std::lock_guard<std::mutex> one_writer(writing_);
  std::shared_ptr<ResidentSignatures> made = make(postings_);  // no list changes under writing_
  const auto lock = mutex_.write();
  resident_ = std::move(made);
  resident_failure_.clear();
}

std::shared_ptr<ResidentSignatures> KeypointStore::resident() const {
  const auto lock = mutex_.read();
  return resident_;
}

std::string KeypointStore::residentFailure() const {
  const auto lock = mutex_.read();
  return resident_failure_;
}

void KeypointStore::followResident(const std::vector<std::uint32_t>& words) {
  if (!resident_) return;
  try {
    resident_->follow(postings_, words);
  } catch (const std::exception& e) {
    // The change is made (and, in a live database, durable): the copy goes, not the change.
    const auto lock = mutex_.write();
    resident_.reset();
    resident_failure_ = e.what();
  }
}

std::vector<std::uint32_t> KeypointStore::prepareCopies(const StoredImage* adding, const StoredImage* removing) {
  // The words either image touches, each with the features it gains: both keypoint lists are in word
  // order (prepare; checked on reading), so one merge of the two gives them in order.
  static const std::vector<Keypoint> none;
  const std::vector<Keypoint>& gained = adding ? adding->keypoints : none;
  const std::vector<Keypoint>& lost = removing ? removing->keypoints : none;
  std::vector<std::uint32_t> words;
  std::vector<std::size_t> gains, losses;
  auto note = [&](std::uint32_t word, std::size_t gain, std::size_t loss) {
    if (words.empty() || words.back() != word) {
      words.push_back(word);
      gains.push_back(0);
      losses.push_back(0);
    }
    gains.back() += gain;
    losses.back() += loss;
  };
  for (std::size_t i = 0, j = 0; i < gained.size() || j < lost.size();) {
    if (j == lost.size() || (i < gained.size() && gained[i].word <= lost[j].word))
      note(gained[i++].word, 1, 0);
    else
      note(lost[j++].word, 0, 1);
  }
  postings_.prepareCopies(words, gains, losses);
  return words;
}

std::vector<SignaturePostings::Snapshot> KeypointStore::signatureLists(const std::vector<std::uint32_t>& words) const {
  std::vector<SignaturePostings::Snapshot> lists;
  lists.reserve(words.size());
  const auto lock = mutex_.read();
  for (const std::uint32_t word : words) lists.push_back(postings_.snapshot(word));
  return lists;
}

bool KeypointStore::storesScaleAngles() const {
  const auto lock = mutex_.read();
  return without_scale_angles_ == 0;
}

void KeypointStore::file(ImageId id, const StoredImage& image) {
  std::vector<std::uint64_t> signatures;
  const std::vector<Keypoint>& keys = image.keypoints;
  for (std::size_t i = 0; i < keys.size();) {  // one word's keypoints at a time (they are in word order)
    signatures.clear();
    std::size_t end = i;
    for (; end < keys.size() && keys[end].word == keys[i].word; ++end) signatures.push_back(keys[end].signature);
    postings_.insert(id, keys[i].word, signatures.data(), signatures.size());
    i = end;
  }
}

void KeypointStore::unfile(ImageId id, const StoredImage& image) {
  const std::vector<Keypoint>& keys = image.keypoints;
  std::vector<std::uint32_t> words;  // each once (the keypoints are in word order)
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (i == 0 || keys[i].word != keys[i - 1].word) words.push_back(keys[i].word);
  postings_.erase(id, words);
}

std::optional<ImageWords> KeypointStore::get(ImageId id) const {
  const auto lock = mutex_.read();
  if (id >= images_.size() || !images_[id]) return std::nullopt;
  const StoredImage& stored = *images_[id];
  ImageWords image;
  image.image_size = cv::Size(static_cast<int>(stored.width), static_cast<int>(stored.height));
  image.points.reserve(stored.keypoints.size());
  image.words.reserve(stored.keypoints.size());
  image.signatures.reserve(stored.keypoints.size());
  for (const Keypoint& k : stored.keypoints) {
    image.points.emplace_back(static_cast<float>(k.x / kSteps * stored.width),
                              static_cast<float>(k.y / kSteps * stored.height));
    image.words.push_back(static_cast<std::int32_t>(k.word));
    image.signatures.push_back(k.signature);
  }
  if (!stored.keypoints.empty() && stored.hasScaleAngles())
    for (const ScaleAngle& s : stored.scale_angles) {
      image.sizes.push_back(static_cast<float>(std::exp2(s.log_scale / kLogScaleSteps)));
      image.angles.push_back(static_cast<float>(s.angle * (360.0 / 256.0)));
    }
  return image;
}

std::optional<KeypointStore::StoredImage> KeypointStore::stored(ImageId id) const {
  const auto lock = mutex_.read();
  if (id >= images_.size()) return std::nullopt;
  return images_[id];
}

void KeypointStore::write(detail::ByteWriter& out) const {
  const auto lock = mutex_.read();
  writeSlots(out);
}

void KeypointStore::writeBlock(detail::ByteWriter& out) const {
  const auto lock = mutex_.read();
  std::uint64_t bytes = 4;  // S
  for (const auto& image : images_) bytes += image ? imageBytes(*image) : 4;
  out.block(bytes, "keypoint", [&](detail::ByteWriter& block) { writeSlots(block); });
}

void KeypointStore::writeSlots(detail::ByteWriter& out) const {
  out.u32(static_cast<std::uint32_t>(images_.size()));
  for (const auto& image : images_) {
    if (!image) {
      out.u32(kNothingStored);
      continue;
    }
    writeImage(out, *image);
  }
}

// Whether writeImage writes the image's scale and angle: only for keypoints that have them.
bool KeypointStore::writesScaleAngles(const StoredImage& image) {
  return !image.keypoints.empty() && image.hasScaleAngles();
}

std::uint64_t KeypointStore::imageBytes(const StoredImage& image) {
  return 12 + image.keypoints.size() * (kKeypointBytes + (writesScaleAngles(image) ? 2 : 0));
}

void KeypointStore::writeImage(detail::ByteWriter& out, const StoredImage& image) {
  const bool scale_angles = writesScaleAngles(image);
  out.u32(static_cast<std::uint32_t>(image.keypoints.size()) | (scale_angles ? kWithScaleAngle : 0));
  out.u32(image.width);
  out.u32(image.height);
  for (std::size_t i = 0; i < image.keypoints.size(); ++i) {
    const Keypoint& k = image.keypoints[i];
    out.u32(k.word);
    out.number(k.x);
    out.number(k.y);
    out.u64(k.signature);
    if (scale_angles) {
      out.number(image.scale_angles[i].log_scale);
      out.number(image.scale_angles[i].angle);
    }
  }
}

KeypointStore::StoredImage KeypointStore::readImage(detail::ByteReader& in, std::uint32_t count, int words,
                                                    const std::string& id, bool scale_angles_allowed) {
  StoredImage image;
  const bool scale_angles = (count & kWithScaleAngle) != 0;
  if (scale_angles && !scale_angles_allowed)
    in.fail("image " + id + " declares " + std::to_string(count) + " keypoints (bit 31: with scale and angle, which "
            "this version does not have)");
  count &= ~kWithScaleAngle;
  if (scale_angles && count == 0)  // writeImage never sets the bit without keypoints: one encoding per image
    in.fail("image " + id + " declares scale and angle for no keypoints");
  image.width = in.u32("an image's width");
  image.height = in.u32("an image's height");
  if (count > in.remaining() / (kKeypointBytes + (scale_angles ? 2 : 0)))
    in.fail("image " + id + " declares " + std::to_string(count) + " keypoints, more than the " +
            std::to_string(in.remaining()) + " bytes left hold");
  if (count > 0 && (image.width == 0 || image.height == 0 || image.width > INT32_MAX || image.height > INT32_MAX))
    in.fail("image " + id + " has keypoints but a size of " + std::to_string(image.width) + " x " +
            std::to_string(image.height));
  image.keypoints.resize(count);
  if (scale_angles) image.scale_angles.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    Keypoint& k = image.keypoints[i];
    k.word = in.u32("a keypoint");
    k.x = in.number<std::uint16_t>("a keypoint");
    k.y = in.number<std::uint16_t>("a keypoint");
    k.signature = in.u64("a keypoint");
    if (scale_angles) {
      image.scale_angles[i].log_scale = in.number<std::uint8_t>("a keypoint");
      image.scale_angles[i].angle = in.number<std::uint8_t>("a keypoint");
    }
    if (k.word >= static_cast<std::uint32_t>(words))
      in.fail("image " + id + " has a keypoint of word " + std::to_string(k.word) + " (K = " + std::to_string(words) +
              ")");
  }
  if (!std::is_sorted(image.keypoints.begin(), image.keypoints.end(),
                      [](const Keypoint& a, const Keypoint& b) { return a.word < b.word; }))
    in.fail("image " + id + "'s keypoints are not in word order");
  return image;
}

KeypointStore KeypointStore::read(detail::ByteReader& in, const InvertedIndex& index, bool scale_angles_allowed) {
  const int words = index.vocabulary().words;
  KeypointStore store(words);
  const std::uint32_t slots = in.u32("the keypoints' image count");
  if (slots != index.idCount())
    in.fail("keypoints of " + std::to_string(slots) + " image ids, but the index has assigned " +
            std::to_string(index.idCount()));
  if (slots > in.remaining() / 4) in.fail("keypoints of " + std::to_string(slots) + " images in a block of " +
                                          std::to_string(in.remaining()) + " bytes");
  std::vector<bool> live(slots, false);
  for (ImageId id : index.ids()) live[id] = true;
  store.images_.resize(slots);
  for (std::uint32_t id = 0; id < slots; ++id) {
    const std::uint32_t count = in.u32("an image's keypoint count");
    if ((count != kNothingStored) != live[id])
      in.fail("image id " + std::to_string(id) + (live[id] ? " is indexed but has no keypoints stored"
                                                           : " is not an indexed image but has keypoints stored"));
    if (count == kNothingStored) continue;
    store.images_[id] = readImage(in, count, words, std::to_string(id), scale_angles_allowed);
    if (lacksScaleAngles(*store.images_[id])) ++store.without_scale_angles_;
    store.file(id, *store.images_[id]);
  }
  return store;
}

}  // namespace bovw::retrieval_detail
