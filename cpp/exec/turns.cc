#include "exec/turns.h"

#include <limits>
#include <optional>

#include "exec/clock.h"

namespace gauntlet {
namespace {

// Long enough for the statements a run finished first to finish here too;
// short enough that a lock the replay takes differently cannot stall it.
constexpr auto kGrace = std::chrono::seconds(2);
// How long a cut-off statement that let others go first leads the rest.
constexpr int64_t kLeadNs = 10'000'000;

}  // namespace

Turns::Turns(const Script& script, const std::atomic<bool>& stop)
    : script_(script), stop_(stop), finished_(script.sessions.size(), 0) {}

bool Turns::Wait(size_t session, const ScriptStatement& s) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto ready = [&] {
    for (size_t x = 0; x < finished_.size(); ++x)
      if (x != session && finished_[x] < script_.MustFinishBefore(x, s)) return false;
    return true;
  };
  std::optional<Clock::time_point> turn_at;
  while (true) {
    if (stop_) return false;
    if (holding_ && finished_[session] >= held_[session] && (released_ns_ == 0 || NowNs() < released_ns_)) {
      cv_.wait_for(lock, std::chrono::milliseconds(1));
      continue;
    }
    if (turn_ == s.rank) {
      if (!turn_at) turn_at = Clock::now();
      if (ready() || Clock::now() - *turn_at > kGrace) {
        const size_t before = taken_by_;
        const auto ahead = std::chrono::nanoseconds(taken_ns_ + static_cast<int64_t>(script_.head_start * 1e9) - NowNs());
        if (s.rank > 0 && before != session && ahead.count() > 0)
          cv_.wait_for(lock, ahead, [&] { return stop_ || finished_[before] >= taken_done_at_; });
        const int64_t due = taken_ns_ + static_cast<int64_t>(s.gap * 1e9);
        lock.unlock();
        return SleepUntil(due, stop_);
      }
    }
    cv_.wait_for(lock, std::chrono::milliseconds(20));
  }
}

void Turns::Start(size_t session, const ScriptStatement& s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++turn_;
    taken_ns_ = NowNs();
    taken_by_ = session;
    taken_done_at_ = finished_[session] + 1;
  }
  cv_.notify_all();
  if (s.cut_off && script_.let_first > 0) LetOthersFirst(session, s);
  if (s.before_cut_off && script_.hold_back > 0) HoldBack(s);
}

void Turns::Finish(size_t session) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++finished_[session];
  }
  cv_.notify_all();
}

void Turns::LetOthersFirst(size_t session, const ScriptStatement& s) {
  const std::vector<uint64_t> first = script_.LetFirst(session, s);
  std::unique_lock<std::mutex> lock(mu_);
  // The others' statements after those wait until this one has led for a
  // while: otherwise the one right after them (a DELETE, say) races it.
  holding_ = true;
  held_ = first;
  held_[session] = std::numeric_limits<uint64_t>::max();  // its own session waits for it anyway
  released_ns_ = 0;
  cv_.wait_for(lock, kGrace, [&] {
    if (stop_) return true;
    for (size_t x = 0; x < first.size(); ++x)
      if (finished_[x] < first[x]) return false;
    return true;
  });
  released_ns_ = NowNs() + kLeadNs;
}

void Turns::HoldBack(const ScriptStatement& s) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, kGrace, [&] { return stop_ || turn_ > s.rank + 1; });
  }
  SleepUntil(NowNs() + static_cast<int64_t>(script_.hold_back * 1e9), stop_);
}

}  // namespace gauntlet
