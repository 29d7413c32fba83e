// CrashReport: what a dead server left behind, and a signature for it.
//
// A plain value that the executor records in a crash finding; the server
// layer fills it from the error log (server/crash_log.h). The signature is
// the assertion text, or the signal plus the first frames after the signal
// handler's own, so the same bug gives the same signature across runs and
// builds with different addresses.
#ifndef GAUNTLET_EXEC_CRASH_REPORT_H_
#define GAUNTLET_EXEC_CRASH_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gauntlet {

struct CrashReport {
  int signal = 0;                   // 0 when the log names none
  std::string assertion;            // the failed assertion, if any
  std::vector<std::string> frames;  // demangled, handler frames removed
  std::string signature;
  std::string log_excerpt;          // the crash section of the error log
  std::string gdb_backtrace;        // from a core file, when there was one
  bool shutdown = false;            // no crash: the server shut down normally
  // The statement the crashing thread ran and its session, when the log
  // names them ("Query (0x...): ...", "Connection ID (thread ID): N").
  std::string query;
  uint64_t connection_id = 0;

  bool empty() const { return signal == 0 && assertion.empty() && frames.empty(); }
  nlohmann::json ToJson() const;
};

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_CRASH_REPORT_H_
