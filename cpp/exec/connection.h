// Connection: one client session to a MySQL-family server (libmariadb).
//
// Execute() runs one statement and returns its Outcome; rows are counted and,
// when asked, collected with their column types. A Connection belongs to one
// thread at a time; Cancel() is the exception: another thread may call it to
// KILL QUERY the running statement over a side connection, and Abort().
#ifndef GAUNTLET_EXEC_CONNECTION_H_
#define GAUNTLET_EXEC_CONNECTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/outcome.h"

struct st_mysql;

namespace gauntlet {

struct ConnectionParams {
  std::string host = "localhost";  // "localhost" with a socket means the socket
  unsigned port = 0;
  std::string socket;
  std::string user = "root";
  std::string password;
  std::string database;
  unsigned connect_timeout = 10;  // seconds
  unsigned read_timeout = 0;      // seconds; 0 waits for ever

  std::string ToString() const;   // a DSN without the password
};

struct ResultColumn {
  std::string name;
  std::string type;     // "INT", "VARCHAR", "DATETIME", ...
  bool binary = false;  // the binary character set: bytes, not text
  unsigned decimals = 0;
  unsigned long length = 0;  // the declared display length: M of BIT(M), N of CHAR(N) in bytes
};

struct ResultSet {
  std::vector<ResultColumn> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;  // nullopt is NULL
};

class Connection {
 public:
  // nullptr on failure, with the reason in *error (kind kConnectionLost).
  static std::unique_ptr<Connection> Open(const ConnectionParams& params, Outcome* error);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  Outcome Execute(std::string_view sql, ResultSet* result = nullptr);
  // Execute() without timing it (Outcome::nanos 0), for a caller that reads
  // the clock around it anyway.
  Outcome ExecuteUntimed(std::string_view sql, ResultSet* result = nullptr);
  uint64_t id() const { return id_; }  // the server's CONNECTION_ID()
  // True inside an explicit transaction (the server's status after the last statement).
  bool InTransaction() const;
  // Shuts the socket down so that a statement blocked on a hung server
  // returns with a lost connection. Safe to call from another thread.
  void Abort();
  const ConnectionParams& params() const { return params_; }

 private:
  Connection(st_mysql* mysql, ConnectionParams params);
  st_mysql* mysql_;
  ConnectionParams params_;
  uint64_t id_ = 0;
};

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_CONNECTION_H_
