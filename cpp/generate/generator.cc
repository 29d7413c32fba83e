#include "generate/generator.h"

#include <algorithm>
#include <climits>
#include <filesystem>

#include "generate/perl_runtime.h"
#include "generate/query_builder.h"
#include "generate/values.h"

namespace gauntlet {
namespace {

using K = BuiltinKind;

bool IsAggregate(std::string_view word) {
  static const std::string_view kNames[] = {
      "AVG", "BIT_AND", "BIT_OR", "BIT_XOR", "COUNT", "GROUP_CONCAT", "MAX", "MIN",
      "STD", "STDDEV_POP", "STDDEV_SAMP", "STDDEV", "SUM", "VAR_POP", "VAR_SAMP",
      "VARIANCE"};
  for (auto n : kNames)
    if (n == word) return true;
  return false;
}

}  // namespace

// ---- ReplayKey ------------------------------------------------------------

nlohmann::json ReplayKey::ToJson() const {
  return {{"seed", seed}, {"thread", thread}, {"thread_count", thread_count}, {"max_depth", max_depth},
          {"index", index}, {"table", table}, {"database", database},
          {"field", field}, {"field_next", field_next}, {"connection_id", connection_id}};
}

ReplayKey ReplayKey::FromJson(const nlohmann::json& j, const std::string& where) {
  ReplayKey k;
  try {
    k.seed = j.at("seed").get<uint64_t>();
    k.thread = j.at("thread").get<int>();
    k.thread_count = j.value("thread_count", 1);
    k.max_depth = j.value("max_depth", 64);
    k.index = j.at("index").get<uint64_t>();
    k.table = j.value("table", "");
    k.database = j.value("database", "");
    k.field = j.value("field", "");
    k.field_next = j.value("field_next", uint64_t{0});
    k.connection_id = j.value("connection_id", uint64_t{0});
  } catch (const nlohmann::json::exception& e) {
    throw InvalidInput({where, 0, 0}, std::string("not a replay key: ") + e.what());
  }
  if (k.thread < 1 || k.thread_count < 1 || k.max_depth < 1)
    throw InvalidInput({where, 0, 0}, "not a replay key: thread, thread_count and max_depth must be 1 or more");
  return k;
}

bool ReplayKey::operator==(const ReplayKey& o) const {
  return seed == o.seed && thread == o.thread && thread_count == o.thread_count &&
         max_depth == o.max_depth && index == o.index && table == o.table &&
         database == o.database && field == o.field && field_next == o.field_next &&
         connection_id == o.connection_id;
}

// ---- Coverage -------------------------------------------------------------

void Coverage::Merge(const Coverage& other) {
  if (rules.empty()) {
    *this = other;
    return;
  }
  for (size_t i = 0; i < rule_hits.size() && i < other.rule_hits.size(); ++i)
    rule_hits[i] += other.rule_hits[i];
  for (size_t i = 0; i < alternative_hits.size() && i < other.alternative_hits.size(); ++i)
    alternative_hits[i] += other.alternative_hits[i];
}

std::vector<std::string> Coverage::UnreachedRules() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < rules.size(); ++i)
    if (rule_hits[i] == 0) out.push_back(rules[i]);
  return out;
}

std::vector<std::string> Coverage::UnreachedAlternatives() const {
  std::vector<std::string> out;
  for (size_t r = 0; r < rules.size(); ++r) {
    const uint32_t end = r + 1 < rules.size() ? first_alternative[r + 1]
                                              : static_cast<uint32_t>(alternative_hits.size());
    for (uint32_t a = first_alternative[r]; a < end; ++a)
      if (alternative_hits[a] == 0)
        out.push_back(rules[r] + "/" + std::to_string(a - first_alternative[r]));
  }
  return out;
}

// ---- RuleContext ----------------------------------------------------------

Rng& RuleContext::rng() { return g_->rng_; }
int RuleContext::thread_id() const { return g_->options_.thread_id; }
const Schema& RuleContext::schema() const { return g_->schema_; }
std::string RuleContext::last_table() const {
  return g_->last_table_ < 0 ? "" : g_->schema_.tables()[g_->last_table_].name;
}
std::string RuleContext::Expand(const std::string& name) { return g_->ExpandWord(name); }

// ---- Generator ------------------------------------------------------------

// Marks user code as the generator's activity for its scope (nested scopes
// restore the outer one).
class Generator::ActivityScope {
 public:
  ActivityScope(Generator* g, int rule, int block)
      : g_(g),
        rule_(g->active_rule_.exchange(rule, std::memory_order_relaxed)),
        block_(g->active_block_.exchange(block, std::memory_order_relaxed)) {}
  ~ActivityScope() {
    g_->active_rule_.store(rule_, std::memory_order_relaxed);
    g_->active_block_.store(block_, std::memory_order_relaxed);
  }

 private:
  Generator* g_;
  int rule_, block_;
};

Generator::Generator(std::shared_ptr<const Grammar> grammar, Schema schema,
                     GeneratorOptions options)
    : grammar_(std::move(grammar)), schema_(std::move(schema)), options_(std::move(options)) {
  FindStartRules();
  if (options_.cwd.empty()) options_.cwd = std::filesystem::current_path().string();
  invariant_value_.resize(grammar_->invariant_slots());
  invariant_generation_.assign(grammar_->invariant_slots(), UINT64_MAX);
  rule_hits_.assign(grammar_->rules().size(), 0);
  alternative_hits_.assign(grammar_->alternative_count(), 0);
  ResetState();
  if (grammar_->needs_perl()) perl_ = std::make_unique<PerlRuntime>(this);
  out_.reserve(4096);
}

void Generator::ResetState() {
  count_ = 0;
  const auto& first = schema_.TablesIn(0, 0);
  last_table_ = first.empty() ? -1 : static_cast<int>(first[0]);
  last_database_ = 0;
  last_field_.clear();
  field_next_ = 0;
}

void Generator::FindStartRules() {
  stream_seed_ = DeriveSeed(options_.seed, static_cast<uint64_t>(options_.thread_id));
  const std::string thread = "thread" + std::to_string(options_.thread_id);
  query_rule_ = grammar_->FindRule(thread);
  if (query_rule_ < 0) query_rule_ = grammar_->FindRule("query");
  if (query_rule_ < 0)
    throw InvalidInput({grammar_->sources().empty() ? "<grammar>" : grammar_->sources()[0], 0, 0},
                       "the grammar has no 'query' rule (nor '" + thread + "')");
  init_rule_ = grammar_->FindRule(thread + "_init");
  if (init_rule_ < 0) init_rule_ = grammar_->FindRule("query_init");
  for (int start : {query_rule_, init_rule_}) {
    const Rule* r = start < 0 ? nullptr : &grammar_->rules()[start];
    if (r != nullptr && r->height == INT_MAX && r->callback < 0)
      throw InvalidInput(r->where, "rule '" + r->name + "' recurses without end (no alternative leads out of "
                                   "the cycle): no statement can be made from it");
  }
}

Generator::~Generator() = default;

int Generator::StartRule() const {
  return count_ == 0 && init_rule_ >= 0 ? init_rule_ : query_rule_;
}

void Generator::Generate(int rule) {
  ++serial_;
  rng_.Seed(DeriveSeed(stream_seed_, count_));
  out_.clear();
  pending_space_ = false;
  depth_ = 0;
  expansions_ = 0;
  rule_ = rule;
  start_rule_ = rule;
  top_rule_ = -1;
  keeping_oracles_.clear();
  rng_.ClearChoices();
  if (perl_) perl_->BeginStatement();
  ExpandRule(rule, 0);
  while (!out_.empty() && (out_.back() == ' ' || out_.back() == '\n')) out_.pop_back();
}

const std::string& Generator::Next() {
  Generate(StartRule());
  ++count_;
  return out_;
}

Statement Generator::NextStatement() {
  Statement s;
  s.key = NextKey();
  s.rule = grammar_->rules()[StartRule()].name;
  s.text = Next();
  s.choices = rng_.choices();
  s.choice_names = NameChoices(s.choices);
  return s;
}

int32_t Generator::BuiltinLabel(const Builtin& b) const {
  const auto& all = grammar_->builtins();
  if (all.empty() || &b < all.data() || &b >= all.data() + all.size()) return -1;  // one made up by user code
  return static_cast<int32_t>(grammar_->rules().size() + static_cast<size_t>(&b - all.data()));
}

std::vector<std::string> Generator::NameChoices(const ChoiceSeq& choices) const {
  const size_t rules = grammar_->rules().size(), builtins = grammar_->builtins().size();
  std::vector<std::string> names;
  names.reserve(choices.size());
  for (const Choice& c : choices) {
    const std::string of = c.bound == 0 ? " (64-bit draw)" : ": " + std::to_string(c.value) + " of " + std::to_string(c.bound);
    std::string name;
    if (c.label < 0) {
      name = "?";
    } else if (static_cast<size_t>(c.label) < rules) {
      const Rule& r = grammar_->rules()[c.label];
      if (r.callback >= 0) name = "Python rule '" + r.name + "'" + of;
      else if (r.weighted) name = r.name + ": weighted alternative";
      else name = r.name + ": alternative " + std::to_string(c.value + 1) + " of " + std::to_string(c.bound);
      names.push_back(std::move(name));
      continue;
    } else if (static_cast<size_t>(c.label) < rules + builtins) {
      name = grammar_->builtins()[c.label - rules].name;
    } else {
      name = "Perl block at " + grammar_->perl_blocks()[c.label - rules - builtins].where.ToString();
    }
    names.push_back(name + of);
  }
  return names;
}

ReplayKey Generator::NextKey() const {
  ReplayKey k;
  k.seed = options_.seed;
  k.thread = options_.thread_id;
  k.thread_count = options_.thread_count;
  k.max_depth = options_.max_depth;
  k.index = count_;
  if (last_table_ >= 0) k.table = schema_.tables()[last_table_].name;
  if (!schema_.databases().empty()) k.database = schema_.databases()[last_database_];
  k.field = last_field_;
  k.field_next = field_next_;
  k.connection_id = options_.connection_id;
  return k;
}

void Generator::Reposition(const ReplayKey& key) {
  const bool other_stream = key.seed != options_.seed || key.thread != options_.thread_id ||
                            key.thread_count != options_.thread_count || key.max_depth != options_.max_depth;
  if (other_stream) {
    options_.seed = key.seed;
    options_.thread_id = key.thread;
    options_.thread_count = key.thread_count;
    options_.max_depth = key.max_depth;
    FindStartRules();
  }
  options_.connection_id = key.connection_id;
  if (perl_) {
    if (other_stream || perl_diverged_ || count_ > key.index) {
      perl_ = std::make_unique<PerlRuntime>(this);
      perl_diverged_ = false;
      ResetState();
    }
    while (count_ < key.index) Next();
  }
  count_ = key.index;
  last_table_ = key.table.empty() ? -1 : schema_.FindTable(key.table);
  if (!key.table.empty() && last_table_ < 0)
    throw InvalidInput({"<replay>", 0, 0}, "the key names table '" + key.table + "', which this schema lacks");
  const auto& dbs = schema_.databases();
  const auto db = std::find(dbs.begin(), dbs.end(), key.database);
  if (!key.database.empty() && db == dbs.end())
    throw InvalidInput({"<replay>", 0, 0}, "the key names database '" + key.database + "', which this schema lacks");
  last_database_ = db == dbs.end() ? 0 : static_cast<uint32_t>(db - dbs.begin());
  last_field_ = key.field;
  field_next_ = key.field_next;
}

Statement Generator::Replay(const ReplayKey& key, const ChoiceSeq* choices, bool strict,
                            const std::string& rule) {
  int start = -1;
  if (!rule.empty()) {
    start = grammar_->FindRule(rule);
    if (start < 0) throw InvalidInput({"<replay>", 0, 0}, "no rule named '" + rule + "'");
  }
  Reposition(key);
  if (start < 0) start = StartRule();
  Statement s;
  s.key = key;
  s.rule = grammar_->rules()[start].name;
  // Until it succeeds with the original draws, Perl's globals are off course.
  perl_diverged_ = true;
  if (choices != nullptr) rng_.Replay(*choices, strict);
  try {
    Generate(start);
    if (choices != nullptr) rng_.CheckReplayUsed();
  } catch (...) {
    if (choices != nullptr) rng_.StopReplay();
    throw;
  }
  if (choices != nullptr) rng_.StopReplay();
  perl_diverged_ = choices != nullptr || !rule.empty();
  ++count_;
  s.text = out_;
  s.choices = rng_.choices();
  s.choice_names = NameChoices(s.choices);
  return s;
}

const std::string& Generator::TopRule() const {
  return grammar_->rules()[top_rule_ >= 0 ? top_rule_ : start_rule_ >= 0 ? start_rule_ : StartRule()].name;
}

void Generator::ExpandRule(int rule_id, int depth) {
  const Rule& rule = grammar_->rules()[rule_id];
  ++rule_hits_[rule_id];
  if (depth == 1 && top_rule_ < 0) top_rule_ = rule_id;
  if (!rule.no_oracles.empty() &&
      std::find(keeping_oracles_.begin(), keeping_oracles_.end(), &rule) == keeping_oracles_.end())
    keeping_oracles_.push_back(&rule);
  rng_.set_label(rule_id);
  if (rule.callback >= 0) {
    std::string text;
    {
      ActivityScope activity(this, rule_id, -1);
      RuleContext ctx(this);
      text = grammar_->callbacks()[rule.callback](ctx);
    }
    Emit(text);
    return;
  }
  // Past max_depth every finite rule takes its shortest alternative, whose
  // derivation is at most one level per rule deep; going deeper than that
  // means a cycle with no way out (`a: a ;`), which RQG aborts as well.
  // Each level is a few hundred bytes of stack; a chain deeper than this would
  // overflow a thread's stack (RQG gives up after 3,500 expansions).
  constexpr int kMaxNesting = 5000;
  if (depth > kMaxNesting)
    throw GenerationError("rule '" + rule.name + "' (" + rule.where.ToString() + ") is nested more than " +
                          std::to_string(kMaxNesting) + " rules deep");
  if (depth > options_.max_depth + static_cast<int>(grammar_->rules().size()))
    throw GenerationError("rule '" + rule.name + "' (" + rule.where.ToString() +
                          ") recurses without end: no alternative leads out of the cycle");
  size_t alt;
  const size_t n = rule.alternatives.size();
  // A rule that expands to two copies of itself grows without bound long
  // before the depth limit helps: past this many expansions in one statement
  // every rule takes its shortest derivation, which ends the statement soon.
  // (RQG gives up on the query instead, after 10,000 symbols.)
  constexpr uint64_t kMaxExpansions = 20000;
  if ((++expansions_ > kMaxExpansions || depth >= options_.max_depth) && rule.height != INT_MAX) {
    alt = rule.shortest;
  } else if (n == 1) {
    alt = 0;
  } else if (rule.weighted) {
    const double u = rng_.Uniform01() * rule.cumulative.back();
    alt = std::upper_bound(rule.cumulative.begin(), rule.cumulative.end(), u) -
          rule.cumulative.begin();
    if (alt >= n) alt = n - 1;
  } else {
    alt = rng_.Below(n);
  }
  ++alternative_hits_[rule.first_alternative + alt];
  const int outer_depth = depth_, outer_rule = rule_;
  depth_ = depth;  // for expansions requested by Perl blocks and callbacks
  rule_ = rule_id;
  for (const Token& t : rule.alternatives[alt].tokens) ExpandToken(t, depth);
  depth_ = outer_depth;
  rule_ = outer_rule;
  if (out_.size() > options_.max_length)
    throw GenerationError("statement longer than " + std::to_string(options_.max_length) +
                          " bytes while expanding rule '" + rule.name + "'");
}

void Generator::ExpandToken(const Token& t, int depth) {
  if (t.space_before) pending_space_ = true;
  if (t.invariant >= 0) {
    const uint64_t generation = serial_;
    std::string& value = invariant_value_[t.invariant];
    if (invariant_generation_[t.invariant] == generation) {
      Emit(value);
      return;
    }
    const bool space = pending_space_ && !out_.empty();
    const size_t start = out_.size();
    if (t.kind == Token::Kind::kRule) ExpandRule(t.index, depth + 1);
    else ExpandBuiltin(grammar_->builtins()[t.index]);
    value.assign(out_, start + (space && out_.size() > start && out_[start] == ' ' ? 1 : 0));
    invariant_generation_[t.invariant] = generation;
    return;
  }
  switch (t.kind) {
    case Token::Kind::kLiteral:
      Emit(t.text);
      break;
    case Token::Kind::kRule:
      ExpandRule(t.index, depth + 1);
      break;
    case Token::Kind::kBuiltin:
      ExpandBuiltin(grammar_->builtins()[t.index]);
      break;
    case Token::Kind::kPerl:
    case Token::Kind::kVariable:
      Emit(RunUserCode(t));
      break;
  }
}

std::string Generator::RunUserCode(const Token& t) {
  const bool block = t.kind == Token::Kind::kPerl;
  rng_.set_label(block ? static_cast<int32_t>(grammar_->rules().size() + grammar_->builtins().size() + t.index)
                       : -1);
  ActivityScope activity(this, rule_, block ? static_cast<int>(t.index) : -1);
  return block ? perl_->RunBlock(t.index) : perl_->ReadVariable(t.index);
}

std::string Generator::Activity() const {
  const int rule = active_rule_.load(std::memory_order_relaxed);
  const int block = active_block_.load(std::memory_order_relaxed);
  std::string s;
  if (rule >= 0) {
    const Rule& r = grammar_->rules()[rule];
    s = "rule '" + r.name + "' (" + r.where.ToString() + ")";
    if (r.callback >= 0) s += ", a Python rule";
  }
  if (block >= 0) {
    const PerlBlock& b = grammar_->perl_blocks()[block];
    std::string code = b.code.substr(0, 200);
    for (char& c : code)
      if (c == '\n') c = ' ';
    s += (s.empty() ? "" : ", ") + std::string("Perl block at ") + b.where.ToString() + ": {" + code + "}";
  }
  return s;
}

void Generator::Emit(std::string_view text) {
  if (!out_.empty() && out_.back() == ' ') {
    // Never two spaces in a row, as RQG's clean-up ensures.
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  }
  if (text.empty()) return;
  if (pending_space_ && !out_.empty()) {
    const char first = text.front();
    const char last = out_.back();
    bool space = last != ' ' && last != '.' && first != ',' && first != '.';
    if (space && first == '(') {
      // RQG writes aggregate calls as COUNT(...), without the space.
      size_t start = out_.size();
      while (start > 0 && (std::isupper(static_cast<unsigned char>(out_[start - 1])) ||
                           out_[start - 1] == '_'))
        --start;
      space = !IsAggregate(std::string_view(out_).substr(start));
    }
    if (space) out_ += ' ';
  }
  pending_space_ = false;
  out_.append(text);
}

void Generator::EmitName(const std::string& name) {
  // Names are backquoted like RQG's; the quotes are emitted with the name.
  std::string quoted;
  quoted.reserve(name.size() + 2);
  quoted += '`';
  quoted += name;
  quoted += '`';
  Emit(quoted);
}

uint32_t Generator::PickField(FieldClass cls) {
  const auto& fields = schema_.Fields(static_cast<uint32_t>(last_table_), cls);
  return fields.empty() ? UINT32_MAX : fields[rng_.Below(fields.size())];
}

void Generator::ExpandBuiltin(const Builtin& b) {
  rng_.set_label(BuiltinLabel(b));
  const auto& tables = schema_.tables();
  switch (b.kind) {
    case K::kTable: case K::kBaseTable: case K::kView: {
      const int which = b.kind == K::kTable ? 0 : b.kind == K::kBaseTable ? 1 : 2;
      const auto& list = schema_.TablesIn(last_database_, which);
      if (list.empty()) return Emit("non_existing_table");
      last_table_ = static_cast<int>(list[rng_.Below(list.size())]);
      return EmitName(tables[last_table_].name);
    }
    case K::kDatabase: {
      last_database_ = static_cast<uint32_t>(rng_.Below(schema_.databases().size()));
      return EmitName(schema_.databases()[last_database_]);
    }
    case K::kField: case K::kFieldNoPk: case K::kFieldIndexed: case K::kFieldUnindexed:
    case K::kFieldInt: case K::kFieldIntIndexed: case K::kFieldChar:
    case K::kFieldCharIndexed: case K::kFieldPk: case K::kFieldNext: {
      if (last_table_ < 0) return Emit("non_existing_column");
      const auto& columns = tables[last_table_].columns;
      uint32_t c = UINT32_MAX;
      switch (b.kind) {
        case K::kField: c = PickField(FieldClass::kAll); break;
        case K::kFieldNoPk: c = PickField(FieldClass::kNoPk); break;
        case K::kFieldIndexed: c = PickField(FieldClass::kIndexed); break;
        case K::kFieldUnindexed: c = PickField(FieldClass::kUnindexed); break;
        case K::kFieldInt: c = PickField(FieldClass::kInt); break;
        case K::kFieldIntIndexed: c = PickField(FieldClass::kIntIndexed); break;
        case K::kFieldChar: c = PickField(FieldClass::kChar); break;
        case K::kFieldCharIndexed: c = PickField(FieldClass::kCharIndexed); break;
        case K::kFieldPk: {
          const auto& pk = schema_.Fields(last_table_, FieldClass::kPk);
          if (!pk.empty()) c = pk[0];
          break;
        }
        default:  // kFieldNext: round robin over all columns
          if (!columns.empty()) c = static_cast<uint32_t>(field_next_++ % columns.size());
      }
      if (c == UINT32_MAX) return Emit("non_existing_column");
      last_field_ = columns[c].name;
      return EmitName(last_field_);
    }
    case K::kFieldList: {
      if (last_table_ < 0) return Emit("non_existing_column");
      std::string list;
      for (const Column& col : tables[last_table_].columns) {
        if (!list.empty()) list += ',';
        list += '`' + col.name + '`';
      }
      return Emit(list);
    }
    case K::kFieldCount:
      return Emit(std::to_string(last_table_ < 0 ? 0 : tables[last_table_].columns.size()));
    case K::kCollation: case K::kCollationName: case K::kCharset: case K::kCharsetName: {
      const bool collation = b.kind == K::kCollation || b.kind == K::kCollationName;
      const auto& names = collation ? schema_.collations() : schema_.charsets();
      if (names.empty()) return;
      const std::string& name = names[rng_.Below(names.size())];
      const bool introducer = b.kind == K::kCollation || b.kind == K::kCharset;
      return Emit(introducer ? "_" + name : name);
    }
    case K::kCwd: return Emit("'" + options_.cwd + "'");
    case K::kTmpnam:
      return Emit("'" + options_.tmpdir + "/gauntlet" + std::to_string(options_.thread_id) + ".tmp'");
    case K::kTmptable: return Emit("tmptable" + std::to_string(options_.thread_id));
    case K::kUnixTimestamp: return Emit(std::to_string(Clock()));
    case K::kPid: return Emit(std::to_string(Pid()));
    case K::kThreadId: return Emit(std::to_string(options_.thread_id));
    case K::kConnectionId:
      return Emit(std::to_string(options_.connection_id ? options_.connection_id
                                                        : static_cast<uint64_t>(options_.thread_id)));
    case K::kCurrentUser: return Emit(options_.current_user);
    case K::kQuery: case K::kPredicate: case K::kExpr: case K::kDml: case K::kDdl: case K::kSetting: {
      if (!builder_) builder_ = std::make_unique<QueryBuilder>(schema_, rng_);
      std::string& sql = builder_out_;
      sql.clear();
      switch (b.kind) {
        case K::kQuery: builder_->Query(sql, static_cast<QueryFocus>(b.a)); break;
        case K::kPredicate: builder_->Predicate(sql, last_table_); break;
        case K::kExpr: builder_->Expr(sql, static_cast<SqlType>(b.a), last_table_); break;
        case K::kDml: builder_->Dml(sql); break;
        case K::kDdl: builder_->Ddl(sql); break;
        default: builder_->Setting(sql);
      }
      return Emit(sql);
    }
    case K::kThreadCount: return Emit(std::to_string(options_.thread_count));
    default: {
      std::string value;
      AppendValue(b, rng_, value);
      return Emit(value);
    }
  }
}

std::string Generator::ExpandWord(const std::string& word) {
  // Expands into a scratch region of out_ and cuts it back out, so nested
  // expansion shares the emitter's rules without disturbing the statement.
  const size_t start = out_.size();
  const bool pending = pending_space_;
  pending_space_ = false;
  const int rule = grammar_->FindRule(word);
  if (rule >= 0) {
    ExpandRule(rule, depth_ + 1);
  } else if (auto b = ResolveBuiltin(word, {}, false)) {
    ExpandBuiltin(*b);
  } else {
    out_ += word;
  }
  std::string result = out_.substr(start);
  out_.resize(start);
  pending_space_ = pending;
  return result;
}

Coverage Generator::coverage() const {
  Coverage c;
  for (const Rule& r : grammar_->rules()) {
    c.rules.push_back(r.name);
    c.first_alternative.push_back(r.first_alternative);
  }
  c.rule_hits = rule_hits_;
  c.alternative_hits = alternative_hits_;
  return c;
}

}  // namespace gauntlet
