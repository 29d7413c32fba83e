#include "exec/error_table.h"

#include <sstream>
#include <stdexcept>

#include "common/error.h"

namespace gauntlet {

extern const char* const kMysqlErrorsTsv;  // generated from data/mysql_errors.tsv

namespace {

const char* const kNames[] = {"ok", "syntax", "semantic", "deadlock", "resource",
                              "timeout", "connection", "corruption", "crash"};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(OutcomeKind::kCount));

}  // namespace

const char* OutcomeKindName(OutcomeKind kind) { return kNames[static_cast<int>(kind)]; }

OutcomeKind OutcomeKindFromName(const std::string& name) {
  for (int i = 0; i < static_cast<int>(OutcomeKind::kCount); ++i)
    if (name == kNames[i]) return static_cast<OutcomeKind>(i);
  throw std::invalid_argument("unknown outcome kind '" + name + "'");
}

const ErrorTable& ErrorTable::Default() {
  static const ErrorTable table = Parse(kMysqlErrorsTsv, "data/mysql_errors.tsv");
  return table;
}

ErrorTable ErrorTable::Parse(const std::string& text, const std::string& file) {
  ErrorTable t;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  bool header = true;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::istringstream fields(line);
    std::string code, name, kind, message;
    if (!std::getline(fields, code, '\t') || !std::getline(fields, name, '\t') ||
        !std::getline(fields, kind, '\t'))
      throw InvalidInput({file, number, 1}, "expected code<TAB>name<TAB>kind[<TAB>message]");
    try {
      const auto n = static_cast<unsigned>(std::stoul(code));
      if (std::getline(fields, message, '\t') && !message.empty()) {
        t.by_message_.push_back({n, message, OutcomeKindFromName(kind)});
        continue;
      }
      t.codes_[n] = {OutcomeKindFromName(kind), name};
    } catch (const std::invalid_argument& e) {
      throw InvalidInput({file, number, 1}, e.what());
    }
  }
  return t;
}

OutcomeKind ErrorTable::Classify(unsigned code, std::string_view message) const {
  for (const ByMessage& m : by_message_)
    if (m.code == code && message.substr(0, m.prefix.size()) == m.prefix) return m.kind;
  auto it = codes_.find(code);
  if (it != codes_.end()) return it->second.first;
  return code >= 2000 && code < 3000 ? OutcomeKind::kConnectionLost : OutcomeKind::kSemantic;
}

const std::string& ErrorTable::Name(unsigned code) const {
  static const std::string kNone;
  auto it = codes_.find(code);
  return it == codes_.end() ? kNone : it->second.second;
}

bool RefusesTheLogin(unsigned code) {
  switch (code) {
    case 1044:  // ER_DBACCESS_DENIED_ERROR
    case 1045:  // ER_ACCESS_DENIED_ERROR
    case 1049:  // ER_BAD_DB_ERROR
    case 1130:  // ER_HOST_NOT_PRIVILEGED
    case 1251:  // ER_NOT_SUPPORTED_AUTH_MODE
    case 1698:  // ER_ACCESS_DENIED_NO_PASSWORD_ERROR
    case 1820:  // ER_MUST_CHANGE_PASSWORD
    case 1862:  // ER_MUST_CHANGE_PASSWORD_LOGIN
    case 4151:  // ER_ACCOUNT_HAS_BEEN_LOCKED
    case 2005:  // CR_UNKNOWN_HOST
    case 2059:  // CR_AUTH_PLUGIN_CANNOT_LOAD
      return true;
    default:
      return false;
  }
}

}  // namespace gauntlet
