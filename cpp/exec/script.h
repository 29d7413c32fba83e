// Script: the statements a run executed, read back from its statement logs,
// to execute again (`gauntlet replay`).
//
// Every log line carries the run's global sequence number (the order in
// which statements started, across sessions) and its start and end times. A
// Script keeps one list per session; each statement's rank is its place in
// that global order. With `ordered`, the executor starts a statement only
// after every statement of a lower rank has started and those that must
// finish first have (MustFinishBefore; waiting at most a grace period, in
// case the replay's locks differ), and no sooner after the statement before
// it than in the run (`gap`): which of two statements sent close together
// the server takes first decides what each sees. That re-creates the run's
// interleaving, with statements overlapping where they overlapped, and takes
// about as long as the run did.
#ifndef GAUNTLET_EXEC_SCRIPT_H_
#define GAUNTLET_EXEC_SCRIPT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace gauntlet {

struct ScriptStatement {
  uint64_t rank = 0;  // 0-based place in the run's start order
  uint64_t seq = 0;   // the sequence number the log gave it
  int thread = 0;     // the session that ran it in the run
  double start = 0, end = 0;  // seconds since the run started
  double gap = 0;             // seconds after the start of the statement ranked before it
  std::string sql;
  // Whether the run's oracles check it (a reducer checks only the statement
  // that found the bug; crashes and corruption are noticed everywhere).
  bool check = true;
};

struct Script {
  std::vector<std::vector<ScriptStatement>> sessions;
  bool ordered = true;
  // How long after a statement started another session's quick statement may
  // have ended and still count as applied first (its reply on the way). A
  // loaded machine delays replies: replay's later attempts widen it.
  double reply_window = 0.001;  // seconds

  uint64_t size() const;
  // How many statements of `session` must have finished before `s` starts:
  // those that ended in the run before `s` started, and one still running
  // then that was quick and ended within reply_window: the server most
  // likely applied it first (its reply was still on the way).
  uint64_t MustFinishBefore(size_t session, const ScriptStatement& s) const;
  // Reads statements-N.jsonl files (their header lines are skipped). `sessions`: 0 keeps the run's sessions
  // (one per thread that logged anything, in thread order); 1 puts every
  // statement into one session in start order. Statements whose seq is
  // `until_seq` or later are left out (0: none). Malformed lines throw
  // InvalidInput naming the file and line.
  static Script FromStatementLogs(const std::vector<std::string>& files, int sessions,
                                  uint64_t until_seq = 0);
  // The same from statements already read (seq, thread, start, end, sql and
  // check set): sorts them by seq and gives them ranks and gaps.
  static Script FromStatements(std::vector<ScriptStatement> all, int sessions);
};

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_SCRIPT_H_
