// PerlSandbox: what keeps grammar and data code in an embedded Perl from
// hurting the process that runs it (PerlRuntime says what that code may do).
//
// RestrictPerl masks, for code compiled from then on, the ops that run or
// signal processes, open or write files and reach the network, and makes native
// code unloadable and %SIG, %ENV and the process ids private copies. The memory
// bound refuses an op that would build more than 1 GiB in one step, and code
// whose run pushes the process's peak up by more; RunCatchingExit turns Perl's
// own exit (how it ends when malloc fails) into a return value.
//
// Include after Perl's headers: it uses their types and pTHX.
#ifndef GAUNTLET_GENERATE_PERL_SANDBOX_H_
#define GAUNTLET_GENERATE_PERL_SANDBOX_H_

#include <string>

namespace gauntlet {

// Applies the restriction to the current interpreter. Code compiled before
// (Gauntlet's guards and prelude) keeps what it uses. Throws Error.
void RestrictPerl(pTHX);
// Perl's message about code the restriction refused, with what lifts it.
std::string WithTrustHint(const std::string& message);

// Starts the memory bound for one run of code on this thread.
void StartMemoryBound();
// For the op loop: refuses, before `op` runs, a one-step allocation over the
// bound (croaks), and every call checks the growth since StartMemoryBound.
void CheckOneStepAllocation(pTHX_ OP* op);
void CheckMemoryGrowth(pTHX);

// Runs `body(arg)`; false when Perl exited inside it (the interpreter is then
// finished and may only be destructed).
bool RunCatchingExit(pTHX_ void (*body)(pTHX_ void*), void* arg);
// What to say when it did.
extern const char kPerlEnded[];

}  // namespace gauntlet

#endif  // GAUNTLET_GENERATE_PERL_SANDBOX_H_
