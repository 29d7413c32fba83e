#include "sql/temporary_tables.h"

#include "sql/sql_shape.h"

namespace gauntlet {
namespace {

// The table name starting at token i (db.name: the name), or "" ; *next: the token after it.
std::string TableName(const SqlShape& s, size_t i, size_t* next) {
  const auto& t = s.tokens();
  if (i >= t.size() || !IsName(t[i])) return "";
  std::string name = s.Name(t[i]);
  if (i + 2 < t.size() && s.text(t[i + 1]) == "." && IsName(t[i + 2])) {
    name = s.Name(t[i + 2]);
    i += 2;
  }
  *next = i + 1;
  return name;
}

}  // namespace

TemporaryTableChange TemporaryTables(std::string_view sql) {
  TemporaryTableChange change;
  const std::string verb = SqlShape(sql.substr(0, 16)).verb();
  if (verb != "CREATE" && verb != "DROP") return change;
  const SqlShape s(sql);
  const auto& t = s.tokens();
  size_t i = 1;
  if (verb == "CREATE") {
    if (s.Is(i, "OR") && s.Is(i + 1, "REPLACE")) i += 2;
    if (!s.Is(i, "TEMPORARY") || !s.Is(i + 1, "TABLE")) return change;
    i += 2;
    if (s.Is(i, "IF") && s.Is(i + 1, "NOT") && s.Is(i + 2, "EXISTS")) i += 3;
    size_t next = i;
    if (std::string name = TableName(s, i, &next); !name.empty()) change.created.push_back(name);
    return change;
  }
  if (s.Is(i, "TEMPORARY")) ++i;
  if (!s.Is(i, "TABLE") && !s.Is(i, "TABLES")) return change;
  ++i;
  if (s.Is(i, "IF") && s.Is(i + 1, "EXISTS")) i += 2;
  while (i < t.size()) {
    size_t next = i;
    const std::string name = TableName(s, i, &next);
    if (name.empty()) break;
    change.dropped.push_back(name);
    if (next >= t.size() || s.text(t[next]) != ",") break;
    i = next + 1;
  }
  return change;
}

}  // namespace gauntlet
