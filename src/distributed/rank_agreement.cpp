// everyRankOrNone: each rank's error message (empty: success) gathered on every rank, then one
// message for all.
#include <bovw/rank_agreement.hpp>

#include <exception>

namespace bovw {

namespace {

std::string messageOf(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    return what.empty() ? "failed" : what;
  } catch (...) {
    return "failed with an unknown exception";
  }
}

Bytes bytesOf(const std::string& text) { return Bytes(text.begin(), text.end()); }

}  // namespace

void everyRankOrNone(Communicator& ranks, const std::function<void()>& step) {
  if (ranks.size() == 1) {
    step();
    return;
  }
  std::string failure;
  try {
    step();
  } catch (...) {
    failure = messageOf(std::current_exception());
  }
  const std::vector<Bytes> failures = ranks.allGather(bytesOf(failure));
  std::vector<int> failed;
  for (std::size_t r = 0; r < failures.size(); ++r)
    if (!failures[r].empty()) failed.push_back(static_cast<int>(r));
  if (failed.empty()) return;
  bool alike = failed.size() == failures.size();
  for (int r : failed) alike = alike && failures[static_cast<std::size_t>(r)] == failures[0];
  if (alike) throw RanksFailed(std::string(failures[0].begin(), failures[0].end()));
  std::string message;
  for (int r : failed) {
    const Bytes& text = failures[static_cast<std::size_t>(r)];
    message += (message.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) + ": " +
               std::string(text.begin(), text.end());
  }
  throw RanksFailed(message);
}

}  // namespace bovw
