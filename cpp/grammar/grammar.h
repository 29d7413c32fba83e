// Grammar: a set of rules, loaded from one or more RQG `.yy` texts.
//
// Loading several texts in order is RQG's --redefine: a later definition of a
// rule replaces the earlier one (with a warning), and `query_add`,
// `threadN_add`, `query_init_add` and `threadN_init_add` extend `query`,
// `threadN`, `query_init` and `threadN_init`. After loading, every word is
// classified like RQG does: an all-uppercase word is a literal, a defined rule
// name is a reference, a known `_builtin` is a built-in, anything else is
// printed as written and, when it is lowercase, reported as a warning.
//
// A Grammar is immutable after Finish() and may be shared by any number of
// Generators on any threads.
#ifndef GAUNTLET_GRAMMAR_GRAMMAR_H_
#define GAUNTLET_GRAMMAR_GRAMMAR_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/error.h"
#include "grammar/builtin.h"

namespace gauntlet {

class RuleContext;  // defined by the generator; passed to rule callbacks

// A rule whose expansion is computed by user code (a Python function).
using RuleCallback = std::function<std::string(RuleContext&)>;

struct Token {
  enum class Kind : uint8_t { kLiteral, kRule, kBuiltin, kPerl, kVariable };
  Kind kind = Kind::kLiteral;
  bool space_before = false;
  int32_t invariant = -1;  // slot shared by all `x[invariant]` of one name
  uint32_t index = 0;      // rule, built-in or Perl block number
  std::string text;        // literal text; the token as written otherwise
};

struct Alternative {
  std::vector<Token> tokens;
  double weight = 1.0;
};

struct Rule {
  std::string name;
  std::vector<Alternative> alternatives;
  SourceLocation where;
  bool weighted = false;            // some alternative has a non-1 weight
  std::vector<double> cumulative;   // cumulative weights when weighted
  int height = 0;                   // min over alternatives; INT_MAX if none ends
  int shortest = 0;                 // index of an alternative with that height
  int callback = -1;                // index into callbacks(), or -1
  uint32_t first_alternative = 0;   // global number of alternative 0 (coverage)
  // `name ==NO_ORACLES:tlp,norec==:`: oracles that skip the statements made
  // through this rule (its results are knowingly nondeterministic, say).
  std::vector<std::string> no_oracles;
};

struct PerlBlock {
  std::string code;
  SourceLocation where;
  // Its braces did not balance (see RawToken): code that does not compile
  // adds nothing, as RQG's failing eval does, instead of being an error.
  bool unbalanced = false;
};

class Grammar {
 public:
  Grammar();
  ~Grammar();
  Grammar(const Grammar&) = delete;
  Grammar& operator=(const Grammar&) = delete;

  // Parses and adds one text; later texts override earlier rules.
  void AddText(const std::string& text, const std::string& file);
  void AddFile(const std::string& path);
  // Defines (or replaces) `name` as a rule computed by `callback`.
  void DefineCallback(const std::string& name, RuleCallback callback);
  // Applies the *_add rules, classifies words and computes heights.
  // Throws InvalidInput for unusable built-in arguments.
  void Finish();

  // Convenience: AddFile for each path, then Finish.
  static std::shared_ptr<const Grammar> FromFiles(const std::vector<std::string>& paths);
  static std::shared_ptr<const Grammar> FromString(const std::string& text,
                                                   const std::string& name = "<string>");

  const std::vector<Rule>& rules() const { return rules_; }
  int FindRule(const std::string& name) const;  // -1 if absent
  const std::vector<Builtin>& builtins() const { return builtins_; }
  const std::vector<PerlBlock>& perl_blocks() const { return perl_blocks_; }
  const std::vector<std::string>& variables() const { return variables_; }
  const std::vector<RuleCallback>& callbacks() const { return callbacks_; }
  int invariant_slots() const { return invariant_slots_; }
  uint32_t alternative_count() const { return alternative_count_; }
  bool needs_perl() const { return !perl_blocks_.empty() || !variables_.empty(); }
  // Whether the grammar's Perl may do what Perl can (run processes, open and
  // write files, load native code): the user's word for a grammar they trust.
  // Otherwise its Perl runs restricted (see PerlRuntime).
  bool trusted_perl() const { return trusted_perl_; }
  void set_trusted_perl(bool trusted) { trusted_perl_ = trusted; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Words printed as written because no rule or built-in has their name,
  // each with where it first appears.
  const std::map<std::string, SourceLocation>& undefined_words() const {
    return undefined_words_;
  }
  const std::vector<std::string>& sources() const { return sources_; }
  // The text loaded from `source` (one of sources()); "" for an unknown one.
  std::string source_text(const std::string& source) const;

 private:
  struct Definition;  // a parsed rule before classification
  void Classify();
  void ComputeHeights();
  void ApplyAddRules();

  std::vector<Definition*> ordered_definitions() const;

  std::vector<std::unique_ptr<Definition>> definitions_;
  std::unordered_map<std::string, size_t> definition_index_;
  std::vector<std::string> sources_;
  std::unordered_map<std::string, std::string> texts_;  // file -> text, for locations

  std::vector<Rule> rules_;
  std::unordered_map<std::string, int> rule_index_;
  std::vector<Builtin> builtins_;
  std::vector<PerlBlock> perl_blocks_;
  std::vector<std::string> variables_;
  std::vector<RuleCallback> callbacks_;
  int invariant_slots_ = 0;
  uint32_t alternative_count_ = 0;
  std::vector<std::string> warnings_;
  std::map<std::string, SourceLocation> undefined_words_;
  bool finished_ = false;
  bool trusted_perl_ = false;
};

}  // namespace gauntlet

#endif  // GAUNTLET_GRAMMAR_GRAMMAR_H_
