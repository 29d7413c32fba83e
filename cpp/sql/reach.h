// Reach: which of a server's own names a run's statements used.
//
// The names come from the server's lists (its functions, keywords, help
// topics, session variables, data types, engines; see
// python/gauntlet/server/surface.py), grouped in categories, each with the
// rule by which a statement uses one of its names. A ReachIndex is built once
// per run and shared; each session counts its statements in a ReachTally of
// its own (no locking), and the run merges them. A statement counts once per
// name it uses, however often it uses it. Names match case-insensitively.
#ifndef GAUNTLET_SQL_REACH_H_
#define GAUNTLET_SQL_REACH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

namespace gauntlet {

enum class ReachRule {
  kCall,             // called: NAME(
  kWord,             // any word of the statement (a keyword)
  kPhrase,           // its words in order (see reach.cc); "..." in a name: any tokens there
  kColumnType,       // a column declared with it in CREATE/ALTER TABLE
  kColumnAttribute,  // a phrase inside CREATE/ALTER TABLE
  kSetVariable,      // assigned by SET (SESSION/GLOBAL/@@, SET STATEMENT ... FOR)
  kEngine,           // named by ENGINE [=]
};

// "call", "word", "phrase", "column_type", "column_attribute", "set_variable", "engine".
std::string_view ReachRuleName(ReachRule rule);
// The rule named so; throws InvalidInput naming the rules there are.
ReachRule ParseReachRule(std::string_view name);

struct ReachCategory {
  std::string name;  // "functions", "keywords", ...
  ReachRule rule = ReachRule::kWord;
  std::vector<std::string> names;  // as the server spells them; a phrase's words separated by spaces
};

// The categories, indexed for one hash look-up per token. Immutable.
class ReachIndex {
 public:
  explicit ReachIndex(std::vector<ReachCategory> categories);
  const std::vector<ReachCategory>& categories() const { return categories_; }

 private:
  friend class ReachTally;
  struct Entry {
    uint32_t category = 0, name = 0;
    std::vector<std::string> rest;  // a phrase's words after the first, upper-cased
  };
  std::vector<ReachCategory> categories_;
  std::unordered_map<std::string, std::vector<Entry>> by_first_word_;      // all rules but the two below
  std::vector<std::unordered_map<std::string, uint32_t>> by_name_;        // set_variable and engine
  std::unordered_set<std::string> keywords_;  // the word rule's names: what a phrase may not pass over
  bool has_keywords_ = false;
};

// One session's counts. Not thread-safe.
class ReachTally {
 public:
  explicit ReachTally(std::shared_ptr<const ReachIndex> index);
  void Add(std::string_view sql);
  void Merge(const ReachTally& other);  // REQUIRES: the same index
  uint64_t statements() const { return statements_; }
  // {"statements": N, "categories": {NAME: {"rule": R, "total": T, "reached": {name: statements}}}}
  nlohmann::json ToJson() const;

 private:
  void Hit(uint32_t category, uint32_t name);
  std::shared_ptr<const ReachIndex> index_;
  std::vector<std::vector<uint64_t>> counts_;     // by category, by name
  std::vector<std::vector<uint64_t>> last_seen_;  // the statement that last counted it
  uint64_t statements_ = 0;
};

}  // namespace gauntlet

#endif  // GAUNTLET_SQL_REACH_H_
