#include "oracle/volatile_values.h"

#include <cctype>
#include <string>
#include <unordered_map>

namespace gauntlet {

const std::vector<VolatileValue>& VolatileValues() {
  using V = VolatileValue;
  // The examples read a sequence `gauntlet_seq` and a lock `gauntlet_lock`.
  static const std::vector<VolatileValue> kTable = {
      // Random numbers and identifiers.
      {"RAND", V::kCall, false, "RAND()"},
      {"RANDOM_BYTES", V::kCall, false, "RANDOM_BYTES(4)"},
      {"UUID", V::kCall, false, "UUID()"},
      {"UUID_SHORT", V::kCall, false, "UUID_SHORT()"},
      {"SYS_GUID", V::kCall, false, "SYS_GUID()"},
      // Clocks.
      {"NOW", V::kCall, false, "NOW(6)"},
      {"SYSDATE", V::kCall, false, "SYSDATE(6)"},
      {"CURTIME", V::kCall, false, "CURTIME(6)"},
      {"CURDATE", V::kCall, false, "CURDATE()"},
      {"UNIX_TIMESTAMP", V::kCall, false, "UNIX_TIMESTAMP()"},
      {"CURRENT_TIME", V::kWord, false, "CURRENT_TIME"},
      {"CURRENT_DATE", V::kWord, false, "CURRENT_DATE"},
      {"CURRENT_TIMESTAMP", V::kWord, false, "CURRENT_TIMESTAMP(6)"},
      {"LOCALTIME", V::kWord, false, "LOCALTIME"},
      {"LOCALTIMESTAMP", V::kWord, false, "LOCALTIMESTAMP"},
      {"UTC_DATE", V::kWord, false, "UTC_DATE"},
      {"UTC_TIME", V::kWord, false, "UTC_TIME"},
      {"UTC_TIMESTAMP", V::kWord, false, "UTC_TIMESTAMP"},
      // Sequences: reading the next value advances them.
      {"NEXT VALUE FOR", V::kPhrase, true, "NEXT VALUE FOR gauntlet_seq"},
      {"PREVIOUS VALUE FOR", V::kPhrase, false, "PREVIOUS VALUE FOR gauntlet_seq"},
      {"NEXTVAL", V::kCall, true, "NEXTVAL(gauntlet_seq)"},
      {"LASTVAL", V::kCall, false, "LASTVAL(gauntlet_seq)"},
      {"SETVAL", V::kCall, true, "SETVAL(gauntlet_seq, 1000000)"},
      {"NEXTVAL", V::kPseudoColumn, true, "gauntlet_seq.NEXTVAL"},
      {"CURRVAL", V::kPseudoColumn, false, "gauntlet_seq.CURRVAL"},
      // The session and what it did last.
      {"LAST_INSERT_ID", V::kCall, false, "LAST_INSERT_ID()"},
      {"ROW_COUNT", V::kCall, false, "ROW_COUNT()"},
      {"FOUND_ROWS", V::kCall, false, "FOUND_ROWS()"},
      {"CONNECTION_ID", V::kCall, false, "CONNECTION_ID()"},
      {"PS_CURRENT_THREAD_ID", V::kCall, false, "PS_CURRENT_THREAD_ID()"},
      {"PS_THREAD_ID", V::kCall, false, "PS_THREAD_ID(CONNECTION_ID())"},
      {"USER", V::kCall, false, "USER()"},
      {"SESSION_USER", V::kCall, false, "SESSION_USER()"},
      {"SYSTEM_USER", V::kCall, false, "SYSTEM_USER()"},
      {"CURRENT_USER", V::kWord, false, "CURRENT_USER"},
      {"CURRENT_ROLE", V::kWord, false, "CURRENT_ROLE"},
      {"VERSION", V::kCall, false, "VERSION()"},
      {"ROWNUM", V::kWord, false, "ROWNUM()"},
      {"LAST_VALUE", V::kCall, false, "LAST_VALUE(1, 2)"},
      {":=", V::kAssignment, false, "@gauntlet_var := 1"},
      // Locks, waits and the world outside the data.
      {"GET_LOCK", V::kCall, false, "GET_LOCK('gauntlet_lock', 0)"},
      {"RELEASE_LOCK", V::kCall, false, "RELEASE_LOCK('gauntlet_lock')"},
      {"RELEASE_ALL_LOCKS", V::kCall, false, "RELEASE_ALL_LOCKS()"},
      {"IS_FREE_LOCK", V::kCall, false, "IS_FREE_LOCK('gauntlet_lock')"},
      {"IS_USED_LOCK", V::kCall, false, "IS_USED_LOCK('gauntlet_lock')"},
      {"BENCHMARK", V::kCall, false, "BENCHMARK(10, 1)"},
      {"SLEEP", V::kCall, false, "SLEEP(0)"},
      {"MASTER_POS_WAIT", V::kCall, false, "MASTER_POS_WAIT('gauntlet-bin.000001', 4, 0)"},
      {"MASTER_GTID_WAIT", V::kCall, false, "MASTER_GTID_WAIT('', 0)"},
      {"LOAD_FILE", V::kCall, false, "LOAD_FILE('/nonexistent')"},
  };
  return kTable;
}

namespace {

// The entries by their first word, for one look-up a token.
const std::unordered_multimap<std::string, const VolatileValue*>& ByFirstWord() {
  static const auto* index = [] {
    auto* m = new std::unordered_multimap<std::string, const VolatileValue*>;
    for (const VolatileValue& v : VolatileValues())
      m->emplace(std::string(v.name.substr(0, v.name.find(' '))), &v);
    return m;
  }();
  return *index;
}

bool Matches(const SqlShape& s, size_t i, const VolatileValue& v) {
  const auto& t = s.tokens();
  const bool qualified = i > 0 && s.text(t[i - 1]) == ".";
  switch (v.form) {
    case VolatileValue::kCall: return !qualified && s.IsCall(i);
    case VolatileValue::kWord: return !qualified;
    case VolatileValue::kPseudoColumn: return qualified;
    case VolatileValue::kPhrase: {
      size_t at = i;
      for (size_t from = 0; from != std::string_view::npos; ++at) {
        const size_t space = v.name.find(' ', from);
        const std::string_view word = v.name.substr(from, space == std::string_view::npos ? space : space - from);
        if (at >= t.size() || !s.Is(at, word)) return false;
        from = space == std::string_view::npos ? space : space + 1;
      }
      return true;
    }
    case VolatileValue::kAssignment: return false;  // found by its variable, below
  }
  return false;
}

}  // namespace

std::vector<const VolatileValue*> VolatileValuesRead(const SqlShape& s) {
  std::vector<const VolatileValue*> read;
  const auto& t = s.tokens();
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind == SqlToken::kVariable && i + 1 < t.size() && s.text(t[i + 1]) == ":=") {
      for (const VolatileValue& v : VolatileValues())
        if (v.form == VolatileValue::kAssignment) read.push_back(&v);
    }
    if (t[i].kind != SqlToken::kWord) continue;
    const auto [first, last] = ByFirstWord().equal_range(Upper(s.text(t[i])));
    for (auto it = first; it != last; ++it)
      if (Matches(s, i, *it->second)) read.push_back(it->second);
  }
  return read;
}

}  // namespace gauntlet
