// Generator: expands a Grammar into SQL text, one RQG "query" per call.
//
// A Generator belongs to one worker: it owns its Rng (seeded from the run
// seed and the worker number), its Perl interpreter (when the grammar has
// `{ ... }` blocks) and its coverage counters. Nothing is global, so workers
// run in parallel without locks; a Generator itself is not thread-safe.
//
// The first call starts at `threadN_init` or `query_init` when present, later
// calls at `threadN` or `query`. Each statement draws from its own stream,
// seeded by (seed, thread, index), and every draw is recorded. A statement's
// ReplayKey holds the rest of what its text depends on, so Replay() re-creates
// it on any Generator of the same grammar and schema, fresh ones included,
// from the seed alone or from (shrunk) recorded choices. Expansions deeper
// than max_depth take the alternative with the shortest derivation, so
// recursive grammars always finish; so do statements past 20,000 rule
// expansions, for rules that branch into several copies of themselves.
#ifndef GAUNTLET_GENERATE_GENERATOR_H_
#define GAUNTLET_GENERATE_GENERATOR_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/rng.h"
#include "generate/schema.h"
#include "grammar/grammar.h"

namespace gauntlet {

class PerlRuntime;
class QueryBuilder;

struct GeneratorOptions {
  uint64_t seed = 1;         // the run seed; mixed with thread_id
  int thread_id = 1;         // RQG's worker number (1-based): picks threadN rules
  int thread_count = 1;      // for `_thread_count`
  int max_depth = 64;        // rule nesting beyond which the shortest path is taken
  size_t max_length = 16 << 20;  // a longer statement is a GenerationError
  uint64_t connection_id = 0;    // `_connection_id`; 0 means thread_id
  std::string current_user = "root@localhost";
  std::string cwd;           // `_cwd`; empty means the process's
  std::string tmpdir = "/tmp";
  // When set and true, running Perl code (loops, sleep) stops with a
  // GenerationError: how a run that is ending reclaims a busy worker.
  const std::atomic<bool>* interrupt = nullptr;
};

// Which statement of which generator, and the state that earlier statements
// of that generator left and this one reads: the table, database and field
// last named, `_field_next`'s position and the session id. Perl globals are
// state no key can hold; Replay() rebuilds them by generating what came
// before from the seed.
struct ReplayKey {
  uint64_t seed = 1;
  int thread = 1;
  int thread_count = 1;        // the generator's options, which the text
  int max_depth = 64;          // depends on as well
  uint64_t index = 0;          // 0 for the generator's first statement
  std::string table;           // "" when none is named yet
  std::string database;
  std::string field;
  uint64_t field_next = 0;
  uint64_t connection_id = 0;  // 0: the thread number stands in

  nlohmann::json ToJson() const;
  // Throws InvalidInput naming `where` for a malformed key.
  static ReplayKey FromJson(const nlohmann::json& j, const std::string& where);
  bool operator==(const ReplayKey& o) const;
};

struct Statement {
  std::string text;
  ChoiceSeq choices;
  ReplayKey key;
  std::string rule;          // the start rule
  // What each choice decided, for people: "query: alternative 2 of 3",
  // "_digit: 7 of 10", "Perl block at g.yy:12: 4 of 9".
  std::vector<std::string> choice_names;
};

// Use counts per rule and per alternative, mergeable across workers.
struct Coverage {
  std::vector<std::string> rules;
  std::vector<uint64_t> rule_hits;
  std::vector<uint32_t> first_alternative;   // per rule, into alternative_hits
  std::vector<uint64_t> alternative_hits;

  void Merge(const Coverage& other);
  std::vector<std::string> UnreachedRules() const;
  // "rule/N" (N counts from 0) for every alternative never taken.
  std::vector<std::string> UnreachedAlternatives() const;
};

// What a rule callback (user code) may use; valid only during the call.
class RuleContext {
 public:
  Rng& rng();
  int thread_id() const;
  const Schema& schema() const;
  std::string last_table() const;  // "" if none chosen yet
  // Expands a rule or built-in by name in the current statement.
  std::string Expand(const std::string& name);

 private:
  friend class Generator;
  explicit RuleContext(class Generator* g) : g_(g) {}
  class Generator* g_;
};

class Generator {
 public:
  Generator(std::shared_ptr<const Grammar> grammar, Schema schema,
            GeneratorOptions options = {});
  ~Generator();
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  // The next query's text; valid until the next call.
  const std::string& Next();
  // The rule the last query came from, for people: the first rule its start
  // rule expanded (`select` of `query: select | update`), else the start rule.
  const std::string& TopRule() const;
  // The rules the last query was made through that keep it from oracles
  // (`name ==NO_ORACLES:...==:`), each once; valid until the next query.
  const std::vector<const Rule*>& RulesKeepingOracles() const { return keeping_oracles_; }
  // The next query with its key and recorded choices.
  Statement NextStatement();
  // The key of the statement Next() would make now.
  ReplayKey NextKey() const;
  // Re-creates the statement `key` names: draws come from `choices` when
  // given, otherwise from the statement's own stream (the original text).
  // `rule` (empty: the key's start rule) expands another rule instead.
  // `strict`: choices that do not fit throw InvalidInput (see Rng::Replay);
  // shrinking replays leniently. The generator then continues after that
  // statement, as the original one did.
  Statement Replay(const ReplayKey& key, const ChoiceSeq* choices = nullptr, bool strict = true,
                   const std::string& rule = "");

  Coverage coverage() const;
  uint64_t count() const { return count_; }
  // The session's server-side id, for `_connection_id`; the executor sets it
  // after every (re)connect.
  void set_connection_id(uint64_t id) { options_.connection_id = id; }
  const GeneratorOptions& options() const { return options_; }
  const Grammar& grammar() const { return *grammar_; }
  const Schema& schema() const { return schema_; }
  // What user code (Perl block, Python rule) is running now, for reports of a
  // generator that is stuck: "rule 'r' (file:line), Perl block at file:line",
  // or "" when none is. Safe to call from any thread.
  std::string Activity() const;

 private:
  friend class RuleContext;
  friend struct GeneratorInternals;  // Perl's callbacks (perl_runtime.cc)

  int StartRule() const;
  void FindStartRules();
  // The state of a generator that has made nothing yet.
  void ResetState();
  // Choice labels: a rule's number for its alternative (or a Python rule's
  // draws), then built-ins by their index, then Perl blocks.
  int32_t BuiltinLabel(const Builtin& b) const;
  std::vector<std::string> NameChoices(const ChoiceSeq& choices) const;
  // Brings the generator to the state before statement `key`.
  void Reposition(const ReplayKey& key);
  void Generate(int rule);
  void ExpandRule(int rule, int depth);
  void ExpandToken(const Token& t, int depth);
  void ExpandBuiltin(const Builtin& b);
  void Emit(std::string_view text);
  void EmitName(const std::string& name);
  // Expands a rule or built-in named in user code (Perl `expand`, callbacks).
  std::string ExpandWord(const std::string& word);
  uint32_t PickField(FieldClass cls);
  // Deterministic stand-ins for the clock and the process id (`_unix_timestamp`,
  // Perl's time(); `_pid`, Perl's $$): a fixed epoch plus the statement
  // number, and a number unique to the worker that is above Linux's pid limit
  // (2^22), so that no process can have it and a grammar's `kill 9, $$`
  // cannot reach anyone.
  uint64_t Clock() const { return kEpoch + count_; }
  uint64_t Pid() const { return kPidBase + static_cast<uint64_t>(options_.thread_id); }
  static constexpr uint64_t kEpoch = 1700000000;  // 2023-11-14T22:13:20Z
  static constexpr uint64_t kPidBase = 5000000;
  class ActivityScope;
  // Runs the Perl block or variable of token `t`, marking it as the activity.
  std::string RunUserCode(const Token& t);

  std::shared_ptr<const Grammar> grammar_;
  Schema schema_;
  GeneratorOptions options_;
  uint64_t stream_seed_ = 0;  // from (seed, thread); a statement's from this and its index
  Rng rng_;
  std::unique_ptr<PerlRuntime> perl_;
  std::unique_ptr<QueryBuilder> builder_;  // made on the first builder built-in
  std::string builder_out_;
  // Perl's globals no longer follow from the seed: a replay with other
  // choices, or one that failed, ran since they were built.
  bool perl_diverged_ = false;

  std::string out_;
  bool pending_space_ = false;
  uint64_t count_ = 0;
  uint64_t serial_ = 0;  // one per Generate(), replays included
  int depth_ = 0;  // depth of the rule being expanded
  uint64_t expansions_ = 0;  // rules expanded in this statement
  int rule_ = -1;  // the rule being expanded
  int start_rule_ = -1;  // the last query's start rule
  int top_rule_ = -1;    // the first rule expanded under it
  std::vector<const Rule*> keeping_oracles_;
  // The rule and Perl block (or -1) of the user code running now; written by
  // this generator's thread, read by watchdogs.
  std::atomic<int> active_rule_{-1};
  std::atomic<int> active_block_{-1};

  // Invariants hold their value for one statement: a slot is valid when its
  // generation equals the statement's.
  std::vector<std::string> invariant_value_;
  std::vector<uint64_t> invariant_generation_;

  int last_table_ = -1;
  uint32_t last_database_ = 0;
  std::string last_field_;
  uint64_t field_next_ = 0;

  std::vector<uint64_t> rule_hits_;
  std::vector<uint64_t> alternative_hits_;
  int query_rule_ = -1, init_rule_ = -1;
};

}  // namespace gauntlet

#endif  // GAUNTLET_GENERATE_GENERATOR_H_
