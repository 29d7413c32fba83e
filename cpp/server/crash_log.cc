#include "server/crash_log.h"

#include <cxxabi.h>
#include <sys/stat.h>

#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>

#include "common/process.h"

namespace gauntlet {
namespace {

// Frames that belong to the signal handler or the abort path, not the bug.
bool IsHandlerFrame(const std::string& f) {
  static const char* const kHandler[] = {
      "my_print_stacktrace", "handle_fatal_signal", "__restore_rt", "raise", "abort",
      "__GI_raise", "__GI_abort", "__pthread_kill_implementation", "__pthread_kill_internal",
      "pthread_kill", "__pthread_kill", "__assert_fail", "__assert_fail_base", "__GI___assert_fail",
      "my_abort", "ut_dbg_assertion_failed", "my_write_core", "__sigaction", "killpg",
      "print_stacktrace", "signal_handler"};
  for (const char* h : kHandler)
    if (f == h || f.rfind(std::string(h) + "(", 0) == 0) return true;
  return false;
}

std::string Demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  const size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

CrashReport ParseCrashReport(const std::string& log) {
  CrashReport r;
  static const std::regex kSignal(R"(got signal (\d+))");
  static const std::regex kAssertion(R"(Assertion [`'](.*)' failed)");
  static const std::regex kInnodbAssertion(R"(InnoDB: (Failing assertion: .*))");
  static const std::regex kQuery(R"(^Query \(0x[0-9a-f]+\): (.*)$)");
  static const std::regex kConnection(R"(^Connection ID \(thread ID\): (\d+))");
  static const std::regex kFrame(R"(\(([^()+\s]+)\+0x[0-9a-f]+\)\s*\[0x[0-9a-f]+\]|:\d+\(([^()\s]+)\)\s*\[0x[0-9a-f]+\])");

  std::istringstream in(log);
  std::string line;
  bool in_crash = false;
  bool past_handler = false;
  bool in_query = false;  // the query goes on until an empty line
  std::string excerpt;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, kAssertion) || std::regex_search(line, m, kInnodbAssertion)) {
      r.assertion = Trim(m[1].str());
      in_crash = true;
    }
    if (std::regex_search(line, m, kSignal)) {
      r.signal = std::stoi(m[1].str());
      in_crash = true;
    }
    if (!in_crash) continue;
    excerpt += line + "\n";
    if (in_query) {
      if (line.empty()) in_query = false;
      else r.query += "\n" + line;
      continue;
    }
    if (std::regex_search(line, m, kQuery)) {
      r.query = m[1].str();
      if (r.query == "(null)") r.query.clear();
      else in_query = true;
      continue;
    }
    if (std::regex_search(line, m, kConnection)) {
      r.connection_id = std::stoull(m[1].str());
      continue;
    }
    if (line.rfind("Writing a core file", 0) == 0 || line.rfind("Resource Limits", 0) == 0) {
      in_crash = false;  // the rest is environment, not the crash
      continue;
    }
    if (std::regex_search(line, m, kFrame)) {
      const std::string name = Demangle(m[1].matched ? m[1].str() : m[2].str());
      if (!past_handler && IsHandlerFrame(name)) continue;
      past_handler = true;
      r.frames.push_back(name);
    }
  }
  r.log_excerpt = excerpt;
  r.signature = CrashSignature(r);
  return r;
}

std::string CrashSignature(const CrashReport& r) {
  if (!r.assertion.empty()) return "assertion: " + r.assertion;
  if (r.signal == 0 && r.frames.empty()) return "";
  std::string s = "signal " + std::to_string(r.signal) + ":";
  for (size_t i = 0; i < r.frames.size() && i < 3; ++i) s += (i ? " | " : " ") + r.frames[i];
  return s;
}

std::vector<std::string> GdbCrashFrames(const std::string& gdb_output) {
  // "[Current thread is 1 (Thread 0x7f.. (LWP 1595))]" names the thread that
  // crashed; its section of `thread apply all bt` lists the frames.
  static const std::regex kCurrent(R"(\[Current thread is \d+ \(Thread (0x[0-9a-f]+) \(LWP (\d+)\)\)\])");
  // Without debug information a frame reads "0x.. in Class::f(int, char*) ()",
  // with it "f (arg=1) at file.cc:10": the name is what comes before " (".
  // Parameter types stay, as the error log's demangled frames have them.
  static const std::regex kGdbFrame(R"(^#\d+\s+(?:0x[0-9a-f]+ in )?(.+?) \()");
  std::smatch m;
  std::vector<std::string> frames;
  if (!std::regex_search(gdb_output, m, kCurrent)) return frames;
  const std::string header = "(Thread " + m[1].str() + " (LWP " + m[2].str() + ")):";
  const size_t at = gdb_output.find(header);
  if (at == std::string::npos) return frames;
  std::istringstream in(gdb_output.substr(at + header.size()));
  std::string line;
  bool past_handler = false;
  while (std::getline(in, line) && !(line.empty() && !frames.empty())) {
    if (!std::regex_search(line, m, kGdbFrame)) continue;
    const std::string name = m[1].str();
    if (name == "??") continue;
    if (!past_handler && IsHandlerFrame(name)) continue;
    past_handler = true;
    frames.push_back(name);
  }
  return frames;
}

std::vector<std::string> ErrorLines(const std::string& log) {
  std::vector<std::string> out;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line))
    if (line.find("[ERROR]") != std::string::npos || line.find("ERROR:") != std::string::npos)
      out.push_back(line);
  return out;
}

std::string GdbBacktrace(const std::string& binary, const std::string& core, int timeout_seconds) {
  struct stat st;
  if (stat(core.c_str(), &st) != 0 || stat("/usr/bin/gdb", &st) != 0) return "";
  return RunCommand({"/usr/bin/gdb", "-batch", "-nx", "-ex", "thread apply all bt 30", binary, core},
                    timeout_seconds).output;
}

}  // namespace gauntlet
