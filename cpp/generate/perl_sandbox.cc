#include <sys/resource.h>

#include <cstring>
#include <optional>
#include <string>

#include "common/error.h"

// Perl's headers define many macros; they come last.
#include <EXTERN.h>
#include <perl.h>
#include <XSUB.h>

#include "generate/perl_sandbox.h"

namespace gauntlet {
namespace {

// What restricted grammar and data code cannot compile (see RestrictPerl): the
// ops that run, wait for or signal processes, open, write or remove files,
// reach the network or name services, or use System V IPC; after Perl's
// Opcode tags :subprocess, :ownprocess, :filesys_open, :filesys_write,
// :others, :dangerous and the socket ops of :still_to_be_decided. exit, kill,
// fork, exec and sleep keep their overrides above (a bare call dies with a
// message, or sleeps interruptibly); CORE::exit and the like are refused.
constexpr const char* kDeniedOps[] = {
    // processes and signals
    "backtick", "system", "fork", "wait", "waitpid", "glob", "exec", "kill", "exit", "dump", "alarm",
    "sleep", "setpgrp", "setpriority", "syscall", "pipe_op",
    // files
    "open", "sysopen", "open_dir", "umask", "dbmopen", "link", "unlink", "rename", "symlink",
    "truncate", "mkdir", "rmdir", "utime", "chmod", "chown", "fcntl", "ioctl", "flock", "chdir",
    "chroot",
    // network and name services
    "socket", "sockpair", "bind", "connect", "listen", "accept", "shutdown", "ssockopt", "gsockopt",
    "getsockname", "getpeername", "send", "recv", "ghbyname", "ghbyaddr", "ghostent", "gnbyname",
    "gnbyaddr", "gnetent", "gpbyname", "gpbynumber", "gprotoent", "gsbyname", "gsbyport", "gservent",
    // System V IPC
    "msgctl", "msgget", "msgrcv", "msgsnd", "semctl", "semget", "semop", "shmctl", "shmget",
    "shmread", "shmwrite",
};

// The rest of the restriction, in Perl: no native code can be loaded (an XS
// module could do all the masked ops), and the process's signal handlers,
// environment, user and group ids and name stay Gauntlet's (%SIG, %ENV, $<,
// $>, $(, $) and $0 become plain variables holding a copy).
constexpr const char* kRestrictions = R"PERL(
no strict; no warnings;
for my $f (grep { /^dl_/ && defined &{"DynaLoader::$_"} } keys %DynaLoader::) {
  *{"DynaLoader::$f"} = sub {
    die "$f: grammar and data code cannot load native code (an XS module) unless trusted (--trusted-perl)\n"
  };
}
*main::SIG = {};
*main::ENV = { %ENV };
for my $name ('<', '>', '(', ')', '0') { my $copy = ${"main::$name"}; *{"main::$name"} = \$copy }
1;
)PERL";

// How much one run of grammar or data code may grow the process: a block
// that builds a gigabyte is a mistake, and one that asks for a terabyte would
// otherwise end Gauntlet ("Out of memory!") or wake the OOM killer.
constexpr double kCodeMemoryLimit = 1 << 30;

// The process's peak resident size, in bytes (cheap: one system call).
double PeakResidentBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024;
}

// The peak when the current code started (read lazily: most blocks end within
// the first check's 1024 ops), per thread since each worker has its own Perl.
thread_local double tls_peak_at_start = -1;

// A numeric operand's value, without running magic or overloading (nullopt
// then: the op itself will run them).
std::optional<double> PlainNumber(pTHX_ SV* sv) {
  if (SvGMAGICAL(sv) || SvAMAGIC(sv) || SvROK(sv)) return std::nullopt;
  return SvNV_nomg(sv);
}

}  // namespace

// Starts the memory bound for one run of code.
void StartMemoryBound() { tls_peak_at_start = -1; }

void CheckMemoryGrowth(pTHX) {
  const double peak = PeakResidentBytes();
  if (tls_peak_at_start < 0) tls_peak_at_start = peak;
  else if (peak - tls_peak_at_start > kCodeMemoryLimit)
    croak("grammar code used more than %.0f MB of memory\n", kCodeMemoryLimit / (1 << 20));
}

// Refuses, before it runs, an op that would build more than the memory bound
// in one step: `x` (string and list repetition) and `..` in list context.
// Polling between ops cannot stop those.
void CheckOneStepAllocation(pTHX_ OP* op) {
  double bytes = 0;
  if (op->op_type == OP_REPEAT) {
    const std::optional<double> count = PlainNumber(aTHX_ *PL_stack_sp);
    if (!count || *count <= 1) return;
    if (op->op_private & OPpREPEAT_DOLIST) {
      const double items = static_cast<double>(PL_stack_sp - (PL_stack_base + *PL_markstack_ptr));
      bytes = *count * items * sizeof(SV);
    } else {
      SV* text = PL_stack_sp[-1];
      bytes = *count * static_cast<double>(SvPOK(text) && !SvGMAGICAL(text) ? SvCUR(text) : 1);
    }
  } else if (op->op_type == OP_FLOP && GIMME_V == G_LIST) {
    const std::optional<double> right = PlainNumber(aTHX_ PL_stack_sp[0]);
    const std::optional<double> left = PlainNumber(aTHX_ PL_stack_sp[-1]);
    if (!right || !left) return;
    bytes = (*right - *left) * sizeof(SV);
  }
  if (bytes > kCodeMemoryLimit)
    croak("grammar code asked for %.0f MB in one step ('%s'), more than the %.0f MB it may use\n",
          bytes / (1 << 20), OP_DESC(op), kCodeMemoryLimit / (1 << 20));
}

// Runs `body(arg)` under a JMPENV of its own, so that Perl's my_exit, which
// is how Perl ends when malloc fails ("Out of memory!"), returns here instead
// of ending the process. False when it did: the interpreter is finished (it
// may only be destructed). No C++ object lives in this frame, since longjmp
// skips destructors.
bool RunCatchingExit(pTHX_ void (*body)(pTHX_ void*), void* arg) {
  int ret;
  dJMPENV;
  JMPENV_PUSH(ret);
  if (ret == 0) body(aTHX_ arg);
  JMPENV_POP;
  return ret == 0;
}

const char kPerlEnded[] =
    "Perl ended: grammar code asked for more memory than there is (Perl said \"Out of memory!\")";

// Perl's message about code the restriction refused, with what lifts it.
std::string WithTrustHint(const std::string& message) {
  if (message.find("trapped by operation mask") == std::string::npos) return message;
  return message + " (grammar and data code is restricted; --trusted-perl, trusted_perl=True, lifts that "
                   "for a grammar you trust)";
}

void RestrictPerl(pTHX) {
  eval_pv(kRestrictions, FALSE);
  if (SvTRUE(ERRSV)) throw Error(std::string("cannot restrict the embedded Perl: ") + SvPV_nolen(ERRSV));
  Newxz(PL_op_mask, PL_maxo, char);  // perl_destruct frees it
  for (const char* name : kDeniedOps) {
    int op = 0;
    while (op < PL_maxo && std::strcmp(PL_op_name[op], name) != 0) ++op;
    if (op == PL_maxo) throw Error(std::string("cannot restrict the embedded Perl: it has no op ") + name);
    PL_op_mask[op] = 1;
  }
}

}  // namespace gauntlet
