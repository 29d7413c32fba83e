#include "generate/perl_runtime.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <regex>
#include <thread>
#include <unordered_map>

#include "common/error.h"
#include "generate/generator.h"
#include "generate/values.h"

// Perl's headers define many macros; they come last.
#include <EXTERN.h>
#include <perl.h>
#include <XSUB.h>

#include "generate/perl_sandbox.h"

EXTERN_C void boot_DynaLoader(pTHX_ CV* cv);

namespace gauntlet {
namespace {

// The generator whose Perl code is running on this thread. Perl calls back
// into C++ (for random draws, values and metadata) through it.
thread_local Generator* tls_generator = nullptr;

// What grammar and data code may not do to the process that runs it: end it,
// signal other processes (its pids are stand-ins, see Generator::Pid), or
// fork it. sleep() is cut short when the run is ending. Loaded first into
// every interpreter, so that the overrides apply to all code compiled later.
constexpr const char* kGuards = R"PERL(
BEGIN {
  *CORE::GLOBAL::exit = sub (;$) {
    die "exit(" . (@_ ? $_[0] // 0 : 0) . ") called: grammar and data code cannot end Gauntlet\n";
  };
  *CORE::GLOBAL::kill = sub { die "kill() called: grammar and data code cannot signal processes\n" };
  *CORE::GLOBAL::fork = sub () { die "fork() called: grammar and data code cannot fork Gauntlet\n" };
  *CORE::GLOBAL::exec = sub { die "exec() called: grammar and data code cannot replace Gauntlet\n" };
  *CORE::GLOBAL::sleep = sub (;$) { Gauntlet::sleep(@_ ? $_[0] : 0) };
}
1;
)PERL";

// RQG's block environment, written for Gauntlet. Blocks are compiled in
// package GenTest::Generator::FromGrammar, as in RQG.
constexpr const char* kPrelude = R"PERL(
BEGIN {
  *CORE::GLOBAL::rand = sub (;$) { my $m = @_ ? $_[0] : 1; $m = 1 unless $m; Gauntlet::uniform() * $m };
  *CORE::GLOBAL::srand = sub (;$) { 0 };
  # time() and $$ are the generator's deterministic stand-ins (see README).
  *CORE::GLOBAL::time = sub () { Gauntlet::clock() };
}
$$ = Gauntlet::pid();
use List::Util ();
$List::Util::RAND = sub { Gauntlet::uniform() };

package GenTest::Random;
sub new { bless {}, shift }
sub uint16 { my ($s, $lo, $hi) = @_; return $lo if $hi <= $lo; $lo + Gauntlet::below($hi - $lo + 1) }
sub int {
  my ($s, $lo, $hi) = @_; $lo //= 0; $hi //= 0;
  return CORE::int($lo) if $hi <= $lo;
  CORE::int($lo) + Gauntlet::below(CORE::int($hi) - CORE::int($lo) + 1)
}
sub float { my ($s, $lo, $hi) = @_; $lo + Gauntlet::uniform() * ($hi - $lo) }
sub digit { Gauntlet::below(10) }
sub positive_digit { 1 + Gauntlet::below(9) }
sub letter { Gauntlet::value('_letter') }
sub string { my ($s, $n) = @_; Gauntlet::value('_string(' . ($n // 1) . ')') }
sub text { my ($s, $n) = @_; Gauntlet::value('_text(' . ($n // 255) . ')') }
sub hex { my ($s, $n) = @_; Gauntlet::value('_hex(' . ($n // 4) . ')') }
sub bit { my ($s, $n) = @_; Gauntlet::value('_bit(' . ($n // 1) . ')') }
for my $t (qw(date time datetime timestamp year enum set quid json jsonpath
              jsonkey jsonvalue jsonpair jsonarray jsonobject)) {
  no strict 'refs';
  *{"GenTest::Random::$t"} = sub { Gauntlet::value("_$t") };
}
sub json_key { Gauntlet::value('_jsonkey') }
sub json_value { Gauntlet::value('_jsonvalue') }
sub json_pair { Gauntlet::value('_jsonpair') }
sub fieldType { my ($s, $t) = @_; $t =~ s/ /_/g; $t = "_$t" unless $t =~ /^_/; Gauntlet::value($t) }
sub isFieldType { my ($s, $t) = @_; defined $t && Gauntlet::is_value($t) }
sub fromDictionary { my ($s, $d) = @_; Gauntlet::value("_$d") }
sub arrayElement { my ($s, $a) = @_; return undef unless $a && @$a; $a->[Gauntlet::below(scalar @$a)] }
sub shuffleArray {
  my ($s, $a) = @_;
  for (my $i = $#$a; $i > 0; $i--) { my $j = Gauntlet::below($i + 1); @$a[$i, $j] = @$a[$j, $i] }
  return $a;
}

package GenTest::Stack::StackFrame;
sub new { bless {}, shift }
sub get { $_[0]->{$_[1]} }
sub set { $_[0]->{$_[1]} = $_[2]; undef }

package GenTest::Stack::Stack;
# push opens a frame (inheriting "arg"); pop closes it and leaves its result
# as "result" in the caller's frame.
sub new { bless { frames => [GenTest::Stack::StackFrame->new] }, shift }
sub _top { $_[0]->{frames}[-1] }
sub push {
  my ($s) = @_; my $arg = $s->_top->get('arg');
  push @{$s->{frames}}, GenTest::Stack::StackFrame->new;
  $s->_top->set('arg', $arg) if defined $arg; undef
}
sub pop {
  my ($s, $result) = @_;
  pop @{$s->{frames}} if @{$s->{frames}} > 1;
  $s->_top->set('result', $result); undef
}
sub get { $_[0]->_top->get($_[1]) }
sub set { $_[0]->_top->set($_[1], $_[2]) }

package Gauntlet::Executor;
# RQG's GenTest::Executor metadata interface, over the generator's schema.
# Rows of Gauntlet::metadata() are RQG's getSchemaMetaData rows: schema,
# table, 'table'|'view', column, 'primary'|'indexed'|'ordinary', metatype,
# real type, max length, table rows. Names come sorted, as RQG's do; a list
# with nothing in it holds RQG's 'non_existing_...' placeholder.
my $meta;
sub _meta {
  return $meta if $meta;
  $meta = {};
  my @rows = Gauntlet::metadata();
  while (my ($schema, $table, $type, $col, $key, $metatype, $realtype, $maxlength, $rows) = splice(@rows, 0, 9)) {
    my $m = $meta->{$schema} //= {};
    $m->{$type}{$table}{$col} = [$key, $metatype, $realtype, $maxlength];
    my $size = $rows < 500 ? 'small' : 'big';  # RQG's line between small and big tables
    $m->{$size . 'table'}{$table} = $rows;
    $m->{$size . 'basetable'}{$table} = $rows if $type eq 'table';
  }
  $meta
}
sub _list { my ($missing, @names) = @_; @names ? [sort @names] : [$missing] }
sub _kind { my ($s, $kind, $schema, $missing) = @_; $schema //= $s->defaultSchema; _list($missing, keys %{_meta()->{$schema}{$kind} || {}}) }
# The column map of a table (the schema's first one by default) and whether it is a view.
sub _columns {
  my ($s, $table, $schema) = @_;
  $schema //= $s->defaultSchema;
  $table //= $s->metaTables($schema)->[0];
  my $m = _meta()->{$schema} || {};
  return ($m->{table}{$table} || $m->{view}{$table} || {}, $m->{view}{$table} ? 1 : 0);
}
sub _where { my ($cols, $test) = @_; _list('non_existing_column', grep { $test->($cols->{$_}) } keys %$cols) }
# RQG: 'indexed' includes the primary key; a view's columns count as ordinary.
sub _key_is {
  my ($want, $view) = @_;
  $want = 'ordinary' if $view && ($want eq 'indexed' || $want eq 'primary');
  sub { $_[0][0] eq $want || ($want eq 'indexed' && $_[0][0] eq 'primary') }
}
sub _key_not { my ($not, $view) = @_; $not = 'unknown' if $view && $not eq 'ordinary'; sub { $_[0][0] ne $not } }
sub new { bless {}, shift }
sub defaultSchema { (Gauntlet::names(0))[0] // 'test' }
sub currentSchema { $_[0]->defaultSchema }
sub metaSchemas { _list('non_existing_schema', keys %{_meta()}) }
sub metaTables {
  my ($s, $schema) = @_; $schema //= $s->defaultSchema;
  my $m = _meta()->{$schema} || {};
  _list('non_existing_table', keys %{$m->{table} || {}}, keys %{$m->{view} || {}})
}
sub metaBaseTables { $_[0]->_kind('table', $_[1], 'non_existing_base_table') }
sub metaViews { $_[0]->_kind('view', $_[1], 'non_existing_view') }
sub metaBigTables { $_[0]->_kind('bigtable', $_[1], 'non_existing_big_table') }
sub metaSmallTables { $_[0]->_kind('smalltable', $_[1], 'non_existing_small_table') }
sub metaBigBaseTables { $_[0]->_kind('bigbasetable', $_[1], 'non_existing_big_base_table') }
sub metaSmallBaseTables { $_[0]->_kind('smallbasetable', $_[1], 'non_existing_small_base_table') }
sub isBigTable { my ($s, $t, $schema) = @_; $schema //= $s->defaultSchema; _meta()->{$schema}{bigtable}{$t} }
sub metaColumnInfo { my ($cols) = _columns(@_); %$cols ? $cols : undef }
sub metaColumns { my ($cols) = _columns(@_); _list('non_existing_column', keys %$cols) }
sub metaColumnsType { my ($s, $key, @t) = @_; my ($c) = $s->_columns(@t); _where($c, sub { $_[0][0] eq $key }) }
sub metaColumnsTypeNot { my ($s, $key, @t) = @_; my ($c) = $s->_columns(@t); _where($c, sub { $_[0][0] ne $key }) }
sub metaColumnsIndexType { my ($s, $key, @t) = @_; my ($c, $v) = $s->_columns(@t); _where($c, _key_is($key, $v)) }
sub metaColumnsIndexTypeNot { my ($s, $key, @t) = @_; my ($c, $v) = $s->_columns(@t); _where($c, _key_not($key, $v)) }
sub metaColumnsDataType { my ($s, $type, @t) = @_; my ($c) = $s->_columns(@t); _where($c, sub { $_[0][1] eq $type }) }
sub metaColumnsDataIndexType {
  my ($s, $type, $key, @t) = @_; my ($c, $v) = $s->_columns(@t); my $k = _key_is($key, $v);
  _where($c, sub { $_[0][1] eq $type && $k->($_[0]) })
}
sub metaColumnsDataTypeIndexTypeNot {
  my ($s, $type, $key, @t) = @_; my ($c, $v) = $s->_columns(@t); my $k = _key_not($key, $v);
  _where($c, sub { $_[0][1] eq $type && $k->($_[0]) })
}
sub metaCollations { _list('non_existing_collation', Gauntlet::names(1)) }
sub metaCharactersets { _list('non_existing_charset', Gauntlet::names(2)) }
sub tables { shift->metaTables(@_) }
sub baseTables { shift->metaBaseTables(@_) }
sub views { shift->metaViews(@_) }
sub smallTables { shift->metaSmallTables(@_) }
sub bigTables { shift->metaBigTables(@_) }
sub smallBaseTables { shift->metaSmallBaseTables(@_) }
sub bigBaseTables { shift->metaBigBaseTables(@_) }
sub tableColumns { shift->metaColumns(@_) }
sub _info { my ($s, $i, $col, @t) = @_; my ($c) = $s->_columns(@t); $c->{$col} ? $c->{$col}[$i] : undef }
sub columnMetaType { $_[0]->_info(1, @_[1 .. $#_]) }
sub columnRealType { $_[0]->_info(2, @_[1 .. $#_]) }
sub columnMaxLength { $_[0]->_info(3, @_[1 .. $#_]) }
sub databases { [Gauntlet::names(0)] }
sub connectionId { Gauntlet::connection_id() }
sub currentUser { Gauntlet::current_user() }
sub id { Gauntlet::thread_id() }
sub dsn { 'dbi:mysql:' }
sub type { 2 }  # RQG's DB_MYSQL
sub getName { 'MySQL' }

package Gauntlet::GeneratorView;
sub new { bless {}, shift }
sub threadId { Gauntlet::thread_id() }
sub prng { $GenTest::Generator::FromGrammar::prng }

package GenTest::Generator::FromGrammar;
use List::Util qw(shuffle first max min sum);
our $prng = GenTest::Random->new;
our $executors = [Gauntlet::Executor->new];
our $generator = Gauntlet::GeneratorView->new;
our $global = GenTest::Stack::StackFrame->new;
our ($stack, $last_table, $last_field, $last_database);
sub expand { my ($counters, $invariants, @items) = @_; map { Gauntlet::expand($_) } @items }
sub say { print STDERR "# ", @_, "\n" }
1;
)PERL";

}  // namespace

// `$prng->int(1, 10000)`: the whole block (an optional `;`), integer bounds.
const std::regex kPrngInt(R"(\s*\$prng\s*->\s*(?:int|uint16)\s*\(\s*(-?\d{1,15})\s*,\s*(-?\d{1,15})\s*\)\s*;?\s*)");
// Code that may give $prng or GenTest::Random another meaning: then every block runs in Perl.
const std::regex kTouchesPrng(R"(\$prng\s*=[^=>~]|\*prng|GenTest::Random|local\s+\$prng|\\\$prng)");

// The generator's state that Perl's callbacks read and draw from.
struct GeneratorInternals {
  static Rng& rng() { return tls_generator->rng_; }
  static const Schema& schema() { return tls_generator->schema_; }
  static const Grammar& grammar() { return *tls_generator->grammar_; }
  static const GeneratorOptions& options() { return tls_generator->options_; }
  static uint32_t last_database() { return tls_generator->last_database_; }
  static int last_table() { return tls_generator->last_table_; }
  static const std::string& last_field() { return tls_generator->last_field_; }
  static std::string Expand(const std::string& word) { return tls_generator->ExpandWord(word); }
  static uint64_t Clock() { return tls_generator->Clock(); }
  static uint64_t Pid() { return tls_generator->Pid(); }
  // True when the generator running on this thread is asked to stop.
  static bool Interrupted() {
    const Generator* g = tls_generator;
    const std::atomic<bool>* flag = g != nullptr ? g->options_.interrupt : nullptr;
    return flag != nullptr && flag->load(std::memory_order_relaxed);
  }
};

namespace {

using Host = GeneratorInternals;

std::string ToString(pTHX_ SV* sv) {
  if (sv == nullptr || !SvOK(sv)) return {};
  STRLEN len;
  const char* p = SvPV(sv, len);
  return std::string(p, len);
}

XS(XS_below) {
  dXSARGS;
  const IV n = items > 0 ? SvIV(ST(0)) : 0;
  const IV v = n > 0 ? static_cast<IV>(Host::rng().Below(static_cast<uint64_t>(n))) : 0;
  ST(0) = sv_2mortal(newSViv(v));
  XSRETURN(1);
}

XS(XS_uniform) {
  dXSARGS;
  (void)items;
  ST(0) = sv_2mortal(newSVnv(Host::rng().Uniform01()));
  XSRETURN(1);
}

// "_name" or "_name(a, b)" -> the resolved built-in, cached per text.
const Builtin* ValueBuiltin(const std::string& text) {
  thread_local std::unordered_map<std::string, std::optional<Builtin>> cache;
  auto it = cache.find(text);
  if (it == cache.end()) {
    std::string name = text;
    std::vector<double> args;
    const size_t paren = text.find('(');
    if (paren != std::string::npos) {
      name = text.substr(0, paren);
      std::string inner = text.substr(paren + 1);
      for (char& c : inner) if (c == ',' || c == ')') c = ' ';
      size_t pos = 0;
      while (pos < inner.size()) {
        char* end = nullptr;
        const double v = std::strtod(inner.c_str() + pos, &end);
        if (end == inner.c_str() + pos) break;
        args.push_back(v);
        pos = end - inner.c_str();
      }
    }
    std::optional<Builtin> b;
    try {
      b = ResolveBuiltin(name, args, paren != std::string::npos);
    } catch (const std::invalid_argument&) {
    }
    if (b && b->kind < BuiltinKind::kDigit) b.reset();  // schema, environment
    it = cache.emplace(text, b).first;
  }
  return it->second ? &*it->second : nullptr;
}

XS(XS_value) {
  dXSARGS;
  const std::string text = items > 0 ? ToString(aTHX_ ST(0)) : "";
  std::string value;
  if (const Builtin* b = ValueBuiltin(text)) {
    if (b->kind != BuiltinKind::kNull) AppendRawValue(*b, Host::rng(), value);
    ST(0) = b->kind == BuiltinKind::kNull ? &PL_sv_undef
                                           : sv_2mortal(newSVpvn(value.data(), value.size()));
  } else {
    ST(0) = &PL_sv_undef;
  }
  XSRETURN(1);
}

XS(XS_is_value) {
  dXSARGS;
  const std::string text = items > 0 ? ToString(aTHX_ ST(0)) : "";
  ST(0) = ValueBuiltin(text[0] == '_' ? text : "_" + text) ? &PL_sv_yes : &PL_sv_no;
  XSRETURN(1);
}

XS(XS_expand) {
  dXSARGS;
  // C++ exceptions must not unwind through Perl's C frames: catch them here
  // and die in Perl instead, once no C++ object is left to destroy.
  SV* result = nullptr;
  SV* error = nullptr;
  {
    const std::string word = items > 0 ? ToString(aTHX_ ST(0)) : "";
    try {
      const std::string text = Host::Expand(word);
      result = newSVpvn(text.data(), text.size());
    } catch (const std::exception& e) {
      error = newSVpv(e.what(), 0);
    }
  }
  if (error != nullptr) croak_sv(sv_2mortal(error));
  ST(0) = sv_2mortal(result);
  XSRETURN(1);
}

// RQG's schema metadata rows, flattened: 9 values per column (see
// Gauntlet::Executor).
XS(XS_metadata) {
  dXSARGS;
  const Schema& schema = Host::schema();
  SP -= items;
  const auto push = [&](const std::string& v) { XPUSHs(sv_2mortal(newSVpvn(v.data(), v.size()))); };
  for (const Table& t : schema.tables()) {
    const std::string& db = t.database.empty() && !schema.databases().empty() ? schema.databases()[0] : t.database;
    for (const Column& c : t.columns) {
      push(db);
      push(t.name);
      push(t.view ? "view" : "table");
      push(c.name);
      push(c.primary ? "primary" : c.indexed ? "indexed" : "ordinary");
      push(c.meta_type());
      push(c.base_type());
      if (c.max_length() > 0) XPUSHs(sv_2mortal(newSVuv(c.max_length())));
      else XPUSHs(&PL_sv_undef);
      XPUSHs(sv_2mortal(newSVuv(t.rows)));
    }
  }
  PUTBACK;
}

// Names: 0 databases, 1 collations, 2 character sets.
XS(XS_names) {
  dXSARGS;
  const int which = items > 0 ? static_cast<int>(SvIV(ST(0))) : 0;
  const Schema& schema = Host::schema();
  const auto& names = which == 1 ? schema.collations() : which == 2 ? schema.charsets() : schema.databases();
  SP -= items;
  EXTEND(SP, static_cast<SSize_t>(names.size()));
  for (const auto& n : names) PUSHs(sv_2mortal(newSVpvn(n.data(), n.size())));
  PUTBACK;
}

XS(XS_thread_id) {
  dXSARGS;
  (void)items;
  ST(0) = sv_2mortal(newSViv(Host::options().thread_id));
  XSRETURN(1);
}

XS(XS_clock) {
  dXSARGS;
  (void)items;
  ST(0) = sv_2mortal(newSViv(static_cast<IV>(Host::Clock())));
  XSRETURN(1);
}

XS(XS_pid) {
  dXSARGS;
  (void)items;
  ST(0) = sv_2mortal(newSViv(static_cast<IV>(Host::Pid())));
  XSRETURN(1);
}

XS(XS_connection_id) {
  dXSARGS;
  (void)items;
  const auto& o = Host::options();
  ST(0) = sv_2mortal(newSViv(static_cast<IV>(o.connection_id ? o.connection_id : o.thread_id)));
  XSRETURN(1);
}

XS(XS_current_user) {
  dXSARGS;
  (void)items;
  const std::string& u = Host::options().current_user;
  ST(0) = sv_2mortal(newSVpvn(u.data(), u.size()));
  XSRETURN(1);
}

constexpr char kInterrupted[] = "interrupted: the run is ending\n";

// Perl's sleep, in slices, so that an ending run is not held up.
XS(XS_sleep) {
  dXSARGS;
  const double seconds = items > 0 ? SvNV(ST(0)) : 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  bool interrupted = false;
  while (std::chrono::steady_clock::now() < end && !(interrupted = Host::Interrupted()))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (interrupted) croak("%s", kInterrupted);
  ST(0) = sv_2mortal(newSViv(static_cast<IV>(seconds)));
  XSRETURN(1);
}

// Perl's standard op loop, plus a look at the interrupt flag every 1024 ops,
// so that a block looping for ever ends when the run does, and the memory
// bound (above). Dying between two ops is what a %SIG handler does, so the
// interpreter stays consistent.
int RunOpsInterruptible(pTHX) {
  OP* op = PL_op;
  unsigned n = 0;
  do {
    if (op->op_type == OP_REPEAT || op->op_type == OP_FLOP) CheckOneStepAllocation(aTHX_ op);
    if ((++n & 1023) == 0) {
      if (Host::Interrupted()) croak("%s", kInterrupted);
      CheckMemoryGrowth(aTHX);
    }
  } while ((PL_op = op = op->op_ppaddr(aTHX)));
  PERL_ASYNC_CHECK();
  TAINT_NOT;
  return 0;
}

struct EvalFrame {
  const char* code;
  SV* result;
};

void EvalFrameCode(pTHX_ void* frame) {
  auto* f = static_cast<EvalFrame*>(frame);
  f->result = eval_pv(f->code, FALSE);
}

// eval_pv under the memory bound; Perl running out of memory throws
// GenerationError (`where` names the code) instead of ending the process.
SV* EvalBounded(pTHX_ const std::string& code, const std::string& where) {
  StartMemoryBound();
  EvalFrame frame{code.c_str(), nullptr};
  if (!RunCatchingExit(aTHX_ EvalFrameCode, &frame)) throw GenerationError(where + ": " + kPerlEnded);
  return frame.result;
}

void XsInit(pTHX) {
  static const char kFile[] = __FILE__;
  newXS("DynaLoader::boot_DynaLoader", boot_DynaLoader, kFile);
  newXS("Gauntlet::below", XS_below, kFile);
  newXS("Gauntlet::uniform", XS_uniform, kFile);
  newXS("Gauntlet::value", XS_value, kFile);
  newXS("Gauntlet::is_value", XS_is_value, kFile);
  newXS("Gauntlet::expand", XS_expand, kFile);
  newXS("Gauntlet::metadata", XS_metadata, kFile);
  newXS("Gauntlet::names", XS_names, kFile);
  newXS("Gauntlet::thread_id", XS_thread_id, kFile);
  newXS("Gauntlet::connection_id", XS_connection_id, kFile);
  newXS("Gauntlet::clock", XS_clock, kFile);
  newXS("Gauntlet::pid", XS_pid, kFile);
  newXS("Gauntlet::current_user", XS_current_user, kFile);
  newXS("Gauntlet::sleep", XS_sleep, kFile);
}

std::once_flag perl_sys_init;

}  // namespace

PerlInterpreter* NewInterpreter() {
  PerlInterpreter* my_perl = perl_alloc();
  PERL_SET_CONTEXT(my_perl);
  perl_construct(my_perl);
  // Only the process's first interpreter reads PERL_PERTURB_KEYS; the others
  // would perturb key order from their own history.
  PL_hash_rand_bits_enabled = 0;
  PL_hash_rand_bits = 0;
  PL_exit_flags |= PERL_EXIT_DESTRUCT_END;
  static char a0[] = "", a1[] = "-e", a2[] = "0";
  char* args[] = {a0, a1, a2, nullptr};
  perl_parse(my_perl, XsInit, 3, args, nullptr);
  perl_run(my_perl);
  PL_runops = RunOpsInterruptible;
  eval_pv(kGuards, FALSE);
  return my_perl;
}

void FreeInterpreter(PerlInterpreter* my_perl) {
  if (my_perl == nullptr) return;
  PERL_SET_CONTEXT(my_perl);
  perl_destruct(my_perl);
  perl_free(my_perl);
}

void InitPerlOnce();

// Makes `g` the generator Perl's callbacks see, for one scope.
class HostScope {
 public:
  explicit HostScope(Generator* g) : outer_(tls_generator) { tls_generator = g; }
  ~HostScope() { tls_generator = outer_; }

 private:
  Generator* outer_;
};

struct PerlRuntime::Impl {
  Generator* generator;
  PerlInterpreter* perl = nullptr;
  std::vector<SV*> blocks;
  // Per block: the bounds when it is just `$prng->int(lo, hi)` (or uint16)
  // of two integers, RQG's most common block, drawn here as its Perl would
  // draw them (the same Rng calls, so the same statements) without entering
  // Perl: a point select's key costs a tenth of the Perl call.
  std::vector<std::optional<std::pair<int64_t, int64_t>>> int_blocks;
  std::vector<SV*> variables;
  SV* last_table = nullptr;
  SV* last_field = nullptr;
  SV* last_database = nullptr;
  SV* new_stack = nullptr;  // sub resetting $stack; null when no block uses it
  int synced_table = -2;
  std::string synced_field;
  bool ended = false;  // Perl ran out of memory: the interpreter is finished

  // Compiles `code` into a sub; returns nullptr and sets `error` on failure.
  SV* Compile(const std::string& code, std::string* error) {
    dTHXa(perl);
    const std::string source =
        "package GenTest::Generator::FromGrammar; no strict; no warnings; sub {\n" + code + "\n}";
    SV* sub = EvalBounded(aTHX_ source, "a Perl block");
    if (SvTRUE(ERRSV)) {
      *error = ToString(aTHX_ ERRSV);
      return nullptr;
    }
    return newSVsv(sub);
  }

  // Copies the generator's $last_* into Perl when they changed.
  void Sync() {
    dTHXa(perl);
    if (Host::last_table() != synced_table) {
      synced_table = Host::last_table();
      if (synced_table >= 0) {
        const std::string& n = Host::schema().tables()[synced_table].name;
        sv_setpvn(last_table, n.data(), n.size());
      }
      const std::string& d = Host::schema().databases()[Host::last_database()];
      sv_setpvn(last_database, d.data(), d.size());
    }
    if (Host::last_field() != synced_field) {
      synced_field = Host::last_field();
      sv_setpvn(last_field, synced_field.data(), synced_field.size());
    }
  }

  // Creates the interpreter, loads the prelude and compiles every block.
  void Start() {
    perl = NewInterpreter();
    dTHXa(perl);
    HostScope host(generator);
    eval_pv(kPrelude, FALSE);
    if (SvTRUE(ERRSV)) throw Error("cannot start the embedded Perl: " + ToString(aTHX_ ERRSV));
    if (!generator->grammar().trusted_perl()) RestrictPerl(aTHX);
    last_table = get_sv("GenTest::Generator::FromGrammar::last_table", GV_ADD);
    last_field = get_sv("GenTest::Generator::FromGrammar::last_field", GV_ADD);
    last_database = get_sv("GenTest::Generator::FromGrammar::last_database", GV_ADD);

    const Grammar& g = generator->grammar();
    std::string error;
    bool uses_stack = false;
    for (const PerlBlock& b : g.perl_blocks()) uses_stack |= b.code.find("$stack") != std::string::npos;
    if (uses_stack) new_stack = Compile("$stack = GenTest::Stack::Stack->new", &error);
    const bool prng_untouched = std::none_of(g.perl_blocks().begin(), g.perl_blocks().end(), [](const PerlBlock& b) {
      return std::regex_search(b.code, kTouchesPrng);
    }) && std::none_of(g.variables().begin(), g.variables().end(), [](const std::string& v) {
      return std::regex_search(v, kTouchesPrng);
    });
    for (const PerlBlock& b : g.perl_blocks()) {
      SV* sub = Compile(b.code, &error);
      if (sub == nullptr && !b.unbalanced)
        throw InvalidInput(b.where, "Perl block does not compile: " + WithTrustHint(error));
      blocks.push_back(sub);
      std::smatch m;
      int_blocks.emplace_back();
      if (sub != nullptr && prng_untouched && std::regex_match(b.code, m, kPrngInt))
        int_blocks.back().emplace(std::stoll(m[1]), std::stoll(m[2]));
    }
    for (const std::string& v : g.variables()) {
      SV* sub = Compile(v, &error);
      if (sub == nullptr) throw InvalidInput({"<grammar>", 0, 0}, "variable " + v + ": " + WithTrustHint(error));
      variables.push_back(sub);
    }
  }

  void Stop() {
    FreeInterpreter(perl);
    perl = nullptr;
  }

  struct CallFrame {
    SV* sub;
    int count;
  };

  static void CallSub(pTHX_ void* frame) {
    auto* f = static_cast<CallFrame*>(frame);
    f->count = call_sv(f->sub, G_SCALAR | G_EVAL | G_NOARGS);
  }

  std::string Call(SV* sub, const SourceLocation& where) {
    if (ended) throw GenerationError(where.ToString() + ": " + kPerlEnded);
    dTHXa(perl);
    PERL_SET_CONTEXT(perl);
    HostScope host(generator);
    Sync();
    StartMemoryBound();
    dSP;
    ENTER;
    SAVETMPS;
    PUSHMARK(SP);
    PUTBACK;
    CallFrame frame{sub, 0};
    if (!RunCatchingExit(aTHX_ CallSub, &frame)) {
      ended = true;  // Perl unwound its stacks, ENTER included
      throw GenerationError(where.ToString() + ": Perl block: " + kPerlEnded);
    }
    SPAGAIN;
    std::string result;
    if (frame.count == 1) result = ToString(aTHX_ POPs);
    PUTBACK;
    std::string error;
    if (SvTRUE(ERRSV)) error = ToString(aTHX_ ERRSV);
    FREETMPS;
    LEAVE;
    if (!error.empty())
      throw GenerationError(where.ToString() + ": Perl block died: " + error);
    return result;
  }
};

void InitPerlOnce() {
  std::call_once(perl_sys_init, [] {
    static int argc = 1;
    static char arg0[] = "gauntlet";
    static char* argv_storage[] = {arg0, nullptr};
    static char** argv = argv_storage;
    static char* env_storage[] = {nullptr};
    static char** env = env_storage;
    // Perl randomizes hash order per process; a grammar that walks `keys %h`
    // would then differ between runs of one seed. A fixed hash seed (and no
    // per-hash perturbation) makes the order a function of the keys alone.
    setenv("PERL_HASH_SEED", "0", 1);
    setenv("PERL_PERTURB_KEYS", "0", 1);
    PERL_SYS_INIT3(&argc, &argv, &env);
    // XS modules such as List::Util resolve libperl's symbols globally; when
    // we are ourselves loaded with RTLD_LOCAL (a Python extension), promote
    // libperl to global visibility first.
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&perl_alloc), &info) && info.dli_fname != nullptr)
      dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  });
}

PerlRuntime::PerlRuntime(Generator* generator) : impl_(new Impl) {
  impl_->generator = generator;
  InitPerlOnce();
  try {
    impl_->Start();
  } catch (...) {
    impl_->Stop();
    delete impl_;
    throw;
  }
}

PerlRuntime::~PerlRuntime() {
  impl_->Stop();
  delete impl_;
}

void PerlRuntime::BeginStatement() {
  if (impl_->new_stack != nullptr) impl_->Call(impl_->new_stack, {"<stack>", 0, 0});
}

std::string PerlRuntime::RunBlock(uint32_t block) {
  if (const auto& bounds = impl_->int_blocks[block]) {  // GenTest::Random's int and uint16, in C++
    const auto [lo, hi] = *bounds;
    if (hi <= lo) return std::to_string(lo);
    HostScope host(impl_->generator);
    return std::to_string(lo + static_cast<int64_t>(GeneratorInternals::rng().Below(static_cast<uint64_t>(hi - lo) + 1)));
  }
  SV* sub = impl_->blocks[block];
  return sub == nullptr ? std::string() : impl_->Call(sub, impl_->generator->grammar().perl_blocks()[block].where);
}

std::string PerlDataToJson(const std::string& code, const std::string& file, bool trusted_perl) {
  InitPerlOnce();
  PerlInterpreter* my_perl = NewInterpreter();
  struct Free {
    PerlInterpreter* p;
    ~Free() { FreeInterpreter(p); }
  } free_it{my_perl};
  // The encoder is compiled before the restriction, which the user's code is not.
  eval_pv("require JSON::PP; sub Gauntlet::data_json { JSON::PP->new->canonical->encode({tables => "
          "$GenTest::Gendata::tables, fields => $GenTest::Gendata::fields, data => $GenTest::Gendata::data, "
          "schemas => $GenTest::Gendata::schemas}) } 1", FALSE);
  if (SvTRUE(ERRSV)) throw Error("cannot start the embedded Perl: " + ToString(aTHX_ ERRSV));
  if (!trusted_perl) RestrictPerl(aTHX);
  const std::string source =
      "package GenTest::Gendata; no strict; no warnings; our ($tables, $fields, $data, $schemas);\n"
      "#line 1 \"" + file + "\"\n" + code + "\n;\nGauntlet::data_json()";
  SV* result = nullptr;
  try {
    result = EvalBounded(aTHX_ source, file);
  } catch (const GenerationError& e) {
    throw InvalidInput({file, 0, 0}, e.what());
  }
  if (SvTRUE(ERRSV)) {
    std::string message = ToString(aTHX_ ERRSV);
    int line = 0;
    const size_t at = message.find(" line ");
    if (at != std::string::npos) line = std::atoi(message.c_str() + at + 6);
    throw InvalidInput({file, line, 0}, "Perl data does not evaluate: " + WithTrustHint(message));
  }
  return ToString(aTHX_ result);
}

std::string PerlRuntime::ReadVariable(uint32_t variable) {
  return impl_->Call(impl_->variables[variable],
                     {impl_->generator->grammar().variables()[variable], 0, 0});
}

}  // namespace gauntlet
