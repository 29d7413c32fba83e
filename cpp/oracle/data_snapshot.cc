#include "oracle/data_snapshot.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include "exec/sql_quote.h"
#include "sql/sql_shape.h"

namespace gauntlet {
namespace {

constexpr int kMaxNames = 40;    // words of a query tried as table names
constexpr int kMaxViewDepth = 4;
constexpr int kRowsPerInsert = 50;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The words of `sql` that may name a table or view of database `db`: not
// calls, not columns or tables of another qualifier (`x`.`y` counts when x is
// `db`).
std::vector<std::string> CandidateNames(const std::string& sql, const std::string& db) {
  const SqlShape shape(sql);
  const auto& tokens = shape.tokens();
  std::vector<std::string> names;
  std::set<std::string> seen;
  auto is_dot = [&](size_t i) { return tokens[i].kind == SqlToken::kPunct && shape.text(tokens[i]) == "."; };
  for (size_t i = 0; i < tokens.size() && names.size() < kMaxNames; ++i) {
    const SqlToken& t = tokens[i];
    if ((t.kind != SqlToken::kWord && t.kind != SqlToken::kQuotedName) || shape.IsCall(i)) continue;
    if (i > 0 && is_dot(i - 1) && (i < 2 || shape.Name(tokens[i - 2]) != db)) continue;
    std::string name = shape.Name(t);
    if (seen.insert(name).second) names.push_back(name);
  }
  return names;
}

// The server's expression that prints column `name` of SQL type `type` (as
// SHOW COLUMNS has it) as a literal giving the same stored value back.
std::string LiteralOf(const std::string& name, const std::string& type) {
  const std::string c = QuotedName(name);
  std::string base = Lower(type.substr(0, type.find_first_of("( ")));
  auto is = [&](std::initializer_list<const char*> kinds) {
    return std::any_of(kinds.begin(), kinds.end(), [&](const char* k) { return base == k; });
  };
  if (is({"bit"})) return "IF(" + c + " IS NULL, 'NULL', CONCAT('b''', BIN(" + c + "), ''''))";
  if (is({"float"})) return "IFNULL(CAST(" + c + " AS DOUBLE), 'NULL')";  // FLOAT prints 6 digits, DOUBLE all
  if (is({"tinyint", "smallint", "mediumint", "int", "integer", "bigint", "decimal", "double", "real", "year"}))
    return "IFNULL(" + c + ", 'NULL')";
  if (is({"binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"}))
    return "IF(" + c + " IS NULL, 'NULL', CONCAT('X''', HEX(" + c + "), ''''))";
  if (is({"geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon",
          "geometrycollection"}))
    return "IF(" + c + " IS NULL, 'NULL', CONCAT('ST_GeomFromWKB(X''', HEX(ST_AsBinary(" + c + ")), ''', ', ST_SRID(" +
           c + "), ')'))";
  // The session's time zone applies on both ends of seconds since the epoch; a zero TIMESTAMP has none.
  if (is({"timestamp"}))
    return "IF(" + c + " IS NULL, 'NULL', IF(" + c + " = 0, '0', CONCAT('FROM_UNIXTIME(', UNIX_TIMESTAMP(" + c +
           "), ')')))";
  return "QUOTE(" + c + ")";  // text, ENUM, SET, dates and times, JSON, INET6, UUID; QUOTE(NULL) is NULL
}

class Snapshotter {
 public:
  Snapshotter(const SnapshotRunner& run, const SnapshotLimits& limits) : run_(run), limits_(limits) {}

  DataSnapshot Take(const std::string& sql) {
    ResultSet db;
    if (!run_("SELECT DATABASE()", &db).ok() || db.rows.empty() || !db.rows[0][0])
      return Missing("the session has no current database");
    db_ = *db.rows[0][0];
    // Definitions read as any client reads them (not in ANSI_QUOTES, say) and rows sent in utf8mb4,
    // whatever the session set; its own settings back after.
    ResultSet session;
    if (!run_("SELECT @@SESSION.sql_mode, @@SESSION.sql_quote_show_create, @@SESSION.character_set_results, "
              "@@SESSION.character_set_client, @@SESSION.collation_connection",
              &session).ok() ||
        session.rows.empty() || !session.rows[0][0] || !session.rows[0][1] || !session.rows[0][3] ||
        !session.rows[0][4] ||
        !run_("SET SESSION sql_mode = '', sql_quote_show_create = 1, character_set_results = utf8mb4", nullptr).ok())
      return Missing("the session's sql_mode and character set could not be set aside");
    const auto& was = session.rows[0];
    Add(sql, 0);
    run_("SET SESSION sql_mode = " + QuotedString(*was[0]) + ", sql_quote_show_create = " + *was[1] +
             ", character_set_results = " + (was[2] ? QuotedString(*was[2]) : "NULL"),
         nullptr);
    if (!out_.missing.empty()) return Missing(out_.missing);
    if (!out_.statements.empty()) {
      // Literals in utf8mb4, as read; rows as stored: no AUTO_INCREMENT renumbering of a 0, no checks
      // of values or references they already passed. Then the session's character sets for the query.
      out_.statements.insert(out_.statements.begin(),
                             {"SET NAMES utf8mb4", "SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO', "
                                                   "foreign_key_checks = 0, check_constraint_checks = 0"});
      // Statistics as a run's load settles them (data/statistics.h), not as InnoDB's background
      // recalculation happens to leave them: a plan that needs an index is the plan again.
      if (!analyzed_.empty()) out_.statements.push_back("ANALYZE TABLE " + analyzed_ + " PERSISTENT FOR ALL");
      out_.statements.push_back("SET SESSION sql_mode = DEFAULT, foreign_key_checks = DEFAULT, "
                                "check_constraint_checks = DEFAULT");
    }
    // Each part of it: a session may have set them apart (utf8mb4 sent, compared as latin1).
    out_.statements.push_back("SET SESSION character_set_client = " + QuotedString(*was[3]) +
                              ", collation_connection = " + QuotedString(*was[4]) +
                              ", character_set_results = " + (was[2] ? QuotedString(*was[2]) : "NULL"));
    return out_;
  }

 private:
  DataSnapshot Missing(const std::string& why) {
    DataSnapshot none;
    none.missing = why;
    return none;
  }

  // The objects `sql` names, each before what names it (a view's tables first).
  void Add(const std::string& sql, int depth) {
    for (const std::string& name : CandidateNames(sql, db_)) {
      if (!out_.missing.empty()) return;
      if (!done_.insert(name).second) continue;
      ResultSet created;
      if (!run_("SHOW CREATE TABLE " + QuotedName(name), &created).ok() || created.rows.empty() ||
          created.rows[0].size() < 2 || !created.rows[0][1])
        continue;  // not a table: a column, an alias, a keyword
      if (++objects_ > limits_.max_objects) {
        out_.missing = "the query reads more than " + std::to_string(limits_.max_objects) + " tables and views";
        return;
      }
      const std::string& definition = *created.rows[0][1];
      if (!created.columns.empty() && created.columns[0].name == "View") {
        AddView(definition, depth);
      } else if (definition.find(" SEQUENCE=1") != std::string::npos) {
        out_.missing = "the query reads sequence " + QuotedName(name);
      } else {
        out_.statements.push_back(definition);
        ++out_.tables;
        if (definition.rfind("CREATE TEMPORARY", 0) != 0) analyzed_ += (analyzed_.empty() ? "" : ", ") + QuotedName(name);
        AddRows(name);
      }
    }
  }

  void AddView(const std::string& definition, int depth) {
    if (depth >= kMaxViewDepth) {
      out_.missing = "views nested more than " + std::to_string(kMaxViewDepth) + " deep";
      return;
    }
    Add(definition, depth + 1);
    // Without its definer and this database's name, it runs in any database.
    static const std::regex definer(R"( DEFINER=`[^`]*`@`[^`]*`( SQL SECURITY DEFINER)?)");
    std::string view = std::regex_replace(definition, definer, "");
    const std::string qualifier = QuotedName(db_) + ".";
    for (size_t at; (at = view.find(qualifier)) != std::string::npos;) view.erase(at, qualifier.size());
    out_.statements.push_back(view);
    ++out_.views;
  }

  void AddRows(const std::string& table) {
    ResultSet columns;
    if (!run_("SHOW FULL COLUMNS FROM " + QuotedName(table), &columns).ok()) {
      out_.missing = "SHOW COLUMNS of " + QuotedName(table) + " failed";
      return;
    }
    std::string names, literals;
    for (const auto& col : columns.rows) {
      if (col.size() < 7 || !col[0] || !col[1]) continue;
      if (col[6] && Lower(*col[6]).find("generated") != std::string::npos) continue;  // the server computes it
      names += (names.empty() ? "" : ", ") + QuotedName(*col[0]);
      // In one character set, whatever each column's, for CONCAT_WS.
      literals += (literals.empty() ? "" : ", ") + ("CONVERT(" + LiteralOf(*col[0], *col[1]) + " USING utf8mb4)");
    }
    if (names.empty()) return;
    const int room = limits_.max_rows - out_.rows;
    ResultSet rows;
    const Outcome read = run_("SELECT CONCAT('(', CONCAT_WS(', ', " + literals + "), ')') FROM " + QuotedName(table) +
                                  " LIMIT " + std::to_string(room + 1),
                              &rows);
    if (!read.ok()) {
      out_.missing = "the rows of " + QuotedName(table) + " could not be read: " + read.message;
      return;
    }
    if (static_cast<int>(rows.rows.size()) > room) {
      out_.missing = "the query reads more than " + std::to_string(limits_.max_rows) + " rows";
      return;
    }
    const std::string insert = "INSERT INTO " + QuotedName(table) + " (" + names + ") VALUES\n";
    for (size_t i = 0; i < rows.rows.size(); i += kRowsPerInsert) {
      std::string statement = insert;
      for (size_t r = i; r < std::min(rows.rows.size(), i + kRowsPerInsert); ++r)
        statement += (r == i ? "" : ",\n") + rows.rows[r][0].value_or("()");
      bytes_ += statement.size();
      out_.statements.push_back(std::move(statement));
    }
    out_.rows += static_cast<int>(rows.rows.size());
    if (bytes_ > limits_.max_bytes)
      out_.missing = "the query's rows take more than " + std::to_string(limits_.max_bytes / 1024) + " KiB";
  }

  const SnapshotRunner& run_;
  const SnapshotLimits& limits_;
  std::string db_;
  std::set<std::string> done_;
  std::string analyzed_;  // the base tables, for ANALYZE TABLE
  int objects_ = 0;
  size_t bytes_ = 0;
  DataSnapshot out_;
};

}  // namespace

nlohmann::json DataSnapshot::ToJson() const {
  if (!complete()) return {{"missing", missing}};
  return {{"statements", statements}, {"tables", tables}, {"views", views}, {"rows", rows}};
}

DataSnapshot SnapshotData(const std::string& sql, const SnapshotRunner& run, const SnapshotLimits& limits) {
  return Snapshotter(run, limits).Take(sql);
}

}  // namespace gauntlet
