// CrashReport: what a dead server left behind, and a signature for it.
//
// Parsed from the error log's crash section (`got signal N`, assertion text,
// `Attempting backtrace` frames). The signature is the assertion text, or the
// signal plus the first three frames after the signal handler's own
// (my_print_stacktrace, handle_fatal_signal, __restore_rt, raise, abort ...),
// so the same bug gives the same signature across runs and builds with
// different addresses.
#ifndef GAUNTLET_SERVER_CRASH_REPORT_H_
#define GAUNTLET_SERVER_CRASH_REPORT_H_

#include <string>
#include <vector>

namespace gauntlet {

struct CrashReport {
  int signal = 0;                   // 0 when the log names none
  std::string assertion;            // the failed assertion, if any
  std::vector<std::string> frames;  // demangled, handler frames removed
  std::string signature;
  std::string log_excerpt;          // the crash section of the error log
  std::string gdb_backtrace;        // from a core file, when there was one
  bool shutdown = false;            // no crash: the server shut down normally

  bool empty() const { return signal == 0 && assertion.empty() && frames.empty(); }
};

// Parses the part of an error log written by one server run.
CrashReport ParseCrashReport(const std::string& log);

// The lines of a server or bootstrap log that report errors ("[ERROR]").
std::vector<std::string> ErrorLines(const std::string& log);

// Runs `gdb -batch` on `core` for `binary`; "" when gdb or the core is missing.
std::string GdbBacktrace(const std::string& binary, const std::string& core, int timeout_seconds);

}  // namespace gauntlet

#endif  // GAUNTLET_SERVER_CRASH_REPORT_H_
