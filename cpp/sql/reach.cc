#include "sql/reach.h"

#include <strings.h>

#include <array>
#include <unordered_set>
#include <utility>

#include "common/error.h"
#include "sql/sql_shape.h"

namespace gauntlet {
namespace {

constexpr std::array<std::pair<ReachRule, std::string_view>, 7> kRuleNames = {{
    {ReachRule::kCall, "call"},
    {ReachRule::kWord, "word"},
    {ReachRule::kPhrase, "phrase"},
    {ReachRule::kColumnType, "column_type"},
    {ReachRule::kColumnAttribute, "column_attribute"},
    {ReachRule::kSetVariable, "set_variable"},
    {ReachRule::kEngine, "engine"},
}};

const std::string kAnyGap = "...";

// Words a phrase may have between its own at its depth besides names, literals
// and calls: the modifiers that stand between a statement's words (CREATE OR
// REPLACE TEMPORARY TABLE is a CREATE TABLE, INSERT IGNORE INTO t SELECT an
// INSERT SELECT).
const std::unordered_set<std::string> kModifiers = {
    "OR", "REPLACE", "TEMPORARY", "IF", "NOT", "EXISTS", "ONLINE", "IGNORE", "LOW_PRIORITY", "HIGH_PRIORITY",
    "DELAYED", "QUICK", "UNIQUE", "FULLTEXT", "SPATIAL", "FULL", "GLOBAL", "SESSION", "LOCAL", "NO_WRITE_TO_BINLOG",
    "DEFINER", "ALGORITHM", "SQL", "SECURITY", "INVOKER", "AGGREGATE", "INTO", "EXTENDED", "DISTINCT", "ALL",
    "DISTINCTROW", "STRAIGHT_JOIN", "WORK", "NOWAIT", "WAIT"};

// These words start statements, and are also words of other statements'
// clauses (UPDATE ... SET, ON DELETE, FOR UPDATE, CREATE OR REPLACE, BEFORE
// INSERT ON): a phrase that starts with one matches only where a statement does.
const std::unordered_set<std::string> kStatementOnly = {"DELETE", "INSERT", "REPLACE", "SET", "UPDATE"};

// Where a statement of a compound one (or a subquery) starts: after these.
const std::unordered_set<std::string> kStatementStarts = {"BEGIN", "THEN", "ELSE", "DO", "ROW", "LOOP", "REPEAT",
                                                          "EXPLAIN", "DESCRIBE"};

bool Eq(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// The tokens of a name as a phrase, upper-cased ("..." for three dots).
std::vector<std::string> PhraseWords(const std::string& name) {
  const SqlShape shape(name);
  std::vector<std::string> words;
  const auto& tokens = shape.tokens();
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (i + 2 < tokens.size() && shape.text(tokens[i]) == "." && shape.text(tokens[i + 1]) == "." &&
        shape.text(tokens[i + 2]) == ".") {
      if (!words.empty() && words.back() != kAnyGap) words.push_back(kAnyGap);
      i += 2;
      continue;
    }
    words.push_back(Upper(shape.text(tokens[i])));
  }
  while (!words.empty() && words.back() == kAnyGap) words.pop_back();
  return words;
}

// What one statement's tokens tell every rule.
class Statement {
 public:
  Statement(std::string_view sql, const std::unordered_set<std::string>* keywords)
      : shape_(sql), tokens_(shape_.tokens()), keywords_(keywords) {
    upper_.reserve(tokens_.size());
    for (const SqlToken& t : tokens_)
      upper_.push_back(t.kind == SqlToken::kWord || t.kind == SqlToken::kPunct ? Upper(shape_.text(t)) : "");
    table_ddl_ = FindTableDdl();
  }
  size_t size() const { return tokens_.size(); }
  const std::string& upper(size_t i) const { return upper_[i]; }
  bool table_ddl() const { return table_ddl_; }

  bool IsCall(size_t i) const { return shape_.IsCall(i); }
  bool IsWord(size_t i) const { return tokens_[i].kind == SqlToken::kWord; }

  // A statement starts at token i.
  bool StartsStatement(size_t i) const {
    if (i == 0) return true;
    const std::string& before = upper_[i - 1];
    return before == ";" || before == "(" || kStatementStarts.count(before) > 0;
  }

  // The phrase whose first word is token i, its other words `rest`.
  bool Phrase(size_t i, const std::vector<std::string>& rest) const {
    if (kStatementOnly.count(upper_[i]) && !StartsStatement(i)) return false;
    const int depth = tokens_[i].depth;
    // A called word's phrase goes on inside its parentheses only (COUNT(DISTINCT a)).
    const size_t call_end = IsCall(i) ? i + 2 : tokens_.size();
    size_t next = i + 1;
    bool any_gap = false;
    for (const std::string& word : rest) {
      if (word == kAnyGap) {
        any_gap = true;
        continue;
      }
      size_t k = next;
      for (; k < tokens_.size(); ++k) {
        const SqlToken& t = tokens_[k];
        if (t.depth < depth || (upper_[k] == ";" && t.depth == depth) || (k >= call_end && t.depth == depth))
          return false;
        if (upper_[k] == word) break;
        if (!any_gap && !Skippable(k, depth)) return false;
      }
      if (k == tokens_.size()) return false;
      next = k + 1;
      any_gap = false;
    }
    return true;
  }

  // Token i declares a column's type: it follows the column's name at the
  // start of a column definition.
  bool ColumnTypeAt(size_t i) const {
    if (!table_ddl_ || i < 2 || !(IsWord(i - 1) || tokens_[i - 1].kind == SqlToken::kQuotedName) || IsCall(i - 1))
      return false;
    const std::string& before = upper_[i - 2];
    if (before == "(" || before == "," || before == "ADD" || before == "COLUMN" || before == "MODIFY" ||
        before == "EXISTS")
      return true;
    // CHANGE [COLUMN] old new TYPE
    return i >= 3 && (IsWord(i - 2) || tokens_[i - 2].kind == SqlToken::kQuotedName) &&
           (upper_[i - 3] == "CHANGE" || (upper_[i - 3] == "COLUMN" && i >= 4 && upper_[i - 4] == "CHANGE"));
  }

  // A type's further words right after token i (its arguments in parentheses skipped).
  bool TypeWords(size_t i, const std::vector<std::string>& rest) const {
    const int depth = tokens_[i].depth;
    size_t k = i + 1;
    for (const std::string& word : rest) {
      while (k < tokens_.size() && (tokens_[k].depth > depth || upper_[k] == "(")) ++k;
      if (k == tokens_.size() || upper_[k] != word) return false;
      ++k;
    }
    return true;
  }

  // The names SET assigns (SET [GLOBAL|SESSION] a = 1, @@b = 2; SET STATEMENT a = 1 FOR ...).
  std::vector<std::string> SetVariables() const {
    std::vector<std::string> names;
    if (tokens_.empty() || upper_[0] != "SET") return names;
    size_t k = 1;
    const bool statement = k < tokens_.size() && upper_[k] == "STATEMENT";
    k += statement;
    while (k < tokens_.size()) {
      if (upper_[k] == "GLOBAL" || upper_[k] == "SESSION" || upper_[k] == "LOCAL") ++k;
      if (k + 1 < tokens_.size() && (upper_[k + 1] == "=" || upper_[k + 1] == ":=")) {
        std::string name = VariableName(k);
        if (!name.empty()) names.push_back(std::move(name));
      }
      // on to the next assignment at the top level
      while (k < tokens_.size() && !(tokens_[k].depth == 0 && upper_[k] == ",")) {
        if (statement && tokens_[k].depth == 0 && upper_[k] == "FOR") return names;
        ++k;
      }
      ++k;
    }
    return names;
  }

  // The engine ENGINE [=] at token i names, upper-cased, or "".
  std::string EngineAt(size_t i) const {
    size_t k = i + 1;
    if (k < tokens_.size() && upper_[k] == "=") ++k;
    if (k == tokens_.size()) return "";
    const SqlToken& t = tokens_[k];
    if (t.kind == SqlToken::kWord || t.kind == SqlToken::kQuotedName) return Upper(shape_.Name(t));
    if (t.kind == SqlToken::kString) {
      const std::string_view quoted = shape_.text(t);
      return Upper(quoted.substr(1, quoted.size() - 2));
    }
    return "";
  }

 private:
  // A token a phrase may pass over at `depth`: anything deeper, anything not
  // a word, a call, a modifier, a word that is no keyword (a name).
  bool Skippable(size_t k, int depth) const {
    const SqlToken& t = tokens_[k];
    if (t.depth > depth || t.kind != SqlToken::kWord || IsCall(k) || kModifiers.count(upper_[k])) return true;
    return keywords_ != nullptr && keywords_->count(upper_[k]) == 0;
  }

  std::string VariableName(size_t k) const {
    const SqlToken& t = tokens_[k];
    if (t.kind == SqlToken::kWord) return upper_[k];
    if (t.kind != SqlToken::kVariable) return "";
    std::string_view v = shape_.text(t);
    if (v.size() < 3 || v.substr(0, 2) != "@@") return "";  // a user variable
    v.remove_prefix(2);
    for (std::string_view scope : {"SESSION.", "GLOBAL.", "LOCAL."})
      if (v.size() > scope.size() && Eq(v.substr(0, scope.size()), scope)) v.remove_prefix(scope.size());
    if (v.size() >= 2 && v.front() == '`' && v.back() == '`') v = v.substr(1, v.size() - 2);
    return Upper(v);
  }

  // CREATE or ALTER ... TABLE before the first parenthesis.
  bool FindTableDdl() const {
    if (tokens_.empty() || (upper_[0] != "CREATE" && upper_[0] != "ALTER")) return false;
    for (size_t k = 1; k < tokens_.size() && upper_[k] != "("; ++k)
      if (upper_[k] == "TABLE") return true;
    return false;
  }

  SqlShape shape_;
  const std::vector<SqlToken>& tokens_;
  const std::unordered_set<std::string>* keywords_;
  std::vector<std::string> upper_;
  bool table_ddl_ = false;
};

}  // namespace

std::string_view ReachRuleName(ReachRule rule) {
  for (const auto& [r, name] : kRuleNames)
    if (r == rule) return name;
  return "";
}

ReachRule ParseReachRule(std::string_view name) {
  std::string known;
  for (const auto& [rule, n] : kRuleNames) {
    if (n == name) return rule;
    known += (known.empty() ? "" : ", ") + std::string(n);
  }
  throw InvalidInput({}, "reach: no rule '" + std::string(name) + "' (the rules: " + known + ")");
}

ReachIndex::ReachIndex(std::vector<ReachCategory> categories) : categories_(std::move(categories)) {
  by_name_.resize(categories_.size());
  for (uint32_t c = 0; c < categories_.size(); ++c) {
    const ReachCategory& category = categories_[c];
    std::unordered_set<std::string> seen;
    has_keywords_ = has_keywords_ || category.rule == ReachRule::kWord;
    for (uint32_t n = 0; n < category.names.size(); ++n) {
      if (category.rule == ReachRule::kSetVariable || category.rule == ReachRule::kEngine) {
        by_name_[c].emplace(Upper(category.names[n]), n);
        continue;
      }
      std::vector<std::string> words = PhraseWords(category.names[n]);
      if (words.empty() || !seen.insert(Upper(category.names[n])).second) continue;
      if (category.rule == ReachRule::kWord) keywords_.insert(words.front());
      Entry entry{c, n, std::vector<std::string>(words.begin() + 1, words.end())};
      by_first_word_[words.front()].push_back(std::move(entry));
    }
  }
}

ReachTally::ReachTally(std::shared_ptr<const ReachIndex> index) : index_(std::move(index)) {
  for (const ReachCategory& category : index_->categories()) {
    counts_.emplace_back(category.names.size(), 0);
    last_seen_.emplace_back(category.names.size(), 0);
  }
}

void ReachTally::Hit(uint32_t category, uint32_t name) {
  uint64_t& last = last_seen_[category][name];
  if (last == statements_) return;  // counted for this statement already
  last = statements_;
  ++counts_[category][name];
}

void ReachTally::Add(std::string_view sql) {
  ++statements_;
  const ReachIndex& index = *index_;
  const std::vector<ReachCategory>& categories = index.categories();
  const Statement s(sql, index.has_keywords_ ? &index.keywords_ : nullptr);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.upper(i).empty()) continue;
    const auto found = index.by_first_word_.find(s.upper(i));
    if (found != index.by_first_word_.end()) {
      // A column has one type: the longest that fits (DOUBLE PRECISION, not DOUBLE too).
      const ReachIndex::Entry* type = nullptr;
      for (const ReachIndex::Entry& e : found->second) {
        bool hit = false;
        switch (categories[e.category].rule) {
          case ReachRule::kCall: hit = s.IsCall(i); break;
          case ReachRule::kWord: hit = true; break;  // a keyword may be an operator (&&, <=>)
          case ReachRule::kPhrase: hit = s.Phrase(i, e.rest); break;
          case ReachRule::kColumnAttribute: hit = s.table_ddl() && s.Phrase(i, e.rest); break;
          case ReachRule::kColumnType:
            if (s.ColumnTypeAt(i) && s.TypeWords(i, e.rest) && (type == nullptr || e.rest.size() > type->rest.size()))
              type = &e;
            break;
          default: break;
        }
        if (hit) Hit(e.category, e.name);
      }
      if (type != nullptr) Hit(type->category, type->name);
    }
    if (s.upper(i) == "ENGINE" && !s.IsCall(i)) {
      const std::string engine = s.EngineAt(i);
      for (uint32_t c = 0; c < categories.size(); ++c) {
        if (categories[c].rule != ReachRule::kEngine) continue;
        const auto named = index.by_name_[c].find(engine);
        if (named != index.by_name_[c].end()) Hit(c, named->second);
      }
    }
  }
  for (const std::string& variable : s.SetVariables())
    for (uint32_t c = 0; c < categories.size(); ++c) {
      if (categories[c].rule != ReachRule::kSetVariable) continue;
      const auto named = index.by_name_[c].find(variable);
      if (named != index.by_name_[c].end()) Hit(c, named->second);
    }
}

void ReachTally::Merge(const ReachTally& other) {
  for (size_t c = 0; c < counts_.size() && c < other.counts_.size(); ++c)
    for (size_t n = 0; n < counts_[c].size() && n < other.counts_[c].size(); ++n) counts_[c][n] += other.counts_[c][n];
  statements_ += other.statements_;
}

nlohmann::json ReachTally::ToJson() const {
  nlohmann::json categories = nlohmann::json::object();
  for (size_t c = 0; c < counts_.size(); ++c) {
    const ReachCategory& category = index_->categories()[c];
    nlohmann::json reached = nlohmann::json::object();
    for (size_t n = 0; n < counts_[c].size(); ++n)
      if (counts_[c][n] > 0) reached[category.names[n]] = counts_[c][n];
    categories[category.name] = {{"rule", ReachRuleName(category.rule)},
                                 {"total", category.names.size()},
                                 {"reached", std::move(reached)}};
  }
  return {{"statements", statements_}, {"categories", std::move(categories)}};
}

}  // namespace gauntlet
