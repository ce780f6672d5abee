// throwIfAnyRankFailed: one sum to learn whether any rank failed; only then the failures travel.
#include <bovw/rank_failures.hpp>

#include "distributed/rank_message.hpp"

#include <bovw/error.hpp>

#include <limits>
#include <string>
#include <vector>

namespace bovw {

namespace {

// The kinds of exception a failure is rebuilt as on the ranks that did not meet it.
enum class Kind : std::uint32_t { Invalid = 1, Io = 2, Capacity = 3, Other = 4 };

struct Failure {
  std::int64_t order = std::numeric_limits<std::int64_t>::max();
  Kind kind = Kind::Other;
  std::vector<std::string> files;  // InvalidInput's
  std::string message;             // InvalidInput's problem, else what()
};

Failure describe(const std::exception_ptr& failure, std::int64_t order) {
  Failure f;
  f.order = order;
  try {
    std::rethrow_exception(failure);
  } catch (const InvalidInput& e) {
    f.kind = Kind::Invalid;
    f.files = e.files();
    f.message = e.problem();
  } catch (const IoError& e) {
    f.kind = Kind::Io;
    f.message = e.what();
  } catch (const CapacityError& e) {
    f.kind = Kind::Capacity;
    f.message = e.what();
  } catch (const std::exception& e) {
    f.message = e.what();
  } catch (...) {
    f.message = "a failure that is not a std::exception";
  }
  return f;
}

void writeText(detail::ByteWriter& out, const std::string& text) {
  out.u64(text.size());
  out.text(text);
}

std::string readText(detail::ByteReader& in, const char* what) { return in.text(in.u64(what), what); }

Bytes encode(const Failure& f) {
  return detail::writeMessage([&](detail::ByteWriter& out) {
    out.number(f.order);
    out.u32(static_cast<std::uint32_t>(f.kind));
    out.u64(f.files.size());
    for (const auto& file : f.files) writeText(out, file);
    writeText(out, f.message);
  });
}

Failure decode(const Bytes& bytes, int rank) {
  detail::ByteReader in = detail::messageReader(bytes, "rank " + std::to_string(rank) + "'s failure");
  Failure f;
  f.order = in.number<std::int64_t>("the order");
  const std::uint32_t kind = in.u32("the kind");
  if (kind < 1 || kind > 4) in.fail("unknown kind " + std::to_string(kind));
  f.kind = static_cast<Kind>(kind);
  for (std::uint64_t i = 0, n = in.u64("the file count"); i < n; ++i) f.files.push_back(readText(in, "a file name"));
  f.message = readText(in, "the message");
  detail::expectMessageEnd(in);
  return f;
}

[[noreturn]] void raise(const Failure& f) {
  switch (f.kind) {
    case Kind::Invalid: throw InvalidInput(f.files, f.message);
    case Kind::Io: throw IoError(f.message);
    case Kind::Capacity: throw CapacityError(f.message);
    case Kind::Other: break;
  }
  throw Error(f.message);
}

}  // namespace

void throwIfAnyRankFailed(Communicator& ranks, std::exception_ptr failure, std::int64_t order) {
  if (allRanksAgree(ranks, failure == nullptr)) return;
  const Bytes mine = failure ? encode(describe(failure, order)) : Bytes{};
  const std::vector<Bytes> all = ranks.allGather(mine);
  int first = -1;
  Failure chosen;
  for (int r = 0; r < static_cast<int>(all.size()); ++r) {
    if (all[static_cast<std::size_t>(r)].empty()) continue;
    Failure f = decode(all[static_cast<std::size_t>(r)], r);
    if (first < 0 || f.order < chosen.order) {
      first = r;
      chosen = std::move(f);
    }
  }
  if (first == ranks.rank()) std::rethrow_exception(failure);
  raise(chosen);
}

}  // namespace bovw
