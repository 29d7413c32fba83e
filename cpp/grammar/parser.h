// Parses the text of one RQG `.yy` grammar into raw rule definitions.
//
// The dialect is RQG's as implemented (see README "Grammar language"):
// `name: alt | alt ;` where a rule ends at a `;` that closes its line, `#`
// starts a comment, a trailing `\` joins lines, `{ ... }` is a Perl block,
// `$name` a Perl variable, `word[invariant]` an invariant and `_word(N, M)` a
// built-in with arguments. Unlike RQG, `#` and `|` inside quoted strings are
// text, not syntax. `==FACTOR:N==` in an alternative sets its weight (the
// syntax of RQG's elenst-2022 branch); `name ==NO_ORACLES:a,b==:` before a
// rule's colon keeps its statements from those oracles. A `{` whose braces do not close
// before the end of its alternative (`|` or the rule's end) is a Perl block
// up to there, as RQG's brace counting makes it.
//
// Words are not yet classified: whether `foo` is a rule, a built-in or a
// literal depends on every file loaded, so Grammar decides that later.
#ifndef GAUNTLET_GRAMMAR_PARSER_H_
#define GAUNTLET_GRAMMAR_PARSER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace gauntlet {

struct RawToken {
  enum class Kind { kWord, kQuoted, kPerl, kVariable, kPunct };
  Kind kind = Kind::kPunct;
  std::string text;            // as written; Perl blocks without the braces
  std::string suffix;          // "[invariant]" and the like, or empty
  std::vector<double> args;    // `_word(N, M)` arguments
  bool has_args = false;
  std::string word_arg;        // `_expr(int)`, `_query(window)`: a name as the argument
  bool space_before = false;   // whitespace separated it from the previous token
  // A Perl block whose braces do not balance before its alternative ends:
  // RQG runs it up to there, and so do we (`text` holds that much).
  bool unbalanced = false;
  size_t offset = 0;           // byte offset in the source text
};

struct RawAlternative {
  std::vector<RawToken> tokens;
  double weight = 1.0;
  bool weighted = false;
  size_t offset = 0;
};

struct RawRule {
  std::string name;
  size_t offset = 0;
  // `name ==NO_ORACLES:tlp,norec==: ...`: oracles that skip every statement
  // made through this rule (names checked when a run starts).
  std::vector<std::string> no_oracles;
  std::vector<RawAlternative> alternatives;
};

// Throws InvalidInput naming `file`, line and column on a syntax error.
// `skipped` receives the offsets of text that RQG would drop: pieces between
// rule ends that do not start with `name:`.
std::vector<RawRule> ParseGrammarText(const std::string& text,
                                      const std::string& file,
                                      std::vector<size_t>* skipped = nullptr);

}  // namespace gauntlet

#endif  // GAUNTLET_GRAMMAR_PARSER_H_
