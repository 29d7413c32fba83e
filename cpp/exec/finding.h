// Finding: something a run found that a developer should look at, and
// FindingLog, which keeps a run's findings: one per signature, streamed to
// OUT/findings.jsonl and OUT/findings/<id>/ as they happen, with known bugs
// marked, and grouped by root cause in OUT/root_causes.json (root_causes.h).
//
// The signature is what makes two findings the same bug: for a crash the
// server's stack, for a wrong result the oracle and the query's skeleton.
#ifndef GAUNTLET_EXEC_FINDING_H_
#define GAUNTLET_EXEC_FINDING_H_

#include <cstdint>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/crash_report.h"
#include "exec/root_causes.h"

namespace gauntlet {

struct Finding {
  // crash, shutdown, hang, corruption, unreachable, start, divergence,
  // error-mismatch, metamorphic, tlp, norec, timing, error-log
  std::string kind;
  std::string oracle = "crash";  // what raised it; "crash" is the built-in crash/hang/corruption check
  double at = 0;                 // seconds since the run started
  std::string signature;
  std::string detail;            // for people: what happened, a diff, a log excerpt
  int thread = 0;                // the session that saw it (0: the watchdog)
  std::string statement;         // what that session was running
  std::vector<std::string> preceding;  // that session's statements before it, oldest first
  std::vector<std::string> settings;   // that session's SET statements since it connected
  std::vector<std::string> targets;    // the targets it concerns, by name
  nlohmann::json key;                  // the query's replay key, when generated
  nlohmann::json evidence;             // what the oracle saw (results, relation, plans)
  nlohmann::json minimal;              // relation findings: the smallest query that still fails (sql, left, right, diff, work)
  CrashReport crash;
  // Set by FindingLog.
  std::string id;                // its folder under OUT/findings
  std::string known;             // the known-bugs note it matched
  std::string cause;             // its root-cause key
  uint64_t occurrences = 1;      // findings of this signature in the run

  nlohmann::json ToJson() const;
  // The fields ToJson() writes (for findings made outside the executor).
  static Finding FromJson(const nlohmann::json& j);
};

// A known bug: findings whose signature contains `pattern` (pquery's
// known_bugs.strings, with notes), or whose root-cause key matches one of
// `causes` (a catalogue entry's globs: '*' is any run of characters, the rest
// literal), are marked with `note`.
struct KnownBug {
  std::string pattern;              // "": by cause only
  std::string note;
  std::vector<std::string> causes;  // globs over root-cause keys

  bool Matches(const std::string& key, const std::string& signature) const;
};

// Reads a known-bugs file: one entry per line, `PATTERN` or `PATTERN ## NOTE`;
// empty lines and lines starting with '#' are skipped. Throws InvalidInput
// naming the file (and line) when it cannot be read or an entry is empty.
std::vector<KnownBug> LoadKnownBugs(const std::string& path);

class FindingLog {
 public:
  // `out_dir` "" keeps findings in memory only. `targets`: the run's targets
  // by name, with what each is; a finding's folder records those it concerns.
  // `root_cause_key` groups findings into root causes (null: by signature).
  FindingLog(std::string out_dir, std::vector<KnownBug> known, nlohmann::json targets,
             RootCauses::KeyOf root_cause_key = nullptr);
  // Records `f` (writing it out, and root_causes.json) unless one with its
  // signature was recorded already, which then counts one more occurrence.
  // True when new. Thread-safe.
  bool Add(Finding f);
  std::vector<Finding> findings() const;
  size_t size() const;
  // Rewrites root_causes.json with every occurrence counted (at the end).
  void Flush();

 private:
  void Write(const Finding& f);
  void WriteRootCauses();
  std::string out_dir_;
  std::vector<KnownBug> known_;
  nlohmann::json targets_;
  mutable std::mutex mu_;
  std::vector<Finding> findings_;
  std::map<std::string, size_t> by_signature_;
  RootCauses causes_;
  std::vector<std::string> cause_keys_;  // per finding
  std::ofstream jsonl_;
};

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_FINDING_H_
