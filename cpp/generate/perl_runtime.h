// PerlRuntime: runs a grammar's `{ ... }` Perl blocks the way RQG does.
//
// One embedded interpreter per Generator (Perl is built with MULTIPLICITY, so
// workers never share one); each block is compiled once into a sub. Blocks see
// RQG's environment: `$prng` (int, uint16, arrayElement, shuffleArray,
// fieldType, ...), `$executors->[0]` metadata calls, `$generator->threadId()`,
// `$last_table`, `$last_field`, `$last_database`, `$stack` (fresh each query)
// and `$global`, and any undeclared variable persists across the worker's
// queries. All randomness, including Perl's rand() and List::Util's shuffle,
// draws from the Generator's Rng, so blocks are deterministic and replayable.
//
// Unless the grammar is trusted (Grammar::trusted_perl), its Perl cannot run,
// wait for or signal processes, open or write files, use the network, load
// native code or change the process's signal handlers, environment or ids:
// such code does not compile ("'system' trapped by operation mask"). Any
// grammar's code is bounded in memory: one run of a block that grows the
// process by more than 1 GiB dies, and Perl's "Out of memory!" is a
// GenerationError instead of the end of the process.
#ifndef GAUNTLET_GENERATE_PERL_RUNTIME_H_
#define GAUNTLET_GENERATE_PERL_RUNTIME_H_

#include <cstdint>
#include <string>
#include <vector>

namespace gauntlet {

class Generator;

class PerlRuntime {
 public:
  // Compiles every block of the generator's grammar; a block that does not
  // compile is an InvalidInput naming its location.
  explicit PerlRuntime(Generator* generator);
  ~PerlRuntime();
  PerlRuntime(const PerlRuntime&) = delete;
  PerlRuntime& operator=(const PerlRuntime&) = delete;

  // Starts a query: a fresh `$stack`.
  void BeginStatement();
  // The block's value as text ('' for undef). Throws GenerationError when the
  // block dies.
  std::string RunBlock(uint32_t block);
  std::string ReadVariable(uint32_t variable);

 private:
  struct Impl;
  Impl* impl_;
};

// Runs Perl data code (an RQG `.zz` file sets $tables, $fields, $data and
// maybe $schemas) in a fresh interpreter and returns those variables as a
// JSON object {"tables": ..., "fields": ..., "data": ..., "schemas": ...}.
// Throws InvalidInput naming `file` and Perl's message when the code dies.
// Restricted as grammar code is unless `trusted_perl`.
std::string PerlDataToJson(const std::string& code, const std::string& file, bool trusted_perl = false);

}  // namespace gauntlet

#endif  // GAUNTLET_GENERATE_PERL_RUNTIME_H_
