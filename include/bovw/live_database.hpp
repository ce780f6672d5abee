// A database that changes while others search it: images are added and removed one call at a
// time, each call durable when it returns, while any number of threads and processes search. The
// durable state lives in LMDB (a folder holding data.mdb and lock.mdb; docs/FORMATS.md, why LMDB
// in docs/STORAGE.md); every process holds the inverted index in memory, built when it opens the
// database (from a checkpoint of the index that writers keep, and the writes after it: checkpoint())
// and brought up to date with refresh() (ImageSearch calls it before every search).
//
//   bovw::LiveDatabase photos = bovw::LiveDatabase::open("photos.bovwlive");
//   photos.add({{"new.jpg", words}});          // durable, and searchable, when it returns
//   photos.remove({"old.jpg"});
//   photos.database().index().query(...)       // or through ImageSearch::open("photos.bovwlive")
#pragma once

#include <bovw/feature_spec.hpp>
#include <bovw/image_database.hpp>
#include <bovw/image_words.hpp>
#include <bovw/sharded_database.hpp>
#include <bovw/vocabulary.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bovw {

// An image to add: its name and its words (and keypoints, for a database that stores them).
struct NamedImageWords {
  std::string name;
  ImageWords words;
};

// Where an opened live database keeps the posting lists of its checkpoint (docs/FORMATS.md, "The
// checkpoint"; figures in docs/PERFORMANCE.md, "Live databases"). Either way the rankings are the
// same, the images added after the checkpoint have lists of their own in the process's memory,
// removals copy the lists they change, and a database without a checkpoint is read from its records
// into the process's memory.
enum class PostingMemory {
  // Copied into the process's memory (one region of transparent huge pages, read in place there):
  // the fastest queries, for a process that serves many (2.5 GB at a million images). open()
  // returns once the lists are searchable in place, as with Mapped, and a thread of the database
  // copies them meanwhile and puts the copy in their place (waitForCopiedLists).
  Copied,
  // Read in place where LMDB maps the store (the page cache, shared by every process): for a
  // process that opens, searches or writes a few times and exits (1.3-2.5 s at a million images, 0.13
  // GB of its own); its queries ran 1.2x slower at p50, 1.4-2.5x at p99, on the 2-core VM. It holds
  // an LMDB snapshot, moved on at each write and refresh(): a process that holds one open and does neither
  // keeps other processes' writes from reusing pages, and the file grows.
  Mapped,
  // Not read at the open: the copy is made, as with Mapped, when the process first needs it
  // (database(), generation(), checkpoint(), or a write due to write the checkpoint; refresh()
  // makes none and returns false before it). Until then add, put and remove write the store alone
  // (the checks of names and words included), so that their cost follows
  // the images they write rather than the database: for a process that only writes (bovw add, bovw
  // remove). At a million images an open and a first write of 1,000 took 24 s, mostly making and
  // then changing a copy that such a process never searches.
  Deferred,
};

class LiveDatabase {
 public:
  // A new, empty database in the folder `path`, which must not exist. Throws InvalidInput as
  // ImageDatabase's constructor, IoError if the folder cannot be made.
  static LiveDatabase create(const std::string& path, Vocabulary vocabulary, FeatureSpec features,
                             DatabaseOptions options = {});
  // A new database in the folder `path` holding the images of `images` (in id order).
  static LiveDatabase create(const std::string& path, const ImageDatabase& images);
  // A new database in the folder `path` holding the images of the database at `source` (a .bovwdb
  // file or the manifest of its shards, read as ShardedDatabase::load reads them) under their
  // names, in the same order: how an existing database becomes live. Throws as load and create.
  static LiveDatabase convert(const std::string& source, const std::string& path);
  // Throws InvalidInput naming the folder if it is not a live database, is damaged, or is open in
  // this process already (LMDB's locks are per process: share the one object between threads);
  // IoError if it cannot be read.
  static LiveDatabase open(const std::string& path, PostingMemory lists = PostingMemory::Copied);
  // Whether `path` is a folder holding a live database's data file (what open() expects).
  static bool holdsLiveDatabase(const std::string& path);

  ~LiveDatabase();
  LiveDatabase(LiveDatabase&&) noexcept;
  LiveDatabase& operator=(LiveDatabase&&) noexcept;

  const std::string& path() const;
  // The database's settings, fixed when it was made (a Deferred open reads them alone).
  const Vocabulary& vocabulary() const;
  const FeatureSpec& features() const;
  bool storesKeypoints() const;
  // The images the store holds now, every process's writes counted, and whether it holds one named
  // `name`: one read of the store each, which makes no copy.
  std::size_t size() const;
  bool holds(const std::string& name) const;
  // The images the store holds now, by id (the order they were added), with their names: one read
  // of the store, which makes no copy (bovw list at a million images).
  std::vector<std::pair<ImageId, std::string>> names() const;
  // This process's copy, as of the last add, remove or refresh. Safe to search from any thread
  // while another calls add, remove or refresh: a search sees the state before or after each of
  // them, never between.
  const ImageDatabase& database() const;
  // Counts the completed writes: the state database() shows.
  std::uint64_t generation() const;

  // Brings database() up to the last write committed by any process; returns whether it changed.
  // Costs one read of the store when nothing changed.
  bool refresh();
  // refresh(), except that it returns false at once while this process is writing or refreshing:
  // that write or refresh brings database() up to date itself. What a search calls, so that it never
  // waits for this process's writer (it sees the state before the write instead).
  bool refreshUnlessBusy();

  // Adds the images in one durable write: all of them or, if any fails, none. Throws InvalidInput
  // naming the image for a name already in the database (or twice in `images`), words outside the
  // vocabulary, or keypoints that do not fit (ImageDatabase::add); IoError if the write fails (a full
  // disk). Waits while another process writes. Returns their ids. Also brings in the writes of others.
  std::vector<ImageId> add(const std::vector<NamedImageWords>& images);
  // The same, except that an image whose name the database holds replaces that image (under a new
  // id), in the same write: a search sees the old image or the new one, never neither.
  std::vector<ImageId> put(const std::vector<NamedImageWords>& images);
  // Removes the images in one durable write, all or none: throws InvalidInput naming the first name
  // the database does not hold.
  void remove(const std::vector<std::string>& names);

  // Writes the checkpoint: the index as it is now, stored so that open() copies it instead of
  // rebuilding it from every image's record (then replays only the writes after it). Writers do this
  // themselves once the images added and removed since the last one reach an eighth of the images
  // (and 10,000), and create() and convert() once; a database that stores keypoints has none (its
  // records are read for them anyway). One durable write, like add(); throws IoError if it fails.
  void checkpoint();
  // Whether a write that adds `added` images to the live database at `path` and removes `removed`,
  // made now by a process that opens it, would write the checkpoint: those since the last one reach
  // their share, or the checkpoint is missing or refused. Another process's write in between may
  // change the answer. A one-shot writer asks before it opens the database, to prepare for the
  // checkpoint's gigabytes (`bovw add` and `bovw remove` then start again with glibc's malloc in huge
  // pages: the checkpoint of 1,120,000 images took 11.4-11.9 s instead of 23.4-25.4 on the 2-core VM).
  // Throws as open() for a folder that is not a live database.
  static bool checkpointDue(const std::string& path, std::size_t added, std::size_t removed);
  // How open() made this process's copy: from the checkpoint of write `checkpoint` and the writes
  // after it, or from every image's record (`checkpoint` empty): the database had no checkpoint, or
  // `refused` says why it was not used (damaged, written on a host of the other byte order, ...).
  // Nothing is lost either way; after a refusal the next write writes a new one. `kept_norms`: the
  // default scoring's norms were the checkpoint's, brought up to the writes after it, so the first
  // query need not compute them from every posting (a checkpoint written before bovw kept them has
  // none). Empty while a Deferred open's copy is not made.
  struct Opening {
    std::optional<std::uint64_t> checkpoint;
    std::string refused;
    bool kept_norms = false;
  };
  const Opening& opening() const;
  // Waits until a PostingMemory::Copied open's lists are read from the process's memory (opened from
  // the records: at once); true then, false with PostingMemory::Mapped or where copying them failed
  // (they stay in place, as with Mapped). Searches and writes need not wait for it.
  bool waitForCopiedLists() const;

 private:
  struct Impl;
  explicit LiveDatabase(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace bovw
