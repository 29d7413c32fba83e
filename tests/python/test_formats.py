"""One definition per output file (data/formats): C++ and Python write and read the same shapes."""

import inspect
import json
import subprocess
import sys

import pytest

import gauntlet
from gauntlet import _core, formats
from gauntlet.runs.plan import RUN_DEFAULTS

from conftest import REPO, check_output_files

TOUR = REPO / "examples" / "tour.yy"


def test_every_schema_is_a_valid_versioned_document():
    import jsonschema
    assert set(formats.names()) >= {"summary", "finding", "event", "statement", "run", "campaign",
                                     "campaign-row", "verdict", "query-classes", "reduction", "attempt"}
    for name in formats.names():
        schema = formats.schema(name)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$id"] == name and formats.version(name) >= 1
        assert schema["x-file"] and schema["x-written-by"]


def test_a_run_written_by_cpp_fits_the_formats_python_reads(tmp_path):
    r = gauntlet.run(str(TOUR), threads=1, duration=20, oracles=["tlp"], statement_log=True, out=tmp_path / "run")
    kinds = {f["kind"] for f in r.findings}
    assert {"tlp", "crash"} <= kinds, kinds
    # summary, run.json, events, findings (both files), statement log: each checked line by line
    assert check_output_files(tmp_path / "run", lines_per_file=10**6) >= 7
    first = (tmp_path / "run" / "statements-1.jsonl").read_text().splitlines()[0]
    assert json.loads(first)["format"] == formats.version("statement")
    events = [json.loads(x) for x in (tmp_path / "run" / "events.jsonl").read_text().splitlines()]
    assert events[0]["type"] == "start" and events[0]["format"] == formats.version("event")
    # Python reads what C++ wrote through the same definitions
    loaded = gauntlet.RunResult.load(tmp_path / "run")
    assert loaded.summary()["format"] == formats.version("summary")
    assert loaded.summary()["finding_counts"] == _core.finding_counts(loaded.summary()["findings"])
    lines = _core.read_statement_log(str(tmp_path / "run" / "statements-1.jsonl"))
    assert len(lines) == loaded.summary()["statements"] + loaded.summary()["cancelled"]


def test_a_statement_log_written_by_python_is_read_by_cpp(tmp_path):
    """The other direction: lines made from the schema's fields, one of them not UTF-8 (sql_hex)."""
    log = tmp_path / "statements-1.jsonl"
    v = formats.version("statement")
    rows = [{"format": v, "seq": 0, "thread": 1, "query": 0, "piece": 0, "start": 0.0, "end": 0.1, "outcome": "ok",
             "error": 0, "sql": "SELECT 1"},
            {"format": v, "seq": 1, "thread": 1, "query": 1, "piece": 0, "start": 0.2, "end": 0.3, "outcome": "crash",
             "error": 2013, "sql_hex": b"SELECT '\xff'".hex()}]
    for record in rows:
        formats.check("statement", record)
    log.write_text("".join(json.dumps(x) + "\n" for x in rows))
    read = _core.read_statement_log(str(log))
    assert [x["sql"] for x in read] == ["SELECT 1", b"SELECT '\xff'"]
    assert [(x["seq"], x["outcome"], x["error"]) for x in read] == [(0, "ok", 0), (1, "crash", 2013)]
    script = _core.Script.from_statement_logs([str(log)])
    assert script.statements == 2


@pytest.mark.foreign_files
def test_a_file_of_a_newer_format_is_refused_naming_it(tmp_path):
    log = tmp_path / "statements-1.jsonl"
    log.write_text(json.dumps({"format": 99, "seq": 0, "thread": 1, "sql": "SELECT 1"}) + "\n")
    with pytest.raises(_core.InvalidInput, match=r"statements-1.jsonl:1.*format 99, newer"):
        _core.read_statement_log(str(log))
    run = tmp_path / "run"
    run.mkdir()
    (run / "summary.json").write_text(json.dumps({**_core.empty_summary(), "format": 99}))
    with pytest.raises(_core.InvalidInput, match=r"summary.json: summary of format 99, newer"):
        gauntlet.RunResult.load(run)
    (run / "run.json").write_text(json.dumps({"format": 99, "seed": 1, "threads": 1}))
    (run / "statements-1.jsonl").write_text("")
    p = subprocess.run([sys.executable, "-m", "gauntlet", "replay", str(run), "--out", str(tmp_path / "again")],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "run.json: run of format 99, newer" in p.stderr, p.stderr


def test_a_record_that_drifts_from_its_schema_is_named_with_the_field():
    summary = _core.empty_summary()
    formats.check("summary", summary)
    with pytest.raises(_core.InvalidInput, match=r"summary: \(top level\): .*'surprise'"):
        formats.check("summary", {**summary, "surprise": 1})
    with pytest.raises(_core.InvalidInput, match=r"summary: outcomes: .*'ok' is a required property"):
        formats.check("summary", {**summary, "outcomes": {}})


def test_outcome_kinds_and_run_defaults_have_one_table_each():
    schema_kinds = formats.schema("summary")["properties"]["outcomes"]["required"]
    assert tuple(schema_kinds) == _core.OUTCOME_KINDS == gauntlet.results.KINDS
    assert list(_core.empty_summary()["outcomes"]) == sorted(_core.OUTCOME_KINDS)
    executor = _core.RunOptions()
    parameters = inspect.signature(gauntlet.run).parameters
    for name in ("threads", "duration", "queries", "seed", "rate", "statement_timeout", "hang_timeout",
                 "generate_timeout", "statement_log", "max_depth"):
        assert RUN_DEFAULTS[name] == getattr(executor, name) == parameters[name].default, name


def test_the_output_files_reference_is_generated_from_the_schemas():
    doc = (REPO / "docs" / "reference" / "output-files.md").read_text()
    begin, end = "<!-- formats: generated by tools/gen_format_docs.py -->\n", "<!-- end of formats -->"
    assert begin in doc and end in doc
    assert doc.split(begin, 1)[1].split(end, 1)[0] == formats.markdown(), \
        "docs/reference/output-files.md is stale: run PYTHONPATH=python /usr/bin/python3 tools/gen_format_docs.py"
