#include "exec/connection.h"

#include <mysql.h>
#include <sys/socket.h>

#include <chrono>
#include <mutex>

#include "exec/error_table.h"

namespace gauntlet {
namespace {

std::once_flag library_init;

const char* TypeName(enum_field_types t) {
  switch (t) {
    case MYSQL_TYPE_TINY: return "TINYINT";
    case MYSQL_TYPE_SHORT: return "SMALLINT";
    case MYSQL_TYPE_INT24: return "MEDIUMINT";
    case MYSQL_TYPE_LONG: return "INT";
    case MYSQL_TYPE_LONGLONG: return "BIGINT";
    case MYSQL_TYPE_DECIMAL: case MYSQL_TYPE_NEWDECIMAL: return "DECIMAL";
    case MYSQL_TYPE_FLOAT: return "FLOAT";
    case MYSQL_TYPE_DOUBLE: return "DOUBLE";
    case MYSQL_TYPE_BIT: return "BIT";
    case MYSQL_TYPE_DATE: case MYSQL_TYPE_NEWDATE: return "DATE";
    case MYSQL_TYPE_TIME: case MYSQL_TYPE_TIME2: return "TIME";
    case MYSQL_TYPE_DATETIME: case MYSQL_TYPE_DATETIME2: return "DATETIME";
    case MYSQL_TYPE_TIMESTAMP: case MYSQL_TYPE_TIMESTAMP2: return "TIMESTAMP";
    case MYSQL_TYPE_YEAR: return "YEAR";
    case MYSQL_TYPE_VARCHAR: case MYSQL_TYPE_VAR_STRING: return "VARCHAR";
    case MYSQL_TYPE_STRING: return "CHAR";
    case MYSQL_TYPE_ENUM: return "ENUM";
    case MYSQL_TYPE_SET: return "SET";
    case MYSQL_TYPE_TINY_BLOB: case MYSQL_TYPE_MEDIUM_BLOB: case MYSQL_TYPE_LONG_BLOB:
    case MYSQL_TYPE_BLOB: return "BLOB";
    case MYSQL_TYPE_GEOMETRY: return "GEOMETRY";
    case MYSQL_TYPE_JSON: return "JSON";
    case MYSQL_TYPE_NULL: return "NULL";
    default: return "UNKNOWN";
  }
}

Outcome ErrorOutcome(MYSQL* mysql) {
  Outcome o;
  o.error_code = mysql_errno(mysql);
  o.sqlstate = mysql_sqlstate(mysql);
  o.message = mysql_error(mysql);
  o.kind = ErrorTable::Default().Classify(o.error_code, o.message);
  return o;
}

}  // namespace

std::string ConnectionParams::ToString() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  std::string dsn = "mysql://" + user + "@" + (ipv6 ? "[" + host + "]" : host);
  if (port != 0) dsn += ":" + std::to_string(port);
  dsn += "/" + database;
  if (!socket.empty()) dsn += "?socket=" + socket;
  return dsn;
}

Connection::Connection(MYSQL* mysql, ConnectionParams params)
    : mysql_(mysql), params_(std::move(params)), id_(mysql_thread_id(mysql)) {}

Connection::~Connection() { mysql_close(mysql_); }

bool Connection::InTransaction() const { return (mysql_->server_status & SERVER_STATUS_IN_TRANS) != 0; }

void Connection::Abort() {
  const my_socket fd = mysql_get_socket(mysql_);
  if (fd >= 0) shutdown(fd, SHUT_RDWR);
}

std::unique_ptr<Connection> Connection::Open(const ConnectionParams& params, Outcome* error) {
  std::call_once(library_init, [] { mysql_library_init(0, nullptr, nullptr); });
  MYSQL* mysql = mysql_init(nullptr);
  if (mysql == nullptr) {
    error->kind = OutcomeKind::kResource;
    error->message = "mysql_init failed: out of memory";
    return nullptr;
  }
  mysql_options(mysql, MYSQL_OPT_CONNECT_TIMEOUT, &params.connect_timeout);
  if (params.read_timeout > 0) mysql_options(mysql, MYSQL_OPT_READ_TIMEOUT, &params.read_timeout);
  const unsigned int local_infile = 1;
  mysql_options(mysql, MYSQL_OPT_LOCAL_INFILE, &local_infile);
  const bool via_socket = !params.socket.empty();
  if (!mysql_real_connect(mysql, via_socket ? "localhost" : params.host.c_str(),
                          params.user.c_str(), params.password.c_str(),
                          params.database.empty() ? nullptr : params.database.c_str(),
                          params.port, via_socket ? params.socket.c_str() : nullptr,
                          CLIENT_FOUND_ROWS)) {
    *error = ErrorOutcome(mysql);
    if (error->kind == OutcomeKind::kSemantic) error->kind = OutcomeKind::kConnectionLost;
    mysql_close(mysql);
    return nullptr;
  }
  return std::unique_ptr<Connection>(new Connection(mysql, params));
}

Outcome Connection::Execute(std::string_view sql, ResultSet* result) {
  const auto start = std::chrono::steady_clock::now();
  Outcome o = ExecuteUntimed(sql, result);
  o.nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  return o;
}

Outcome Connection::ExecuteUntimed(std::string_view sql, ResultSet* result) {
  Outcome o;
  if (mysql_real_query(mysql_, sql.data(), sql.size()) != 0) {
    o = ErrorOutcome(mysql_);
  } else {
    // Drain every result; collect only what the caller asked for.
    do {
      MYSQL_RES* res = result ? mysql_store_result(mysql_) : mysql_use_result(mysql_);
      if (res != nullptr) {
        const unsigned n = mysql_num_fields(res);
        if (result != nullptr && result->columns.empty()) {
          MYSQL_FIELD* fields = mysql_fetch_fields(res);
          constexpr unsigned kBinaryCharset = 63;
          for (unsigned i = 0; i < n; ++i)
            result->columns.push_back({fields[i].name, TypeName(fields[i].type), fields[i].charsetnr == kBinaryCharset,
                                       fields[i].decimals, fields[i].length});
        }
        while (MYSQL_ROW row = mysql_fetch_row(res)) {
          ++o.rows;
          if (result != nullptr) {
            unsigned long* lengths = mysql_fetch_lengths(res);
            std::vector<std::optional<std::string>> values(n);
            for (unsigned i = 0; i < n; ++i)
              if (row[i] != nullptr) values[i].emplace(row[i], lengths[i]);
            result->rows.push_back(std::move(values));
          }
        }
        if (mysql_errno(mysql_) != 0) o = ErrorOutcome(mysql_);
        mysql_free_result(res);
      } else if (mysql_field_count(mysql_) == 0) {
        o.affected_rows += mysql_affected_rows(mysql_);
      } else {
        o = ErrorOutcome(mysql_);
      }
      if (!o.ok()) break;
    } while (mysql_next_result(mysql_) == 0);
    if (o.ok() && mysql_errno(mysql_) != 0) o = ErrorOutcome(mysql_);
  }
  return o;
}

}  // namespace gauntlet
