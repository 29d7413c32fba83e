// libFuzzer target: any text given to the grammar parser either loads or
// raises gauntlet::Error; a loaded grammar without Perl generates without
// crashing. Run with `make fuzz` (clang, ASan).
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.h"
#include "generate/generator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto grammar = std::make_shared<gauntlet::Grammar>();
    grammar->AddText(text, "fuzz.yy");
    grammar->Finish();
    if (grammar->needs_perl() || grammar->FindRule("query") < 0) return 0;
    gauntlet::GeneratorOptions options;
    options.max_depth = 12;
    options.max_length = 1 << 16;
    gauntlet::Generator generator(grammar, gauntlet::Schema::RqgDefault(), options);
    for (int i = 0; i < 4; ++i) generator.Next();
  } catch (const gauntlet::Error&) {
  }
  return 0;
}
