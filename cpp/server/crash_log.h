// Reading a crash from a server's error log (and its core file).
//
// ParseCrashReport reads the error log's crash section (`got signal N`,
// assertion text, `Attempting backtrace` frames, the query and session); the
// signature takes the first three frames after the signal handler's own
// (my_print_stacktrace, handle_fatal_signal, __restore_rt, raise, abort ...).
#ifndef GAUNTLET_SERVER_CRASH_LOG_H_
#define GAUNTLET_SERVER_CRASH_LOG_H_

#include <string>
#include <vector>

#include "exec/crash_report.h"

namespace gauntlet {

// Parses the part of an error log written by one server run.
CrashReport ParseCrashReport(const std::string& log);

// The lines of a server or bootstrap log that report errors ("[ERROR]").
std::vector<std::string> ErrorLines(const std::string& log);

// "assertion: TEXT", or "signal N: frame | frame | frame" (the first three).
std::string CrashSignature(const CrashReport& r);

// The crashing thread's frames (function names, handler frames and unknown
// ones left out) in the output of GdbBacktrace.
std::vector<std::string> GdbCrashFrames(const std::string& gdb_output);

// Runs `gdb -batch` on `core` for `binary`; "" when gdb or the core is missing.
std::string GdbBacktrace(const std::string& binary, const std::string& core, int timeout_seconds);

}  // namespace gauntlet

#endif  // GAUNTLET_SERVER_CRASH_LOG_H_
