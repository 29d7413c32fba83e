// RootCauses: findings grouped by their likely cause (a key function, in a
// run the oracle layer's RootCauseKey), ranked by how often each came, with
// the smallest reproducer of each: what OUT/root_causes.json and
// `gauntlet triage` show.
//
// A cause: key, kind, count (occurrences of its findings), findings (their
// folders), signature (its first finding's), first and last (folder and
// seconds into its run), statement (the shortest statement among its
// findings) and minimal (the shortest minimal query with both sides and the
// folder it is in; null when none has one, as for crashes); known (the known
// bug it is, when one of its findings was marked so).
#ifndef GAUNTLET_EXEC_ROOT_CAUSES_H_
#define GAUNTLET_EXEC_ROOT_CAUSES_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gauntlet {

class RootCauses {
 public:
  // A finding as finding.json has it -> its cause's key (null: its signature).
  using KeyOf = std::function<std::string(const nlohmann::json& finding)>;
  explicit RootCauses(KeyOf key_of = nullptr) : key_of_(std::move(key_of)) {}

  // The key of `finding`.
  std::string Key(const nlohmann::json& finding) const;
  // `finding` found `occurrences` times; `folder` is where it is (its id in
  // a run, a path for triage). Returns its key. A cause is known when a
  // finding of it is (its "known": the known bug's note).
  std::string Add(const nlohmann::json& finding, const std::string& folder);
  // More occurrences of a finding added before, at `at` seconds.
  void Count(const std::string& key, uint64_t more, double at, const std::string& folder);
  size_t size() const { return causes_.size(); }
  // {"format", "root_causes": [...]}, most frequent first.
  nlohmann::json ToJson() const;

 private:
  struct Cause {
    nlohmann::json record;
    size_t order = 0;  // first seen
  };
  KeyOf key_of_;
  std::map<std::string, Cause> causes_;
};

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_ROOT_CAUSES_H_
