#include "exec/crash_report.h"

namespace gauntlet {

nlohmann::json CrashReport::ToJson() const {
  return {{"signal", signal}, {"assertion", assertion}, {"frames", frames}, {"signature", signature},
          {"query", query}, {"connection_id", connection_id}, {"log_excerpt", log_excerpt},
          {"gdb_backtrace", gdb_backtrace}, {"shutdown", shutdown}};
}

}  // namespace gauntlet
