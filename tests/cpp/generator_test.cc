#include "generate/generator.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <thread>

#include "generate/statements.h"
#include "generate/values.h"

namespace gauntlet {
namespace {

std::shared_ptr<Generator> Make(const std::string& text, uint64_t seed = 1, int max_depth = 64) {
  GeneratorOptions o;
  o.seed = seed;
  o.max_depth = max_depth;
  return std::make_shared<Generator>(Grammar::FromString(text), Schema::RqgDefault(), o);
}

// The text `choices` give in place of the next statement's own draws.
std::string WithChoices(Generator& g, const ChoiceSeq& choices, bool strict = true) {
  return g.Replay(g.NextKey(), &choices, strict).text;
}

std::vector<Statement> Made(Generator& g, int n) {
  std::vector<Statement> made;
  for (int i = 0; i < n; ++i) made.push_back(g.NextStatement());
  return made;
}

// Replays made[i] for each i of `order` on `fresh`, from the key and from the choices.
void ExpectReplays(Generator& fresh, const std::vector<Statement>& made, const std::vector<int>& order) {
  for (int i : order) {
    EXPECT_EQ(fresh.Replay(made[i].key).text, made[i].text) << i;
    EXPECT_EQ(fresh.Replay(made[i].key, &made[i].choices).text, made[i].text) << i;
  }
}

// Draws `n` values of one built-in and checks each against `pattern`.
void ExpectShape(const std::string& token, const std::string& pattern, int n = 300) {
  auto g = Make("query: " + token + " ;\n");
  const std::regex re(pattern);
  for (int i = 0; i < n; ++i) {
    const std::string v = g->Next();
    ASSERT_TRUE(std::regex_match(v, re)) << token << " gave " << v;
  }
}

TEST(Builtins, ValueShapes) {
  ExpectShape("_digit", "[0-9]");
  ExpectShape("digit", "[0-9]");
  ExpectShape("_positive_digit", "[1-9]");
  ExpectShape("_letter", "[a-z]");
  ExpectShape("_hex", "0x[0-9A-F]{1,4}");
  ExpectShape("_tinyint", "-?[0-9]{1,3}");
  ExpectShape("_tinyint_unsigned", "[0-9]{1,3}");
  ExpectShape("_bigint_unsigned", "[0-9]{1,20}");
  ExpectShape("_int_positive", "[1-9][0-9]{0,9}");
  ExpectShape("_bool", "[01]");
  ExpectShape("_decimal(5,2)", "-?[0-9]{1,3}\\.[0-9]{2}");
  ExpectShape("_float", "'-?[0-9.e+-]+'");
  ExpectShape("_double", "'-?[0-9.e+-]+'");
  ExpectShape("_char(5)", "'[a-z]{1,5}'");
  ExpectShape("_varchar(1)", "'[a-z]'");
  ExpectShape("_string", "'[a-z]'");
  ExpectShape("_text(30)", "'[a-z ]{0,30}'");
  ExpectShape("_date", "'(19[7-9][0-9]|20[0-3][0-9])-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])'");
  ExpectShape("_time", "'[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\\.[0-9]{6}'");
  ExpectShape("_datetime", "'[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}'");
  ExpectShape("_timestamp", "'[0-9]{14}\\.[0-9]{6}'");
  ExpectShape("_year", "'(19[7-9][0-9]|20[0-3][0-9])'");
  ExpectShape("_enum", "'[a-z]'");
  ExpectShape("_set", "'[a-z](,[a-z]){0,9}'");
  ExpectShape("_bit(4)", "b'[01]{1,4}'");
  ExpectShape("_null", "NULL");
  ExpectShape("_empty", "''");
  ExpectShape("_quid", "'[A-Z]{5}'");
  ExpectShape("_english", "'[a-z]+'");
  ExpectShape("_english_short", "'[a-z]{1,4}'");
  ExpectShape("_states", "'[A-Z][a-z]+( [A-Z][a-z]+)?'");
  ExpectShape("_json", "'([\\[{].*[\\]}])?'");
  ExpectShape("_jsonpath", "'\\$.*'");
  ExpectShape("_jsonkey", "'[a-z]+'");
  ExpectShape("_jsonpair", "'\"[a-z]+\": .*'");
  ExpectShape("_jsonarray", "'\\[.*\\]'");
  ExpectShape("_jsonobject", "'\\{.*\\}'");
  ExpectShape("_jsonvalue", "'.*'");
  ExpectShape("_data", "0x[0-9A-F]+");
  ExpectShape("_uniform(5, 9)", "[5-9]");
  ExpectShape("_gaussian(5, 9)", "[5-9]");
  ExpectShape("_pareto(5, 9)", "[5-9]");
  ExpectShape("_zipf(5, 9)", "[5-9]");
}

TEST(Builtins, SchemaAndEnvironmentShapes) {
  ExpectShape("_table", "`(A|B|C|D|E|AA|BB|CC|DD)`");
  ExpectShape("_table _field", "`[A-E]{1,2}` `(pk|col_[a-z_]+)`");
  ExpectShape("_table _field_pk", "`[A-E]{1,2}` `pk`");
  ExpectShape("_table _field_int", "`[A-E]{1,2}` `(pk|col_int_key|col_int_nokey)`");
  ExpectShape("_table _field_int_indexed", "`[A-E]{1,2}` `(pk|col_int_key)`");
  ExpectShape("_table _field_char", "`[A-E]{1,2}` `col_varchar_(key|nokey)`");
  ExpectShape("_table _field_char_indexed", "`[A-E]{1,2}` `col_varchar_key`");
  ExpectShape("_table _field_indexed", "`[A-E]{1,2}` `(pk|col_[a-z]+_key)`");
  ExpectShape("_table _field_unindexed", "`[A-E]{1,2}` `col_[a-z]+_nokey`");
  ExpectShape("_table _field_no_pk", "`[A-E]{1,2}` `col_[a-z_]+`");
  ExpectShape("_table _field_count", "`[A-E]{1,2}` 11");
  ExpectShape("_table _field_list", "`[A-E]{1,2}` `pk`(,`col_[a-z_]+`){10}");
  ExpectShape("_table _field_next", "`[A-E]{1,2}` `(pk|col_[a-z_]+)`");
  ExpectShape("_database", "`test`");
  ExpectShape("_collation", "_[a-z0-9_]+");
  ExpectShape("_charset_name", "[a-z0-9]+");
  ExpectShape("_thread_id _thread_count _connection_id", "1 1 1");
  ExpectShape("_tmptable", "tmptable1");
  ExpectShape("_tmpnam", "'/tmp/gauntlet1\\.tmp'");
  ExpectShape("_current_user", "root@localhost");
  ExpectShape("_unix_timestamp _pid", "17000000[0-9]{2} 5000001", 3);
  ExpectShape("_cwd", "'/.*'", 3);
}

TEST(Builtins, DistributionsHaveTheirShape) {
  Rng rng(3);
  int low_pareto = 0, low_zipf = 0, mid_gauss = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    if (DrawPareto(rng, 1, 1000, 0.2) <= 200) ++low_pareto;
    if (DrawZipf(rng, 1, 1000, 0.8) <= 10) ++low_zipf;
    const int64_t g = DrawGaussian(rng, 1, 1000);
    if (g > 250 && g <= 750) ++mid_gauss;
  }
  // Pareto h=0.2: the lowest 20% of keys get about 80% of the draws.
  EXPECT_NEAR(low_pareto / double(n), 0.8, 0.03);
  // Zipf s=0.8 over 1000 keys: the top 10 get about 16% (uniform would be 1%).
  EXPECT_GT(low_zipf / double(n), 0.10);
  // The middle half of a bell curve holds most of the mass (uniform: 50%).
  EXPECT_GT(mid_gauss / double(n), 0.9);
}

TEST(Generator, SameSeedSameStatementsOtherSeedOthers) {
  const std::string grammar = "query: SELECT _int FROM _table WHERE _field = _varchar(8) | DELETE FROM _table ;\n";
  auto a = Make(grammar, 42), b = Make(grammar, 42), c = Make(grammar, 43);
  std::vector<std::string> sa, sc;
  for (int i = 0; i < 200; ++i) {
    sa.push_back(a->Next());
    EXPECT_EQ(sa.back(), b->Next());
    sc.push_back(c->Next());
  }
  EXPECT_NE(sa, sc);
}

TEST(Generator, KnownOutputForSeedIsStableAcrossMachines) {
  // Pinned text: a change here means seeds no longer reproduce old runs.
  auto g = Make("query: SELECT _digit, _letter, _int_unsigned, _pareto(1, 1000) ;\n", 2024);
  EXPECT_EQ(g->Next(), "SELECT 5, k, 2552404357, 1");
}

TEST(Generator, ReplayGivesTheSameText) {
  auto g = Make("query: a | b | c ;\na: SELECT _int ;\nb: DELETE FROM _table WHERE _field < _digit ;\n"
                "c: INSERT INTO t VALUES (_varchar(10), _date, _json) ;\n", 9);
  for (int i = 0; i < 100; ++i) {
    const Statement s = g->NextStatement();
    EXPECT_EQ(g->Replay(s.key, &s.choices).text, s.text);
    EXPECT_EQ(g->Replay(s.key).text, s.text);
  }
}

TEST(Generator, AFreshGeneratorReplaysAnyStatementFromItsKey) {
  // State that crosses statements: the last table and field, _field_next's
  // position, the clock, the init rule.
  const std::string grammar =
      "query_init: SELECT _field_next FROM _table ;\n"
      "query: SELECT _field, _field_next, _unix_timestamp FROM _table | UPDATE _table SET _field_next = 1 | "
      "SELECT _field_next, _field_next ;\n";
  const std::vector<Statement> made = Made(*Make(grammar, 17), 300);
  std::vector<int> backwards;
  for (int i = 299; i >= 0; i -= 7) backwards.push_back(i);
  ExpectReplays(*Make(grammar, 99), made, backwards);  // another seed: the key's wins
  // Replaying a statement leaves the generator where the original was after it.
  auto resumed = Make(grammar, 5);
  resumed->Replay(made[120].key);
  for (int i = 121; i < 300; ++i) ASSERT_EQ(resumed->Next(), made[i].text) << i;
  // Keys survive JSON, as the statement log stores them.
  EXPECT_EQ(ReplayKey::FromJson(made[42].key.ToJson(), "t"), made[42].key);
  EXPECT_THROW(ReplayKey::FromJson(nlohmann::json{{"seed", 1}}, "t"), InvalidInput);
}

TEST(Generator, PerlGlobalsAreRebuiltForAReplay) {
  // Perl keeps state across statements; a fresh interpreter rebuilds it.
  const std::string grammar =
      "query_init: { $n = 100; @seen = (); 'SELECT 0' } ;\n"
      "query: { $n += $prng->int(1, 3); push @seen, $n; 'SELECT ' . $n . ', ' . scalar(@seen) } "
      "{ my %h = map { $_ => 1 } @seen; join ',', (keys %h)[0 .. 2] } ;\n";
  const std::vector<Statement> made = Made(*Make(grammar, 3), 60);
  auto fresh = Make(grammar, 3);
  ExpectReplays(*fresh, made, {40, 7, 59, 7, 0, 33});
  // A replay with other choices, then the original again.
  ChoiceSeq other = made[20].choices;
  for (Choice& c : other) c.value = 0;
  fresh->Replay(made[20].key, &other, false);
  EXPECT_EQ(fresh->Replay(made[21].key).text, made[21].text);
}

TEST(Generator, RulesThatBranchIntoThemselvesAreBoundedInBreadth) {
  // Each `list` expands to 4/3 copies of itself on average: without a bound
  // half the statements would grow until the 16 MB limit.
  const std::string grammar = "query: list ;\nlist: X | list , list | list , list ;\n";
  auto a = Make(grammar, 3), b = Make(grammar, 3);
  size_t longest = 0;
  for (int i = 0; i < 40; ++i) {
    const std::string s = a->Next();
    longest = std::max(longest, s.size());
    EXPECT_LT(s.size(), 200000u);
    EXPECT_EQ(b->Next(), s);  // and deterministic
  }
  EXPECT_GT(longest, 20000u);  // the bound was reached, not avoided
}

TEST(Generator, ShorterChoicesShrinkTowardsFirstAlternatives) {
  auto g = Make("query: list ;\nlist: X | X , list ;\n", 5);
  EXPECT_EQ(WithChoices(*g, {}, false), "X");  // all-zero choices: the first alternative
  EXPECT_EQ(WithChoices(*g, {{1, 2}, {1, 2}, {0, 2}}, false), "X, X, X");
}

TEST(Generator, StrictReplayRefusesChoicesThatDoNotFit) {
  auto g = Make("query: list ;\nlist: X | X , list ;\n", 5);
  EXPECT_EQ(WithChoices(*g, {{1, 2}, {0, 2}}), "X, X");
  EXPECT_THROW(WithChoices(*g, {{7, 3}}), InvalidInput);          // another bound
  EXPECT_THROW(WithChoices(*g, {{2, 2}}), InvalidInput);          // out of its bound
  EXPECT_THROW(WithChoices(*g, {{1, 2}}), InvalidInput);          // runs out
  EXPECT_THROW(WithChoices(*g, {{0, 2}, {1, 2}}), InvalidInput);  // left over
  EXPECT_EQ(WithChoices(*g, {{0, 2}}), "X");                      // and the generator is fine after
}

TEST(Generator, InvariantsHoldWithinOneQuery) {
  auto g = Make("query: _digit[invariant] _digit[invariant] t[invariant] t[invariant] ;\nt: A | B | C | D ;\n");
  for (int i = 0; i < 100; ++i) {
    const std::string s = g->Next();
    ASSERT_EQ(s.size(), 7u) << s;
    EXPECT_EQ(s[0], s[2]);
    EXPECT_EQ(s[4], s[6]);
  }
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) seen.insert(g->Next());
  EXPECT_GT(seen.size(), 5u);  // but change between queries
}

TEST(Generator, WeightsSteerTheChoice) {
  auto g = Make("query: ==FACTOR:9== A | B ;\n");
  int a = 0;
  for (int i = 0; i < 10000; ++i) a += g->Next() == "A";
  EXPECT_NEAR(a / 10000.0, 0.9, 0.02);
}

TEST(Generator, DepthLimitFallsBackToTheShortestAlternative) {
  // Without a limit this recursion almost never ends.
  auto g = Make("query: e ;\ne: ( e + e ) | ( e * e ) | 1 ;\n", 1, 6);
  for (int i = 0; i < 200; ++i) {
    const std::string s = g->Next();
    int depth = 0, max_depth = 0;
    for (char c : s) {
      if (c == '(') max_depth = std::max(max_depth, ++depth);
      if (c == ')') --depth;
    }
    EXPECT_LE(max_depth, 6) << s;
  }
}

TEST(Generator, InitRulesRunFirstAndThreadRulesWin) {
  GeneratorOptions o;
  o.thread_id = 2;
  Generator g(Grammar::FromString("query_init: INIT ;\nquery: Q ;\nthread2: T2 ;\nthread2_init: I2 ;\n"),
              Schema::RqgDefault(), o);
  EXPECT_EQ(g.Next(), "I2");
  EXPECT_EQ(g.Next(), "T2");
  auto h = Make("query_init: INIT ;\nquery: Q ;\nthread2: T2 ;\n");
  EXPECT_EQ(h->Next(), "INIT");
  EXPECT_EQ(h->Next(), "Q");
}

TEST(Generator, CoverageCountsRulesAndAlternatives) {
  auto g = Make("query: a | b ;\na: X | Y ;\nb: Z ;\nunused: W ;\n");
  for (int i = 0; i < 200; ++i) g->Next();
  const Coverage c = g->coverage();
  EXPECT_EQ(c.UnreachedRules(), std::vector<std::string>{"unused"});
  EXPECT_EQ(c.UnreachedAlternatives(), std::vector<std::string>{"unused/0"});
}

TEST(Generator, SpacingFollowsTheGrammarText) {
  auto g = Make("query: SELECT COUNT ( x ) , t . y FROM t WHERE CONCAT(a,b) ;\n");
  EXPECT_EQ(g->Next(), "SELECT COUNT( x ), t.y FROM t WHERE CONCAT(a,b)");
}

TEST(Generator, PerlBlocksRunWithRqgSemantics) {
  auto g = Make(
      "query: { $n = 0 unless defined $n; '' } SELECT { 'f' . ++$n } , { $prng->int(5, 5) } , "
      "{ $prng->arrayElement(['x']) } , { join ',', sort @{$prng->shuffleArray([3,1,2])} } , "
      "{ undef } { $last_table } ;\n");
  EXPECT_EQ(g->Next(), "SELECT f1, 5, x, 1,2,3, A");  // before any _table: the first table
  EXPECT_EQ(g->Next(), "SELECT f2, 5, x, 1,2,3, A");  // globals persist per worker
}

TEST(Generator, PerlSeesTablesStackAndGenerator) {
  auto g = Make(
      "query: _table { $last_table } { $stack->push(); $stack->pop([7]); $stack->get('result')->[0] } "
      "{ $generator->threadId() } { scalar @{$executors->[0]->tables()} } ;\n");
  const std::string s = g->Next();
  EXPECT_TRUE(std::regex_match(s, std::regex("`([A-E]{1,2})` \\1 7 1 9"))) << s;
}

TEST(Generator, PerlSeesRqgsExecutorMetadataInterface) {
  // The methods RQG grammars call on $executors->[0], over RQG's default tables.
  auto g = Make(
      "query: { my $e = $executors->[0]; join ' | ', join(',', @{$e->baseTables()}[0..2]), "
      "scalar(@{$e->tables()}), $e->metaViews()->[0], join(',', @{$e->metaColumnsDataType('int', 'A')}), "
      "join(',', @{$e->metaColumnsIndexType('primary', 'B')}), join(',', @{$e->metaColumnsIndexType('indexed', 'B')}), "
      "join(',', @{$e->metaColumnsDataIndexType('char', 'indexed', 'C')}), $e->columnMetaType('col_varchar_key', 'A'), "
      "$e->columnRealType('col_date_key', 'A'), join(',', @{$e->bigTables()}), $e->isBigTable('A') ? 1 : 0, "
      "join(',', @{$e->metaSchemas()}), $e->defaultSchema, $e->tableColumns()->[0], "
      "$e->metaColumnsDataType('blob', 'A')->[0], scalar(@{$e->metaCollations()}) > 3 ? 'ok' : 'none' } ;\n");
  EXPECT_EQ(g->Next(),
            "A,AA,B | 9 | non_existing_view | col_int_key,col_int_nokey,pk | pk | col_date_key,col_datetime_key,"
            "col_int_key,col_time_key,col_varchar_key,pk | col_varchar_key | char | date | E | 0 | test | test | "
            "col_date_key | non_existing_column | ok");
}

TEST(Generator, PerlRandIsDeterministic) {
  const std::string grammar = "query: { int(rand(1000000)) } { join '', List::Util::shuffle(1..9) } ;\n";
  auto a = Make(grammar, 4), b = Make(grammar, 4);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(a->Next(), b->Next());
  const Statement s = a->NextStatement();
  EXPECT_EQ(a->Replay(s.key, &s.choices).text, s.text);
}

TEST(Generator, PerlErrorsNameTheBlock) {
  EXPECT_THROW(Make("query:\n { 1 + } ;\n"), InvalidInput);
  auto g = Make("query:\n X { die 'boom' } ;\n");
  try {
    g->Next();
    FAIL();
  } catch (const GenerationError& e) {
    EXPECT_NE(std::string(e.what()).find("<string>:2:4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("boom"), std::string::npos);
  }
}

TEST(Statements, SplitLikeRqgButNotAtExpressions) {
  EXPECT_EQ(SplitStatements("START TRANSACTION ; SELECT ';' ; COMMIT"),
            (std::vector<std::string_view>{"START TRANSACTION", "SELECT ';'", "COMMIT"}));
  for (const char* whole : {"CREATE PROCEDURE p() BEGIN SELECT 1; END", "BEGIN NOT ATOMIC SELECT 1; SELECT 2; END",
                            "IF @a THEN SELECT 1; END IF", "CASE @a WHEN 1 THEN SELECT 1; END CASE",
                            "lbl: LOOP LEAVE lbl; END LOOP", "WHILE @a DO SET @a = 0; END WHILE"})
    EXPECT_EQ(SplitStatements(whole).size(), 1u) << whole;
  // CASE and IF as expressions inside statements split like any statement.
  EXPECT_EQ(SplitStatements("START TRANSACTION ; UPDATE t SET a = CASE WHEN b THEN 1 END ; SELECT IF(a, 1, 2) "
                            "FROM t ; COMMIT").size(), 4u);
  EXPECT_EQ(SplitStatements("BEGIN ; DELETE FROM t ; COMMIT").size(), 3u);
}

// The splitting rule written plainly, one character at a time: what the fast
// splitter (eight bytes at a time) must agree with.
std::vector<std::string> SplitPlainly(const std::string& q) {
  std::vector<std::string> out;
  const auto push = [&](size_t b, size_t e) {
    while (b < e && (q[b] == ' ' || q[b] == '\n' || q[b] == '\t')) ++b;
    while (e > b && (q[e - 1] == ' ' || q[e - 1] == '\n' || q[e - 1] == '\t')) --e;
    if (e > b) out.push_back(q.substr(b, e - b));
  };
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    if (quote) {
      if (q[i] == '\\') ++i;
      else if (q[i] == quote) quote = 0;
    } else if (q[i] == '\'' || q[i] == '"' || q[i] == '`') {
      quote = q[i];
    } else if (q[i] == ';') {
      push(start, i);
      start = i + 1;
    }
  }
  push(start, q.size());
  // Sent whole: a piece that starts with LOOP (the only compound keyword the
  // alphabet below can spell) in a query holding END.
  bool compound = false;
  for (const std::string& p : out)
    compound = compound || (p.rfind("LOOP", 0) == 0 && (p.size() == 4 || !(std::isalnum(static_cast<unsigned char>(p[4])) ||
                                                                          p[4] == '_')));
  if (out.size() > 1 && compound && q.find("END") != std::string::npos) {
    out.clear();
    push(0, q.size());
  }
  return out;
}

TEST(Statements, FastSplitAgreesWithThePlainRuleOnRandomText) {
  Rng rng(5);
  const std::string alphabet = std::string("ab ;;'\"`\\\n\tEND LOOP", 19) + std::string(1, '\0');
  for (int n = 0; n < 20000; ++n) {
    std::string q;
    const size_t len = rng.Below(40);
    for (size_t i = 0; i < len; ++i) q += alphabet[rng.Below(alphabet.size())];
    std::vector<std::string> fast;
    for (std::string_view p : SplitStatements(q)) fast.emplace_back(p);
    ASSERT_EQ(fast, SplitPlainly(q)) << '[' << q << ']';
  }
}

}  // namespace
}  // namespace gauntlet

namespace gauntlet {
namespace {

TEST(Generator, WorkersOnThreadsMatchSequentialRuns) {
  // Each worker owns its Rng and its Perl interpreter: running four at once
  // must give what running them one after another gives.
  auto grammar = Grammar::FromString(
      "query: SELECT { $n++ . '_' . $prng->int(1, 1000) } , _int , { join '', List::Util::shuffle(1..5) } "
      "FROM _table WHERE _field = thread_rule ;\nthread_rule: { $generator->threadId() } ;\n");
  auto run = [&](int thread, std::vector<std::string>* out) {
    GeneratorOptions o;
    o.seed = 99;
    o.thread_id = thread;
    Generator g(grammar, Schema::RqgDefault(), o);
    for (int i = 0; i < 2000; ++i) out->push_back(g.Next());
  };
  std::vector<std::vector<std::string>> sequential(4), parallel(4);
  for (int t = 0; t < 4; ++t) run(t + 1, &sequential[t]);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(run, t + 1, &parallel[t]);
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(parallel[t], sequential[t]) << "worker " << t + 1;
  EXPECT_NE(sequential[0], sequential[1]);  // workers get different streams
}

TEST(Builtins, EveryBuiltinNameGenerates) {
  const char* names[] = {
      "_table", "_basetable", "_database", "_db", "_schema", "_field", "_field_list",
      "_field_count", "_field_next", "_field_pk", "_field_no_pk", "_field_indexed", "_field_key",
      "_field_unindexed", "_field_nokey", "_field_int", "_field_int_indexed", "_field_int_key",
      "_field_char", "_field_char_indexed", "_field_char_key", "_collation", "_collation_name",
      "_charset", "_charset_name", "_cwd", "_tmpnam", "_tmpfile", "_tmptable", "_unix_timestamp",
      "_pid", "_thread_id", "_connection_id", "_current_user", "_thread_count", "_digit",
      "_positive_digit", "_letter", "_hex", "_data", "_tinyint", "_smallint", "_mediumint", "_int",
      "_integer", "_bigint", "_tinyint_unsigned", "_smallint_positive", "_mediumint_unsigned",
      "_int_unsigned", "_integer_positive", "_bigint_positive", "_bool", "_boolean", "_decimal",
      "_dec", "_numeric", "_fixed", "_float", "_double", "_char", "_varchar", "_string", "_ascii",
      "_tinytext", "_text", "_mediumtext", "_longtext", "_binary", "_varbinary", "_tinyblob",
      "_blob", "_mediumblob", "_longblob", "_date", "_time", "_datetime", "_timestamp", "_year",
      "_enum", "_set", "_bit", "_null", "_quid", "_json", "_jsonpath", "_jsonkey",
      "_jsonvalue", "_jsonpair", "_jsonarray", "_jsonobject", "_english", "_english_short",
      "_states", "_uniform", "_gaussian", "_pareto", "_zipf", "digit", "letter", "tmpnam"};
  for (const char* name : names) {
    auto g = Grammar::FromString(std::string("query: ") + name + " ;\n");
    EXPECT_TRUE(g->undefined_words().empty()) << name;
    Generator gen(g, Schema::RqgDefault());
    bool produced = false;
    for (int i = 0; i < 50 && !produced; ++i) produced = !gen.Next().empty();
    EXPECT_TRUE(produced) << name;
  }
  // _view needs a view in the schema.
  Table v;
  v.name = "v1";
  v.view = true;
  v.columns = {Column{"a", "int", false, false, true, false, false, ""}};
  Generator gen(Grammar::FromString("query: _view _field ;\n"), Schema({"test"}, {v}));
  EXPECT_EQ(gen.Next(), "`v1` `a`");
}

}  // namespace
}  // namespace gauntlet

namespace gauntlet {
namespace {

TEST(Generator, EndlessRecursionIsAnErrorNotACrash) {
  // From the start rule: no statement can be made, said when the generator is made.
  EXPECT_THROW(Make("query: loop ;\nloop: X loop | loop Y ;\n"), InvalidInput);
  // Below it: said by the statement that reaches it.
  auto g = Make("query: SELECT 1 | loop ;\nloop: X loop | loop Y ;\n");
  EXPECT_FALSE(g->grammar().warnings().empty());  // "can never finish"
  EXPECT_THROW(for (int i = 0; i < 100; ++i) g->Next(), GenerationError);
}

}  // namespace
}  // namespace gauntlet

namespace gauntlet {
namespace {

TEST(Generator, RecursionThroughPerlExpandIsBoundedToo) {
  auto g = Make("query: loop ;\nloop: { join '', expand(undef, undef, 'loop') } ;\n");
  EXPECT_THROW(g->Next(), GenerationError);
}

}  // namespace
}  // namespace gauntlet
