#include "grammar/parser.h"

#include <boost/spirit/home/x3.hpp>

#include <algorithm>
#include <cstdlib>

#include "common/error.h"

namespace gauntlet {
namespace {

namespace x3 = boost::spirit::x3;
using Iter = std::string::const_iterator;

// Collects rules while the X3 grammar below recognises them.
struct Builder {
  const std::string* text = nullptr;
  std::vector<RawRule> rules;
  size_t prev_end = 0;     // where the previous token ended
  bool first_in_alternative = true;
  std::vector<size_t> skipped;  // offsets of text dropped for lack of `name:`
  std::vector<std::string> no_oracles;  // the next rule's `==NO_ORACLES:a,b==`

  size_t Offset(Iter it) const { return it - text->begin(); }
  RawAlternative& alt() { return rules.back().alternatives.back(); }
};
struct builder_tag;

template <typename Ctx>
Builder& B(Ctx& ctx) {
  return x3::get<builder_tag>(ctx).get();
}

// Appends a token covering the matched range.
template <RawToken::Kind kKind, int kTrimFront = 0, int kTrimBack = 0>
struct AddToken {
  template <typename Ctx>
  void operator()(Ctx& ctx) const {
    Builder& b = B(ctx);
    auto range = x3::_attr(ctx);
    RawToken t;
    t.kind = kKind;
    t.offset = b.Offset(range.begin());
    t.text.assign(range.begin() + kTrimFront, range.end() - kTrimBack);
    t.space_before = !b.first_in_alternative && t.offset > b.prev_end;
    b.first_in_alternative = false;
    b.prev_end = b.Offset(range.end());
    b.alt().tokens.push_back(std::move(t));
  }
};

const auto start_rule = [](auto& ctx) {
  Builder& b = B(ctx);
  RawRule r;
  auto range = x3::_attr(ctx);
  r.name.assign(range.begin(), range.end());
  r.offset = b.Offset(range.begin());
  r.no_oracles = std::move(b.no_oracles);
  b.no_oracles.clear();
  b.rules.push_back(std::move(r));
};
// `==NO_ORACLES:tlp, transform:view==`: the names between ':' and '==',
// without spaces.
const auto set_no_oracles = [](auto& ctx) {
  auto range = x3::_attr(ctx);
  std::vector<std::string>& names = B(ctx).no_oracles;
  names.assign(1, "");
  for (auto c = range.begin() + 13; c != range.end() - 2; ++c) {
    if (*c == ',') names.emplace_back();
    else if (*c != ' ' && *c != '\t') names.back() += *c;
  }
  names.erase(std::remove(names.begin(), names.end(), std::string()), names.end());
};
const auto start_alternative = [](auto& ctx) {
  Builder& b = B(ctx);
  RawAlternative a;
  a.offset = b.Offset(x3::_attr(ctx).begin());
  b.rules.back().alternatives.push_back(std::move(a));
  b.first_in_alternative = true;
};
// Numbers in a matched "(1, 2.5)" or "==FACTOR:3==".
std::vector<double> NumbersIn(const std::string& text) {
  std::vector<double> out;
  const char* p = text.c_str();
  while (*p) {
    char* end = nullptr;
    const double v = std::strtod(p, &end);
    if (end != p) {
      out.push_back(v);
      p = end;
    } else {
      ++p;
    }
  }
  return out;
}

const auto set_args = [](auto& ctx) {
  auto range = x3::_attr(ctx);
  RawToken& t = B(ctx).alt().tokens.back();
  t.args = NumbersIn(std::string(range.begin(), range.end()));
  t.has_args = true;
  B(ctx).prev_end = B(ctx).Offset(range.end());
};
const auto set_word_arg = [](auto& ctx) {
  auto range = x3::_attr(ctx);
  RawToken& t = B(ctx).alt().tokens.back();
  for (auto c = range.begin(); c != range.end(); ++c)
    if (std::isalnum(static_cast<unsigned char>(*c)) || *c == '_') t.word_arg += *c;
  B(ctx).prev_end = B(ctx).Offset(range.end());
};
const auto set_suffix = [](auto& ctx) {
  auto range = x3::_attr(ctx);
  B(ctx).alt().tokens.back().suffix.assign(range.begin(), range.end());
  B(ctx).prev_end = B(ctx).Offset(range.end());
};
const auto set_weight = [](auto& ctx) {
  auto range = x3::_attr(ctx);
  B(ctx).alt().weight = NumbersIn(std::string(range.begin() + 9, range.end()))[0];
  B(ctx).alt().weighted = true;
  B(ctx).prev_end = B(ctx).Offset(range.end());
};
const auto starts_with_underscore = [](auto& ctx) {
  const RawToken& t = B(ctx).alt().tokens.back();
  x3::_pass(ctx) = !t.text.empty() && t.text[0] == '_';
};
// The query builder's built-ins take a name: `_expr(int)`, `_query(window)`.
const auto takes_word_arg = [](auto& ctx) {
  const std::string& w = B(ctx).alt().tokens.back().text;
  x3::_pass(ctx) = w == "_expr" || w == "_query";
};

const auto hspace = x3::lit(' ') | '\t' | '\r' | '\f' | '\v';
const auto line_join = x3::lit('\\') >> x3::eol;
const auto comment = x3::lit('#') >> *(x3::char_ - x3::eol);
const auto gap = +(hspace | line_join | x3::eol | comment);
const auto hgap = *(hspace | line_join);
const auto word_char = x3::ascii::alnum | x3::char_('_');
const auto ident = +word_char;

x3::rule<class rule_end_r> const rule_end = "';' at the end of a line";
const auto rule_end_def = x3::lit(';') >> hgap >> -comment >> (x3::eol | x3::eoi);

x3::rule<class perl_body_r> const perl_body = "Perl code";
const auto perl_body_def =
    *(x3::lit("$#") | comment | (x3::lit('{') >> perl_body >> x3::lit('}')) |
      (x3::char_ - '{' - '}'));
BOOST_SPIRIT_DEFINE(rule_end, perl_body)

template <char Q>
auto QuotedBody() {
  return *((x3::lit('\\') >> (x3::char_ - x3::eol)) | (x3::lit(Q) >> x3::lit(Q)) |
           (x3::char_ - x3::char_(Q) - x3::eol));
}
// A quote with no closing quote on its line is, as in RQG, a one-character
// literal (grammars define `single_quote: ' ;`).
template <char Q>
auto Quoted() {
  return x3::lit(Q) >> QuotedBody<Q>() >> x3::lit(Q);
}

const auto perl_body_block = x3::lit('{') >> perl_body >> x3::lit('}');
const auto mark_unbalanced = [](auto& ctx) { B(ctx).alt().tokens.back().unbalanced = true; };
const auto perl_block =
    x3::raw[perl_body_block][AddToken<RawToken::Kind::kPerl, 1, 1>()] |
    x3::raw[x3::lit('{') >> *(!rule_end >> (x3::char_ - '|'))][AddToken<RawToken::Kind::kPerl, 1, 0>()] >>
        x3::eps[mark_unbalanced];
const auto quoted = x3::raw[Quoted<'\''>() | Quoted<'"'>() | Quoted<'`'>()]
    [AddToken<RawToken::Kind::kQuoted>()];
const auto variable =
    x3::raw[x3::lit('$') >> ident][AddToken<RawToken::Kind::kVariable>()];
const auto args = x3::lit('(') >> hgap >> (x3::double_ % (hgap >> ',' >> hgap)) >>
                  hgap >> x3::lit(')');
const auto word_args = x3::lit('(') >> hgap >> ident >> hgap >> x3::lit(')');
const auto suffix = x3::lit('[') >> ident >> x3::lit(']');
const auto word = x3::raw[ident][AddToken<RawToken::Kind::kWord>()] >>
                  -((x3::eps[starts_with_underscore] >> x3::raw[args][set_args]) |
                    (x3::eps[takes_word_arg] >> x3::raw[word_args][set_word_arg])) >>
                  -x3::raw[suffix][set_suffix];
const auto weight =
    x3::raw[x3::lit("==FACTOR:") >> x3::double_ >> x3::lit("==")][set_weight];
const auto punct = x3::raw[!rule_end >> (x3::char_ - '|' - hspace - x3::eol)]
    [AddToken<RawToken::Kind::kPunct>()];

const auto token = weight | perl_block | quoted | variable | word | punct;
const auto alternative =
    x3::raw[x3::eps][start_alternative] >> *(-gap >> token) >> -gap;

// RQG drops a piece of text between two rule ends that does not start with
// `name:` (typically a stray `;` that ended a rule early); so do we, with a
// warning.
const auto note_skipped = [](auto& ctx) {
  Builder& b = B(ctx);
  b.skipped.push_back(b.Offset(x3::_attr(ctx).begin()));
};

x3::rule<class body_end_r> const body_end = "';' at the end of a line";
const auto body_end_def = rule_end | x3::eoi;
BOOST_SPIRIT_DEFINE(body_end)

const auto no_oracles = x3::omit[x3::raw[x3::lit("==NO_ORACLES:") >> *(x3::char_ - '=' - x3::eol) >>
                                        x3::lit("==")][set_no_oracles]];
const auto rule_def = (x3::raw[ident] >> hgap >> -(no_oracles >> hgap) >> x3::lit(':'))[start_rule] >>
                      (alternative % '|') > body_end;
const auto skipped = x3::raw[+(!rule_end >> (perl_body_block | x3::char_))][note_skipped] >>
                     (rule_end | x3::eoi);

// A `;` alone on its line after a rule ends nothing; RQG accepts it.
const auto grammar_file = -gap >> *((rule_def | skipped | rule_end) >> -gap) > x3::eoi;

}  // namespace

std::vector<RawRule> ParseGrammarText(const std::string& text,
                                      const std::string& file,
                                      std::vector<size_t>* skipped) {
  Builder builder;
  builder.text = &text;
  auto first = text.cbegin();
  const auto last = text.cend();
  const auto parser = x3::with<builder_tag>(std::ref(builder))[grammar_file];
  try {
    x3::parse(first, last, parser);
  } catch (const x3::expectation_failure<Iter>& e) {
    throw InvalidInput(LocationOf(file, text, e.where() - text.cbegin()), "expected " + e.which());
  }
  if (skipped != nullptr) *skipped = std::move(builder.skipped);
  return std::move(builder.rules);
}

}  // namespace gauntlet
