// The executor's clock: steady nanoseconds, and a sleep that a run's stop
// flag cuts short.
#ifndef GAUNTLET_EXEC_CLOCK_H_
#define GAUNTLET_EXEC_CLOCK_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace gauntlet {

using Clock = std::chrono::steady_clock;

inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// Sleeps until `due` (NowNs) or until `stop`, in steps of at most 50 ms;
// false when it stopped.
inline bool SleepUntil(int64_t due, const std::atomic<bool>& stop) {
  for (int64_t now = NowNs(); now < due && !stop; now = NowNs())
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<int64_t>(due - now, 50'000'000)));
  return !stop;
}

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_CLOCK_H_
