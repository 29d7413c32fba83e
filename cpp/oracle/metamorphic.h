// Oracles that check a query against equivalent ones on one target (the
// first): metamorphic transforms in the spirit of RQG's Transformers, and
// SQLancer's logic oracles TLP and NoREC.
//
// Each plans follow-up statements whose rows must stand in a typed relation
// (exact, unordered, superset, subset, count) to the query's own rows or to
// each other; they run in the statement's session, right after it. When the
// relation fails, the check is repeated (the query and its follow-ups) and
// fires only if it fails again on unchanged data, so that another session's
// write in between is no false alarm. Queries that are nondeterministic by
// nature (determinism.h), or whose follow-ups the server refuses, are
// skipped and counted by reason.
#ifndef GAUNTLET_ORACLE_METAMORPHIC_H_
#define GAUNTLET_ORACLE_METAMORPHIC_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/oracle.h"
#include "oracle/check_turns.h"
#include "oracle/determinism.h"
#include "oracle/minimise.h"
#include "oracle/result_compare.h"
#include "sql/sql_shape.h"

namespace gauntlet {

// Follow-up statements and the relation their results must keep.
struct FollowUp {
  std::string what;                    // for people: "the query as a derived table"
  std::vector<std::string> side_setup;  // on a second session: DDL that must not end the workload's transaction
  std::vector<std::string> setup;       // in the session, before
  std::string left;                     // "" = the query itself
  std::vector<std::string> right;       // each must stand in `rules.relation` to `left`; "" = the query
  std::vector<std::string> cleanup;     // in the session, after (also when the check fails)
  std::vector<std::string> side_cleanup;
  CompareRules rules;
  // The follow-ups end in LIMIT row_cap + 1 (0: they do not): one that
  // returns more than row_cap rows makes the check a skip.
  int64_t row_cap = 0;
  std::string family;  // what the signature names when not the oracle: "limit"
  bool minimise = true;  // the first finding of a signature gets Finding::minimal
};

// A query with a LIMIT whose rows its ORDER BY (by the text or by the tables'
// unique keys, determinism.h) does not decide is checked without the LIMIT,
// and an oracle that compares the query's own rows (the transforms) checks
// first that the LIMIT's rows are among those rows, as many as LIMIT and
// OFFSET leave (the signature says "limit").
//
// A relation that fails is confirmed twice more, each time while no other
// session wrote (Observation::writes), within this many tries. The first
// finding of a signature is then minimised (minimise.h) on the same session
// and data: Finding::minimal has the smallest form of the query whose
// relation fails the same way, with its follow-ups and difference, and the
// work it took (checks, steps, seconds, exhausted).
class RelationOracle : public Oracle {
 public:
  static constexpr int kConfirmTries = 6;
  // Follow-ups that may return far more rows than the query (TLP's without
  // WHERE over a cross join; the query without its LIMIT) stop past this
  // many, and a query that returns more gets no rewrite (the transforms):
  // comparing a million rows stalls the session for seconds.
  static constexpr int64_t kRowCap = 10000;
  bool WantsRows(std::string_view sql) const override;
  Verdict Check(const Observation& o) override;
  void set_minimise_budget(const MinimiseBudget& b) { budget_ = b; }
  // Share the statements with the run's other relation oracles (check_turns.h);
  // `position`: this one's among them.
  void set_turns(std::shared_ptr<CheckTurns> turns, size_t position) {
    turns_ = std::move(turns);
    position_ = position;
  }
  virtual std::string family() const = 0;  // "tlp", "norec", "transforms"

 protected:
  // The follow-ups for this query, or nullopt with the verdict (not
  // applicable, or skipped with a reason) in *instead.
  virtual std::optional<FollowUp> Plan(const SqlShape& s, const Observation& o, Verdict* instead) const = 0;
  virtual std::string finding_kind() const = 0;  // "metamorphic", "tlp", "norec"
  // Its plans compare the query's own rows (left ""), not only queries made
  // of its clauses.
  virtual bool ComparesQueryRows() const { return true; }

 private:
  // The plan for a query this oracle checks, or nullopt with the verdict.
  // `keys`: the tables' unique keys, which may order a LIMIT's rows.
  std::optional<FollowUp> Applicable(const SqlShape& shape, const Observation& o, Verdict* instead,
                                     const UniqueKeys* keys = nullptr) const;
  Verdict CheckStatement(const Observation& o);
  // `core`: the query without its LIMIT(s), `capped` the same stopping past
  // kRowCap rows; `n`, `offset`: the LIMIT's (-1: any number of rows).
  Verdict CheckUnlimited(const Observation& o, const SqlShape& shape, const std::string& core,
                         const std::string& capped, int64_t n, int64_t offset, double limit);
  Verdict CheckQuery(const Observation& o, const SqlShape& shape, double limit, const UniqueKeys* keys = nullptr);
  // `left_rows`: plan.left's rows when they were fetched already.
  Verdict CheckPlan(const Observation& o, const SqlShape& shape, const FollowUp& plan, const ResultSet* left_rows,
                    double limit);
  bool FailsAlike(const Observation& o, const std::string& sql, const std::string& kind, double limit,
                  nlohmann::json* failure) const;
  // What the minimal query `sql` reads (DataSnapshot.ToJson), read right
  // after it failed alike once more, with no other session writing from
  // before that check to the end of the reading.
  nlohmann::json QuietSnapshot(const Observation& o, const std::string& sql, const std::string& kind,
                               double limit) const;

  MinimiseBudget budget_{200, 5};
  FirstSignatures minimised_;
  std::shared_ptr<CheckTurns> turns_;  // none: every statement
  size_t position_ = 0;
};

// The query rewritten: as a view (MERGE or TEMPTABLE), a derived table, a
// CTE, a prepared statement executed twice, with USE INDEX () on every table,
// with an optimizer_switch flag off, with join_cache_level=0.
class TransformOracle : public RelationOracle {
 public:
  enum Kind { kView, kViewTemptable, kDerived, kCte, kPrepared, kNoIndex, kOptimizerSwitch, kJoinCache };
  explicit TransformOracle(Kind kind) : kind_(kind) {}
  static const std::vector<std::pair<std::string, Kind>>& Names();  // "transform:view", ...
  std::string name() const override;
  std::string family() const override { return "transforms"; }

 protected:
  std::optional<FollowUp> Plan(const SqlShape& s, const Observation& o, Verdict* instead) const override;
  std::string finding_kind() const override { return "metamorphic"; }

 private:
  Kind kind_;
};

class TlpOracle : public RelationOracle {
 public:
  std::string name() const override { return "tlp"; }
  std::string family() const override { return "tlp"; }

 protected:
  std::optional<FollowUp> Plan(const SqlShape& s, const Observation& o, Verdict* instead) const override;
  std::string finding_kind() const override { return "tlp"; }
  bool ComparesQueryRows() const override { return false; }
};

class NorecOracle : public RelationOracle {
 public:
  std::string name() const override { return "norec"; }
  std::string family() const override { return "norec"; }

 protected:
  std::optional<FollowUp> Plan(const SqlShape& s, const Observation& o, Verdict* instead) const override;
  std::string finding_kind() const override { return "norec"; }
  bool ComparesQueryRows() const override { return false; }
};

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_METAMORPHIC_H_
