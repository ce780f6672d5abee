// The job's file list, broadcast in bovw's little-endian serialisation, and its split into parts.
#include "distributed/work_split.hpp"

#include "distributed/rank_message.hpp"

#include <algorithm>
#include <filesystem>
#include <numeric>

namespace bovw {

FileList withFileSizes(std::vector<std::string> paths) {
  FileList list;
  for (const std::string& path : paths) {
    std::error_code error;
    const std::uintmax_t size = std::filesystem::file_size(path, error);
    list.sizes.push_back(error ? 0 : size);
  }
  list.paths = std::move(paths);
  return list;
}

FileList broadcastFileList(Communicator& ranks, const FileList& list, int root) {
  if (ranks.size() == 1) return list;
  Bytes bytes;
  if (ranks.rank() == root)
    bytes = detail::writeMessage([&](detail::ByteWriter& w) {
      w.u64(list.paths.size());
      for (std::size_t i = 0; i < list.paths.size(); ++i) {
        detail::writeText(w, list.paths[i]);
        w.u64(list.sizes[i]);
      }
    });
  ranks.broadcast(bytes, root);
  detail::ByteReader r = detail::messageReader(bytes, "rank " + std::to_string(root) + "'s file list");
  FileList received;
  const std::size_t count = detail::readCount(r, 16, "the file count");  // 16: a path's length and its size
  for (std::size_t i = 0; i < count; ++i) {
    received.paths.push_back(detail::readText(r, "a path"));
    received.sizes.push_back(r.u64("a file size"));
  }
  detail::expectMessageEnd(r);
  return received;
}

std::vector<std::size_t> splitBySize(const std::vector<std::uintmax_t>& sizes, std::size_t parts) {
  long double total = std::accumulate(sizes.begin(), sizes.end(), 0.0L);
  const bool by_count = total == 0;
  if (by_count) total = static_cast<long double>(sizes.size());
  std::vector<std::size_t> part(sizes.size());
  long double before = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const long double size = by_count ? 1.0L : static_cast<long double>(sizes[i]);
    const auto p = static_cast<std::size_t>((before + size / 2) / total * static_cast<long double>(parts));
    part[i] = std::min(p, parts - 1);
    before += size;
  }
  return part;
}

int rankOfPart(std::size_t part, int ranks) { return static_cast<int>(part % static_cast<std::size_t>(ranks)); }

std::vector<std::string> filesOfRank(const FileList& list, const std::vector<std::size_t>& part_of, int ranks,
                                     int rank) {
  std::vector<std::string> files;
  for (std::size_t i = 0; i < list.paths.size(); ++i)
    if (rankOfPart(part_of[i], ranks) == rank) files.push_back(list.paths[i]);
  return files;
}

}  // namespace bovw
