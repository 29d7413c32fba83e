#include "data/loader.h"

#include <chrono>
#include <algorithm>
#include <map>

#include "common/error.h"
#include "exec/sql_quote.h"
#include "generate/generator.h"

namespace gauntlet {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Runs `sql`; returns "" or what went wrong.
std::string Try(Connection& c, const std::string& sql, const std::string& what) {
  const Outcome o = c.Execute(sql);
  if (o.ok()) return "";
  return what + ": error " + std::to_string(o.error_code) + ": " + o.message;
}

void Run(Connection& c, const std::string& sql, const std::string& what) {
  const std::string error = Try(c, sql, what);
  if (!error.empty()) throw Error(error + "\n  in: " + sql.substr(0, 300));
}

}  // namespace

std::string DefaultValues(const Column& column) {
  const std::string type = Lower(column.type);
  const std::string base = type.substr(0, type.find_first_of("( "));
  const std::string args = type.find('(') != std::string::npos
                               ? type.substr(type.find('('), type.find(')') - type.find('(') + 1)
                               : "";
  const bool is_unsigned = type.find("unsigned") != std::string::npos;
  std::string v;
  if (base == "tinyint" || base == "smallint" || base == "mediumint" || base == "int" ||
      base == "integer" || base == "bigint") {
    v = "_" + base + (is_unsigned ? "_unsigned" : "");
  } else if (base == "char" || base == "varchar" || base == "binary" || base == "varbinary") {
    v = "_varchar" + (args.empty() ? "(1)" : args);
  } else if (base == "decimal" || base == "numeric" || base == "dec" || base == "fixed") {
    v = "_decimal" + args;
  } else if (base == "float" || base == "double" || base == "real") {
    v = "_" + std::string(base == "real" ? "double" : base);
  } else if (base == "date" || base == "time" || base == "datetime" || base == "timestamp" ||
             base == "year" || base == "json") {
    v = "_" + base;
  } else if (base.find("text") != std::string::npos) {
    v = "_text(64)";
  } else if (base.find("blob") != std::string::npos) {
    v = "_data";
  } else if (base == "bit") {
    v = "_bit" + args;
  } else if (base == "bool" || base == "boolean") {
    v = "_bool";
  } else {
    v = "NULL";  // enum, set, geometry ...: unknown shapes load as NULL
  }
  return column.nullable && v != "NULL" ? "==FACTOR:9== " + v + " | NULL" : v;
}

std::string CreateTableSql(const Table& table, const std::string& database) {
  std::string sql = "CREATE TABLE " + QuotedName(database) + "." + QuotedName(table.name) + " (";
  std::string keys;
  std::vector<std::string> primary;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const Column& c = table.columns[i];
    sql += (i ? ", " : "") + QuotedName(c.name) + " " + c.type;
    if (c.raw) continue;  // the definition says it all, keys included
    sql += c.nullable && !c.primary ? " NULL" : " NOT NULL";
    if (c.auto_increment) sql += " AUTO_INCREMENT";
    if (c.primary) primary.push_back(QuotedName(c.name));
    else if (c.indexed) keys += ", KEY (" + QuotedName(c.name) + ")";
  }
  if (!primary.empty()) {
    sql += ", PRIMARY KEY (";
    for (size_t i = 0; i < primary.size(); ++i) sql += (i ? ", " : "") + primary[i];
    sql += ")";
  }
  for (const std::string& k : table.keys) keys += ", " + k;
  sql += keys + ")";
  if (!table.engine.empty()) sql += " ENGINE=" + table.engine;
  if (!table.options.empty()) sql += " " + table.options;
  return sql;
}

std::vector<std::string> TemporaryTwinSql(const Schema& schema) {
  std::vector<std::string> out;
  for (const Table& t : schema.tables()) {
    if (!t.temporary || t.view) continue;
    const std::string db = t.database.empty() ? schema.databases().front() : t.database;
    const std::string table = QuotedName(db) + "." + QuotedName(t.name), scratch = QuotedName(db) + ".`gauntlet_twin`";
    std::string cols;
    for (const Column& c : t.columns) {
      std::string type = c.type;
      for (char& ch : type) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      if (type.find(" AS (") != std::string::npos || type.find("GENERATED ALWAYS") != std::string::npos) continue;
      cols += (cols.empty() ? "" : ", ") + QuotedName(c.name);
    }
    std::string create = CreateTableSql(t, db);
    create.replace(0, std::string("CREATE TABLE").size(), "CREATE TEMPORARY TABLE");
    out.push_back("BEGIN NOT ATOMIC DECLARE EXIT HANDLER FOR SQLEXCEPTION DROP TEMPORARY TABLE IF EXISTS " + scratch +
                  "; CREATE TEMPORARY TABLE " + scratch + " AS SELECT " + cols + " FROM " + table + "; " + create +
                  "; INSERT IGNORE INTO " + table + " (" + cols + ") SELECT " + cols + " FROM " + scratch +
                  "; DROP TEMPORARY TABLE " + scratch + "; END");
  }
  return out;
}

LoadStats LoadSchema(Connection& connection, const Schema& schema, const LoadOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  LoadStats stats;
  const uint64_t seed = options.seed;
  auto refused = [&](const std::string& error, const std::string& sql) {
    if (options.strict) throw Error(error + "\n  in: " + sql.substr(0, 300));
    stats.warnings.push_back(error);
  };
  // A load starts from empty databases: tables left by an earlier run would
  // otherwise be drawn by `_table` too.
  for (const std::string& db : schema.databases()) {
    Run(connection, "DROP DATABASE IF EXISTS " + QuotedName(db), "dropping database " + db);
    Run(connection, "CREATE DATABASE " + QuotedName(db), "creating database " + db);
  }
  constexpr size_t kBatchRows = 1000;
  constexpr size_t kBatchBytes = 1 << 20;
  for (size_t t = 0; t < schema.tables().size() && !stats.cancelled; ++t) {
    const Table& table = schema.tables()[t];
    if (table.view) continue;
    const std::string db = table.database.empty() ? schema.databases()[0] : table.database;
    const std::string where = "table " + db + "." + table.name;
    const std::string create = CreateTableSql(table, db);
    if (std::string error = Try(connection, create, "creating " + where); !error.empty()) {
      refused(error, create);
      continue;
    }
    ++stats.tables;
    if (table.rows == 0) continue;
    // One generator per column: its values grammar is `query: <values> ;`.
    std::vector<std::unique_ptr<Generator>> columns;
    std::string names;
    for (size_t c = 0; c < table.columns.size(); ++c) {
      const Column& col = table.columns[c];
      std::string values = col.values;
      if (values.empty()) values = col.auto_increment ? "NULL" : DefaultValues(col);
      std::shared_ptr<const Grammar> grammar;
      try {
        grammar = Grammar::FromString("query: " + values + " ;\n", where + " column " + col.name);
      } catch (const InvalidInput& e) {
        throw InvalidInput(e.where(), "values of " + where + "." + col.name + ": " + e.message());
      }
      GeneratorOptions o;
      o.seed = DeriveSeed(seed, t * 1000 + c);
      columns.push_back(std::make_unique<Generator>(grammar, schema, o));
      names += (c ? ", " : "") + QuotedName(col.name);
    }
    const std::string head = "INSERT IGNORE INTO " + QuotedName(db) + "." + QuotedName(table.name) + " (" + names + ") VALUES ";
    std::string sql = head;
    size_t in_batch = 0;
    for (uint64_t r = 0; r < table.rows && !stats.cancelled; ++r) {
      sql += in_batch ? ",(" : "(";
      for (size_t c = 0; c < columns.size(); ++c) {
        if (c) sql += ',';
        const std::string& v = columns[c]->Next();
        sql += v.empty() ? "NULL" : v;
      }
      sql += ')';
      ++in_batch;
      if (in_batch == kBatchRows || sql.size() > kBatchBytes || r + 1 == table.rows) {
        const Outcome o = connection.Execute(sql);
        if (o.ok()) {
          stats.rows += o.affected_rows;
        } else {
          refused("loading " + where + ": error " + std::to_string(o.error_code) + ": " + o.message, sql);
        }
        sql = head;
        in_batch = 0;
        stats.cancelled = options.cancelled && options.cancelled();
      }
    }
  }
  // Views last: they read the tables.
  for (const Table& view : schema.tables()) {
    if (!view.view || view.options.empty() || stats.cancelled) continue;
    const std::string db = view.database.empty() ? schema.databases()[0] : view.database;
    std::string definition = view.options, algorithm;
    if (definition.rfind("ALGORITHM=", 0) == 0) {
      const size_t space = definition.find(' ');
      algorithm = definition.substr(0, space) + " ";
      definition = space == std::string::npos ? "" : definition.substr(space + 1);
    }
    const std::string create = "CREATE " + algorithm + "VIEW " + QuotedName(db) + "." + QuotedName(view.name) + " " + definition;
    // The definition names its tables without their database.
    std::string error = Try(connection, "USE " + QuotedName(db), "using database " + db);
    if (error.empty()) error = Try(connection, create, "creating view " + db + "." + view.name);
    if (!error.empty()) {
      refused(error, create);
      continue;
    }
    ++stats.tables;
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

Schema IntrospectSchema(Connection& connection, const std::vector<std::string>& databases) {
  std::string filter;
  if (databases.empty()) {
    // Gauntlet's own ledger (the recovery oracle's) is no table of the workload's.
    filter = "NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys', 'gauntlet_ledger')";
  } else {
    filter = "IN (";
    for (size_t i = 0; i < databases.size(); ++i) {
      std::string escaped;
      for (char ch : databases[i]) escaped += ch == '\'' ? std::string("''") : std::string(1, ch);
      filter += (i ? ",'" : "'") + escaped + "'";
    }
    filter += ")";
  }
  ResultSet rs;
  const Outcome o = connection.Execute(
      "SELECT c.TABLE_SCHEMA, c.TABLE_NAME, t.TABLE_TYPE, t.ENGINE, t.TABLE_ROWS, c.COLUMN_NAME, "
      "c.COLUMN_TYPE, c.IS_NULLABLE, c.COLUMN_KEY, c.EXTRA "
      "FROM information_schema.COLUMNS c JOIN information_schema.TABLES t "
      "ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME "
      "WHERE c.TABLE_SCHEMA " + filter + " ORDER BY c.TABLE_SCHEMA, c.TABLE_NAME, c.ORDINAL_POSITION",
      &rs);
  if (!o.ok()) throw Error("reading the schema from the server: " + o.message);
  std::vector<std::string> dbs;
  std::vector<Table> tables;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const auto& row : rs.rows) {
    auto v = [&](int i) { return row[i].value_or(""); };
    const auto key = std::make_pair(v(0), v(1));
    auto it = index.find(key);
    if (it == index.end()) {
      if (std::find(dbs.begin(), dbs.end(), v(0)) == dbs.end()) dbs.push_back(v(0));
      Table t;
      t.name = v(1);
      t.database = v(0);
      t.view = v(2) == "VIEW";
      t.engine = v(3);
      t.rows = row[4] ? std::stoull(*row[4]) : 0;
      it = index.emplace(key, tables.size()).first;
      tables.push_back(std::move(t));
    }
    Column c;
    c.name = v(5);
    c.type = v(6);
    c.nullable = v(7) == "YES";
    c.primary = v(8) == "PRI";
    c.indexed = !v(8).empty();
    c.auto_increment = v(9).find("auto_increment") != std::string::npos;
    tables[it->second].columns.push_back(std::move(c));
  }
  // A view has no row count; the query builder's cost bound needs one, so
  // it gets its database's largest table's (a bound for a view over one table).
  for (Table& view : tables) {
    if (!view.view) continue;
    for (const Table& t : tables)
      if (!t.view && t.database == view.database) view.rows = std::max(view.rows, t.rows);
  }
  if (!databases.empty()) dbs = databases;
  return Schema(dbs, std::move(tables));
}

}  // namespace gauntlet
