#include "grammar/grammar.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <filesystem>
#include <fstream>
#include <queue>
#include <regex>
#include <sstream>

#include "grammar/parser.h"

namespace gauntlet {

struct Grammar::Definition {
  std::string name;
  std::string file;
  size_t offset = 0;
  std::vector<RawAlternative> alternatives;
  std::vector<std::string> no_oracles;
  int callback = -1;
  size_t order = 0;  // position of the first definition, for stable output
};

namespace {

bool IsLiteralWord(const std::string& word) {
  // RQG: a token equal to its own uc() is a literal.
  return std::none_of(word.begin(), word.end(),
                      [](unsigned char c) { return std::islower(c); });
}

std::string FormatArgs(const std::vector<double>& args) {
  std::ostringstream out;
  out << '(';
  for (size_t i = 0; i < args.size(); ++i) out << (i ? "," : "") << args[i];
  out << ')';
  return out.str();
}

// Maps byte offsets of one text to line and column quickly.
class LineIndex {
 public:
  explicit LineIndex(const std::string& text) {
    starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') starts_.push_back(i + 1);
  }
  SourceLocation At(const std::string& file, size_t offset) const {
    auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
    const size_t line = it - starts_.begin();
    return {file, static_cast<int>(line), static_cast<int>(offset - starts_[line - 1] + 1)};
  }

 private:
  std::vector<size_t> starts_;
};

}  // namespace

Grammar::Grammar() = default;
Grammar::~Grammar() = default;

std::string Grammar::source_text(const std::string& source) const {
  const auto it = texts_.find(source);
  return it == texts_.end() ? std::string() : it->second;
}

void Grammar::AddText(const std::string& with_bom, const std::string& file) {
  if (finished_) throw Error("grammar is already finished");
  // A UTF-8 byte order mark (editors on Windows write one) is no part of the first rule's name.
  static constexpr char kBom[] = "\xEF\xBB\xBF";
  const std::string text = with_bom.rfind(kBom, 0) == 0 ? with_bom.substr(3) : with_bom;
  std::vector<size_t> skipped;
  std::vector<RawRule> parsed = ParseGrammarText(text, file, &skipped);
  texts_[file] = text;
  sources_.push_back(file);
  const LineIndex lines(text);
  for (size_t offset : skipped) {
    // `näme:` looks like a rule, but names are ASCII (as in RQG): say so
    // instead of dropping it quietly.
    size_t end = offset;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_' ||
                                 static_cast<unsigned char>(text[end]) >= 0x80))
      ++end;
    const std::string name = text.substr(offset, end - offset);
    size_t colon = end;
    while (colon < text.size() && (text[colon] == ' ' || text[colon] == '\t')) ++colon;
    if (colon < text.size() && text[colon] == ':' &&
        std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
      throw InvalidInput(lines.At(file, offset), "rule name '" + name +
                                                     "' has non-ASCII characters; rule names are ASCII letters, "
                                                     "digits and _");
    if (parsed.empty())
      throw InvalidInput(lines.At(file, offset), "no rule here: a rule starts with its name and a colon, "
                                                 "as in 'query: SELECT 1 ;'");
    if (offset < parsed.front().offset)
      warnings_.push_back(lines.At(file, offset).ToString() +
                          ": text before the first rule is ignored (a rule starts with 'name:')");
    else
      warnings_.push_back(lines.At(file, offset).ToString() +
                          ": text without a rule name 'name:' before it is ignored "
                          "(a ';' at the end of a line above ended the rule)");
  }
  for (RawRule& r : parsed) {
    auto def = std::make_unique<Definition>();
    def->name = r.name;
    def->file = file;
    def->offset = r.offset;
    def->alternatives = std::move(r.alternatives);
    def->no_oracles = std::move(r.no_oracles);
    auto found = definition_index_.find(r.name);
    if (found != definition_index_.end()) {
      Definition& old = *definitions_[found->second];
      const SourceLocation was = old.callback >= 0
          ? SourceLocation{"<callback>", 0, 0}
          : LineIndex(texts_[old.file]).At(old.file, old.offset);
      warnings_.push_back(lines.At(file, r.offset).ToString() + ": rule '" +
                          r.name + "' redefined (was " + was.ToString() + ")");
      def->order = old.order;
      definitions_[found->second] = std::move(def);
    } else {
      def->order = definitions_.size();
      definition_index_[r.name] = definitions_.size();
      definitions_.push_back(std::move(def));
    }
  }
}

void Grammar::AddFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InvalidInput({path, 0, 0}, "a folder, not a grammar file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidInput({path, 0, 0}, "cannot read grammar file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  AddText(buffer.str(), path);
}

void Grammar::DefineCallback(const std::string& name, RuleCallback callback) {
  if (finished_) throw Error("grammar is already finished");
  auto def = std::make_unique<Definition>();
  def->name = name;
  def->file = "<callback>";
  def->callback = static_cast<int>(callbacks_.size());
  callbacks_.push_back(std::move(callback));
  auto found = definition_index_.find(name);
  if (found != definition_index_.end()) {
    def->order = definitions_[found->second]->order;
    definitions_[found->second] = std::move(def);
  } else {
    def->order = definitions_.size();
    definition_index_[name] = definitions_.size();
    definitions_.push_back(std::move(def));
  }
}

void Grammar::ApplyAddRules() {
  static const std::regex kAdd("(query|thread[0-9]+)(_init)?_add");
  std::vector<std::string> add_names;
  for (const auto& def : definitions_) {
    if (std::regex_match(def->name, kAdd)) add_names.push_back(def->name);
  }
  auto make_ref = [](const std::string& name, bool space) {
    RawToken t;
    t.kind = RawToken::Kind::kWord;
    t.text = name;
    t.space_before = space;
    return t;
  };
  for (const std::string& add : add_names) {
    const std::string target = add.substr(0, add.size() - 4);  // drop "_add"
    const bool is_init = target.size() > 5 && target.compare(target.size() - 5, 5, "_init") == 0;
    Definition* base = nullptr;
    if (auto it = definition_index_.find(target); it != definition_index_.end()) {
      base = definitions_[it->second].get();
    } else if (target != "query" && target != "query_init") {
      // threadN_add extends query, threadN_init_add extends query_init.
      const std::string fallback = is_init ? "query_init" : "query";
      if (auto it = definition_index_.find(fallback); it != definition_index_.end())
        base = definitions_[it->second].get();
    }
    const Definition& extra = *definitions_[definition_index_[add]];
    auto def = std::make_unique<Definition>();
    def->name = target;
    def->file = extra.file;
    def->offset = extra.offset;
    if (is_init) {
      // Init rules run in sequence: base ; add.
      RawAlternative alt;
      if (base != nullptr) {
        alt.tokens.push_back(make_ref(base->name == target ? target + " (base)" : base->name, false));
        RawToken semi;
        semi.text = ";";
        alt.tokens.push_back(semi);
      }
      alt.tokens.push_back(make_ref(add, true));
      def->alternatives.push_back(std::move(alt));
    } else {
      if (base != nullptr) def->alternatives = base->alternatives;
      for (const RawAlternative& a : extra.alternatives) def->alternatives.push_back(a);
    }
    if (base != nullptr && base->name == target) {
      if (is_init) {
        auto renamed = std::make_unique<Definition>(*base);
        renamed->name = target + " (base)";
        renamed->order = definitions_.size();
        definition_index_[renamed->name] = definitions_.size();
        definitions_.push_back(std::move(renamed));
      }
      def->order = base->order;
      definitions_[definition_index_[target]] = std::move(def);
    } else {
      def->order = definitions_.size();
      definition_index_[target] = definitions_.size();
      definitions_.push_back(std::move(def));
    }
  }
}

std::vector<Grammar::Definition*> Grammar::ordered_definitions() const {
  std::vector<Definition*> out;
  for (const auto& d : definitions_) out.push_back(d.get());
  std::stable_sort(out.begin(), out.end(),
                   [](const Definition* a, const Definition* b) { return a->order < b->order; });
  return out;
}

void Grammar::Classify() {
  const std::vector<Definition*> defs = ordered_definitions();
  for (const Definition* d : defs) {
    rule_index_[d->name] = static_cast<int>(rules_.size());
    Rule r;
    r.name = d->name;
    r.callback = d->callback;
    rules_.push_back(std::move(r));
  }
  std::unordered_map<std::string, int> invariant_slot;
  std::unordered_map<std::string, uint32_t> variable_index;
  std::unordered_map<std::string, LineIndex> line_indexes;
  auto locate = [&](const std::string& file, size_t offset) {
    auto it = line_indexes.find(file);
    if (it == line_indexes.end())
      it = line_indexes.emplace(file, LineIndex(texts_[file])).first;
    return it->second.At(file, offset);
  };

  for (size_t ri = 0; ri < defs.size(); ++ri) {
    const Definition& d = *defs[ri];
    Rule& rule = rules_[ri];
    rule.where = d.callback >= 0 ? SourceLocation{"<callback>", 0, 0} : locate(d.file, d.offset);
    rule.no_oracles = d.no_oracles;
    rule.first_alternative = alternative_count_;
    for (const RawAlternative& raw : d.alternatives) {
      Alternative alt;
      alt.weight = raw.weight;
      if (raw.weighted && raw.weight != 1.0) rule.weighted = true;
      if (raw.weight < 0)
        throw InvalidInput(locate(d.file, raw.offset), "a weight must not be negative");
      for (const RawToken& rt : raw.tokens) {
        Token t;
        t.space_before = rt.space_before;
        t.text = rt.text;
        switch (rt.kind) {
          case RawToken::Kind::kQuoted:
          case RawToken::Kind::kPunct:
            t.kind = Token::Kind::kLiteral;
            break;
          case RawToken::Kind::kPerl:
            t.kind = Token::Kind::kPerl;
            t.index = static_cast<uint32_t>(perl_blocks_.size());
            perl_blocks_.push_back({rt.text, locate(d.file, rt.offset), rt.unbalanced});
            if (rt.unbalanced)
              warnings_.push_back(perl_blocks_.back().where.ToString() +
                                  ": the braces of this Perl block do not balance before its alternative ends; "
                                  "as RQG does, it runs up to there, and adds nothing if that does not compile");
            break;
          case RawToken::Kind::kVariable: {
            t.kind = Token::Kind::kVariable;
            auto [it, added] = variable_index.emplace(rt.text, variables_.size());
            if (added) variables_.push_back(rt.text);
            t.index = it->second;
            break;
          }
          case RawToken::Kind::kWord: {
            const std::string written = rt.text + (rt.has_args ? FormatArgs(rt.args) : "") +
                                        (rt.word_arg.empty() ? "" : "(" + rt.word_arg + ")");
            if (IsLiteralWord(rt.text + rt.suffix)) {
              t.kind = Token::Kind::kLiteral;
              t.text = written + rt.suffix;
              break;
            }
            if (auto it = rule_index_.find(rt.text); it != rule_index_.end()) {
              t.kind = Token::Kind::kRule;
              t.index = it->second;
              if (rt.has_args) {  // `rule(1)`: the arguments are text after it
                Token ref = t;
                alt.tokens.push_back(ref);
                t.kind = Token::Kind::kLiteral;
                t.space_before = false;
                t.text = FormatArgs(rt.args);
              }
            } else {
              std::optional<Builtin> b;
              try {
                b = ResolveBuiltin(rt.text, rt.args, rt.has_args, rt.word_arg);
              } catch (const std::invalid_argument& e) {
                throw InvalidInput(locate(d.file, rt.offset), e.what());
              }
              // `_uniform(1, ` : a '(' right after a built-in that takes
              // arguments, which the parser could not read as numbers.
              const std::string& source = texts_[d.file];
              const size_t after = rt.offset + rt.text.size();
              if (b && b->max_args > 0 && !rt.has_args && rt.suffix.empty() && after < source.size() &&
                  source[after] == '(')
                throw InvalidInput(locate(d.file, after), rt.text + ": arguments are numbers separated by "
                                                          "commas and closed by ')' on the same line");
              if (b) {
                t.kind = Token::Kind::kBuiltin;
                t.index = static_cast<uint32_t>(builtins_.size());
                builtins_.push_back(*b);
              } else {
                t.kind = Token::Kind::kLiteral;
                t.text = written;
                undefined_words_.emplace(rt.text, locate(d.file, rt.offset));
              }
            }
            if (!rt.suffix.empty() && t.kind != Token::Kind::kLiteral) {
              const std::string key = rt.text + rt.suffix;
              auto [it, added] = invariant_slot.emplace(key, invariant_slots_);
              if (added) ++invariant_slots_;
              t.invariant = it->second;
            }
            break;
          }
        }
        alt.tokens.push_back(std::move(t));
      }
      rule.alternatives.push_back(std::move(alt));
      ++alternative_count_;
    }
    if (rule.weighted) {
      double total = 0;
      for (const Alternative& a : rule.alternatives) {
        total += a.weight;
        rule.cumulative.push_back(total);
      }
      if (total <= 0) throw InvalidInput(rule.where, "every alternative of '" + rule.name + "' has weight 0");
    }
  }
  for (const auto& [word, where] : undefined_words_) {
    warnings_.push_back(where.ToString() + ": '" + word +
                        "' is not a rule or built-in; it is printed as written");
  }
}

// A rule's height is the depth of its shallowest derivation: the least, over
// its alternatives, of 1 + the largest height of the rules they name. Rules
// are settled in order of height, like Dijkstra's shortest paths (Knuth's
// grammar problem), so that a chain of N rules costs O(N log N), not N passes.
void Grammar::ComputeHeights() {
  struct Use {
    uint32_t rule, alternative;
  };
  std::vector<std::vector<Use>> used_by(rules_.size());
  std::vector<std::vector<uint32_t>> pending(rules_.size());  // unsettled rule tokens per alternative
  std::vector<std::vector<int>> height(rules_.size());        // of each alternative, so far
  using Entry = std::pair<int, uint32_t>;                      // (height, rule)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  for (uint32_t r = 0; r < rules_.size(); ++r) {
    Rule& rule = rules_[r];
    rule.height = INT_MAX;
    if (rule.callback >= 0) {
      queue.push({1, r});
      continue;
    }
    pending[r].assign(rule.alternatives.size(), 0);
    height[r].assign(rule.alternatives.size(), 1);
    for (uint32_t a = 0; a < rule.alternatives.size(); ++a) {
      if (rule.weighted && rule.alternatives[a].weight <= 0) {
        pending[r][a] = UINT32_MAX;  // never taken
        continue;
      }
      for (const Token& t : rule.alternatives[a].tokens) {
        if (t.kind != Token::Kind::kRule) continue;
        ++pending[r][a];
        used_by[t.index].push_back({r, a});
      }
      if (pending[r][a] == 0) queue.push({1, r});
    }
  }
  std::vector<bool> settled(rules_.size(), false);
  while (!queue.empty()) {
    const auto [h, r] = queue.top();
    queue.pop();
    if (settled[r]) continue;
    settled[r] = true;
    rules_[r].height = h;
    // Alternatives of settled rules are completed too, so that the first
    // alternative of the least height is known below.
    for (const Use& u : used_by[r]) {
      if (pending[u.rule][u.alternative] == UINT32_MAX) continue;
      int& ah = height[u.rule][u.alternative];
      ah = std::max(ah, h + 1);
      if (--pending[u.rule][u.alternative] == 0 && !settled[u.rule]) queue.push({ah, u.rule});
    }
  }
  // The first alternative of the least height is the one taken past max_depth.
  for (uint32_t r = 0; r < rules_.size(); ++r) {
    Rule& rule = rules_[r];
    if (rule.callback >= 0 || rule.height == INT_MAX) continue;
    for (uint32_t a = 0; a < rule.alternatives.size(); ++a) {
      if (pending[r][a] == 0 && height[r][a] == rule.height) {
        rule.shortest = static_cast<int>(a);
        break;
      }
    }
  }
  for (const Rule& r : rules_) {
    if (r.height == INT_MAX)
      warnings_.push_back(r.where.ToString() + ": rule '" + r.name +
                          "' can never finish: every alternative recurses");
  }
}

void Grammar::Finish() {
  if (finished_) return;
  ApplyAddRules();
  Classify();
  ComputeHeights();
  finished_ = true;
  definitions_.clear();
  definition_index_.clear();
}

int Grammar::FindRule(const std::string& name) const {
  auto it = rule_index_.find(name);
  return it == rule_index_.end() ? -1 : it->second;
}

std::shared_ptr<const Grammar> Grammar::FromFiles(const std::vector<std::string>& paths) {
  auto g = std::make_shared<Grammar>();
  for (const auto& p : paths) g->AddFile(p);
  g->Finish();
  return g;
}

std::shared_ptr<const Grammar> Grammar::FromString(const std::string& text,
                                                   const std::string& name) {
  auto g = std::make_shared<Grammar>();
  g->AddText(text, name);
  g->Finish();
  return g;
}

}  // namespace gauntlet
