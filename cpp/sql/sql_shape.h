// SqlShape: the tokens of one SQL statement and the clauses of its top-level
// SELECT, found without a full SQL parser.
//
// Oracles need to know where a generated SELECT's WHERE, GROUP BY or ORDER BY
// is, whether it calls RAND(), and what it looks like with its literals
// taken out (a finding's signature); any grammar's text qualifies. Comments
// are skipped, except the body of an executable comment (/*!50100 ... */),
// which the server executes.
#ifndef GAUNTLET_SQL_SQL_SHAPE_H_
#define GAUNTLET_SQL_SQL_SHAPE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gauntlet {

struct SqlToken {
  enum Kind { kWord, kQuotedName, kString, kNumber, kVariable, kPunct };
  Kind kind = kWord;
  size_t begin = 0, end = 0;  // bytes of the text
  int depth = 0;              // parentheses around it
};

// A part of the text: [begin, end); begin == npos when absent.
struct SqlSpan {
  size_t begin = std::string::npos, end = std::string::npos;
  bool present() const { return begin != std::string::npos; }
};

// `v` upper-cased (ASCII).
std::string Upper(std::string_view v);
// A word or a `quoted` name: what may name a table, column or alias.
inline bool IsName(const SqlToken& t) { return t.kind == SqlToken::kWord || t.kind == SqlToken::kQuotedName; }

// A base table of the top-level FROM, as written there.
struct TableRef {
  std::string table;      // as the server reads it: "t", or "db.t" (names unquoted)
  std::string qualifier;  // what qualifies its columns: the alias, else the table's name
  std::string written;    // its text: `db`.`t`
  size_t end = 0;         // byte after the name or alias: where an index hint goes
  bool hinted = false;    // an index hint follows (USE/IGNORE/FORCE INDEX)
  bool partitions = false;  // PARTITION (...) selects some of its partitions
};

class SqlShape {
 public:
  explicit SqlShape(std::string_view sql);

  const std::vector<SqlToken>& tokens() const { return tokens_; }
  std::string_view text(const SqlToken& t) const { return sql_.substr(t.begin, t.end - t.begin); }
  std::string_view text(const SqlSpan& s) const { return sql_.substr(s.begin, s.end - s.begin); }
  // A word's or quoted name's text as the server reads the name (`a``b` is a`b).
  std::string Name(const SqlToken& t) const;
  // Token i is the word `w` (case-insensitive).
  bool Is(size_t i, std::string_view w) const;
  // Token i is a word followed by '(': a function call (or a keyword like IN).
  bool IsCall(size_t i) const;
  // The first word, upper-cased ("SELECT", "INSERT", ...; "" when none).
  std::string verb() const;

  // A plain SELECT at the top (perhaps in parentheses), without UNION,
  // EXCEPT or INTERSECT there: the clauses below are then known.
  bool simple_select() const { return simple_select_; }
  bool set_operation() const { return set_operation_; }  // UNION/EXCEPT/INTERSECT at the top
  bool distinct() const { return distinct_; }
  SqlSpan select_list, from, where, group_by, having, window, order_by, limit, tail;
  // Token indexes where each clause's text starts (after its keywords).
  size_t select_token = std::string::npos;

  // The statement with literals replaced by '?', names (of tables, columns,
  // aliases) by '_', keywords and functions upper-cased and spaces
  // normalized: what two statements of one query pattern share.
  std::string Skeleton(size_t max_size = 300) const;
  // Its keywords, functions ("ROUND()") and operators, upper-cased, each
  // once and sorted, without names, literals and variables; a SELECT inside
  // parentheses is "(SELECT)": what stays of a query when its names and
  // values do not matter.
  std::vector<std::string> Constructs() const;
  // The items of a comma-separated span at its own depth.
  std::vector<SqlSpan> Items(const SqlSpan& span) const;
  // The base tables of the top-level FROM, in order. *others counts what
  // else it reads there (derived tables, parenthesized joins), whose
  // columns no table's schema describes.
  std::vector<TableRef> FromTables(size_t* others = nullptr) const;
  // Token index range [first, last) of a span.
  std::pair<size_t, size_t> TokenRange(const SqlSpan& span) const;

 private:
  void FindClauses();
  std::string_view sql_;
  std::vector<SqlToken> tokens_;
  bool simple_select_ = false;
  bool set_operation_ = false;
  bool distinct_ = false;
};

}  // namespace gauntlet

#endif  // GAUNTLET_SQL_SQL_SHAPE_H_
