#include "sql/sql_shape.h"

#include <boost/spirit/home/x3.hpp>

#include <algorithm>
#include <cctype>
#include <set>
#include <strings.h>

namespace gauntlet {
namespace {

namespace x3 = boost::spirit::x3;

struct Sink {
  std::vector<SqlToken>* tokens;
  const char* base;
};
struct sink_tag;

template <SqlToken::Kind K>
struct Push {
  template <class Context>
  void operator()(Context& ctx) const {
    Sink& s = x3::get<sink_tag>(ctx).get();
    const auto range = x3::_attr(ctx);
    s.tokens->push_back({K, static_cast<size_t>(range.begin() - s.base), static_cast<size_t>(range.end() - s.base), 0});
  }
};

const auto high = x3::char_('\x80', '\xff');  // UTF-8 bytes of non-ASCII names
const auto name_start = high | x3::alpha | x3::char_("_$");
const auto name_char = high | x3::alnum | x3::char_("_$");

// Quoted text: a doubled quote stands for itself, and in strings a backslash
// escapes the next character (the server's default sql_mode).
template <char Q>
const auto quoted = x3::lit(Q) >> *((x3::lit('\\') >> x3::char_) | (x3::lit(Q) >> x3::lit(Q)) | (x3::char_ - Q)) >>
                    x3::lit(Q);
const auto backticked = x3::lit('`') >> *((x3::lit('`') >> x3::lit('`')) | (x3::char_ - '`')) >> x3::lit('`');

// Skipped: spaces and comments, but not the body of an executable comment
// (/*!50100 ... */): only its markers go.
const auto skipped = x3::space | (x3::lit("/*!") >> *x3::digit) |
                     (x3::lit("/*") >> *(x3::char_ - "*/") >> "*/") | x3::lit("*/") |
                     (x3::lit("--") >> &(x3::space | x3::eoi) >> *(x3::char_ - x3::eol)) |
                     (x3::lit('#') >> *(x3::char_ - x3::eol));

const auto number = (x3::no_case["0x"] >> +x3::xdigit) |
                    (((+x3::digit >> -('.' >> *x3::digit)) | ('.' >> +x3::digit)) >>
                     -(x3::no_case['e'] >> -x3::char_("+-") >> +x3::digit));

const auto variable = x3::lit('@') >> -x3::lit('@') >> (backticked | quoted<'\''> | quoted<'"'> | *(name_char | '.'));

const auto punct = x3::lit("<=>") | "<=" | ">=" | "<>" | "!=" | ":=" | "||" | "&&" | "<<" | ">>" | "->>" | "->" |
                   x3::char_;

const auto token = x3::raw[quoted<'\''> | quoted<'"'>][Push<SqlToken::kString>()] |
                   x3::raw[backticked][Push<SqlToken::kQuotedName>()] |
                   x3::raw[variable][Push<SqlToken::kVariable>()] |
                   x3::raw[number >> !name_char][Push<SqlToken::kNumber>()] |
                   x3::raw[name_start >> *name_char][Push<SqlToken::kWord>()] |
                   x3::raw[+x3::digit >> +name_char][Push<SqlToken::kWord>()] |  // names may start with digits
                   x3::raw[punct][Push<SqlToken::kPunct>()];

const auto sql = *(skipped | token);

// Words that are SQL, not names (the skeleton keeps them).
const std::set<std::string> kSqlWords = {
    "SELECT", "DISTINCT", "DISTINCTROW", "ALL", "FROM", "WHERE", "GROUP", "BY", "HAVING", "ORDER", "LIMIT",
    "OFFSET", "UNION", "EXCEPT", "INTERSECT", "JOIN", "INNER", "CROSS", "LEFT", "RIGHT", "OUTER", "NATURAL",
    "STRAIGHT_JOIN", "ON", "USING", "AS", "AND", "OR", "NOT", "XOR", "IS", "NULL", "TRUE", "FALSE", "UNKNOWN", "IN",
    "EXISTS", "ANY", "SOME", "BETWEEN", "LIKE", "RLIKE", "REGEXP", "ESCAPE", "CASE", "WHEN", "THEN", "ELSE", "END",
    "ASC", "DESC", "WITH", "RECURSIVE", "ROLLUP", "FOR", "UPDATE", "SHARE", "LOCK", "MODE", "INSERT", "INTO",
    "VALUES", "VALUE", "REPLACE", "DELETE", "SET", "IGNORE", "INDEX", "KEY", "USE", "FORCE", "CREATE", "DROP",
    "ALTER", "TABLE", "VIEW", "TEMPORARY", "IF", "DIV", "MOD", "INTERVAL", "BINARY", "COLLATE", "PARTITION", "OVER",
    "WINDOW", "ROWS", "RANGE", "DUPLICATE", "LOW_PRIORITY", "HIGH_PRIORITY", "QUICK", "START", "TRANSACTION",
    "COMMIT", "ROLLBACK", "SAVEPOINT", "BEGIN", "TRUNCATE", "RENAME", "ADD", "COLUMN", "PRIMARY", "UNIQUE",
    "DEFAULT", "ENGINE", "SQL_SMALL_RESULT", "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "SQL_CACHE", "SQL_NO_CACHE",
    "SQL_CALC_FOUND_ROWS", "SIGNED", "UNSIGNED", "CHAR", "DATE", "DATETIME", "TIME", "TIMESTAMP", "DECIMAL",
    "DOUBLE", "INTEGER", "SOUNDS", "PREPARE", "EXECUTE", "DEALLOCATE", "EXPLAIN", "ANALYZE", "SHOW", "STATEMENT"};

bool Eq(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// Words after which a FROM item has no alias.
const std::set<std::string> kNotAlias = {
    "ON", "USING", "JOIN", "LEFT", "RIGHT", "INNER", "CROSS", "NATURAL", "STRAIGHT_JOIN", "WHERE", "GROUP",
    "HAVING", "ORDER", "LIMIT", "PARTITION", "USE", "IGNORE", "FORCE", "FOR", "WINDOW", "UNION", "EXCEPT",
    "INTERSECT", "OUTER", "LOCK", "INTO", "PROCEDURE"};

}  // namespace

std::string Upper(std::string_view v) {
  std::string u(v);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

SqlShape::SqlShape(std::string_view sql) : sql_(sql) {
  Sink sink{&tokens_, sql.data()};
  const char* first = sql.data();
  x3::parse(first, sql.data() + sql.size(), x3::with<sink_tag>(std::ref(sink))[gauntlet::sql]);
  int depth = 0;
  for (SqlToken& t : tokens_) {
    if (t.kind == SqlToken::kPunct && t.end - t.begin == 1) {
      if (sql[t.begin] == '(') {
        t.depth = depth++;
        continue;
      }
      if (sql[t.begin] == ')') depth = depth > 0 ? depth - 1 : 0;
    }
    t.depth = depth;
  }
  FindClauses();
}

std::string SqlShape::Name(const SqlToken& t) const {
  const std::string_view quoted = text(t);
  if (t.kind != SqlToken::kQuotedName) return std::string(quoted);
  std::string name;
  for (size_t i = 1; i + 1 < quoted.size(); ++i) {
    name += quoted[i];
    if (quoted[i] == '`' && quoted[i + 1] == '`') ++i;
  }
  return name;
}

bool SqlShape::Is(size_t i, std::string_view w) const {
  return i < tokens_.size() && tokens_[i].kind == SqlToken::kWord && Eq(text(tokens_[i]), w);
}

bool SqlShape::IsCall(size_t i) const {
  return i + 1 < tokens_.size() && tokens_[i].kind == SqlToken::kWord && text(tokens_[i + 1]) == "(";
}

std::string SqlShape::verb() const {
  for (const SqlToken& t : tokens_)
    if (t.kind == SqlToken::kWord) {
      std::string v(text(t));
      for (char& c : v) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return v;
    }
  return "";
}

void SqlShape::FindClauses() {
  size_t i = 0;
  while (i < tokens_.size() && text(tokens_[i]) == "(") ++i;
  if (!Is(i, "SELECT")) return;
  const int level = tokens_[i].depth;
  select_token = i;
  ++i;
  // Modifiers before the select list.
  static const char* kModifiers[] = {"ALL", "DISTINCT", "DISTINCTROW", "HIGH_PRIORITY", "STRAIGHT_JOIN",
                                     "SQL_SMALL_RESULT", "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "SQL_CACHE",
                                     "SQL_NO_CACHE", "SQL_CALC_FOUND_ROWS"};
  for (bool more = true; more && i < tokens_.size();) {
    more = false;
    for (const char* m : kModifiers)
      if (Is(i, m)) {
        distinct_ |= Is(i, "DISTINCT") || Is(i, "DISTINCTROW");
        ++i;
        more = true;
        break;
      }
  }
  SqlSpan* open = &select_list;
  // A clause starts after its keywords (tokens keyword..last) and ends the one before.
  const auto begin_at = [&](SqlSpan* span, size_t keyword, size_t last) {
    open->end = std::max(open->begin, tokens_[keyword - 1].end);
    open = span;
    open->begin = last + 1 < tokens_.size() ? tokens_[last + 1].begin : sql_.size();
  };
  open->begin = i < tokens_.size() ? tokens_[i].begin : sql_.size();
  bool into = false;
  size_t last = i;  // the last token of the SELECT
  for (; i < tokens_.size(); ++i) {
    const SqlToken& t = tokens_[i];
    if (t.depth < level) break;  // the parenthesis around the SELECT closes
    last = i;
    if (t.depth > level || t.kind != SqlToken::kWord) continue;
    if (Is(i, "FROM")) begin_at(&from, i, i);
    else if (Is(i, "WHERE")) begin_at(&where, i, i);
    else if (Is(i, "GROUP") && Is(i + 1, "BY")) begin_at(&group_by, i, i + 1), ++i;
    else if (Is(i, "HAVING")) begin_at(&having, i, i);
    else if (Is(i, "WINDOW")) begin_at(&window, i, i);
    else if (Is(i, "ORDER") && Is(i + 1, "BY")) begin_at(&order_by, i, i + 1), ++i;
    else if (Is(i, "LIMIT")) begin_at(&limit, i, i);
    // The standard's OFFSET n ROWS FETCH FIRST m ROWS ONLY (MariaDB 10.6): a LIMIT too.
    else if ((Is(i, "OFFSET") || Is(i, "FETCH")) && !limit.present()) begin_at(&limit, i, i);
    else if ((Is(i, "FOR") && (Is(i + 1, "UPDATE") || Is(i + 1, "SHARE"))) || (Is(i, "LOCK") && Is(i + 1, "IN")) ||
             Is(i, "PROCEDURE")) {
      begin_at(&tail, i, i);
      tail.begin = t.begin;  // FOR UPDATE: the keywords are the clause
    } else if (Is(i, "INTO")) {
      into = true;
    } else if (Is(i, "UNION") || Is(i, "EXCEPT") || Is(i, "INTERSECT")) {
      set_operation_ = true;
    }
  }
  open->end = last < tokens_.size() ? tokens_[last].end : sql_.size();
  if (open->begin > open->end) open->end = open->begin;
  // After the parentheses around the SELECT: (SELECT ...) UNION (...), or an
  // ORDER BY or LIMIT of its own.
  bool more = false;
  for (; i < tokens_.size(); ++i) {
    set_operation_ |= Is(i, "UNION") || Is(i, "EXCEPT") || Is(i, "INTERSECT");
    more |= text(tokens_[i]) != ")";
  }
  simple_select_ = !set_operation_ && !into && !more;
}

std::vector<TableRef> SqlShape::FromTables(size_t* others) const {
  std::vector<TableRef> out;
  if (others != nullptr) *others = 0;
  if (!from.present()) return out;
  const auto [first, last] = TokenRange(from);
  if (first == last) return out;
  const int level = tokens_[first].depth;
  const auto not_alias = [&](size_t i) {
    return tokens_[i].kind == SqlToken::kWord && kNotAlias.count(Upper(text(tokens_[i])));
  };
  bool expect_table = true;
  for (size_t i = first; i < last; ++i) {
    if (tokens_[i].depth != level) continue;
    if (text(tokens_[i]) == "," || Is(i, "JOIN") || Is(i, "STRAIGHT_JOIN")) {
      expect_table = true;
      continue;
    }
    if (!expect_table) {
      if (!out.empty() && (Is(i, "USE") || Is(i, "IGNORE") || Is(i, "FORCE"))) out.back().hinted = true;
      continue;
    }
    expect_table = false;
    if (!IsName(tokens_[i]) || not_alias(i)) {  // a derived table, a parenthesized join
      if (others != nullptr) ++*others;
      continue;
    }
    TableRef ref;
    size_t end = i;
    ref.table = Name(tokens_[i]);
    if (end + 2 < last && text(tokens_[end + 1]) == "." && IsName(tokens_[end + 2])) {  // db.table
      end += 2;
      ref.table += "." + Name(tokens_[end]);
    }
    ref.qualifier = Name(tokens_[end]);
    ref.written = std::string(text(SqlSpan{tokens_[i].begin, tokens_[end].end}));
    if (end + 2 < last && Is(end + 1, "PARTITION") && text(tokens_[end + 2]) == "(") {
      ref.partitions = true;
      for (end += 3; end + 1 < last && !(tokens_[end].depth == level && text(tokens_[end]) == ")");) ++end;
    }
    if (end + 2 < last && Is(end + 1, "AS") && IsName(tokens_[end + 2])) {
      end += 2;
      ref.qualifier = Name(tokens_[end]);
    } else if (end + 1 < last && IsName(tokens_[end + 1]) && !not_alias(end + 1)) {
      end += 1;
      ref.qualifier = Name(tokens_[end]);
    }
    ref.end = tokens_[end].end;
    out.push_back(std::move(ref));
    i = end;
  }
  return out;
}

std::pair<size_t, size_t> SqlShape::TokenRange(const SqlSpan& span) const {
  size_t first = 0;
  while (first < tokens_.size() && tokens_[first].begin < span.begin) ++first;
  size_t last = first;
  while (last < tokens_.size() && tokens_[last].end <= span.end) ++last;
  return {first, last};
}

std::vector<SqlSpan> SqlShape::Items(const SqlSpan& span) const {
  std::vector<SqlSpan> items;
  if (!span.present()) return items;
  const auto [first, last] = TokenRange(span);
  if (first == last) return items;
  const int level = tokens_[first].depth;
  SqlSpan item{tokens_[first].begin, tokens_[first].begin};
  for (size_t i = first; i < last; ++i) {
    if (tokens_[i].depth == level && text(tokens_[i]) == ",") {
      items.push_back(item);
      item = {i + 1 < last ? tokens_[i + 1].begin : tokens_[i].end, tokens_[i].end};
      continue;
    }
    item.end = tokens_[i].end;
  }
  items.push_back(item);
  return items;
}

std::vector<std::string> SqlShape::Constructs() const {
  std::set<std::string> out;
  for (size_t i = 0; i < tokens_.size(); ++i) {
    const SqlToken& t = tokens_[i];
    if (t.kind != SqlToken::kWord && t.kind != SqlToken::kPunct) continue;
    std::string part(text(t));
    if (t.kind == SqlToken::kWord) {
      for (char& c : part) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (!kSqlWords.count(part)) {
        if (!IsCall(i)) continue;  // a name
        part += "()";
      }
      if (part == "SELECT" && t.depth > 0 && i > 0 && text(tokens_[i - 1]) == "(") part = "(SELECT)";
    }
    out.insert(std::move(part));
  }
  return {out.begin(), out.end()};
}

std::string SqlShape::Skeleton(size_t max_size) const {
  std::vector<std::string> parts;
  std::vector<bool> glued;  // no space before it: ',' ')' and a call's '('
  for (size_t i = 0; i < tokens_.size(); ++i) {
    const SqlToken& t = tokens_[i];
    std::string part;
    if (t.kind == SqlToken::kString || t.kind == SqlToken::kNumber) {
      // A list of literals is one '?', whatever its length.
      if (parts.size() >= 2 && parts.back() == "," && parts[parts.size() - 2] == "?") {
        parts.pop_back();
        glued.pop_back();
        continue;
      }
      part = "?";
    } else {
      part = text(t);
      if (t.kind == SqlToken::kWord)
        for (char& c : part) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (t.kind == SqlToken::kQuotedName || (t.kind == SqlToken::kWord && !IsCall(i) && !kSqlWords.count(part)))
        part = "_";
    }
    glued.push_back(part == "," || part == ")" ||
                    (part == "(" && i > 0 && IsCall(i - 1) && !kSqlWords.count(parts.back())) ||
                    (!parts.empty() && parts.back() == "("));
    parts.push_back(std::move(part));
  }
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!out.empty() && !glued[i]) out += ' ';
    out += parts[i];
    if (out.size() > max_size) {
      out.resize(max_size);
      out += "...";
      break;
    }
  }
  return out;
}

}  // namespace gauntlet
