// Script: the statements a run executed, read back from its statement logs,
// to execute again (`gauntlet replay`).
//
// Every log line carries the run's global sequence number (the order in
// which statements started, across sessions) and its start and end times. A
// Script keeps one list per session; each statement's rank is its place in
// that global order. With `ordered`, Turns (exec/turns.h) starts each
// statement when the run's order and times say: which of two statements sent
// close together the server takes first decides what each sees. That
// re-creates the run's interleaving, with statements overlapping where they
// overlapped, and takes about as long as the run did. Where the times leave
// the order open (a loaded machine delays replies and statements; a
// statement the run's crash cut off ran until the crash was noticed, so its
// times do not say when the server read), the windows and guesses below
// choose, and replay's attempts try them in turn.
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
  // The run's crash or end cut it off (the log says "crash", "connection"
  // or "cancelled": when one session reports a crash the others' statements
  // in flight are cancelled, the one that crashed too), and its end is when
  // the client noticed.
  bool cut_off = false;
  // The statement ranked right after it is cut off, another session's, and
  // started in the run while this one ran.
  bool before_cut_off = false;
};

struct Script {
  std::vector<std::vector<ScriptStatement>> sessions;
  bool ordered = true;
  // How long after a statement started another session's quick statement may
  // have ended and still count as applied first (its reply on the way). A
  // loaded machine delays replies: replay's later attempts widen it.
  double reply_window = 0.001;  // seconds
  // How long a statement still running keeps another session's next
  // statement (ranked right after it) waiting, so that the server takes it
  // first as the start order says (a statement that crashed the server ran
  // until the crash was noticed, while the others went on).
  double head_start = 0;  // seconds
  // How many of other sessions' statements ranked right after a cut-off
  // statement it waits for, its turn taken, to finish first (LetFirst): a
  // statement delayed in a loaded server reads after theirs committed.
  uint64_t let_first = 0;
  // How long a statement before a cut-off one, its turn taken, waits after
  // that one started: a SELECT started just after a slow DELETE may read
  // before the DELETE commits, and a loaded machine delays the SELECT.
  double hold_back = 0;  // seconds

  uint64_t size() const;
  // How many statements of `session` must have finished before `s` starts:
  // those that ended in the run before `s` started, and one still running
  // then that was quick and ended within reply_window: the server most
  // likely applied it first (its reply was still on the way). A cut-off
  // statement's end says nothing of that.
  uint64_t MustFinishBefore(size_t session, const ScriptStatement& s) const;
  // For a cut-off `s` run by `session`: how many statements of each session
  // must have finished before it executes (its own session: none).
  std::vector<uint64_t> LetFirst(size_t session, const ScriptStatement& s) const;
  // A one-session script with the guesses applied by moving statements (one
  // session has nobody to wait for): a cut-off statement after the next
  // let_first statements of other run threads (not past one of its own), or,
  // with hold_back, before the statement of another thread that it
  // overlapped. Other scripts: a copy.
  Script Serialized() const;
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
