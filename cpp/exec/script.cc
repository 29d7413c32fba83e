#include "exec/script.h"

#include <algorithm>
#include <map>
#include <utility>

#include "common/error.h"
#include "exec/statement_log.h"

namespace gauntlet {

uint64_t Script::size() const {
  uint64_t n = 0;
  for (const auto& s : sessions) n += s.size();
  return n;
}

uint64_t Script::MustFinishBefore(size_t session, const ScriptStatement& s) const {
  // A reply takes tens of microseconds to come back over a socket, more under
  // load; a statement that waited on a lock runs for longer than this.
  const double kQuick = std::max(0.010, 10 * reply_window);
  // Within a session statements run one after another: end times ascend.
  const auto& list = sessions[session];
  size_t n = static_cast<size_t>(std::lower_bound(list.begin(), list.end(), s.start,
                                                  [](const ScriptStatement& x, double t) { return x.end < t; }) -
                                 list.begin());
  if (n < list.size()) {
    const ScriptStatement& running = list[n];
    if (running.rank < s.rank && !running.cut_off && running.end < s.start + reply_window &&
        running.end - running.start < kQuick)
      ++n;
  }
  return n;
}

std::vector<uint64_t> Script::LetFirst(size_t session, const ScriptStatement& s) const {
  std::vector<uint64_t> counts(sessions.size(), 0);
  if (!s.cut_off) return counts;
  // Where each other session's statements ranked after `s` begin (ranks ascend within a session).
  for (size_t x = 0; x < sessions.size(); ++x)
    if (x != session)
      counts[x] = static_cast<uint64_t>(
          std::upper_bound(sessions[x].begin(), sessions[x].end(), s.rank,
                           [](uint64_t rank, const ScriptStatement& y) { return rank < y.rank; }) -
          sessions[x].begin());
  // Then take the next let_first of them in rank order, whichever session ran each.
  for (uint64_t taken = 0; taken < let_first; ++taken) {
    size_t best = sessions.size();
    for (size_t x = 0; x < sessions.size(); ++x)
      if (x != session && counts[x] < sessions[x].size() &&
          (best == sessions.size() || sessions[x][counts[x]].rank < sessions[best][counts[best]].rank))
        best = x;
    if (best == sessions.size()) break;
    ++counts[best];
  }
  return counts;
}

Script Script::Serialized() const {
  if (sessions.size() != 1 || (let_first == 0 && hold_back <= 0)) return *this;
  std::vector<ScriptStatement> list = sessions[0];
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].cut_off) continue;
    size_t to = i;
    if (let_first > 0) {
      for (uint64_t passed = 0; passed < let_first && to + 1 < list.size() && list[to + 1].thread != list[i].thread;
           ++passed)
        ++to;
    } else if (i > 0 && list[i - 1].thread != list[i].thread && list[i].start < list[i - 1].end) {
      std::swap(list[i - 1], list[i]);
      continue;
    }
    std::rotate(list.begin() + i, list.begin() + i + 1, list.begin() + to + 1);
    i = to;  // past it: it is not moved twice
  }
  // New places as the start order; the gaps follow from the times (0 where moved).
  for (size_t i = 0; i < list.size(); ++i) list[i].seq = i;
  Script out = FromStatements(std::move(list), 1);
  out.ordered = ordered;
  out.reply_window = reply_window;
  out.head_start = head_start;
  return out;
}

Script Script::FromStatementLogs(const std::vector<std::string>& files, int sessions, uint64_t until_seq) {
  std::vector<ScriptStatement> all;
  for (const std::string& file : files) {
    for (StatementLogLine& line : ReadStatementLog(file)) {
      if (until_seq != 0 && line.seq >= until_seq) continue;
      ScriptStatement s;
      s.seq = line.seq;
      s.thread = line.thread;
      s.start = line.start;
      s.end = line.end;
      s.cut_off = line.outcome == "crash" || line.outcome == "connection" || line.outcome == "cancelled";
      s.sql = std::move(line.sql);
      all.push_back(std::move(s));
    }
  }
  return FromStatements(std::move(all), sessions);
}

Script Script::FromStatements(std::vector<ScriptStatement> all, int sessions) {
  if (sessions < 0 || sessions > 1)
    throw InvalidInput({"sessions", 0, 0}, "must be 0 (the run's sessions) or 1 (one session)");
  std::sort(all.begin(), all.end(), [](const ScriptStatement& a, const ScriptStatement& b) { return a.seq < b.seq; });
  Script script;
  std::map<int, size_t> session_of;  // run thread -> session
  for (const ScriptStatement& s : all) session_of.emplace(sessions == 1 ? 0 : s.thread, 0);
  size_t next = 0;
  for (auto& [thread, session] : session_of) session = next++;
  script.sessions.resize(session_of.size());
  for (size_t i = 0; i + 1 < all.size(); ++i)
    all[i].before_cut_off = all[i + 1].cut_off && sessions != 1 && all[i + 1].thread != all[i].thread &&
                            all[i + 1].start < all[i].end;
  uint64_t rank = 0;
  double previous_start = all.empty() ? 0 : all.front().start;
  for (ScriptStatement& s : all) {
    s.rank = rank++;
    s.gap = std::max(0.0, s.start - previous_start);
    previous_start = s.start;
    script.sessions[session_of[sessions == 1 ? 0 : s.thread]].push_back(std::move(s));
  }
  return script;
}

}  // namespace gauntlet
