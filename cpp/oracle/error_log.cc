#include "oracle/error_log.h"

#include <cctype>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "exec/clock.h"

namespace gauntlet {

std::vector<std::string> ErrorLogOracle::DefaultPatterns() {
  return {R"(\[ERROR\])", R"(Assertion .*failed)", R"(InnoDB: .*[Cc]orrupt)", R"(is marked as crashed)",
          R"(safe_mutex:)", R"(AddressSanitizer|ThreadSanitizer|runtime error:)"};
}

std::vector<std::string> ErrorLogOracle::DefaultIgnore() {
  // InnoDB's own words for a CREATE or ALTER it refused with 1118 (Row size too large), for a file name
  // the system refused as too long (ENAMETOOLONG, 36; InnoDB's 236), for a RENAME into a database that
  // does not exist and for an FTS_DOC_ID out of range: the statement's error. A DDL's clean-up that met
  // a lock wait timeout (1205) is the lock wait's.
  return {R"(Deadlock found when trying to get lock)", R"(Lock wait timeout exceeded)",
          R"(InnoDB: Cannot add field .* because after adding it, the row size is)",
          R"(InnoDB: File .*: '[a-z]+' returned OS error 236)", R"(InnoDB: Error number 36 means 'File name too long')",
          R"(InnoDB: Cannot rename '.*' to '.*' because the target schema directory doesn't exist)",
          R"(InnoDB: FTS_DOC_ID must be larger than)", R"(DDL_LOG: Got error 1205 when trying to execute action)"};
}

namespace {
constexpr auto kSyntax = std::regex::ECMAScript | std::regex::optimize;

std::vector<std::regex> Compile(const std::vector<std::string>& texts, const char* what) {
  std::vector<std::regex> out;
  for (const std::string& t : texts) {
    const std::string error = ErrorLogOracle::PatternError(t);
    if (!error.empty()) throw InvalidInput({what, 0, 0}, "'" + t + "' is not a regular expression: " + error);
    out.emplace_back(t, kSyntax);
  }
  return out;
}
}  // namespace

std::string ErrorLogOracle::PatternError(const std::string& pattern) {
  try {
    std::regex(pattern, kSyntax);
    return "";
  } catch (const std::regex_error& e) {
    return e.what();
  }
}

ErrorLogOracle::ErrorLogOracle(std::vector<Log> logs, const std::vector<std::string>& patterns,
                               const std::vector<std::string>& ignore)
    : patterns_(Compile(patterns, "error-log pattern")), ignore_(Compile(ignore, "error-log ignore pattern")),
      pattern_texts_(patterns) {
  for (Log& l : logs) {
    Tail t;
    std::error_code ec;
    t.offset = std::filesystem::file_size(l.path, ec);
    if (ec) t.offset = 0;
    t.log = std::move(l);
    tails_.push_back(std::move(t));
  }
}

std::string NormalizedLogLine(const std::string& line) {
  size_t i = 0;
  // "2026-12-03 11:39:13 0 [ERROR] ..." or "231203 11:39:13 ..."
  while (i < line.size() && (std::isdigit(static_cast<unsigned char>(line[i])) || line[i] == '-' || line[i] == ':' ||
                             line[i] == ' '))
    ++i;
  std::string out;
  for (; i < line.size() && out.size() < 240; ++i) {
    const unsigned char c = line[i];
    if (c == '0' && i + 1 < line.size() && line[i + 1] == 'x') {
      out += 'N';
      for (i += 2; i < line.size() && std::isxdigit(static_cast<unsigned char>(line[i])); ++i) {}
      --i;
    } else if (std::isdigit(c)) {
      out += 'N';
      while (i + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[i + 1]))) ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

Verdict ErrorLogOracle::Check(const Observation& o) {
  const int64_t now = NowNs();
  for (const Outcome& out : o.outcomes) {
    if (out.error_code == 0 || out.message.size() < kShortestEcho || out.kind == OutcomeKind::kSyntax) continue;
    std::lock_guard<std::mutex> lock(echo_mu_);
    recent_errors_[out.message] = now;
    if (recent_errors_.size() > kRecentErrors)  // the ones older than the window go
      for (auto it = recent_errors_.begin(); it != recent_errors_.end();)
        it = now - it->second > kEchoWindowNs ? recent_errors_.erase(it) : std::next(it);
  }
  return Verdict::NotApplicable();
}

bool ErrorLogOracle::EchoesAStatementsError(const std::string& line) {
  const int64_t now = NowNs();
  std::lock_guard<std::mutex> lock(echo_mu_);
  for (const auto& [message, at] : recent_errors_)
    if (now - at <= kEchoWindowNs && line.find(message) != std::string::npos) return true;
  return false;
}

std::vector<Finding> ErrorLogOracle::Watch() {
  std::lock_guard<std::mutex> lock(mu_);
  for (Tail& t : tails_) {
    if (t.crashed) continue;
    std::ifstream in(t.log.path, std::ios::binary);
    if (!in) continue;
    in.seekg(0, std::ios::end);
    const uint64_t size = static_cast<uint64_t>(in.tellg());
    if (size < t.offset) t.offset = 0;  // the log was rotated or replaced
    if (size == t.offset) continue;
    in.seekg(static_cast<std::streamoff>(t.offset));
    std::string chunk(size - t.offset, '\0');
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    chunk.resize(static_cast<size_t>(in.gcount()));
    t.offset += chunk.size();
    t.partial += chunk;
    size_t start = 0;
    for (size_t nl; (nl = t.partial.find('\n', start)) != std::string::npos; start = nl + 1) {
      const std::string line = t.partial.substr(start, nl - start);
      if (line.find("got signal") != std::string::npos || line.find("got exception") != std::string::npos) {
        t.crashed = true;  // the crash finding reports the rest
        break;
      }
      for (size_t p = 0; p < patterns_.size(); ++p) {
        if (!std::regex_search(line, patterns_[p])) continue;
        bool vetoed = false;
        for (const std::regex& r : ignore_) vetoed |= std::regex_search(line, r);
        if (vetoed || EchoesAStatementsError(line)) break;
        Finding f;
        f.kind = "error-log";
        f.targets = {t.log.target};
        f.signature = "error-log: " + NormalizedLogLine(line);
        f.detail = t.log.path + ":\n" + line;
        f.evidence = {{"log", t.log.path}, {"line", line}, {"pattern", pattern_texts_[p]}};
        held_.emplace_back(NowNs(), std::move(f));
        break;
      }
    }
    t.partial.erase(0, t.crashed ? t.partial.size() : start);
  }
  return Unexplained(NowNs() - kGraceNs);
}

std::vector<Finding> ErrorLogOracle::Finish() {
  std::vector<Finding> found = Watch();
  std::lock_guard<std::mutex> lock(mu_);
  for (Finding& f : Unexplained(INT64_MAX)) found.push_back(std::move(f));
  return found;
}

std::vector<Finding> ErrorLogOracle::Unexplained(int64_t before) {
  std::vector<Finding> found;
  std::vector<std::pair<int64_t, Finding>> still;
  for (auto& [seen, f] : held_) {
    if (EchoesAStatementsError(f.evidence["line"].get<std::string>())) continue;
    if (seen < before) found.push_back(std::move(f));
    else still.emplace_back(seen, std::move(f));
  }
  held_ = std::move(still);
  return found;
}

}  // namespace gauntlet
