// throwIfAnyRankFailed: one sum to learn whether any rank failed; only then each rank's (order,
// message) is gathered on every rank, and every rank builds the same message from them.
#include <bovw/rank_agreement.hpp>

#include "distributed/rank_message.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace bovw {

namespace {

std::string messageOf(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    return what.empty() ? "failed" : what;
  } catch (...) {
    return "failed with an unknown exception";
  }
}

struct RankFailure {
  int rank = 0;
  std::int64_t order = 0;
  std::string message;
};

Bytes encode(std::int64_t order, const std::string& message) {
  return detail::writeMessage([&](detail::ByteWriter& out) {
    out.number(order);
    out.u64(message.size());
    out.text(message);
  });
}

RankFailure decode(const Bytes& bytes, int rank) {
  detail::ByteReader in = detail::messageReader(bytes, "rank " + std::to_string(rank) + "'s failure");
  RankFailure f;
  f.rank = rank;
  f.order = in.number<std::int64_t>("the order");
  f.message = in.text(in.u64("the message length"), "the message");
  detail::expectMessageEnd(in);
  return f;
}

}  // namespace

void throwIfAnyRankFailed(Communicator& ranks, std::exception_ptr failure, std::int64_t order) {
  if (ranks.size() == 1) {
    if (failure) std::rethrow_exception(failure);
    return;
  }
  if (allRanksAgree(ranks, failure == nullptr)) return;
  // A success sends no bytes; a failure's message is never empty (messageOf), so its bytes are not.
  const std::vector<Bytes> all = ranks.allGather(failure ? encode(order, messageOf(failure)) : Bytes{});
  std::vector<RankFailure> failed;
  for (int r = 0; r < static_cast<int>(all.size()); ++r)
    if (!all[static_cast<std::size_t>(r)].empty()) failed.push_back(decode(all[static_cast<std::size_t>(r)], r));
  const bool alike = failed.size() == all.size() &&
                     std::all_of(failed.begin(), failed.end(),
                                 [&](const RankFailure& f) { return f.message == failed.front().message; });
  if (alike) throw RanksFailed(failed.front().message);
  // By rank already; stable: ties of `order` stay by rank.
  std::stable_sort(failed.begin(), failed.end(),
                   [](const RankFailure& a, const RankFailure& b) { return a.order < b.order; });
  std::string message;
  for (const RankFailure& f : failed)
    message += (message.empty() ? "rank " : "; rank ") + std::to_string(f.rank) + ": " + f.message;
  throw RanksFailed(message);
}

void everyRankOrNone(Communicator& ranks, const std::function<void()>& step, std::int64_t order) {
  std::exception_ptr failure;
  try {
    step();
  } catch (...) {
    failure = std::current_exception();
  }
  throwIfAnyRankFailed(ranks, failure, order);
}

}  // namespace bovw
