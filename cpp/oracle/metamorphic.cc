#include "oracle/metamorphic.h"

#include <strings.h>

#include <algorithm>
#include <functional>
#include <set>

#include "exec/error_table.h"
#include "generate/query_builder.h"
#include "oracle/data_snapshot.h"
#include "oracle/determinism.h"
#include "oracle/minimise.h"
#include "oracle/transforms.h"

namespace gauntlet {
namespace {

std::string Refusal(const Outcome& o) {
  return "follow-up refused: error " + std::to_string(o.error_code) + " " + ErrorTable::Default().Name(o.error_code);
}

std::string TooManyRows() {
  return "a follow-up returns over " + std::to_string(RelationOracle::kRowCap) + " rows";
}

bool Environmental(const Outcome& o) {
  return o.kind == OutcomeKind::kDeadlock || o.kind == OutcomeKind::kTimeout || o.kind == OutcomeKind::kResource ||
         o.kind == OutcomeKind::kConnectionLost || o.kind == OutcomeKind::kServerCrashed;
}

}  // namespace

bool RelationOracle::WantsRows(std::string_view sql) const {
  const size_t i = sql.find_first_not_of(" \t\r\n(");
  return i != std::string_view::npos && sql.size() - i >= 6 && strncasecmp(sql.data() + i, "SELECT", 6) == 0;
}

namespace {

// A plan's statements in the session: setup now, cleanup however the check
// ends (or earlier, by Cleanup()).
class PlanRun {
 public:
  PlanRun(Session& session, const FollowUp& plan, double limit) : session_(session), plan_(plan), limit_(limit) {}
  ~PlanRun() { Cleanup(); }
  PlanRun(const PlanRun&) = delete;
  PlanRun& operator=(const PlanRun&) = delete;

  // The reason to skip when a setup statement was refused, else "".
  std::string Setup() {
    for (const std::string& sql : plan_.side_setup)
      if (Outcome r = session_.ExecuteSide(0, sql, nullptr, limit_); !r.ok()) return Refusal(r);
    for (const std::string& sql : plan_.setup)
      if (Outcome r = Run(sql, nullptr); !r.ok()) return Refusal(r);
    return "";
  }
  Outcome Run(const std::string& sql, ResultSet* rows) {
    if (rows != nullptr) *rows = ResultSet();
    return session_.Execute(0, sql, rows, limit_);
  }
  void Cleanup() {
    if (done_) return;
    done_ = true;
    for (const std::string& sql : plan_.cleanup) session_.Execute(0, sql, nullptr, limit_);
    for (const std::string& sql : plan_.side_cleanup) session_.ExecuteSide(0, sql, nullptr, limit_);
  }

 private:
  Session& session_;
  const FollowUp& plan_;
  double limit_;
  bool done_ = false;
};

}  // namespace

std::optional<FollowUp> RelationOracle::Applicable(const SqlShape& shape, const Observation& o, Verdict* instead,
                                                   const UniqueKeys* keys) const {
  *instead = Verdict::NotApplicable();
  if (!ReturnsQueryRows(shape)) return std::nullopt;
  std::optional<FollowUp> plan;
  // TLP and NoREC check plain SELECTs only: a UNION is none of their business, whatever it reads.
  if (!ComparesQueryRows() && !(plan = Plan(shape, o, instead))) return std::nullopt;
  if (std::string why = Nondeterminism(shape, keys); !why.empty()) {
    *instead = Verdict::Skipped(why);
    return std::nullopt;
  }
  if (!ReadOnly(shape)) return std::nullopt;
  return plan ? plan : Plan(shape, o, instead);
}

Verdict RelationOracle::Check(const Observation& o) {
  if (turns_ != nullptr && !turns_->Mine(o.thread, o.number, position_)) return Verdict::NotApplicable();
  Verdict v = CheckStatement(o);
  if (turns_ != nullptr && v.kind == Verdict::kNotApplicable) turns_->Declined(o.thread, o.number, position_);
  return v;
}

Verdict RelationOracle::CheckStatement(const Observation& o) {
  if (!o.outcomes[0].ok() || o.results.empty()) return Verdict::NotApplicable();
  const SqlShape shape(o.sql);
  if (!ReturnsQueryRows(shape)) return Verdict::NotApplicable();
  // After USE INFORMATION_SCHEMA its tables need no qualifier (PROCESSLIST shows the query itself).
  if (IsMetadataSchema(o.session.database()))
    return Verdict::Skipped("reads server metadata (USE " + Upper(o.session.database()) + ")");
  // Its rewrites would return as many rows, each costing what the query did.
  if (ComparesQueryRows() && static_cast<int64_t>(o.results[0].rows.size()) > kRowCap)
    return Verdict::Skipped("the query returns over " + std::to_string(kRowCap) + " rows");
  const double limit = FollowUpLimit(o.outcomes[0].nanos);
  int64_t n = -1, offset = 0;
  const std::string core = ReplaceLimit(shape, "", &n, &offset);
  if (core.empty()) {
    // A UNION of LIMITs: its rows among those of the UNION without them.
    const std::string unlimited = ComparesQueryRows() ? WithoutPartLimits(shape) : "";
    if (unlimited.empty()) return CheckQuery(o, shape, limit);
    return CheckUnlimited(o, shape, unlimited, unlimited + " LIMIT " + std::to_string(kRowCap + 1), -1, 0, limit);
  }
  const SqlShape core_shape(core);
  if (std::string why = Nondeterminism(core_shape); !why.empty()) return Verdict::Skipped(why);
  if (!ReadOnly(shape)) return Verdict::NotApplicable();
  if (!ComparesQueryRows()) {  // TLP and NoREC make their queries of the clauses, the LIMIT left out
    const Observation subject{o.thread, core, o.outcomes, o.results, o.session, o.others_wrote, o.writes, o.number};
    return CheckQuery(subject, core_shape, limit);
  }
  const UniqueKeys keys = SessionKeys(o.session, 0, limit);
  if (Nondeterminism(shape, &keys).empty()) return CheckQuery(o, shape, limit, &keys);  // ordered by keys
  return CheckUnlimited(o, shape, core, ReplaceLimit(shape, "LIMIT " + std::to_string(kRowCap + 1), &n, &offset), n,
                        offset, limit);
}

Verdict RelationOracle::CheckUnlimited(const Observation& o, const SqlShape& shape, const std::string& core,
                                       const std::string& capped, int64_t n, int64_t offset, double limit) {
  const SqlShape core_shape(core);
  if (std::string why = Nondeterminism(core_shape); !why.empty()) return Verdict::Skipped(why);
  if (!ReadOnly(shape)) return Verdict::NotApplicable();
  // The LIMIT's rows among the query's rows without it; then the query without it.
  std::vector<Outcome> outcomes(1);
  std::vector<ResultSet> results(1);
  outcomes[0] = o.session.Execute(0, capped, &results[0], limit);
  if (!outcomes[0].ok())
    return Verdict::Skipped(Environmental(outcomes[0]) ? "deadlock, timeout (or too slow) or resource error"
                                                       : Refusal(outcomes[0]));
  if (static_cast<int64_t>(results[0].rows.size()) > kRowCap) return Verdict::Skipped(TooManyRows());
  FollowUp limited;
  limited.what = "the LIMIT's rows among the query's rows without it";
  limited.left = core;
  limited.right = {""};
  limited.rules = {Relation::kSuperset, PicksAmongEquals(shape), n, offset};
  limited.family = "limit";
  limited.minimise = false;  // its smaller forms would be checked by the transform, not by this relation
  if (Verdict v = CheckPlan(o, shape, limited, &results[0], limit); v.kind != Verdict::kPassed) return v;
  const Observation subject{o.thread, core, outcomes, results, o.session, o.others_wrote, o.writes, o.number};
  return CheckQuery(subject, core_shape, limit);
}

Verdict RelationOracle::CheckQuery(const Observation& o, const SqlShape& shape, double limit,
                                   const UniqueKeys* keys) {
  Verdict instead;
  std::optional<FollowUp> plan = Applicable(shape, o, &instead, keys);
  if (!plan) return instead;
  return CheckPlan(o, shape, *plan, nullptr, limit);
}

Verdict RelationOracle::CheckPlan(const Observation& o, const SqlShape& shape, const FollowUp& plan_in,
                                  const ResultSet* left_rows, double limit) {
  const FollowUp* plan = &plan_in;
  Session& session = o.session;
  PlanRun run(session, *plan, limit);  // past `limit` a follow-up is killed, the check skipped
  if (std::string why = run.Setup(); !why.empty()) return Verdict::Skipped(why);
  const std::string left_sql = plan->left.empty() ? std::string(o.sql) : plan->left;
  // Rows fetched already are not copied: results may be large.
  ResultSet fetched;
  if (plan->left.empty()) {
    left_rows = &o.results[0];
  } else if (left_rows == nullptr) {
    if (Outcome r = run.Run(plan->left, &fetched); !r.ok()) return Verdict::Skipped(Refusal(r));
    left_rows = &fetched;
  }
  const ResultSet& left = *left_rows;
  const auto capped = [&](const ResultSet& r) {
    return plan->row_cap > 0 && static_cast<int64_t>(r.rows.size()) > plan->row_cap;
  };
  if (capped(left)) return Verdict::Skipped(TooManyRows());
  for (const std::string& planned : plan->right) {
    const std::string right_sql = planned.empty() ? std::string(o.sql) : planned;
    ResultSet right_fetched;
    if (!planned.empty())
      if (Outcome r = run.Run(right_sql, &right_fetched); !r.ok())
        return Verdict::Skipped(Environmental(r) ? "deadlock, timeout (or too slow) or resource error" : Refusal(r));
    const ResultSet& right = planned.empty() ? o.results[0] : right_fetched;
    if (capped(right)) return Verdict::Skipped(TooManyRows());
    Comparison c = CompareResults(left, right, plan->rules, "left", "right");
    if (c.holds) continue;
    // Again, twice, on the data as it is now, while no other session writes:
    // a write in between is no bug. Under constant writes that may never be.
    int confirmed = 0;
    for (int again = 0; again < kConfirmTries && confirmed < 2; ++again) {
      const uint64_t mark = o.writes.Mark();
      ResultSet left2, right2;
      if (!run.Run(left_sql, &left2).ok() || !run.Run(right_sql, &right2).ok())
        return Verdict::Skipped("a follow-up failed on the second try");
      if (!o.writes.Quiet(mark)) continue;
      if (!CompareResults(left, left2, {Relation::kUnordered, plan->rules.fold_strings}, "", "").holds)
        return Verdict::Skipped("the data changed meanwhile");
      if (CompareResults(left2, right2, plan->rules, "left", "right").holds)
        return Verdict::Skipped("did not repeat (a concurrent change?)");
      ++confirmed;
    }
    if (confirmed < 2) return Verdict::Skipped("other sessions wrote during every re-check");
    // Inside an explicit transaction: both sides again on a second connection
    // (autocommit, the committed data), so that the finding says whether only
    // the transaction sees the difference (MyISAM and Aria have no snapshots).
    // Not for plans whose setup changes the session (a PREPARE, a SET); the
    // side connection ran side_setup (the views) above.
    nlohmann::json outside;
    if (session.InTransaction(0) && plan->setup.empty()) {
      const uint64_t mark = o.writes.Mark();
      ResultSet left3, right3;
      if (session.ExecuteSide(0, left_sql, &left3, limit).ok() && session.ExecuteSide(0, right_sql, &right3, limit).ok() &&
          o.writes.Quiet(mark)) {
        const Comparison c3 = CompareResults(left3, right3, plan->rules, "left", "right");
        outside = {{"holds", c3.holds}, {"evidence", c3.evidence}};
      }
    }
    // The warnings both sides raise (a value converted with a warning, say):
    // findings that share them often share a cause, so the signature has them.
    std::set<std::string> warned;
    for (const std::string* sql : {&left_sql, &right_sql}) {
      ResultSet warnings;
      if (run.Run(*sql, nullptr).ok() && run.Run("SHOW WARNINGS", &warnings).ok())
        for (const auto& row : warnings.rows)
          if (row.size() > 1 && row[1]) warned.insert(*row[1]);
    }
    std::string tags = c.kind.empty() ? "" : " [" + c.kind + "]";
    if (!warned.empty()) {
      tags += " [warnings";
      for (const std::string& code : warned) tags += " " + code;
      tags += "]";
    }
    Finding f;
    f.kind = finding_kind();
    f.targets = {session.target(0).name};
    f.signature = (plan->family.empty() ? name() : plan->family) + tags + ": " + shape.Skeleton();
    f.detail = "relation " + std::string(RelationName(plan->rules.relation)) + " fails: " + plan->what +
               "\nleft:  " + left_sql + "\nright: " + right_sql + "\n" + c.diff;
    f.evidence = c.evidence;
    f.evidence["left"] = left_sql;
    f.evidence["right"] = right_sql;
    f.evidence["what"] = plan->what;
    f.evidence["setup"] = plan->setup;
    f.evidence["side_setup"] = plan->side_setup;
    f.evidence["in_transaction"] = session.InTransaction(0);
    if (!outside.is_null()) f.evidence["outside_transaction"] = outside;
    run.Cleanup();  // the candidates make their own views and statements
    if (plan->minimise && minimised_.Take(f.signature)) {
      f.minimal = MinimalFinding(std::string(o.sql), [&](const std::string& sql, nlohmann::json* failure) {
        return FailsAlike(o, sql, c.kind, limit, failure);
      }, budget_);
      // What the minimal query reads, for running it alone.
      f.minimal["data"] = QuietSnapshot(o, f.minimal.value("sql", std::string(o.sql)), c.kind, limit);
    }
    return Verdict::Fired(std::move(f));
  }
  return Verdict::Passed();
}

// The relation once more for `sql`, a smaller form of the query: it fails in
// the same way (the comparison's kind: a truncation stays one) while no
// other session writes. Its follow-ups and difference go to *failure.
bool RelationOracle::FailsAlike(const Observation& o, const std::string& sql, const std::string& kind, double limit,
                                nlohmann::json* failure) const {
  // Two tries: once other sessions' writes may have been in between.
  for (int attempt = 0; attempt < 2; ++attempt) {
    const uint64_t mark = o.writes.Mark();
    std::vector<Outcome> outcomes(1);
    std::vector<ResultSet> results(1);
    outcomes[0] = o.session.Execute(0, sql, &results[0], limit);
    if (!outcomes[0].ok()) return false;
    const Observation candidate{o.thread, sql, outcomes, results, o.session, false, o.writes, o.number};
    const SqlShape shape(sql);
    Verdict instead;
    const UniqueKeys keys = SessionKeys(o.session, 0, limit);
    std::optional<FollowUp> plan = Applicable(shape, candidate, &instead, &keys);
    if (!plan) return false;
    PlanRun run(o.session, *plan, limit);
    if (!run.Setup().empty()) return false;
    ResultSet left;
    if (plan->left.empty()) {
      left = results[0];
    } else if (!run.Run(plan->left, &left).ok()) {
      return false;
    }
    std::optional<Comparison> failed;
    std::string right_sql;
    for (const std::string& r : plan->right) {
      ResultSet right;
      if (!run.Run(r, &right).ok()) return false;
      Comparison c = CompareResults(left, right, plan->rules, "left", "right");
      if (!c.holds && c.kind == kind) {
        failed = std::move(c);
        right_sql = r;
        break;
      }
    }
    if (!o.writes.Quiet(mark)) continue;
    if (!failed) return false;
    *failure = failed->evidence;
    failure->update({{"left", plan->left.empty() ? sql : plan->left}, {"right", right_sql},
                     {"setup", plan->setup}, {"side_setup", plan->side_setup}, {"diff", failed->diff}});
    return true;
  }
  return false;
}

// Read any other time, the data may be what another session's write made of
// it: a table emptied meanwhile gives a test case that passes on a fresh
// server, and the finding looks like a false alarm there.
nlohmann::json RelationOracle::QuietSnapshot(const Observation& o, const std::string& sql, const std::string& kind,
                                             double limit) const {
  DataSnapshot none;
  none.missing = "other sessions wrote whenever its data was read";
  for (int attempt = 0; attempt < kConfirmTries; ++attempt) {
    const uint64_t mark = o.writes.Mark();
    nlohmann::json failure;
    const bool fails = FailsAlike(o, sql, kind, limit, &failure);
    DataSnapshot data = SnapshotData(sql, [&](const std::string& statement, ResultSet* rows) {
      return o.session.Execute(0, statement, rows, limit);
    });
    if (!o.writes.Quiet(mark)) continue;
    if (fails) return data.ToJson();
    none.missing = "the minimal query no longer failed on the data whenever it was read";
  }
  return none.ToJson();
}

const std::vector<std::pair<std::string, TransformOracle::Kind>>& TransformOracle::Names() {
  static const std::vector<std::pair<std::string, Kind>> names = {
      {"transform:view", kView},           {"transform:view_temptable", kViewTemptable},
      {"transform:derived", kDerived},     {"transform:cte", kCte},
      {"transform:prepared", kPrepared},   {"transform:ignore_index", kNoIndex},
      {"transform:optimizer_switch", kOptimizerSwitch}, {"transform:join_cache", kJoinCache}};
  return names;
}

namespace {
// Statements that give a second connection the settings a view's definition
// depends on in `o`'s session; false when they cannot be read.
bool ReadsTemporaryTable(const SqlShape& s, const Session& session) {
  const std::set<std::string>& temporary = session.temporary_tables();
  if (temporary.empty()) return false;
  for (const SqlToken& t : s.tokens())
    if (IsName(t) && temporary.count(s.Name(t))) return true;
  return false;
}

bool ViewContext(const Observation& o, std::vector<std::string>* out) {
  ResultSet r;
  if (!o.session.Execute(0, "SELECT @@sql_mode, @@character_set_client, @@collation_connection, DATABASE()", &r)
           .ok() ||
      r.rows.size() != 1 || r.rows[0].size() != 4 || !r.rows[0][1] || !r.rows[0][2] || !r.rows[0][3])
    return false;
  const auto& row = r.rows[0];
  // The session's database too: a USE since it connected makes its `t1` another table.
  std::string database = "`";
  for (char c : *row[3]) database += c == '`' ? std::string("``") : std::string(1, c);
  *out = {"SET SESSION sql_mode = " + SqlString(row[0].value_or("")),
          "SET SESSION character_set_client = " + SqlString(*row[1]),
          "SET SESSION collation_connection = " + SqlString(*row[2]), "USE " + database + "`"};
  return true;
}

// The number of the query's columns when two of them share a name (which a
// view or CTE then names anew), else 0.
size_t SharedNames(const Observation& o) {
  std::set<std::string> names;
  for (const ResultColumn& c : o.results[0].columns)
    if (!names.insert(Upper(c.name)).second) return o.results[0].columns.size();
  return 0;
}

// The relation of a follow-up to the query: the same rows in the same order
// when its ORDER BY decides every row's place. A value longer than
// max_sort_length is sorted by its first max_sort_length bytes only, so rows
// equal there are ties, in any order.
Relation OrderKept(const SqlShape& s, const Observation& o) {
  if (!TotallyOrdered(s)) return Relation::kUnordered;
  size_t longest = 0;
  for (const auto& row : o.results[0].rows)
    for (const auto& v : row)
      if (v) longest = std::max(longest, v->size());
  constexpr size_t kLeastSortLength = 8;  // max_sort_length's least value
  if (longest <= kLeastSortLength) return Relation::kExact;
  ResultSet r;
  if (!o.session.Execute(0, "SELECT @@max_sort_length", &r).ok() || r.rows.size() != 1 || r.rows[0].empty() ||
      !r.rows[0][0])
    return Relation::kUnordered;
  return longest > std::stoull(*r.rows[0][0]) ? Relation::kUnordered : Relation::kExact;
}
}  // namespace

std::string TransformOracle::name() const {
  for (const auto& [n, k] : Names())
    if (k == kind_) return n;
  return "transform";
}

std::optional<FollowUp> TransformOracle::Plan(const SqlShape& s, const Observation& o, Verdict* instead) const {
  FollowUp f;
  f.rules.fold_strings = PicksAmongEquals(s);
  // Through a view, derived table or CTE the order is not kept.
  f.rules.relation = Relation::kUnordered;
  const std::string view = "gauntlet_view_" + std::to_string(o.thread);
  std::string why;
  switch (kind_) {
    case kView:
    case kViewTemptable:
      // The view's DROP would wait for the transaction that read it: ours.
      if (o.session.InTransaction(0)) {
        *instead = Verdict::Skipped("inside a transaction");
        return std::nullopt;
      }
      // The view is made on another connection, which reads the base table of that name.
      if (ReadsTemporaryTable(s, o.session)) {
        *instead = Verdict::Skipped("reads a temporary table of its session");
        return std::nullopt;
      }
      f.what = std::string("the query as a ") + (kind_ == kView ? "MERGE" : "TEMPTABLE") + " view";
      // The view is made on a second connection, so it must parse there as
      // the query did here: sql_mode at parse time, and the character sets
      // and collation a view keeps as its creation context ('A' = 'a' under
      // utf8mb4_bin is not the same view under the default collation).
      if (!ViewContext(o, &f.side_setup)) {
        *instead = Verdict::Skipped("the session's sql_mode, collation and database could not be read");
        return std::nullopt;
      }
      f.side_setup.push_back("CREATE OR REPLACE ALGORITHM=" + std::string(kind_ == kView ? "MERGE" : "TEMPTABLE") +
                             " VIEW " + view + ColumnList(SharedNames(o)) + " AS " + std::string(o.sql));
      f.right = {"SELECT * FROM " + view};
      f.side_cleanup = {"DROP VIEW IF EXISTS " + view};
      break;
    case kDerived:
      f.what = "the query as a derived table";
      f.right = {AsDerivedTable(s)};
      break;
    case kCte:
      f.what = "the query as a common table expression";
      f.right = {AsCte(s, SharedNames(o))};
      break;
    case kPrepared:
      f.what = "the query prepared and executed twice";
      f.setup = {"PREPARE gauntlet_ps FROM " + SqlString(o.sql)};
      f.right = {"EXECUTE gauntlet_ps", "EXECUTE gauntlet_ps"};
      f.cleanup = {"DEALLOCATE PREPARE gauntlet_ps"};
      f.rules.relation = OrderKept(s, o);
      break;
    case kNoIndex:
      f.what = "the query with USE INDEX () on every table";
      f.right = {WithoutIndexes(s, &why)};
      f.rules.relation = OrderKept(s, o);
      break;
    case kOptimizerSwitch: {
      // One flag off, picked by the query's text, so that a seed gives the
      // same checks everywhere. A flag the server does not know makes the
      // follow-up fail, which counts as a skip.
      const auto& flags = OptimizerSwitchFlags();
      const std::string flag = flags[std::hash<std::string_view>()(o.sql) % flags.size()];
      f.what = "the query with optimizer_switch " + flag + "=off";
      f.right = {WithSetStatement(s, "optimizer_switch='" + flag + "=off'")};
      f.rules.relation = OrderKept(s, o);
      break;
    }
    case kJoinCache:
      f.what = "the query with join_cache_level=0";
      f.right = {WithSetStatement(s, "join_cache_level=0")};
      f.rules.relation = OrderKept(s, o);
      break;
  }
  if (f.right.empty() || f.right[0].empty()) {
    *instead = why.empty() ? Verdict::NotApplicable() : Verdict::Skipped(why);
    return std::nullopt;
  }
  return f;
}

std::optional<FollowUp> TlpOracle::Plan(const SqlShape& s, const Observation&, Verdict* instead) const {
  TlpQueries q;
  std::string why;
  if (!Tlp(s, &q, &why)) {
    *instead = why == "no WHERE" || why == "not a plain SELECT" ? Verdict::NotApplicable() : Verdict::Skipped(why);
    return std::nullopt;
  }
  FollowUp f;
  const std::string clause = q.variant.rfind("having", 0) == 0 ? "HAVING" : q.variant.rfind("on ", 0) == 0 ? "ON" : "WHERE";
  f.what = clause + " p, " + clause + " NOT p and " + clause + " p IS NULL together (" + q.variant + ") against no " +
           clause;
  // Rows without WHERE may be many more than the query's (a cross join):
  // they stop past kRowCap. Groups and aggregates, which the server computes
  // whole anyway, keep their form (a LIMIT would change their plan).
  const bool rows = q.variant.find("rows") != std::string::npos || q.variant.find("distinct") != std::string::npos;
  const std::string cap = rows && q.variant.find("having") == std::string::npos
                              ? " LIMIT " + std::to_string(kRowCap + 1) : "";
  f.left = q.unfiltered + cap;
  f.right = {q.partitioned + cap};
  f.row_cap = cap.empty() ? 0 : kRowCap;
  f.rules = {Relation::kUnordered, PicksAmongEquals(s)};
  return f;
}

std::optional<FollowUp> NorecOracle::Plan(const SqlShape& s, const Observation&, Verdict* instead) const {
  NorecQueries q;
  std::string why;
  if (!Norec(s, &q, &why)) {
    *instead = Verdict::NotApplicable();
    return std::nullopt;
  }
  FollowUp f;
  f.what = "COUNT(*) ... WHERE p against SUM(p IS TRUE) over every row";
  f.left = q.optimized;
  f.right = {q.unoptimized};
  f.rules = {Relation::kExact, false};
  return f;
}

}  // namespace gauntlet
