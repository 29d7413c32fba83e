#include "oracle/differential.h"

#include <strings.h>

#include <algorithm>

#include "exec/error_table.h"
#include "oracle/determinism.h"
#include "oracle/result_compare.h"
#include "sql/sql_shape.h"

namespace gauntlet {
namespace {

bool Environmental(OutcomeKind k) {
  return k == OutcomeKind::kDeadlock || k == OutcomeKind::kTimeout || k == OutcomeKind::kResource ||
         k == OutcomeKind::kConnectionLost || k == OutcomeKind::kServerCrashed;
}

std::string Status(const Outcome& o) {
  if (o.ok()) return "ok";
  return "error " + std::to_string(o.error_code) + " " + ErrorTable::Default().Name(o.error_code) + " (" +
         OutcomeKindName(o.kind) + "): " + o.message;
}

// DML, whose affected rows a user reads as a result.
bool CountsAffectedRows(const SqlShape& s) {
  const std::string verb = s.verb();
  return verb == "INSERT" || verb == "UPDATE" || verb == "DELETE" || verb == "REPLACE" || verb == "LOAD" ||
         verb == "WITH";  // WITH ... UPDATE/DELETE
}

// A table's unique keys when every target has the same ones (the targets'
// schemas may differ, and an order one decides is then no order to compare).
UniqueKeys KeysOnEveryTarget(Session& session, double limit) {
  return [&session, limit](const TableRef& table) {
    const auto first = SessionKeys(session, 0, limit)(table);
    for (size_t t = 1; t < session.size(); ++t)
      if (SessionKeys(session, t, limit)(table) != first) return decltype(first){};
    return first;
  };
}

}  // namespace

bool DifferentialOracle::WantsRows(std::string_view sql) const {
  // Cheap first: the verb. Rows are fetched for queries only.
  size_t i = sql.find_first_not_of(" \t\r\n(");
  if (i == std::string_view::npos) return false;
  const std::string_view rest = sql.substr(i, 6);
  const auto starts = [&](std::string_view w) {
    return rest.size() >= w.size() && strncasecmp(rest.data(), w.data(), w.size()) == 0;
  };
  return starts("SELECT") || starts("WITH") || starts("VALUES") || starts("TABLE");
}

Verdict DifferentialOracle::Check(const Observation& o) {
  if (o.outcomes.size() < 2) return Verdict::NotApplicable();
  if (data_diverged_) return Verdict::Skipped("the targets' data differ since an earlier write diverged");
  if (data_uncertain_) return Verdict::Skipped("the targets' data may differ since concurrent writes");
  const SqlShape shape(o.sql);
  const bool read_only = ReadOnly(shape);
  if (!read_only && o.others_wrote) {
    // Interleaved differently on each target: their data may differ from now on.
    data_uncertain_ = true;
    return Verdict::Skipped("the targets' data may differ since concurrent writes");
  }
  const Outcome& a = o.outcomes[0];
  const std::string& a_name = o.session.target(0).name;
  for (size_t t = 1; t < o.outcomes.size(); ++t) {
    const Outcome& b = o.outcomes[t];
    const std::string& b_name = o.session.target(t).name;
    Finding f;
    f.targets = {a_name, b_name};
    if (a.ok() != b.ok() || a.kind != b.kind) {
      if (Environmental(a.kind) || Environmental(b.kind))
        return Verdict::Skipped("deadlock, timeout or resource error on one side");
      if (o.others_wrote) return Verdict::Skipped("another session wrote meanwhile");
      if (!read_only) data_diverged_ = true;
      f.kind = "error-mismatch";
      f.signature = "differential: error-mismatch: " + shape.Skeleton();
      f.detail = a_name + ": " + Status(a) + "\n" + b_name + ": " + Status(b);
      f.evidence = {{a_name, Status(a)}, {b_name, Status(b)}};
      return Verdict::Fired(std::move(f));
    }
    if (!a.ok()) continue;  // errors of one kind: the same refusal in other words
    if (o.others_wrote) return Verdict::Skipped("another session wrote meanwhile");
    if (!read_only) {
      if (std::string why = Nondeterminism(shape); !why.empty()) {
        // Each target wrote its own value: their data may differ from now on.
        data_uncertain_ = true;
        return Verdict::Skipped(why);
      }
      // DDL's count depends on the algorithm the server chose (ALTER TABLE
      // ... ADD KEY: 0 in place, every row by copy): not a result.
      if (!CountsAffectedRows(shape)) continue;
      if (a.affected_rows != b.affected_rows) {
        data_diverged_ = true;
        f.kind = "divergence";
        f.signature = "differential: affected rows: " + shape.Skeleton();
        f.detail = a_name + ": " + std::to_string(a.affected_rows) + " rows affected\n" + b_name + ": " +
                   std::to_string(b.affected_rows) + " rows affected";
        f.evidence = {{"affected_rows", {{a_name, a.affected_rows}, {b_name, b.affected_rows}}}};
        return Verdict::Fired(std::move(f));
      }
      continue;
    }
    if (o.results.size() != o.outcomes.size() || !ReturnsQueryRows(shape)) {
      if (a.rows != b.rows && ReturnsQueryRows(shape)) return Verdict::Skipped("rows not fetched");
      continue;  // SHOW, EXPLAIN: server-specific by nature; their status matched
    }
    const UniqueKeys keys = KeysOnEveryTarget(o.session, FollowUpLimit(std::max(a.nanos, b.nanos)));
    if (std::string why = Nondeterminism(shape, &keys); !why.empty()) return Verdict::Skipped(why);
    CompareRules rules;
    rules.relation = TotallyOrdered(shape) ? Relation::kExact : Relation::kUnordered;
    rules.fold_strings = PicksAmongEquals(shape);
    Comparison c = CompareResults(o.results[0], o.results[t], rules, a_name, b_name);
    if (!c.holds) {
      f.kind = "divergence";
      f.signature = "differential: rows: " + shape.Skeleton();
      f.detail = c.diff;
      f.evidence = std::move(c.evidence);
      if (minimised_.Take(f.signature)) {
        const double limit = FollowUpLimit(std::max(a.nanos, b.nanos));
        f.minimal = MinimalFinding(std::string(o.sql), [&](const std::string& sql, nlohmann::json* failure) {
          return DiffersAlike(o, t, sql, c.kind, limit, failure);
        }, budget_);
      }
      return Verdict::Fired(std::move(f));
    }
  }
  return Verdict::Passed();
}

// `sql`, a smaller form of the query, on target 0 and target t: its rows
// differ the same way (the comparison's kind) while no other session writes.
bool DifferentialOracle::DiffersAlike(const Observation& o, size_t t, const std::string& sql, const std::string& kind,
                                      double limit, nlohmann::json* failure) const {
  const SqlShape shape(sql);
  const UniqueKeys keys = KeysOnEveryTarget(o.session, limit);
  if (!ReturnsQueryRows(shape) || !ReadOnly(shape) || !Nondeterminism(shape, &keys).empty()) return false;
  CompareRules rules;
  rules.relation = TotallyOrdered(shape) ? Relation::kExact : Relation::kUnordered;
  rules.fold_strings = PicksAmongEquals(shape);
  const std::string& a_name = o.session.target(0).name;
  const std::string& b_name = o.session.target(t).name;
  // Two tries: once other sessions' writes may have been in between.
  for (int attempt = 0; attempt < 2; ++attempt) {
    const uint64_t mark = o.writes.Mark();
    ResultSet a, b;
    if (!o.session.Execute(0, sql, &a, limit).ok() || !o.session.Execute(t, sql, &b, limit).ok()) return false;
    if (!o.writes.Quiet(mark)) continue;
    Comparison c = CompareResults(a, b, rules, a_name, b_name);
    if (c.holds || c.kind != kind) return false;
    *failure = std::move(c.evidence);
    (*failure)["diff"] = c.diff;
    return true;
  }
  return false;
}

}  // namespace gauntlet
