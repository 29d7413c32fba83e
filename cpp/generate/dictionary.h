// Word lists behind `_english`, `_english_short` and `_states`.
//
// Our own lists (RQG reads dict/*.txt at run time; we compile them in so that
// generation needs no files). No word contains a quote character.
#ifndef GAUNTLET_GENERATE_DICTIONARY_H_
#define GAUNTLET_GENERATE_DICTIONARY_H_

#include <string_view>
#include <vector>

namespace gauntlet {

// 0: english, 1: english_short (words of at most four letters), 2: states.
const std::vector<std::string_view>& Dictionary(int which);

}  // namespace gauntlet

#endif  // GAUNTLET_GENERATE_DICTIONARY_H_
