// Turns: when each statement of a replayed Script may start (`ordered`).
//
// A statement starts after every statement ranked before it has started and
// those the script says must finish first have (Script::MustFinishBefore;
// waiting at most two seconds, in case the replay's locks differ), no sooner
// after the one ranked before it than in the run (its gap) nor than
// Script::head_start after another session's statement that still runs; and
// around a statement the run's crash cut off, as the script's guesses say
// (Script::let_first, Script::hold_back).
//
// Thread-safe: each session calls it from its own thread; `stop` (the run's
// flag) ends every wait.
#ifndef GAUNTLET_EXEC_TURNS_H_
#define GAUNTLET_EXEC_TURNS_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "exec/script.h"

namespace gauntlet {

class Turns {
 public:
  // `script` and `stop` must outlive this.
  Turns(const Script& script, const std::atomic<bool>& stop);

  // Blocks until `s`, the next statement of `session`, may start; false
  // when the run stops first.
  bool Wait(size_t session, const ScriptStatement& s);
  // `s` starts: the statement ranked after it may go. Returns after the
  // waits the guesses ask of `s` itself: a cut-off statement lets others
  // finish first, the statement before one holds back until it has started.
  void Start(size_t session, const ScriptStatement& s);
  // The statement `session` started last has finished.
  void Finish(size_t session);

 private:
  void LetOthersFirst(size_t session, const ScriptStatement& s);
  void HoldBack(const ScriptStatement& s);

  const Script& script_;
  const std::atomic<bool>& stop_;
  std::mutex mu_;
  std::condition_variable cv_;
  // GUARDED_BY(mu_): the rank that may start next, when the one before it
  // started, its session and that session's count in `finished_` once it
  // has finished; statements finished per session.
  uint64_t turn_ = 0;
  int64_t taken_ns_ = 0;
  size_t taken_by_ = 0;
  uint64_t taken_done_at_ = 0;
  std::vector<uint64_t> finished_;
  // GUARDED_BY(mu_): while a cut-off statement lets others go first, how many
  // statements of each session may start before it has been sent, and when
  // the rest may (0: not yet).
  bool holding_ = false;
  std::vector<uint64_t> held_;
  int64_t released_ns_ = 0;
};

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_TURNS_H_
