// Bindings for grammars, schemas and generators.
#include <optional>

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "generate/generator.h"
#include "generate/gensql.h"
#include "generate/random_schema.h"
#include "generate/statements.h"
#include "json_convert.h"

namespace py = pybind11;

namespace gauntlet::bindings {
namespace {

// Owns a Python callable; takes the GIL to call or release it, because the
// generator runs with the GIL released.
struct PyRule {
  std::shared_ptr<py::function> fn;
  std::string name;
  // A Python exception becomes a GenerationError here, with the GIL held:
  // it crosses the engine's threads as a plain C++ error.
  std::string operator()(RuleContext& ctx) const {
    py::gil_scoped_acquire gil;
    try {
      py::object result = (*fn)(py::cast(&ctx, py::return_value_policy::reference));
      return result.is_none() ? std::string() : py::str(result).cast<std::string>();
    } catch (py::error_already_set& e) {
      throw GenerationError("Python rule '" + name + "' raised " + e.what());
    }
  }
};

std::shared_ptr<py::function> HoldWithGil(py::function f) {
  return std::shared_ptr<py::function>(new py::function(std::move(f)), [](py::function* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
}

py::list ToList(const ChoiceSeq& choices) {
  py::list out;
  for (const Choice& c : choices) out.append(py::make_tuple(c.value, c.bound));
  return out;
}

ChoiceSeq FromList(const py::iterable& items) {
  ChoiceSeq out;
  for (py::handle h : items) {
    if (py::isinstance<py::tuple>(h) || py::isinstance<py::list>(h)) {
      auto t = h.cast<py::sequence>();
      out.push_back({t[0].cast<uint64_t>(), t.size() > 1 ? t[1].cast<uint64_t>() : 0});
    } else {
      out.push_back({h.cast<uint64_t>(), 0});
    }
  }
  return out;
}

// Tables and columns that generation draws from.
void RegisterSchema(py::module_& m) {
  py::class_<Column>(m, "Column",
                     "A column of a data spec or an introspected table: name, SQL type, keys, and the "
                     "grammar expression its values come from (\"\" derives one from the type).")
      .def(py::init([](std::string name, std::string type, bool primary, bool indexed,
                       bool nullable, bool auto_increment, std::string values, bool raw) {
             return Column{std::move(name), std::move(type), primary, indexed || primary,
                           nullable && !primary, auto_increment, raw, std::move(values)};
           }),
           py::arg("name"), py::arg("type") = "int", py::arg("primary") = false,
           py::arg("indexed") = false, py::arg("nullable") = true, py::arg("auto_increment") = false,
           py::arg("values") = "", py::arg("raw") = false)
      .def_readwrite("name", &Column::name, "The column name.")
      .def_readwrite("type", &Column::type, "The SQL type as written: \"int\", \"varchar(10)\", ...")
      .def_readwrite("primary", &Column::primary, "Part of the primary key.")
      .def_readwrite("indexed", &Column::indexed, "Part of any index (a primary key counts).")
      .def_readwrite("nullable", &Column::nullable, "NULL allowed.")
      .def_readwrite("auto_increment", &Column::auto_increment, "AUTO_INCREMENT.")
      .def_readwrite("values", &Column::values,
                     "A grammar expression for its data (\"_digit | NULL\"); \"\" derives one from the type.")
      .def_readwrite("raw", &Column::raw, "`type` is the whole definition after the name (RQG's `sqls`).")
      .def("__repr__", [](const Column& c) {
        return "Column(" + c.name + " " + c.type + (c.primary ? " primary" : c.indexed ? " indexed" : "") + ")";
      });

  py::class_<Table>(m, "Table",
                    "A table (or view) of a data spec: columns, row count, engine, database, extra "
                    "CREATE TABLE options and index definitions.")
      .def(py::init([](std::string name, std::vector<Column> columns, uint64_t rows,
                       std::string engine, bool view, std::string database) {
             Table t;
             t.name = std::move(name);
             t.columns = std::move(columns);
             t.rows = rows;
             t.engine = std::move(engine);
             t.view = view;
             t.database = std::move(database);
             return t;
           }),
           py::arg("name"), py::arg("columns"), py::arg("rows") = 0, py::arg("engine") = "",
           py::arg("view") = false, py::arg("database") = "")
      .def_readwrite("name", &Table::name, "The table name.")
      .def_readwrite("columns", &Table::columns, "Its Columns, in order.")
      .def_readwrite("rows", &Table::rows, "How many rows the loader puts in it.")
      .def_readwrite("engine", &Table::engine, "The storage engine; \"\" is the server's default.")
      .def_readwrite("view", &Table::view, "A view rather than a base table.")
      .def_readwrite("temporary", &Table::temporary,
                     "Every session also makes a TEMPORARY TABLE twin of it (same definition and rows), "
                     "which hides the base table from that session.")
      .def_readwrite("database", &Table::database, "Its database; \"\" is the schema's first.")
      .def_readwrite("options", &Table::options,
                     "More CREATE TABLE options: \"PARTITION BY KEY (pk) PARTITIONS 2\".")
      .def_readwrite("keys", &Table::keys, "More index definitions: [\"KEY k (k, c)\"].")
      .def("__repr__", [](const Table& t) {
        return "Table(" + t.name + ", " + std::to_string(t.columns.size()) + " columns, " +
               std::to_string(t.rows) + " rows)";
      });

  py::class_<Schema>(m, "Schema")
      .def(py::init<std::vector<std::string>, std::vector<Table>>(),
           py::arg("databases"), py::arg("tables"))
      .def_static("rqg_default", &Schema::RqgDefault)
      .def_static("random", [](uint64_t seed, int tables, uint64_t max_rows, const std::string& database) {
        RandomSchemaOptions o;
        o.tables = tables;
        o.max_rows = max_rows;
        o.database = database;
        return RandomSchema(seed, o);
      }, py::arg("seed"), py::arg("tables") = 0, py::arg("max_rows") = 200, py::arg("database") = "test")
      .def_static("from_json", &Schema::FromJson, py::arg("text"), py::arg("file") = "<json>")
      .def_static("from_json_file", &Schema::FromJsonFile)
      .def("to_json", &Schema::ToJson)
      .def_property_readonly("databases", &Schema::databases)
      .def_property_readonly("tables", &Schema::tables)
      .def_property("charsets", &Schema::charsets, &Schema::set_charsets)
      .def_property("collations", &Schema::collations, &Schema::set_collations);

}

// A parsed grammar and what a Python rule is handed.
void RegisterGrammarModel(py::module_& m) {
  py::class_<Grammar, std::shared_ptr<Grammar>>(m, "Grammar")
      .def(py::init<>())
      .def("add_file", &Grammar::AddFile)
      .def("add_text", &Grammar::AddText, py::arg("text"), py::arg("file") = "<string>")
      .def("define", [](Grammar& g, const std::string& name, py::function fn) {
        g.DefineCallback(name, PyRule{HoldWithGil(std::move(fn)), name});
      })
      .def("finish", &Grammar::Finish)
      .def_property("trusted_perl", &Grammar::trusted_perl, &Grammar::set_trusted_perl,
                    "whether its Perl may run processes, open files and load native code")
      .def_property_readonly("rules", [](const Grammar& g) {
        std::vector<std::string> names;
        for (const Rule& r : g.rules()) names.push_back(r.name);
        return names;
      })
      .def("alternatives", [](const Grammar& g, const std::string& rule) {
        const int i = g.FindRule(rule);
        if (i < 0) throw py::key_error(rule);
        return g.rules()[i].alternatives.size();
      })
      .def_property_readonly("no_oracles", [](const Grammar& g) {
        std::vector<std::tuple<std::string, std::vector<std::string>, std::string>> out;
        for (const Rule& r : g.rules())
          if (!r.no_oracles.empty()) out.emplace_back(r.name, r.no_oracles, r.where.ToString());
        return out;
      }, "(rule, oracle names, 'file:line:col') of each rule with ==NO_ORACLES:...==")
      .def_property_readonly("alternative_count", &Grammar::alternative_count)
      .def_property_readonly("warnings", &Grammar::warnings)
      .def_property_readonly("undefined_words", [](const Grammar& g) {
        std::vector<std::string> words;
        for (const auto& [w, where] : g.undefined_words()) words.push_back(w);
        return words;
      })
      .def_property_readonly("perl_blocks", [](const Grammar& g) { return g.perl_blocks().size(); })
      .def_property_readonly("sources", &Grammar::sources)
      .def("source_text", [](const Grammar& g, const std::string& source) {
        return py::bytes(g.source_text(source));
      });

  py::class_<RuleContext>(m, "RuleContext",
                          "What a Python rule sees while it runs (valid only during the call): "
                          "recorded draws, expansion of other rules, the worker and the last table.")
      .def("below", [](RuleContext& c, uint64_t n) {
        if (n == 0) throw py::value_error("below(n) needs n > 0");
        return c.rng().Below(n);
      }, py::arg("n"), "A recorded draw from 0 .. n-1.")
      .def("range", [](RuleContext& c, int64_t lo, int64_t hi) {
        if (lo > hi) throw py::value_error("range(lo, hi) needs lo <= hi");
        return c.rng().Range(lo, hi);
      }, py::arg("lo"), py::arg("hi"), "A recorded draw from lo .. hi, both included.")
      .def("choice", [](RuleContext& c, const py::sequence& items) {
        if (items.size() == 0) throw py::value_error("choice() of an empty sequence");
        return items[c.rng().Below(items.size())];
      }, py::arg("items"), "One of `items`, by a recorded draw.")
      .def("expand", &RuleContext::Expand, py::arg("name"),
           "The text of a rule or built-in (\"_digit\") expanded here, in this statement.")
      .def_property_readonly("thread_id", &RuleContext::thread_id, "The worker number (1-based, RQG's threadN).")
      .def_property_readonly("last_table", &RuleContext::last_table,
                             "The table `_table` named last in this worker (\"\" if none yet).")
      .def("__repr__", [](const RuleContext& c) {
        return "RuleContext(thread " + std::to_string(c.thread_id()) + ", last table '" + c.last_table() + "')";
      });

}

// Generation: generators, their statements and coverage.
void RegisterGeneration(py::module_& m) {
  py::class_<Statement>(m, "Statement",
                        "One generated query: its text, replay key, recorded choices and what they decided.")
      .def_readonly("text", &Statement::text)
      .def_property_readonly("index", [](const Statement& s) { return s.key.index; })
      .def_readonly("rule", &Statement::rule)
      .def_property_readonly("key", [](const Statement& s) { return ToPython(s.key.ToJson()); })
      .def_property_readonly("choices", [](const Statement& s) { return ToList(s.choices); },
                             "The draws as (value, bound) pairs, what replay takes.")
      .def_readonly("choice_names", &Statement::choice_names,
                    "What each draw decided: \"query: alternative 2 of 3\", \"_digit: 7 of 10\", ...")
      .def("__repr__", [](const Statement& s) {
        std::string text = s.text.size() > 60 ? s.text.substr(0, 57) + "..." : s.text;
        std::string names;
        for (size_t i = 0; i < s.choice_names.size() && i < 3; ++i) names += s.choice_names[i] + "; ";
        if (s.choice_names.size() > 3) names += "...; ";
        return "Statement(thread " + std::to_string(s.key.thread) + ", query " + std::to_string(s.key.index) +
               ", " + std::to_string(s.choices.size()) + " choices: " + names +
               py::repr(py::str(text)).cast<std::string>() + ")";
      });

  py::class_<Coverage>(m, "Coverage")
      .def(py::init<>())
      .def_readonly("rules", &Coverage::rules)
      .def_readonly("rule_hits", &Coverage::rule_hits)
      .def_readonly("first_alternative", &Coverage::first_alternative)
      .def_readonly("alternative_hits", &Coverage::alternative_hits)
      .def("merge", &Coverage::Merge)
      .def("unreached_rules", &Coverage::UnreachedRules)
      .def("unreached_alternatives", &Coverage::UnreachedAlternatives);

  py::class_<Generator>(m, "Generator")
      .def(py::init([](std::shared_ptr<Grammar> grammar, const Schema& schema, uint64_t seed,
                       int thread_id, int thread_count, int max_depth) {
             GeneratorOptions o;
             o.seed = seed;
             o.thread_id = thread_id;
             o.thread_count = thread_count;
             o.max_depth = max_depth;
             return std::make_unique<Generator>(std::move(grammar), schema, o);
           }),
           py::arg("grammar"), py::arg("schema"), py::arg("seed") = 1, py::arg("thread_id") = 1,
           py::arg("thread_count") = 1, py::arg("max_depth") = 64)
      .def("next", [](Generator& g) {
        std::string text;
        {
          py::gil_scoped_release release;
          text = g.Next();
        }
        return text;
      })
      .def("next_statement", [](Generator& g) {
        py::gil_scoped_release release;
        return g.NextStatement();
      })
      .def("generate", [](Generator& g, size_t n) {
        std::vector<std::string> out;
        out.reserve(n);
        {
          py::gil_scoped_release release;
          for (size_t i = 0; i < n; ++i) out.push_back(g.Next());
        }
        return out;
      }, py::arg("n"))
      .def("write", [](Generator& g, uint64_t n, int fd, bool semicolons) {
        py::gil_scoped_release release;
        return WriteQueries(g, n, fd, semicolons);
      }, py::arg("n"), py::arg("fd"), py::arg("semicolons") = false)
      .def("advance", [](Generator& g, size_t n) {
        // Generates and discards n queries (to skip ahead, or to time the
        // engine alone); returns the bytes generated.
        py::gil_scoped_release release;
        size_t bytes = 0;
        for (size_t i = 0; i < n; ++i) bytes += g.Next().size();
        return bytes;
      }, py::arg("n"))
      .def("next_key", [](const Generator& g) { return ToPython(g.NextKey().ToJson()); })
      .def("replay", [](Generator& g, const py::handle& key, const py::object& choices, bool strict,
                        const std::string& rule) {
        const ReplayKey k = ReplayKey::FromJson(FromPython(key), "<replay key>");
        std::optional<ChoiceSeq> seq;
        if (!choices.is_none()) seq = FromList(choices);
        py::gil_scoped_release release;
        return g.Replay(k, seq ? &*seq : nullptr, strict, rule);
      }, py::arg("key"), py::arg("choices") = py::none(), py::arg("strict") = true, py::arg("rule") = "")
      .def("coverage", &Generator::coverage)
      .def_property_readonly("count", &Generator::count)
      .def_property_readonly("seed", [](const Generator& g) { return g.options().seed; })
      .def_property_readonly("thread_id", [](const Generator& g) { return g.options().thread_id; });

  m.def("split_statements", static_cast<std::vector<std::string_view> (*)(std::string_view)>(&SplitStatements), py::arg("query"),
        "Splits one generated query into statements, as RQG does.");
}

}  // namespace

void RegisterGrammar(py::module_& m) {
  RegisterSchema(m);
  RegisterGrammarModel(m);
  RegisterGeneration(m);
}

}  // namespace gauntlet::bindings
