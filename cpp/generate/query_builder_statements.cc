#include "generate/query_builder.h"

#include "generate/query_builder_parts.h"

// QueryBuilder's statements beyond SELECT: DML, DDL and session settings.

namespace gauntlet {

using namespace builder;  // NOLINT(build/namespaces): the builder's own helpers

namespace {

bool Generated(const Column& c) { return HasCi(c.type, " as (") || HasCi(c.type, "generated "); }

}  // namespace

// ---- statements beyond SELECT -------------------------------------------------

void QueryBuilder::Assignment(std::string& out, const Rel& rel, const Col& col) {
  if (!rel.alias.empty()) out += Quote(rel.alias) + ".";
  out += Quote(col.name) + " = ";
  if (Percent(35)) E(out, col.type, 1);
  else Literal(out, col.type);
}

void QueryBuilder::Dml(std::string& out) {
  const int table = StartOnTable(out);
  if (table < 0) return;
  const Table& t = schema_.tables()[table];
  std::vector<Col> writable;
  for (const Column& c : t.columns)
    if (!Generated(c)) writable.push_back({c.name, SqlTypeOf(c)});
  if (writable.empty()) {
    out += "DO 1";
    return;
  }
  const uint64_t kind = Below(8);
  if (kind <= 2) {  // INSERT / REPLACE: some columns, 1 to 3 rows or a SELECT
    const bool replace = kind == 2;
    // Edge values overflow small types: IGNORE clips them (and keeps the
    // rows); without it they exercise the strict error paths.
    out += replace ? "REPLACE INTO " : Percent(60) ? "INSERT IGNORE INTO " : "INSERT INTO ";
    out += Quote(t.name) + " (";
    // Every column strict mode needs a value for, and some others.
    std::vector<Col> cols;
    for (const Column& c : t.columns) {
      if (Generated(c)) continue;
      const bool needed = !c.nullable && !c.auto_increment && !HasCi(c.type, "default");
      if (needed || Percent(60)) cols.push_back({c.name, SqlTypeOf(c)});
    }
    if (cols.empty()) cols.push_back(writable[0]);
    for (size_t i = 0; i < cols.size(); ++i) out += (i ? ", " : "") + Quote(cols[i].name);
    out += ")";
    if (kind == 1) {
      const int source = PickTable();
      Rel rel = TableRel(source, NewAlias('s'));
      out += " SELECT ";
      scope_.push_back(rel);
      for (size_t i = 0; i < cols.size(); ++i) {
        if (i) out += ", ";
        E(out, cols[i].type, 1);
      }
      out += " FROM " + Quote(schema_.tables()[source].name) + " AS " + rel.alias;
      if (Percent(60)) {
        out += " WHERE ";
        Cond(out, 1);
      }
      out += " LIMIT " + std::to_string(1 + Below(10));
      scope_.clear();
    } else {
      out += " VALUES ";
      const int rows = static_cast<int>(1 + Below(3));
      for (int r = 0; r < rows; ++r) {
        out += r ? ", (" : "(";
        for (size_t i = 0; i < cols.size(); ++i) {
          if (i) out += ", ";
          if (Percent(10)) out += "DEFAULT";
          else Literal(out, cols[i].type);
        }
        out += ")";
      }
    }
    if (!replace && Percent(30)) {
      out += " ON DUPLICATE KEY UPDATE ";
      // Qualified: after INSERT ... SELECT a bare name may be the source's too.
      Rel self{t.name, table, writable};
      scope_.push_back(self);
      Assignment(out, self, writable[Below(writable.size())]);
      scope_.clear();
    }
    return;
  }
  Rel self = TableRel(table, "");
  // `[DELETE sN FROM] t AS sN JOIN other AS sM ON ...`: a multi-table target.
  const auto joined = [&](bool del) {
    sub_depth_ = 2;  // no subqueries: they may read a target table (error 1093)
    self.alias = NewAlias('s');
    const int other = PickTable();
    Rel rel = TableRel(other, NewAlias('s'));
    out += del ? "DELETE " + self.alias + " FROM " : "UPDATE ";
    out += Quote(t.name) + " AS " + self.alias + " JOIN " + Quote(schema_.tables()[other].name) + " AS " +
           rel.alias + " ON ";
    scope_.push_back(self);
    scope_.push_back(rel);
    Compare(out, 1);
  };
  if (kind <= 4 || kind == 7) {
    if (kind == 4) {
      joined(false);
    } else {
      out += Percent(60) ? "UPDATE IGNORE " : "UPDATE ";
      out += Quote(t.name);
      scope_.push_back(self);
    }
    out += " SET ";
    Rel target = self;
    target.cols = writable;
    Assignment(out, target, writable[Below(writable.size())]);
    if (Percent(30)) {
      out += ", ";
      Assignment(out, target, writable[Below(writable.size())]);
    }
  } else {
    if (kind == 6) {
      joined(true);
    } else {
      out += "DELETE FROM " + Quote(t.name);
      scope_.push_back(self);
    }
  }
  const bool single = scope_.size() == 1;
  if (Percent(85)) {
    out += " WHERE ";
    Cond(out, 1);
  }
  if (single && Percent(25)) {
    out += " ORDER BY ";
    for (size_t i = 0; i < self.cols.size(); ++i) out += (i ? ", " : "") + Quote(self.cols[i].name);
    out += " LIMIT " + std::to_string(1 + Below(5));
  }
  scope_.clear();
  sub_depth_ = 0;
}

void QueryBuilder::Ddl(std::string& out) {
  const int table = StartOnTable(out, true);  // views refuse ALTER TABLE
  if (table < 0) return;
  const Table& t = schema_.tables()[table];
  if (t.columns.empty()) {
    out += "ANALYZE TABLE " + Quote(t.name);
    return;
  }
  const std::string name = Quote(t.name);
  // Versioned tables refuse column changes unless history may be altered.
  if (tables_[table].versioned && Percent(80))
    out += "SET STATEMENT system_versioning_alter_history=KEEP FOR ";
  const std::string extra = "`x" + std::to_string(1 + Below(3)) + "`";
  switch (Below(12)) {
    case 0: {  // draws in statements of their own, in a fixed order (see QueryBuilder::Cond)
      const std::string place = Percent(50) ? "" : Percent(50) ? " FIRST" : " AFTER " + Quote(t.columns[0].name);
      out += "ALTER TABLE " + name + " ADD COLUMN IF NOT EXISTS " + extra + " " +
             Pick({"INT", "INT UNSIGNED NOT NULL DEFAULT 7", "VARCHAR(0)", "VARCHAR(20) CHARACTER SET latin1",
                   "DECIMAL(65,30)", "DATETIME(6) NULL", "TEXT", "BIT(1)", "DOUBLE AS (1 / 3) VIRTUAL",
                   "CHAR(5) NOT NULL DEFAULT 'ab'"}) + place;
      return;
    }
    case 1:
      out += "ALTER TABLE " + name + " DROP COLUMN IF EXISTS " + extra;
      return;
    case 2: case 3: {  // a column to another type of its family
      const Column& c = t.columns[Below(t.columns.size())];
      if (Generated(c) || c.auto_increment) {
        out += "ANALYZE TABLE " + name;
        return;
      }
      const T type = SqlTypeOf(c);
      const char* to;
      switch (type) {
        case T::kInt: to = Pick({"TINYINT", "SMALLINT UNSIGNED", "INT", "BIGINT", "MEDIUMINT", "BIGINT UNSIGNED"}); break;
        case T::kDecimal: to = Pick({"DECIMAL(5,2)", "DECIMAL(65,0)", "DECIMAL(30,30)"}); break;
        case T::kReal: to = Pick({"FLOAT", "DOUBLE"}); break;
        case T::kString: to = Pick({"VARCHAR(1)", "VARCHAR(255)", "CHAR(10)", "TEXT", "VARCHAR(64) CHARACTER SET latin1",
                                    "VARCHAR(64) COLLATE utf8mb4_bin"}); break;
        case T::kBinary: to = Pick({"VARBINARY(8)", "BLOB", "BINARY(16)"}); break;
        case T::kDate: to = "DATE"; break;
        case T::kTime: to = Pick({"TIME", "TIME(6)"}); break;
        case T::kDatetime: to = Pick({"DATETIME", "DATETIME(6)", "TIMESTAMP(3) NULL"}); break;
        default:
          out += "ANALYZE TABLE " + name + " PERSISTENT FOR ALL";
          return;
      }
      out += "ALTER TABLE " + name + " MODIFY COLUMN " + Quote(c.name) + " " + to +
             (c.nullable && !c.primary ? "" : " NOT NULL");
      if (Percent(20)) out += Pick({", ALGORITHM=COPY", ", ALGORITHM=INPLACE", ", LOCK=NONE"});
      return;
    }
    case 4: {
      const Column& c = t.columns[Below(t.columns.size())];
      const T type = SqlTypeOf(c);
      const std::string base = c.base_type();
      const bool prefix = (type == T::kString || type == T::kBinary || type == T::kJson) && base != "enum" &&
                          base != "set";
      const char* order = Percent(30) ? " DESC" : "";  // drawn apart from the + (see QueryBuilder::Cond)
      out += "ALTER TABLE " + name + " ADD INDEX IF NOT EXISTS `ix" + std::to_string(1 + Below(2)) + "` (" +
             Quote(c.name) + (prefix ? "(8)" : "") + order + ")";
      return;
    }
    case 5:
      out += "ALTER TABLE " + name + " DROP INDEX IF EXISTS `ix" + std::to_string(1 + Below(2)) + "`";
      return;
    case 6:
      out += "ALTER TABLE " + name + Pick({" ENGINE=InnoDB", " ENGINE=MyISAM", " ENGINE=Aria", " FORCE",
                                           " ENGINE=InnoDB ROW_FORMAT=COMPRESSED", " ENGINE=Aria TRANSACTIONAL=0"});
      return;
    case 7:
      out += Pick({"ANALYZE TABLE ", "ANALYZE TABLE ", "OPTIMIZE TABLE ", "CHECK TABLE ", "CHECKSUM TABLE ",
                   "REPAIR TABLE ", "CHECK TABLE "});
      out += name;
      if (out.rfind("ANALYZE", 0) == 0 && Percent(50)) out += " PERSISTENT FOR ALL";
      return;
    case 8: {
      out += "CREATE OR REPLACE VIEW `v" + std::to_string(1 + Below(3)) + "` AS ";
      Select(out, 1, 0, nullptr, QueryFocus::kGeneral);
      return;
    }
    case 9:
      out += "DROP VIEW IF EXISTS `v" + std::to_string(1 + Below(3)) + "`";
      return;
    case 10:
      if (Percent(50)) {
        out += "CREATE TEMPORARY TABLE IF NOT EXISTS `tmp" + std::to_string(1 + Below(2)) + "` AS SELECT * FROM " + name;
      } else {
        out += "DROP TEMPORARY TABLE IF EXISTS `tmp" + std::to_string(1 + Below(2)) + "`";
      }
      return;
    default:
      out += "ALTER TABLE " + name + Pick({" ADD CONSTRAINT `cx1` CHECK (1 = 1)", " DROP CONSTRAINT IF EXISTS `cx1`",
                                           " AUTO_INCREMENT = 1000", " COMMENT = 'gauntlet'"});
      return;
  }
}

void QueryBuilder::Setting(std::string& out) {
  out += "SET SESSION ";
  switch (Below(10)) {
    case 0:
      out += std::string("sql_mode = ") +
             Pick({"DEFAULT", "''", "'STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO'",
                   "'TRADITIONAL'", "'PAD_CHAR_TO_FULL_LENGTH'", "'NO_BACKSLASH_ESCAPES'", "'HIGH_NOT_PRECEDENCE'",
                   "'ONLY_FULL_GROUP_BY'", "'EMPTY_STRING_IS_NULL'", "'ANSI'", "'ORACLE'"});
      return;
    case 1: case 2: {
      const auto& flags = OptimizerSwitchFlags();
      const char* value = Percent(50) ? "=on'" : "=off'";  // drawn apart from the + (see QueryBuilder::Cond)
      out += "optimizer_switch = '" + flags[Below(flags.size())] + value;
      return;
    }
    case 3: out += "join_cache_level = " + std::to_string(Below(9)); return;
    case 4: out += "optimizer_use_condition_selectivity = " + std::to_string(1 + Below(5)); return;
    case 5:
      out += Pick({"tmp_memory_table_size = 16384", "max_heap_table_size = 16384", "sort_buffer_size = 32768",
                   "join_buffer_size = 128", "tmp_table_size = DEFAULT", "big_tables = ON", "max_sort_length = 64",
                   "group_concat_max_len = 4"});
      return;
    case 6:
      out += Pick({"optimizer_search_depth = 0", "optimizer_search_depth = 1", "optimizer_prune_level = 0",
                   "in_predicate_conversion_threshold = 2", "div_precision_increment = 0",
                   "div_precision_increment = 30", "use_stat_tables = 'NEVER'",
                   "use_stat_tables = 'PREFERABLY_FOR_QUERIES'", "histogram_size = 0", "optimizer_max_sel_arg_weight = 1"});
      return;
    case 7:
      out += Pick({"optimizer_trace = 'enabled=on'", "optimizer_trace = 'enabled=off'", "time_zone = '+05:30'",
                   "time_zone = DEFAULT", "character_set_connection = latin1", "collation_connection = DEFAULT",
                   "collation_connection = utf8mb4_bin"});
      return;
    case 8: out += Pick({"tx_isolation = 'READ-COMMITTED'", "tx_isolation = 'SERIALIZABLE'",
                         "tx_isolation = 'REPEATABLE-READ'", "tx_isolation = 'READ-UNCOMMITTED'"});
      return;
    default:
      out += Pick({"optimizer_switch = DEFAULT", "join_cache_level = DEFAULT", "sql_mode = DEFAULT",
                   "optimizer_use_condition_selectivity = DEFAULT"});
      return;
  }
}


}  // namespace gauntlet
