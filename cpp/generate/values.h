// Random SQL values for the value built-ins (`_int`, `_date`, `_json`, ...).
//
// AppendValue writes the value of a value built-in to `out`, quoted when the
// built-in is (RQG's quoting: `'...'`, or `"..."` when the value holds a `'`).
// Every random decision goes through the Rng, so values are recorded and
// replayable. Shapes follow RQG's Random.pm, except where RQG is plainly wrong
// (see README "Differences from RQG").
#ifndef GAUNTLET_GENERATE_VALUES_H_
#define GAUNTLET_GENERATE_VALUES_H_

#include <string>

#include "common/rng.h"
#include "grammar/builtin.h"

namespace gauntlet {

// REQUIRES: `b` is a value or distribution built-in (kDigit .. kZipf).
void AppendValue(const Builtin& b, Rng& rng, std::string& out);
// The same without quotes, for Perl's $prng->fieldType() and friends.
void AppendRawValue(const Builtin& b, Rng& rng, std::string& out);

// Distributions, exposed for tests: integers in [lo, hi].
int64_t DrawGaussian(Rng& rng, int64_t lo, int64_t hi);
int64_t DrawPareto(Rng& rng, int64_t lo, int64_t hi, double h);
int64_t DrawZipf(Rng& rng, int64_t lo, int64_t hi, double s);

}  // namespace gauntlet

#endif  // GAUNTLET_GENERATE_VALUES_H_
