#include "exec/finding.h"

#include <cstdio>
#include <filesystem>

#include "common/error.h"
#include "exec/output_format.h"

namespace gauntlet {

using nlohmann::json;

namespace {

// JSON for text that may hold bytes that are not UTF-8 (binary values in
// statements): those become U+FFFD rather than failing the whole finding.
std::string Dump(const json& j, int indent = -1) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// '*' matches any run of characters; everything else itself.
bool GlobMatches(std::string_view glob, std::string_view text) {
  size_t g = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (g < glob.size() && glob[g] == '*') {
      star = g++;
      resume = t;
    } else if (g < glob.size() && glob[g] == text[t]) {
      ++g;
      ++t;
    } else if (star != std::string_view::npos) {
      g = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

}  // namespace

bool KnownBug::Matches(const std::string& key, const std::string& signature) const {
  if (!pattern.empty() && signature.find(pattern) != std::string::npos) return true;
  for (const std::string& glob : causes)
    if (GlobMatches(glob, key)) return true;
  return false;
}

json Finding::ToJson() const {
  json j = {{"format", FormatVersion("finding")}, {"kind", kind}, {"oracle", oracle}, {"at", at}, {"signature", signature}, {"detail", detail},
            {"thread", thread}, {"statement", statement}, {"targets", targets}};
  if (!id.empty()) j["id"] = id;
  if (!known.empty()) j["known"] = known;
  if (!cause.empty()) j["cause"] = cause;
  j["occurrences"] = occurrences;
  if (!preceding.empty()) j["preceding"] = preceding;
  if (!settings.empty()) j["settings"] = settings;
  if (!key.is_null()) j["key"] = key;
  if (!evidence.is_null()) j["evidence"] = evidence;
  if (!minimal.is_null()) j["minimal"] = minimal;
  if (!crash.empty() || !crash.gdb_backtrace.empty()) j["crash"] = crash.ToJson();
  return j;
}

Finding Finding::FromJson(const json& j) {
  Finding f;
  f.kind = j.value("kind", "");
  f.oracle = j.value("oracle", "crash");
  f.at = j.value("at", 0.0);
  f.signature = j.value("signature", "");
  f.detail = j.value("detail", "");
  f.thread = j.value("thread", 0);
  f.statement = j.value("statement", "");
  f.preceding = j.value("preceding", std::vector<std::string>{});
  f.settings = j.value("settings", std::vector<std::string>{});
  f.targets = j.value("targets", std::vector<std::string>{});
  f.key = j.value("key", json());
  f.evidence = j.value("evidence", json());
  f.minimal = j.value("minimal", json());
  f.known = j.value("known", "");
  f.cause = j.value("cause", "");
  if (j.contains("crash")) f.evidence["crash"] = j["crash"];
  return f;
}

std::vector<KnownBug> LoadKnownBugs(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InvalidInput({path, 0, 0}, "cannot read the known-bugs file");
  std::vector<KnownBug> known;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string t = Trim(line);
    if (t.empty() || t[0] == '#') continue;
    const size_t sep = t.find("##");
    KnownBug k{Trim(t.substr(0, sep)), sep == std::string::npos ? "known bug" : Trim(t.substr(sep + 2)), {}};
    if (k.pattern.empty()) throw InvalidInput({path, n, 1}, "an entry needs a pattern before '##'");
    known.push_back(std::move(k));
  }
  return known;
}

FindingLog::FindingLog(std::string out_dir, std::vector<KnownBug> known, json targets,
                       RootCauses::KeyOf root_cause_key)
    : out_dir_(std::move(out_dir)), known_(std::move(known)), targets_(std::move(targets)),
      causes_(std::move(root_cause_key)) {
  if (!out_dir_.empty()) {
    std::filesystem::create_directories(out_dir_);
    jsonl_.open(std::filesystem::path(out_dir_) / "findings.jsonl", std::ios::app);
  }
}

bool FindingLog::Add(Finding f) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = by_signature_.find(f.signature); it != by_signature_.end()) {
    ++findings_[it->second].occurrences;
    causes_.Count(cause_keys_[it->second], 1, f.at, findings_[it->second].id);
    return false;
  }
  f.cause = causes_.Key(f.ToJson());
  f.known.clear();
  for (const KnownBug& k : known_)
    if (k.Matches(f.cause, f.signature)) {
      f.known = k.note;
      break;
    }
  char id[32];
  std::snprintf(id, sizeof id, "%04zu-", findings_.size() + 1);
  f.id = id + f.kind;
  f.occurrences = 1;
  if (!out_dir_.empty()) Write(f);
  const size_t causes = causes_.size();
  cause_keys_.push_back(causes_.Add(f.ToJson(), f.id));
  by_signature_[f.signature] = findings_.size();
  findings_.push_back(std::move(f));
  if (causes_.size() > causes) WriteRootCauses();
  return true;
}

void FindingLog::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!findings_.empty()) WriteRootCauses();
}

// Replaced whole, so that a reader never sees half a file.
void FindingLog::WriteRootCauses() {
  if (out_dir_.empty()) return;
  namespace fs = std::filesystem;
  const fs::path path = fs::path(out_dir_) / "root_causes.json";
  const fs::path tmp = fs::path(out_dir_) / "root_causes.json.tmp";
  {
    std::ofstream out(tmp);
    out << Dump(causes_.ToJson(), 2) << '\n';
    if (!out) return;  // a full disk must not end the run; findings.jsonl has it all
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
}

namespace {

// The smallest query that still failed, as statements to run by hand: the
// data it read when the oracle took a snapshot (then it runs alone in an
// empty database), the session's settings, the follow-ups' setup, then both
// sides of the relation.
void WriteMinimal(const std::filesystem::path& dir, const Finding& f, std::ostream& readme) {
  // When no smaller form failed, the query is its own minimal form, with the finding's two sides.
  const json& m = f.minimal.contains("left") ? f.minimal : f.evidence;
  const json data = f.minimal.value("data", json::object());
  const bool alone = data.contains("statements");
  readme << "\nThe smallest form of the query that still failed (" << f.minimal.value("steps", 0) << " steps, "
         << f.minimal.value("checks", 0) << " checks on the live server), in minimal.sql:\n  "
         << f.minimal.value("sql", f.statement) << "\n"
         << (alone ? "minimal.sql runs alone in an empty database, its data included: mariadb test < minimal.sql\n"
                   : "minimal.sql needs the run's data at the time: " + data.value("missing", "no snapshot") + "\n");
  std::ofstream sql(dir / "minimal.sql");
  sql << "-- " << f.kind << ": the smallest form of the query whose relation still failed\n";
  if (alone) {
    sql << "-- with the data it read (" << data.value("tables", 0) << " tables, " << data.value("views", 0)
        << " views, " << data.value("rows", 0) << " rows): run it in an empty database\n";
  } else {
    sql << "-- on the run's data at the time (statements.sql has the session's last statements; other sessions\n"
        << "-- may have written); no data here: " << data.value("missing", "no snapshot") << "\n";
  }
  sql << "-- " << f.evidence.value("what", "") << "; compare the two results\n";
  for (const auto& s : data.value("statements", json::array())) sql << s.get<std::string>() << ";\n";
  for (const std::string& s : f.settings) sql << s << ";\n";
  for (const char* setup : {"side_setup", "setup"})
    for (const auto& s : m.value(setup, json::array())) sql << s.get<std::string>() << ";\n";
  sql << m.value("left", "") << ";\n" << m.value("right", "") << ";\n";
}

}  // namespace

// The folder holds what a developer needs first: the finding with the targets
// it concerns, and the session's statements up to it as a file `mariadb` reads.
void FindingLog::Write(const Finding& f) {
  namespace fs = std::filesystem;
  json j = f.ToJson();
  jsonl_ << Dump(j) << '\n' << std::flush;
  std::error_code ec;
  const fs::path dir = fs::path(out_dir_) / "findings" / f.id;
  fs::create_directories(dir, ec);
  if (ec) return;  // findings.jsonl has it; a full disk must not end the run
  json described = json::object();
  for (const std::string& name : f.targets)
    if (targets_.contains(name)) described[name] = targets_[name];
  j["target_details"] = described;
  std::ofstream(dir / "finding.json") << Dump(j, 2) << '\n';
  // What a developer reads first, and how to run it again.
  std::ofstream readme(dir / "README.txt");
  readme << f.kind << " found by " << f.oracle << " at " << f.at << " s in session " << f.thread << "\n"
         << "signature: " << f.signature << "\n\n" << f.detail << "\n\nstatement:\n  " << f.statement << "\n\n";
  for (const auto& [name, what] : described.items()) readme << "target " << name << ": " << Dump(what) << "\n";
  readme << "\nTo run it again: start each target's server with its options (above), with the run's data\n"
            "(OUT/run.json: data, seed), then `mariadb test < statements.sql` on each: the session's last\n"
            "statements, then this one. A run with --statement-log replays whole: gauntlet replay OUT.\n";
  if (!f.key.is_null())
    readme << "The query again from the grammar: Generator.replay(key) with key " << Dump(f.key) << "\n";
  if (f.minimal.contains("left") || f.minimal.contains("data")) WriteMinimal(dir, f, readme);
  std::ofstream sql(dir / "statements.sql");
  sql << "-- " << f.kind << ": " << f.signature << "\n-- session " << f.thread << ": " << f.preceding.size()
      << " statements before the one that found it, then that one\n";
  if (!f.settings.empty()) {
    sql << "-- the session's settings (its SET statements since it connected):\n";
    for (const std::string& s : f.settings) sql << s << ";\n";
    sql << "-- its last statements:\n";
  }
  for (const std::string& s : f.preceding) sql << s << ";\n";
  sql << "-- the statement:\n" << f.statement << ";\n";
}

std::vector<Finding> FindingLog::findings() const {
  std::lock_guard<std::mutex> lock(mu_);
  return findings_;
}

size_t FindingLog::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return findings_.size();
}

}  // namespace gauntlet
