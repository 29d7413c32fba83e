// A server-side function that crashes the server (a null write, SIGSEGV)
// when its argument is not 0: a stand-in for a server bug that only some
// interleaving of sessions reaches, for testing that crashes are found and
// found again by replay. Load with
//   CREATE FUNCTION crash_if RETURNS INTEGER SONAME 'gauntlet_crash_if.so'
// on a server started with plugin_dir set to this library's folder.
#include <mysql.h>

#include <cstring>

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

}  // extern "C"
