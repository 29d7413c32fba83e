// Server-side functions that stand in for server bugs in tests:
// crash_if(v) crashes the server (a null write, SIGSEGV) when v is not 0, a
// bug that only some interleaving of sessions reaches (crashes are found and
// found again by replay); log_error_if(v) writes an [ERROR] line to the
// server's error log when v is not 0, and the server goes on (the error-log
// oracle). Load with
//   CREATE FUNCTION crash_if RETURNS INTEGER SONAME 'gauntlet_crash_if.so'
// on a server started with plugin_dir set to this library's folder.
#include <mysql.h>

#include <cstdio>
#include <cstring>
#include <ctime>

extern "C" {

my_bool crash_if_init(UDF_INIT*, UDF_ARGS* args, char* message) {
  if (args->arg_count != 1) {
    std::strcpy(message, "crash_if(value) takes one argument");
    return 1;
  }
  args->arg_type[0] = INT_RESULT;
  return 0;
}

long long crash_if(UDF_INIT*, UDF_ARGS* args, char*, char*) {
  const long long value = args->args[0] != nullptr ? *reinterpret_cast<long long*>(args->args[0]) : 0;
  if (value != 0) *static_cast<volatile int*>(nullptr) = 1;
  return value;
}

my_bool log_error_if_init(UDF_INIT* init, UDF_ARGS* args, char* message) {
  return crash_if_init(init, args, message);
}

long long log_error_if(UDF_INIT*, UDF_ARGS* args, char*, char*) {
  const long long value = args->args[0] != nullptr ? *reinterpret_cast<long long*>(args->args[0]) : 0;
  if (value != 0) {
    char when[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
    std::fprintf(stderr, "%s 0 [ERROR] gauntlet test: log_error_if(%lld) reports a damaged page\n", when, value);
    std::fflush(stderr);
  }
  return value;
}

}  // extern "C"
