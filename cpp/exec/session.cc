#include "exec/session.h"

#include "sql/temporary_tables.h"

#include <cctype>
#include <chrono>

#include "exec/clock.h"
#include "generate/statements.h"

namespace gauntlet {
namespace {

// The database `USE name` names, without its quotes.
std::string UsedDatabase(std::string_view sql) {
  size_t i = sql.find_first_of(" \t\r\n`");
  if (i == std::string_view::npos) return "";
  i = sql.find_first_not_of(" \t\r\n", i);
  if (i == std::string_view::npos) return "";
  std::string name;
  if (sql[i] == '`') {
    for (size_t j = i + 1; j < sql.size(); ++j) {
      if (sql[j] != '`') {
        name += sql[j];
      } else if (j + 1 < sql.size() && sql[j + 1] == '`') {
        name += '`';
        ++j;
      } else {
        break;
      }
    }
    return name;
  }
  for (size_t j = i; j < sql.size() && (std::isalnum(static_cast<unsigned char>(sql[j])) || sql[j] == '_' ||
                                        sql[j] == '$');
       ++j)
    name += sql[j];
  return name;
}

}  // namespace

Session::Session(const std::vector<Target>& targets)
    : targets_(targets),
      connections_(targets.size()),
      sides_(targets.size()),
      ids_(std::make_unique<std::atomic<uint64_t>[]>(targets.size())) {}

bool Session::Open(size_t t, Outcome* error) {
  Close(t);
  std::unique_ptr<Connection> fresh = Connection::Open(targets_[t].connection, error);
  if (!fresh) return false;
  for (const std::string& setup : targets_[t].session_setup) {
    Outcome o = fresh->Execute(setup);
    if (!o.ok()) {
      o.message = "target " + targets_[t].name + ": " + setup + ": " + o.message;
      *error = o;
      return false;
    }
  }
  ids_[t] = fresh->id();
  if (t == 0) {  // they went with the old connection
    temporary_tables_.clear();
    database_.clear();
  }
  std::lock_guard<std::mutex> lock(mu_);
  connections_[t] = std::move(fresh);
  return true;
}

void Session::Close(size_t t) {
  std::lock_guard<std::mutex> lock(mu_);
  connections_[t].reset();
  sides_[t].reset();
}

Outcome Session::ExecuteSide(size_t t, std::string_view sql, ResultSet* rows, double limit) {
  if (!sides_[t]) {
    Outcome error;
    std::unique_ptr<Connection> side = Connection::Open(targets_[t].connection, &error);
    if (!side) return error;
    for (const std::string& setup : targets_[t].session_setup) side->Execute(setup);
    // Its DDL may wait for the workload's own transaction: give up soon.
    side->Execute("SET SESSION lock_wait_timeout = 5");
    std::lock_guard<std::mutex> lock(mu_);
    sides_[t] = std::move(side);
  }
  return Run(t, *sides_[t], sql, rows, limit);
}

Outcome Session::Run(size_t t, Connection& c, std::string_view sql, ResultSet* rows, double limit) {
  // Ordered stores only where the watchdog needs an order (see busy()): a
  // sequentially consistent store is a full fence, paid twice per statement.
  // The clock is read twice per statement and gives the Outcome its time and
  // the executor the statement's start and end.
  constexpr auto kRelaxed = std::memory_order_relaxed;
  busy_connection_.store(c.id(), kRelaxed);
  const int64_t now = NowNs();
  last_started_ = now;
  busy_since_.store(now, kRelaxed);
  busy_deadline_.store(limit > 0 ? now + static_cast<int64_t>(limit * 1e9) : 0, kRelaxed);
  busy_kills_.store(0, kRelaxed);
  busy_.store(static_cast<int>(t), std::memory_order_release);
  Outcome o = c.ExecuteUntimed(sql, rows);
  const int64_t end = NowNs();
  o.nanos = end - now;
  busy_.store(-1, std::memory_order_release);
  busy_since_.store(0, kRelaxed);
  busy_deadline_.store(0, kRelaxed);
  last_finished_.store(end, kRelaxed);
  return o;
}

Outcome Session::Execute(size_t t, std::string_view sql, ResultSet* rows, double limit) {
  Outcome o = Run(t, *connections_[t], sql, rows, limit);
  if (t == 0 && o.ok()) {
    TemporaryTableChange change = TemporaryTables(sql);
    for (const std::string& name : change.dropped) temporary_tables_.erase(name);
    for (std::string& name : change.created) temporary_tables_.insert(std::move(name));
    if (VerbIs(sql, "USE")) database_ = UsedDatabase(sql);
  }
  return o;
}

bool Session::InTransaction(size_t t) const { return connections_[t] && connections_[t]->InTransaction(); }

void Session::AbortAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& c : connections_)
    if (c) c->Abort();
  for (auto& c : sides_)
    if (c) c->Abort();
}

}  // namespace gauntlet
