#include "generate/schema.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace gauntlet {
namespace {

using nlohmann::json;

std::string BaseType(const std::string& type) {
  std::string base;
  for (char c : type) {
    if (c == '(' || c == ' ') break;
    base += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return base;
}

}  // namespace

bool Column::is_int() const {
  const std::string b = BaseType(type);
  return b == "tinyint" || b == "smallint" || b == "mediumint" || b == "int" ||
         b == "integer" || b == "bigint";
}

bool Column::is_char() const {
  const std::string b = BaseType(type);
  return b == "char" || b == "varchar";
}

std::string Column::base_type() const { return BaseType(type); }

std::string Column::meta_type() const {
  const std::string b = BaseType(type);
  const auto in = [&b](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (b == n) return true;
    return false;
  };
  if (is_int() || in({"bit", "bool", "boolean", "serial"})) return "int";
  if (in({"float", "double", "decimal", "numeric", "real", "dec", "fixed"})) return "float";
  if (in({"date", "time", "datetime", "timestamp", "year"})) return "temporal";
  if (in({"char", "varchar", "binary", "varbinary"})) return "char";
  if (in({"tinyblob", "blob", "mediumblob", "longblob", "tinytext", "text", "mediumtext", "longtext", "json"}))
    return "blob";
  if (in({"enum", "set"})) return "enum";
  return b;
}

uint64_t Column::max_length() const {
  if (meta_type() != "char") return 0;
  const size_t open = type.find('(');
  return open == std::string::npos ? 1 : std::strtoull(type.c_str() + open + 1, nullptr, 10);
}

Schema::Schema(std::vector<std::string> databases, std::vector<Table> tables)
    : databases_(std::move(databases)), tables_(std::move(tables)) {
  if (databases_.empty()) databases_.push_back("test");
  charsets_ = {"latin1", "utf8mb3", "utf8mb4", "binary", "ascii"};
  collations_ = {"latin1_swedish_ci", "latin1_bin", "utf8mb3_general_ci",
                 "utf8mb4_general_ci", "utf8mb4_bin", "utf8mb4_unicode_ci",
                 "binary", "ascii_general_ci"};
  Index();
}

void Schema::Index() {
  by_database_.assign(databases_.size(), std::vector<std::vector<uint32_t>>(3));
  fields_.assign(tables_.size(), std::vector<std::vector<uint32_t>>(
                                     static_cast<int>(FieldClass::kCount)));
  for (uint32_t t = 0; t < tables_.size(); ++t) {
    const Table& table = tables_[t];
    auto db = std::find(databases_.begin(), databases_.end(), table.database);
    const size_t d = table.database.empty() || db == databases_.end()
                         ? 0 : static_cast<size_t>(db - databases_.begin());
    by_database_[d][0].push_back(t);
    by_database_[d][table.view ? 2 : 1].push_back(t);
    auto& f = fields_[t];
    for (uint32_t c = 0; c < table.columns.size(); ++c) {
      const Column& col = table.columns[c];
      auto add = [&](FieldClass cls) { f[static_cast<int>(cls)].push_back(c); };
      add(FieldClass::kAll);
      add(col.primary ? FieldClass::kPk : FieldClass::kNoPk);
      add(col.indexed || col.primary ? FieldClass::kIndexed : FieldClass::kUnindexed);
      if (col.is_int()) {
        add(FieldClass::kInt);
        if (col.indexed || col.primary) add(FieldClass::kIntIndexed);
      }
      if (col.is_char()) {
        add(FieldClass::kChar);
        if (col.indexed || col.primary) add(FieldClass::kCharIndexed);
      }
    }
  }
}

const std::vector<uint32_t>& Schema::TablesIn(uint32_t database, int which) const {
  static const std::vector<uint32_t> kNone;
  if (database >= by_database_.size()) return kNone;
  return by_database_[database][which];
}

int Schema::FindTable(const std::string& name) const {
  for (size_t i = 0; i < tables_.size(); ++i)
    if (tables_[i].name == name) return static_cast<int>(i);
  return -1;
}

Schema Schema::RqgDefault() {
  // GendataSimple: nine tables with the same columns and fixed row counts.
  const std::pair<const char*, uint64_t> names[] = {
      {"A", 0}, {"B", 1}, {"C", 20}, {"D", 100}, {"E", 1000},
      {"AA", 0}, {"BB", 1}, {"CC", 20}, {"DD", 100}};
  std::vector<Table> tables;
  for (const auto& [name, rows] : names) {
    Table t;
    t.name = name;
    t.rows = rows;
    t.engine = "InnoDB";
    // GendataSimple's data: ints 10% NULL, 10% 0-255, 80% one digit;
    // temporal values 10% NULL, 10% a fixed old value; varchars 10% NULL.
    const std::string ints = "==FACTOR:1== NULL | ==FACTOR:1== _tinyint_unsigned | ==FACTOR:8== _digit";
    const std::string dates = "==FACTOR:1== NULL | ==FACTOR:1== '1900-01-01' | ==FACTOR:8== _date";
    const std::string times = "==FACTOR:1== NULL | ==FACTOR:1== '00:00:00' | ==FACTOR:8== _time";
    const std::string datetimes =
        "==FACTOR:1== NULL | ==FACTOR:1== '1900-01-01 00:00:00' | ==FACTOR:8== _datetime";
    const std::string varchars = "==FACTOR:1== NULL | ==FACTOR:9== _varchar(1)";
    t.columns = {
        {"pk", "int", true, true, false, true, false, ""},
        {"col_int_nokey", "int", false, false, true, false, false, ints},
        {"col_int_key", "int", false, true, true, false, false, ints},
        {"col_date_key", "date", false, true, true, false, false, dates},
        {"col_date_nokey", "date", false, false, true, false, false, dates},
        {"col_time_key", "time", false, true, true, false, false, times},
        {"col_time_nokey", "time", false, false, true, false, false, times},
        {"col_datetime_key", "datetime", false, true, true, false, false, datetimes},
        {"col_datetime_nokey", "datetime", false, false, true, false, false, datetimes},
        {"col_varchar_key", "varchar(1)", false, true, true, false, false, varchars},
        {"col_varchar_nokey", "varchar(1)", false, false, true, false, false, varchars},
    };
    tables.push_back(std::move(t));
  }
  return Schema({"test"}, std::move(tables));
}

Schema Schema::FromJson(const std::string& text, const std::string& file) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InvalidInput(LocationOf(file, text, e.byte > 0 ? e.byte - 1 : 0),
                       std::string("invalid JSON: ") + e.what());
  }
  std::string path = "(top level)";
  try {
    std::vector<std::string> databases;
    if (doc.contains("databases")) {
      path = "databases";
      databases = doc.at("databases").get<std::vector<std::string>>();
    }
    std::vector<Table> tables;
    path = "tables";
    const json& jt = doc.at("tables");
    for (size_t i = 0; i < jt.size(); ++i) {
      path = "tables[" + std::to_string(i) + "]";
      const json& t = jt.at(i);
      Table table;
      table.name = t.at("name").get<std::string>();
      table.database = t.value("database", "");
      table.view = t.value("view", false);
      table.temporary = t.value("temporary", false);
      if (t.contains("rows") && !t.at("rows").is_number_unsigned())
        throw InvalidInput({file, 0, 0}, path + ".rows: must be a whole number >= 0, not " + t.at("rows").dump());
      table.rows = t.value("rows", uint64_t{0});
      table.engine = t.value("engine", "");
      table.options = t.value("options", "");
      table.keys = t.value("keys", std::vector<std::string>{});
      const json& cols = t.at("columns");
      for (size_t c = 0; c < cols.size(); ++c) {
        path = "tables[" + std::to_string(i) + "].columns[" + std::to_string(c) + "]";
        const json& jc = cols.at(c);
        Column col;
        col.name = jc.at("name").get<std::string>();
        col.type = jc.value("type", "int");
        col.primary = jc.value("primary", false);
        col.indexed = jc.value("indexed", col.primary);
        col.nullable = jc.value("nullable", !col.primary);
        col.auto_increment = jc.value("auto_increment", false);
        col.raw = jc.value("raw", false);
        col.values = jc.value("values", "");
        table.columns.push_back(std::move(col));
      }
      if (table.columns.empty())
        throw InvalidInput({file, 0, 0}, path + ": a table needs at least one column");
      tables.push_back(std::move(table));
    }
    Schema s(std::move(databases), std::move(tables));
    if (doc.contains("charsets")) {
      path = "charsets";
      s.charsets_ = doc.at("charsets").get<std::vector<std::string>>();
    }
    if (doc.contains("collations")) {
      path = "collations";
      s.collations_ = doc.at("collations").get<std::vector<std::string>>();
    }
    return s;
  } catch (const json::exception& e) {
    throw InvalidInput({file, 0, 0}, path + ": " + e.what());
  }
}

Schema Schema::FromJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidInput({path, 0, 0}, "cannot read schema file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return FromJson(buffer.str(), path);
}

std::string Schema::ToJson() const {
  json doc;
  doc["databases"] = databases_;
  doc["charsets"] = charsets_;
  doc["collations"] = collations_;
  json tables = json::array();
  for (const Table& t : tables_) {
    json jt = {{"name", t.name}, {"rows", t.rows}, {"view", t.view}};
    if (!t.database.empty()) jt["database"] = t.database;
    if (t.temporary) jt["temporary"] = true;
    if (!t.engine.empty()) jt["engine"] = t.engine;
    if (!t.options.empty()) jt["options"] = t.options;
    if (!t.keys.empty()) jt["keys"] = t.keys;
    json cols = json::array();
    for (const Column& c : t.columns) {
      json jc = {{"name", c.name}, {"type", c.type}, {"primary", c.primary},
                 {"indexed", c.indexed}, {"nullable", c.nullable}};
      if (c.auto_increment) jc["auto_increment"] = true;
      if (c.raw) jc["raw"] = true;
      if (!c.values.empty()) jc["values"] = c.values;
      cols.push_back(jc);
    }
    jt["columns"] = cols;
    tables.push_back(jt);
  }
  doc["tables"] = tables;
  return doc.dump(2);
}

}  // namespace gauntlet
