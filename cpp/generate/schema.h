// Schema: the tables and columns that `_table` and `_field*` draw from.
//
// A plain value: build it in code or Python, load it from JSON, or
// introspect it from a live server. It is also the data spec: row counts and
// per-column value expressions say what LoadSchema puts in the tables.
// RqgDefault() is RQG's GendataSimple schema (tables A..E, AA..DD) with its
// data distributions; many RQG grammars name those tables directly.
#ifndef GAUNTLET_GENERATE_SCHEMA_H_
#define GAUNTLET_GENERATE_SCHEMA_H_

#include <cstdint>
#include <string>
#include <vector>

namespace gauntlet {

struct Column {
  std::string name;
  std::string type;       // SQL type as written: "int", "varchar(10)", ...
  bool primary = false;
  bool indexed = false;   // part of any index (a primary key counts)
  bool nullable = true;
  bool auto_increment = false;
  bool raw = false;       // `type` is the whole definition after the name (RQG's `sqls`)
  // The data: a grammar expression (`_digit | NULL`, `_pareto(1, 100)`);
  // "" derives one from the type (see DefaultValues in data/loader.h).
  std::string values;

  bool is_int() const;    // tinyint .. bigint
  bool is_char() const;   // char, varchar
  // The type's name alone, lower case: "varchar" for "VARCHAR(10) NOT NULL".
  std::string base_type() const;
  // RQG's metadata type class: int, float, temporal, char, blob, enum, or
  // the base type for anything else (geometry, ...).
  std::string meta_type() const;
  uint64_t max_length() const;  // the (N) of char types; 0 when none
};

struct Table {
  std::string name;
  std::string database;   // empty: the schema's first database
  bool view = false;
  // Also created by every session as a TEMPORARY TABLE of the same definition
  // and rows, which hides the base table from that session (temporary-table
  // code paths under the same queries); see TemporaryTwinSql in data/loader.h.
  bool temporary = false;
  uint64_t rows = 0;
  std::string engine;
  std::vector<Column> columns;
  // More CREATE TABLE options: "PARTITION BY KEY (pk) PARTITIONS 2"; for a
  // view, its definition: "[ALGORITHM=...] AS SELECT ..." (a view without
  // one is not created, only drawn from).
  std::string options;
  std::vector<std::string> keys;  // more index definitions: "KEY k (k, c)"
};

// Column subsets used by the `_field*` built-ins, by column number.
enum class FieldClass : uint8_t {
  kAll, kPk, kNoPk, kIndexed, kUnindexed, kInt, kIntIndexed, kChar, kCharIndexed,
  kCount
};

class Schema {
 public:
  Schema() = default;
  Schema(std::vector<std::string> databases, std::vector<Table> tables);

  static Schema RqgDefault();
  // Throws InvalidInput naming `file` and the offending key.
  static Schema FromJson(const std::string& text, const std::string& file = "<json>");
  static Schema FromJsonFile(const std::string& path);
  std::string ToJson() const;

  const std::vector<std::string>& databases() const { return databases_; }
  const std::vector<Table>& tables() const { return tables_; }
  const std::vector<std::string>& charsets() const { return charsets_; }
  const std::vector<std::string>& collations() const { return collations_; }
  void set_charsets(std::vector<std::string> v) { charsets_ = std::move(v); }
  void set_collations(std::vector<std::string> v) { collations_ = std::move(v); }

  // Indexes into tables() of the tables (views, base tables) in `database`.
  const std::vector<uint32_t>& TablesIn(uint32_t database, int which) const;
  const std::vector<uint32_t>& Fields(uint32_t table, FieldClass cls) const {
    return fields_[table][static_cast<int>(cls)];
  }
  int FindTable(const std::string& name) const;  // -1 if absent

 private:
  void Index();

  std::vector<std::string> databases_;
  std::vector<Table> tables_;
  std::vector<std::string> charsets_;
  std::vector<std::string> collations_;
  // [database][0 all, 1 base tables, 2 views] -> table numbers
  std::vector<std::vector<std::vector<uint32_t>>> by_database_;
  std::vector<std::vector<std::vector<uint32_t>>> fields_;
};

}  // namespace gauntlet

#endif  // GAUNTLET_GENERATE_SCHEMA_H_
