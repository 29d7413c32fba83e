// Bindings for servers, connections, data loading and runs.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "data/loader.h"
#include "data/statistics.h"
#include "exec/connection.h"
#include "exec/error_table.h"
#include "exec/executor.h"
#include "exec/output_format.h"
#include "exec/statement_log.h"
#include "generate/perl_runtime.h"
#include "oracle/determinism.h"
#include "oracle/error_log.h"
#include "oracle/registry.h"
#include "oracle/data_snapshot.h"
#include "oracle/root_cause_key.h"
#include "server/crash_log.h"
#include "sql/reach.h"
#include "sql/sql_shape.h"
#include "oracle/volatile_values.h"
#include "server/datadir_template.h"
#include "server/managed_server.h"
#include "server/server_probe.h"
#include "server/server_tree.h"
#include "json_convert.h"

namespace py = pybind11;

namespace gauntlet::bindings {
namespace {

py::dict OutcomeDict(const Outcome& o) {
  py::dict d;
  d["kind"] = OutcomeKindName(o.kind);
  d["error_code"] = o.error_code;
  d["sqlstate"] = o.sqlstate;
  d["message"] = o.message;
  d["rows"] = o.rows;
  d["affected_rows"] = o.affected_rows;
  d["seconds"] = static_cast<double>(o.nanos) / 1e9;
  return d;
}

// (outcome dict, [(name, type)], [row tuples]): strings as str, binary
// strings as bytes, NULL as None.
py::tuple OutcomeRows(const Outcome& o, const ResultSet& rs) {
  py::list columns, rows;
  std::vector<bool> as_bytes;
  for (const auto& col : rs.columns) {
    columns.append(py::make_tuple(col.name, col.type));
    // Numbers and dates report the binary character set too; only strings are bytes.
    const bool stringish = col.type == "CHAR" || col.type == "VARCHAR" || col.type == "BLOB" ||
                           col.type == "BIT" || col.type == "GEOMETRY" || col.type == "UNKNOWN";
    as_bytes.push_back(col.binary && stringish);
  }
  for (const auto& row : rs.rows) {
    py::list r;
    for (size_t i = 0; i < row.size(); ++i) {
      const auto& v = row[i];
      if (!v) r.append(py::none());
      else if (as_bytes[i]) r.append(py::bytes(*v));
      else r.append(py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(v->data(), static_cast<Py_ssize_t>(v->size()), "replace")));
    }
    rows.append(py::tuple(r));
  }
  return py::make_tuple(OutcomeDict(o), columns, rows);
}

// An oracle written in Python (a gauntlet.Oracle), called with the GIL from
// the session's thread.
class PyOracle : public Oracle {
 public:
  explicit PyOracle(py::object oracle) : oracle_(std::move(oracle)), name_(oracle_.attr("name").cast<std::string>()) {}
  std::string name() const override { return name_; }
  bool WantsRows(std::string_view sql) const override {
    py::gil_scoped_acquire gil;
    return Call([&] { return oracle_.attr("wants_rows")(std::string(sql)).cast<bool>(); });
  }
  Verdict Check(const Observation& o) override {
    py::gil_scoped_acquire gil;
    return Call([&] {
      py::list names, outcomes;
      for (size_t t = 0; t < o.outcomes.size(); ++t) {
        names.append(o.session.target(t).name);
        outcomes.append(OutcomeDict(o.outcomes[t]));
      }
      py::object columns = py::none(), rows = py::none();
      if (o.results.size() == o.outcomes.size()) {
        py::list cs, rs;
        for (size_t t = 0; t < o.results.size(); ++t) {
          py::tuple x = OutcomeRows(o.outcomes[t], o.results[t]);
          cs.append(x[1]);
          rs.append(x[2]);
        }
        columns = cs;
        rows = rs;
      }
      // Follow-ups in this session; the function refuses once the check returned.
      auto valid = std::make_shared<bool>(true);
      Session* session = &o.session;
      py::cpp_function execute([valid, session](const std::string& sql, size_t target) {
        if (!*valid) throw Error("Observation.execute: only during check()");
        if (target >= session->size()) throw Error("Observation.execute: no target " + std::to_string(target));
        ResultSet rs;
        Outcome out;
        {
          py::gil_scoped_release release;
          out = session->Execute(target, sql, &rs);
        }
        return OutcomeRows(out, rs);
      }, py::arg("sql"), py::arg("target") = 0);
      py::tuple r = oracle_.attr("_verdict")(o.thread, std::string(o.sql), names, outcomes, columns, rows, execute);
      *valid = false;
      const std::string kind = r[0].cast<std::string>();
      if (kind == "passed") return Verdict::Passed();
      if (kind == "skipped") return Verdict::Skipped(r[1].cast<std::string>());
      if (kind == "not-applicable") return Verdict::NotApplicable();
      const nlohmann::json j = FromPython(r[1]);
      Finding f;
      f.kind = j.value("kind", "custom");
      f.signature = j.value("signature", name_ + ": " + SqlShape(o.sql).Skeleton());
      f.detail = j.value("detail", "");
      if (j.contains("evidence")) f.evidence = j["evidence"];
      for (size_t t = 0; t < o.outcomes.size(); ++t) f.targets.push_back(o.session.target(t).name);
      return Verdict::Fired(std::move(f));
    });
  }

 private:
  // Python's exceptions become an OracleError naming the oracle.
  template <class F>
  auto Call(F f) const -> decltype(f()) {
    try {
      return f();
    } catch (py::error_already_set& e) {
      throw OracleError("oracle " + name_ + ": " + e.what());
    }
  }
  py::object oracle_;
  std::string name_;
};

// ServerError, with the [ERROR] lines of the server's log.
void RegisterServerError(py::module_& m) {
  static py::exception<ServerError> server_error(m, "ServerError", m.attr("GauntletError").ptr());
  server_error.attr("__doc__") =
      "A managed server failed to start or stop for a reason other than a bad option (that is "
      "InvalidInput): .log_errors holds the [ERROR] lines of its error log.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ServerError& e) {
      py::object exc = py::handle(server_error.ptr())(py::str(e.what()));
      exc.attr("log_errors") = e.log_errors();
      PyErr_SetObject(server_error.ptr(), exc.ptr());
    }
  });

}

// Where a server is and a session on it.
void RegisterConnections(py::module_& m) {
  py::class_<ConnectionParams>(m, "ConnectionParams")
      .def(py::init<>())
      .def_readwrite("host", &ConnectionParams::host)
      .def_readwrite("port", &ConnectionParams::port)
      .def_readwrite("socket", &ConnectionParams::socket)
      .def_readwrite("user", &ConnectionParams::user)
      .def_readwrite("password", &ConnectionParams::password)
      .def_readwrite("database", &ConnectionParams::database)
      .def_readwrite("connect_timeout", &ConnectionParams::connect_timeout)
      .def_readwrite("read_timeout", &ConnectionParams::read_timeout)
      .def("__str__", &ConnectionParams::ToString)
      .def("__repr__", [](const ConnectionParams& p) { return "ConnectionParams(" + p.ToString() + ")"; });

  py::class_<Connection>(m, "Connection")
      .def_static("open", [](const ConnectionParams& p) {
        Outcome error;
        std::unique_ptr<Connection> c;
        {
          py::gil_scoped_release release;
          c = Connection::Open(p, &error);
        }
        if (!c && RefusesTheLogin(error.error_code))
          throw InvalidInput({"server", 0, 0}, p.ToString() + " refused the login: " + error.message + " (error " +
                                                   std::to_string(error.error_code) + ")");
        if (!c) throw Error("cannot connect to " + p.ToString() + ": " + error.message);
        return c;
      })
      .def("execute", [](Connection& c, const std::string& sql, bool fetch) {
        ResultSet rs;
        Outcome o;
        {
          py::gil_scoped_release release;
          o = c.Execute(sql, fetch ? &rs : nullptr);
        }
        return OutcomeRows(o, rs);
      }, py::arg("sql"), py::arg("fetch") = true)
      .def_property_readonly("id", &Connection::id);

}

// Servers Gauntlet starts, and what it learns of servers and their logs.
void RegisterServers(py::module_& m) {
  py::class_<ServerOptions>(m, "ServerOptions")
      .def(py::init<>())
      .def_readwrite("binary", &ServerOptions::binary)
      .def_readwrite("dir", &ServerOptions::dir)
      .def_readwrite("mysqld", &ServerOptions::mysqld)
      .def_readwrite("wrapper", &ServerOptions::wrapper)
      .def_readwrite("tcp", &ServerOptions::tcp)
      .def_readwrite("start_timeout", &ServerOptions::start_timeout)
      .def_readwrite("template_cache", &ServerOptions::template_cache)
      .def_readwrite("core_file", &ServerOptions::core_file)
      .def_readwrite("die_with_parent", &ServerOptions::die_with_parent);

  // The crash an error log records (signal, frames, signature), for logs of
  // servers Gauntlet did not start (mysql-test-run's).
  m.def("crash_report_from_log", [](const std::string& log) { return ToPython(ParseCrashReport(log).ToJson()); },
        py::arg("log"));

  py::class_<ManagedServer>(m, "ManagedServer")
      .def(py::init<ServerOptions>())
      .def_static("attach", &ManagedServer::Attach)
      .def("start", &ManagedServer::Start, py::call_guard<py::gil_scoped_release>())
      .def("stop", &ManagedServer::Stop, py::arg("timeout") = 60.0, py::call_guard<py::gil_scoped_release>())
      .def("kill", &ManagedServer::Kill, py::call_guard<py::gil_scoped_release>())
      .def("restart", &ManagedServer::Restart, py::call_guard<py::gil_scoped_release>())
      .def("alive", &ManagedServer::Alive)
      .def("crash", [](const ManagedServer& s) {
        CrashReport r;
        {
          py::gil_scoped_release release;
          r = s.Crash();
        }
        return ToPython(r.ToJson());
      })
      .def("detach", &ManagedServer::Detach)
      .def_property_readonly("pid", &ManagedServer::pid)
      .def_property_readonly("exit_signal", &ManagedServer::exit_signal)
      .def_property_readonly("connection", &ManagedServer::connection)
      .def_property_readonly("dsn", &ManagedServer::dsn)
      .def_property_readonly("socket", &ManagedServer::socket)
      .def_property_readonly("port", &ManagedServer::port)
      .def_property_readonly("error_log", &ManagedServer::error_log)
      .def_property_readonly("datadir", &ManagedServer::datadir)
      .def_property_readonly("ready_seconds", &ManagedServer::ready_seconds)
      .def_property_readonly("options", &ManagedServer::options)
      .def_property_readonly("command_line", &ManagedServer::command_line);

  m.def("sql_skeleton", [](std::string_view sql) { return SqlShape(sql).Skeleton(); }, py::arg("sql"),
        "The statement with literals as '?' and names as '_' (a finding's signature, a query class).");
  m.def("error_log_pattern_error", &ErrorLogOracle::PatternError, py::arg("pattern"),
        "Why the errorlog oracle cannot read `pattern` as a regular expression (ECMAScript); '' when it can.");
  m.def("nondeterminism", [](std::string_view sql) { return Nondeterminism(SqlShape(sql)); }, py::arg("sql"),
        "Why an oracle skips this statement as nondeterministic, in a few words; '' when it does not.");
  m.def("volatile_values", [] {
    static const char* const kForms[] = {"call", "word", "phrase", "pseudo-column", "assignment"};
    py::list table;
    for (const VolatileValue& v : VolatileValues()) {
      py::dict d;
      d["name"] = std::string(v.name);
      d["form"] = kForms[v.form];
      d["changes_data"] = v.changes_data;
      d["example"] = std::string(v.example);
      table.append(d);
    }
    return table;
  }, "The values that change between executions (oracle/volatile_values.h): name, form, changes_data, example.");
  py::class_<ServerTree>(m, "ServerTree", "A server binary and the files it needs beside it (server/server_tree.h).")
      .def_readonly("binary", &ServerTree::binary)
      .def_readonly("basedir", &ServerTree::basedir)
      .def_readonly("messages_dir", &ServerTree::messages_dir)
      .def_readonly("charsets_dir", &ServerTree::charsets_dir)
      .def_readonly("plugin_dir", &ServerTree::plugin_dir)
      .def_readonly("install_db", &ServerTree::install_db)
      .def_readonly("system", &ServerTree::system)
      .def("options", &ServerTree::Options, "The options that point a server outside /usr at its files.")
      .def("__repr__", [](const ServerTree& t) { return "ServerTree(binary='" + t.binary + "', basedir='" + t.basedir + "')"; });
  m.def("find_server_tree", &FindServerTree, py::arg("path"),
        "The ServerTree of a server binary or of a folder holding an unpacked server.");
  m.def("is_mariadb", &IsMariaDB);
  m.def("check_server_binary", &CheckServerBinary, py::arg("binary"),
        py::call_guard<py::gil_scoped_release>());
  // True when a server answers at `params`, even if only with an error.
  m.def("server_answers", [](const ConnectionParams& p) { return ExternalServerProbe(p).Alive(); },
        py::call_guard<py::gil_scoped_release>());
  m.def("template_cache_dir", &TemplateCacheDir, py::arg("configured") = "");
  m.def("copy_datadir", &CopyDatadir, py::arg("source"), py::arg("target"),
        py::call_guard<py::gil_scoped_release>());
}

// Data: loading a schema's rows and reading a schema back.
void RegisterData(py::module_& m) {
  m.def("introspect_schema", &IntrospectSchema, py::arg("connection"),
        py::arg("databases") = std::vector<std::string>{}, py::call_guard<py::gil_scoped_release>());
  m.def("perl_data_to_json", &PerlDataToJson, py::arg("code"), py::arg("file"), py::arg("trusted_perl") = false);
  m.def("error_kind", [](unsigned code, const std::string& message) {
    return std::string(OutcomeKindName(ErrorTable::Default().Classify(code, message)));
  }, py::arg("code"), py::arg("message") = "");
  m.def("error_name", [](unsigned code) { return ErrorTable::Default().Name(code); },
        "The server error's symbolic name (ER_DUP_ENTRY for 1062), or \"\" when unknown.");
  m.def("default_values", &DefaultValues);
  m.def("create_table_sql", &CreateTableSql);
  m.def("temporary_twin_sql", &TemporaryTwinSql, py::arg("schema"));
  // `cancelled()` is asked between batches (with the GIL, after pending
  // signal handlers ran); returning True ends the load early.
  m.def("hold_statistics", &HoldStatistics, py::arg("connection"), py::call_guard<py::gil_scoped_release>(),
        "Before a load: InnoDB's background statistics held off (data/statistics.h); returns what to restore.");
  m.def("settle_statistics", [](Connection& c, const std::vector<std::string>& databases, const HeldStatistics& held) {
    SettledStatistics s;
    {
      py::gil_scoped_release release;
      s = SettleStatistics(c, databases, held);
    }
    return ToPython(s.ToJson());
  }, py::arg("connection"), py::arg("databases"), py::arg("held"),
        "After a load: every table analyzed, purge drained, the variables restored; the row estimates.");
  m.def("load_schema", [](Connection& c, const Schema& schema, uint64_t seed, bool strict,
                          py::object cancelled) {
    LoadOptions o;
    o.seed = seed;
    o.strict = strict;
    if (!cancelled.is_none()) {
      o.cancelled = [&cancelled] {
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) {
          PyErr_Clear();
          return true;
        }
        return py::bool_(cancelled()).cast<bool>();
      };
    }
    LoadStats s;
    {
      py::gil_scoped_release release;
      s = LoadSchema(c, schema, o);
    }
    py::dict d;
    d["tables"] = s.tables;
    d["rows"] = s.rows;
    d["seconds"] = s.seconds;
    d["warnings"] = s.warnings;
    d["cancelled"] = s.cancelled;
    return d;
  }, py::arg("connection"), py::arg("schema"), py::arg("seed"), py::arg("strict") = true,
     py::arg("cancelled") = py::none());
}

// A run's options, its result and its findings.
void RegisterRunResults(py::module_& m) {
  // The summary of a run that ended before any session started: the same
  // shape summary.json always has.
  m.def("empty_summary", [] { return ToPython(RunResult().ToJson()); });
  m.def("finding_counts", [](const py::list& findings) { return ToPython(FindingCounts(FromPython(findings))); },
        py::arg("findings"));
  // The schema of every output file, by name (data/formats/NAME.schema.json).
  m.def("output_formats", [] {
    py::dict d;
    for (const std::string& name : OutputFormatNames()) d[py::str(name)] = ToPython(OutputFormat(name));
    return d;
  });
  py::list kinds;
  for (size_t i = 0; i < static_cast<size_t>(OutcomeKind::kCount); ++i)
    kinds.append(OutcomeKindName(static_cast<OutcomeKind>(i)));
  m.attr("OUTCOME_KINDS") = py::tuple(kinds);
  // A statement log's statement lines as dicts; `sql` is str, or bytes where
  // the statement is not UTF-8.
  m.def("read_statement_log", [](const std::string& file) {
    std::vector<StatementLogLine> lines;
    {
      py::gil_scoped_release release;
      lines = ReadStatementLog(file);
    }
    py::list out;
    for (const StatementLogLine& l : lines) {
      py::dict d;
      d["seq"] = l.seq;
      d["thread"] = l.thread;
      d["query"] = l.query;
      d["piece"] = l.piece;
      d["start"] = l.start;
      d["end"] = l.end;
      d["outcome"] = l.outcome;
      d["error"] = l.error;
      PyObject* text = PyUnicode_DecodeUTF8(l.sql.data(), static_cast<Py_ssize_t>(l.sql.size()), nullptr);
      if (text == nullptr) {
        PyErr_Clear();
        d["sql"] = py::bytes(l.sql);
      } else {
        d["sql"] = py::reinterpret_steal<py::str>(text);
      }
      d["target_ms"] = l.target_ms;
      d["key"] = ToPython(l.key);
      out.append(d);
    }
    return out;
  }, py::arg("file"));
  // Latency of several runs together (the rounds of a keep-going run), from
  // their summaries' latency_histogram: (latency_ms, latency_histogram).
  m.def("merge_latency", [](const py::list& histograms) {
    LatencyHistogram all;
    for (const auto& h : histograms) all.Merge(LatencyHistogram::FromJson(FromPython(h)));
    return py::make_tuple(ToPython(all.SummaryJson()), ToPython(all.ToJson()));
  }, py::arg("histograms"));

  py::class_<RunOptions>(m, "RunOptions")
      .def(py::init<>())
      .def_readwrite("threads", &RunOptions::threads)
      .def_readwrite("duration", &RunOptions::duration)
      .def_readwrite("queries", &RunOptions::queries)
      .def_readwrite("seed", &RunOptions::seed)
      .def_readwrite("rate", &RunOptions::rate)
      .def_readwrite("statement_timeout", &RunOptions::statement_timeout)
      .def_readwrite("hang_timeout", &RunOptions::hang_timeout)
      .def_readwrite("generate_timeout", &RunOptions::generate_timeout)
      .def_readwrite("out_dir", &RunOptions::out_dir)
      .def_readwrite("statement_log", &RunOptions::statement_log)
      .def_readwrite("max_depth", &RunOptions::max_depth)
      .def_readwrite("known_bugs", &RunOptions::known_bugs)
      .def_readwrite("history", &RunOptions::history)
      .def_readwrite("kill_at", &RunOptions::kill_at)
      .def_readwrite("kill_signal", &RunOptions::kill_signal)
      .def_property(
          "reach", [](const RunOptions& o) { return std::const_pointer_cast<ReachIndex>(o.reach); },
          [](RunOptions& o, std::shared_ptr<ReachIndex> index) { o.reach = std::move(index); },
          "The ReachIndex whose names the run counts (summary.json's reach), or None.");

  py::class_<ReachIndex, std::shared_ptr<ReachIndex>>(
      m, "ReachIndex",
      "A server's names by category, each category with the rule by which a statement uses a name "
      "(call, word, phrase, column_type, column_attribute, set_variable, engine).")
      .def(py::init([](const py::list& categories) {
             std::vector<ReachCategory> out;
             for (const auto& c : categories) {
               const py::dict d = c.cast<py::dict>();
               out.push_back({d["name"].cast<std::string>(), ParseReachRule(d["rule"].cast<std::string>()),
                              d["names"].cast<std::vector<std::string>>()});
             }
             return std::make_shared<ReachIndex>(std::move(out));
           }), py::arg("categories"), "categories: [{'name': ..., 'rule': ..., 'names': [...]}]")
      .def("__repr__", [](const ReachIndex& index) {
        std::string names;
        for (const ReachCategory& c : index.categories())
          names += (names.empty() ? "" : ", ") + c.name + " (" + std::to_string(c.names.size()) + ")";
        return "ReachIndex(" + names + ")";
      });
  m.def("tally_reach", [](std::shared_ptr<ReachIndex> index, const std::vector<std::string>& statements) {
    ReachTally tally(index);
    {
      py::gil_scoped_release release;
      for (const std::string& sql : statements) tally.Add(sql);
    }
    return ToPython(tally.ToJson());
  }, py::arg("index"), py::arg("statements"),
  "What these statements use of the index's names, counted as a run counts its statements (summary.json's reach).");

  py::class_<KnownBug>(m, "KnownBug",
                       "Findings whose signature holds `pattern`, or whose root-cause key matches a glob of `causes` "
                       "('*': any run of characters), are marked known with `note`.")
      .def(py::init([](std::string pattern, std::string note, std::vector<std::string> causes) {
             return KnownBug{std::move(pattern), std::move(note), std::move(causes)};
           }), py::arg("pattern"), py::arg("note") = "known bug", py::arg("causes") = std::vector<std::string>{})
      .def_readonly("pattern", &KnownBug::pattern)
      .def_readonly("note", &KnownBug::note)
      .def_readonly("causes", &KnownBug::causes)
      .def("matches", &KnownBug::Matches, py::arg("key"), py::arg("signature"),
           "Whether a finding with this root-cause key and signature is this known bug.")
      .def("__repr__", [](const KnownBug& k) {
        std::string causes;
        for (const std::string& c : k.causes) causes += (causes.empty() ? "" : ", ") + c;
        return "KnownBug(" + (k.pattern.empty() ? "causes " + causes : k.pattern) + " ## " + k.note + ")";
      });
  m.def("load_known_bugs", &LoadKnownBugs, py::arg("path"));
  m.def("snapshot_data", [](Connection& c, const std::string& sql, int max_rows) {
    SnapshotLimits limits;
    limits.max_rows = max_rows;
    DataSnapshot snapshot;
    {
      py::gil_scoped_release release;
      snapshot = SnapshotData(sql, [&](const std::string& statement, ResultSet* rows) {
        return c.Execute(statement, rows);
      }, limits);
    }
    return ToPython(snapshot.ToJson());
  }, py::arg("connection"), py::arg("sql"), py::arg("max_rows") = SnapshotLimits().max_rows,
        "The statements that recreate what `sql` reads in the connection's database (oracle/data_snapshot.h).");
  m.def("root_cause_key", [](const py::dict& finding) { return RootCauseKey(FromPython(finding)); },
        py::arg("finding"), "The key that groups a finding (a finding.json dict) with others of its likely cause.");
  py::class_<RootCauses>(m, "RootCauses", "Findings grouped by root cause (root_causes.json's shape).")
      .def(py::init([] { return RootCauses(RootCauseKey); }))
      .def("add", [](RootCauses& r, const py::dict& finding, const std::string& folder) {
        return r.Add(FromPython(finding), folder);
      }, py::arg("finding"), py::arg("folder"), "Adds a finding found where `folder` says; returns its key.")
      .def("to_json", [](const RootCauses& r) { return ToPython(r.ToJson()); })
      .def("__len__", &RootCauses::size);
  m.def("known_oracles", &KnownOracles);
  // Findings made before the executor ran (a server that would not start,
  // one that died while loading data): recorded as the executor records its
  // own (OUT/findings.jsonl and OUT/findings/<id>/); returns them as dicts.
  m.def("record_findings", [](const std::string& out_dir, const py::list& findings,
                              const std::vector<KnownBug>& known, const py::dict& targets) {
    FindingLog log(out_dir, known, FromPython(targets), RootCauseKey);
    for (const auto& f : findings) log.Add(Finding::FromJson(FromPython(f)));
    py::list out;
    for (const Finding& f : log.findings()) out.append(ToPython(f.ToJson()));
    return out;
  }, py::arg("out_dir"), py::arg("findings"), py::arg("known_bugs") = std::vector<KnownBug>{},
     py::arg("targets") = py::dict());

}

// A recorded workload (Script) and the run itself.
void RegisterExecute(py::module_& m) {
  // Runs the executor with the GIL released; `tick(second_or_None)` is
  // called with the GIL about every 50 ms and may return True to stop.
  // Ctrl-C (a pending KeyboardInterrupt) also stops the run, and the result
  // says "interrupted".
  py::class_<Script, std::shared_ptr<Script>>(m, "Script")
      .def_static("from_statement_logs", [](const std::vector<std::string>& files, int sessions, uint64_t until_seq) {
        return std::make_shared<Script>(Script::FromStatementLogs(files, sessions, until_seq));
      }, py::arg("files"), py::arg("sessions") = 0, py::arg("until_seq") = 0,
         py::call_guard<py::gil_scoped_release>())
      // `statements`: dicts with seq, thread, start, end, sql (str or bytes)
      // and check (whether the oracles check it; default True).
      .def_static("from_statements", [](const py::list& statements, int sessions) {
        std::vector<ScriptStatement> all;
        for (const auto& item : statements) {
          const py::dict d = item.cast<py::dict>();
          ScriptStatement s;
          s.seq = d["seq"].cast<uint64_t>();
          s.thread = d["thread"].cast<int>();
          s.start = d.contains("start") ? d["start"].cast<double>() : 0.0;
          s.end = d.contains("end") ? d["end"].cast<double>() : 0.0;
          s.sql = d["sql"].cast<std::string>();
          s.check = d.contains("check") ? d["check"].cast<bool>() : true;
          if (s.thread < 1) throw InvalidInput({"statements", 0, 0}, "thread must be 1 or more");
          all.push_back(std::move(s));
        }
        return std::make_shared<Script>(Script::FromStatements(std::move(all), sessions));
      }, py::arg("statements"), py::arg("sessions") = 0)
      .def_readwrite("ordered", &Script::ordered)
      .def_readwrite("reply_window", &Script::reply_window)
      .def_readwrite("head_start", &Script::head_start)
      .def_readwrite("let_first", &Script::let_first)
      .def_readwrite("hold_back", &Script::hold_back)
      .def("serialized", [](const Script& s) { return std::make_shared<Script>(s.Serialized()); })
      .def_property_readonly("sessions", [](const Script& s) { return s.sessions.size(); })
      .def_property_readonly("statements", &Script::size);

  // `workload`: a Grammar (sessions generate) or a Script (sessions execute
  // what a run recorded). `targets`: dicts with name, connection
  // (ConnectionParams), server (a ManagedServer or None), setup (statements
  // each session runs first) and description (for findings). `oracles`: names.
  m.def("execute_run", [](py::object workload, const Schema& schema, const py::list& target_list,
                          const RunOptions& options, const py::list& oracle_list,
                          const py::dict& oracle_settings, py::object tick) {
    std::vector<std::unique_ptr<ServerProbe>> probes;
    std::vector<Target> targets;
    for (const auto& item : target_list) {
      const py::dict d = item.cast<py::dict>();
      Target t;
      t.name = d["name"].cast<std::string>();
      t.connection = d["connection"].cast<ConnectionParams>();
      if (!d["server"].is_none()) probes.push_back(std::make_unique<ManagedServerProbe>(d["server"].cast<ManagedServer*>()));
      else probes.push_back(std::make_unique<ExternalServerProbe>(t.connection));
      t.probe = probes.back().get();
      t.session_setup = d["setup"].cast<std::vector<std::string>>();
      t.description = FromPython(d["description"]);
      targets.push_back(std::move(t));
    }
    OracleSettings settings;
    if (oracle_settings.contains("error_log_patterns"))
      settings.error_log_patterns = oracle_settings["error_log_patterns"].cast<std::vector<std::string>>();
    if (oracle_settings.contains("error_log_ignore"))
      settings.error_log_ignore = oracle_settings["error_log_ignore"].cast<std::vector<std::string>>();
    // Names make built-in oracles; anything else is a gauntlet.Oracle.
    std::vector<std::string> oracle_names;
    for (const auto& item : oracle_list)
      if (py::isinstance<py::str>(item)) oracle_names.push_back(item.cast<std::string>());
    Executor::Oracles oracles = MakeOracles(oracle_names, targets, settings);
    for (const auto& item : oracle_list)
      if (!py::isinstance<py::str>(item)) oracles.push_back(std::make_shared<PyOracle>(py::reinterpret_borrow<py::object>(item)));
    RunOptions grouped = options;
    grouped.root_cause_key = RootCauseKey;
    std::unique_ptr<Executor> executor;
    if (py::isinstance<Script>(workload))
      executor = std::make_unique<Executor>(workload.cast<std::shared_ptr<Script>>(), targets, grouped, oracles);
    else
      executor = std::make_unique<Executor>(workload.cast<std::shared_ptr<Grammar>>(), schema, targets, grouped,
                                            oracles);
    RunResult result;
    {
      py::gil_scoped_release release;
      result = executor->Run([&](const SecondStats* closed) {
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) {
          PyErr_Clear();
          return true;
        }
        if (!tick.is_none()) {
          py::object second = closed ? ToPython(closed->ToJson()) : py::object(py::none());
          return py::bool_(tick(second)).cast<bool>();
        }
        return false;
      });
    }
    nlohmann::json timeline = nlohmann::json::array();
    for (const SecondStats& sec : result.timeline) timeline.push_back(sec.ToJson());
    return py::make_tuple(ToPython(result.ToJson()), ToPython(timeline));
  }, py::arg("workload"), py::arg("schema"), py::arg("targets"), py::arg("options"),
     py::arg("oracles") = py::list(), py::arg("oracle_settings") = py::dict(),
     py::arg("tick") = py::none());
}

}  // namespace

void RegisterRun(py::module_& m) {
  RegisterServerError(m);
  RegisterConnections(m);
  RegisterServers(m);
  RegisterData(m);
  RegisterRunResults(m);
  RegisterExecute(m);
}

}  // namespace gauntlet::bindings
