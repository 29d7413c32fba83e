"""Getting a run's targets ready: each one's server started (or reached by its DSN), its data
loaded or copied from a cached template, its first connection and what a comparison needs to know
about it. A server that will not start, or dies while loading, is a finding that ends the run
(Stop), never an error of Gauntlet."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import sys
import time
from typing import Optional

from .. import _core
from ..grammar import Schema
from ..server import ManagedServer, ServerError, Target, parse_dsn
from . import templates
from .plan import RunPlan


class Stop(Exception):
    """Ends a run early at a safe point; the summary says why."""

    def __init__(self, reason: str, finding: Optional[dict] = None):
        super().__init__(reason)
        self.reason = reason
        self.finding = finding


# Server options that decide what a loaded datadir holds: formats, character sets, modes, and what
# an expression of a generated column or default reads. A data template is kept per set of these;
# runs that differ in other options (optimizer, buffers, flushing, caches, logs: a campaign's rows)
# share one.
_DATA_OPTIONS = re.compile(
    r"^(innodb_(page_size|data_file_path|data_home_dir|undo|checksum|log_file_size|default_row_format|compression|"
    r"file_per_table|encrypt|strict_mode)|innodb$|skip_innodb|ignore_builtin_innodb|lower_case_table_names|"
    r"character_set|collation|default_storage_engine|default_tmp_storage_engine|sql_mode|"
    r"explicit_defaults_for_timestamp|default_time_zone|time_zone|lc_time_names|div_precision_increment|"
    r"default_week_format|old_mode|old$|encrypt|file_key_management|plugin|init_file|aria_block_size|"
    r"max_allowed_packet|system_versioning|secure_timestamp)")


def data_options(mysqld) -> list:
    """The options of ``mysqld`` that a data template depends on (_DATA_OPTIONS)."""
    def name(option: str) -> str:
        return option.lstrip("-").split("=", 1)[0].replace("-", "_").lower()
    return sorted(str(o) for o in mysqld or [] if _DATA_OPTIONS.match(name(str(o))))


def load(conn, spec: Schema, seed: int, info: dict, interrupts, strict: bool) -> None:
    t0 = time.monotonic()
    source = getattr(spec, "_source", "")
    try:
        info["load"] = _core.load_schema(conn, spec._s, seed, strict, lambda: bool(interrupts))
    except _core.InvalidInput as e:  # a value expression that does not compile
        raise _core.InvalidInput(f"data {source}: {e}".replace("data : ", "data: ")) from None
    except _core.GauntletError as e:
        raise _core.InvalidInput(f"data {source}: the server refused it: {e}".replace("data : ", "data: ")) from None
    info["load"]["rows_per_second"] = info["load"]["rows"] / max(info["load"]["seconds"], 1e-9)
    info["ready_with_data_seconds"] = info.get("server_ready_seconds", 0) + (time.monotonic() - t0)
    warnings = info["load"]["warnings"]
    for warning in warnings[:5]:
        print(f"gauntlet: data: skipped: {warning.splitlines()[0][:300]}", file=sys.stderr)
    if len(warnings) > 5:
        print(f"gauntlet: data: ... {len(warnings) - 5} more (summary.json: load.warnings)", file=sys.stderr)
    if interrupts:
        raise Stop("interrupted")


def finding_from_start(error: Exception) -> dict:
    """A server that will not start is a finding of the run, recorded like any other."""
    lines = list(getattr(error, "log_errors", []))
    first = lines[0] if lines else str(error).splitlines()[0]
    signature = "start: " + re.sub(r"^[\d\- :]+(\d+ )?", "", first)  # without the timestamp
    return {"kind": "start", "at": 0, "signature": signature, "detail": str(error), "thread": 0, "statement": ""}


def with_engine(spec: Optional[Schema], engine: Optional[str]) -> Optional[Schema]:
    """``spec`` with every table created by ``engine``."""
    if spec is None or not engine:
        return spec
    j = json.loads(spec.to_json())
    for table in j.get("tables", []):
        if not table.get("view"):
            table["engine"] = engine
    return Schema.from_json(json.dumps(j))


def prepare_target(target: Target, plan: RunPlan, interrupts, info: dict, started: list):
    """Starts (or reaches) one target's server and gives it the run's data. Returns (ManagedServer or None,
    its ConnectionParams, the schema it holds). A server that will not start, or dies while loading,
    ends the run with a finding that names the target."""
    count, settings, out = len(plan.targets), plan.settings, plan.out
    managed: Optional[ManagedServer] = None
    params = None
    options = list(plan.mysqld or []) + target.mysqld()
    if isinstance(target.server, ManagedServer):
        managed = target.server
    elif target.is_dsn:
        params = parse_dsn(target.server)
    else:
        binary = target.binary
        server_dir = out / ("server" if count == 1 else f"server-{target.name}")
        if plan.overwrite and server_dir.exists():
            remove_stopped_server(server_dir)
        # A kept server outlives the command (`gauntlet server stop` ends it).
        managed = ManagedServer(server_dir, binary=binary, mysqld=options, die_with_parent=not plan.keep_server)
    spec = with_engine(plan.spec, target.engine)
    template = made = None
    spec_loaded = False
    if managed is not None and spec is not None and plan.data_template and not managed.alive:
        made = templates.made_record(managed.binary, data_options(options or managed.mysqld), spec.to_json(),
                                     settings["seed"])
        template = templates.template_path(made)
        if not os.path.exists(managed.datadir) and templates.usable(template, made):
            t0 = time.monotonic()
            _core.copy_datadir(str(template / "data"), managed.datadir)
            info["load"] = {"from_template": str(template), "copy_seconds": round(time.monotonic() - t0, 3)}
            spec_loaded = True
    if managed is not None:
        if not managed.alive:
            try:
                managed.start()
            except ServerError as e:
                finding = finding_from_start(e)
                finding["targets"] = [target.name]
                raise Stop("start", finding=finding) from None
            started.append(managed)
        params = managed.connection
        info["server_ready_seconds"] = managed.ready_seconds
    info["server"] = str(params)
    if interrupts:
        raise Stop("interrupted")

    conn = first_connection(params, managed, settings["hang_timeout"])
    if target.is_dsn:
        for statement in target.session_setup():
            outcome, _, _ = conn.execute(statement)
            if outcome["kind"] != "ok":
                raise _core.InvalidInput(f"targets: {target.name}: {statement}: {outcome['message']}")
    info["server_info"] = server_info(conn, managed, out, "" if count == 1 else target.name)
    try:
        schema = prepare_data(conn, managed, spec, spec_loaded, (template, made), params, settings, info, interrupts)
    except (_core.GauntletError, _core.InvalidInput) as e:
        if managed is not None and died(managed):  # the server died under the load
            finding = crash_finding(managed, "while loading data", e)
            finding["targets"] = [target.name]
            raise Stop("crash", finding=finding) from None
        raise
    return managed, params, schema


def prepare_data(conn, managed, spec, spec_loaded, cached, params, settings, info, interrupts):
    """Loads the data (or takes it from a template) and reads the schema back. ``cached``: the
    template's path and made record, or (None, None)."""
    template, made = cached
    if spec is not None and not spec_loaded:
        held = _core.hold_statistics(conn)
        load(conn, spec, settings["seed"], info, interrupts, strict=not getattr(spec, "_lenient", False))
        # Plans, and speeds, must not depend on when InnoDB's background statistics last ran.
        info["statistics"] = _core.settle_statistics(conn, list(spec.databases), held)
        if template is not None:  # keep this datadir for the next runs
            del conn
            managed.stop()
            templates.publish(managed.datadir, template, made, spec.to_json(), info["statistics"])
            info["load"]["template"] = str(template)
            managed.start()
            conn = _core.Connection.open(params)
    elif template is not None:  # the copy, then the start
        info["ready_with_data_seconds"] = info["load"]["copy_seconds"] + managed.ready_seconds
        statistics = template / "statistics.json"
        if statistics.exists():
            info["statistics"] = json.loads(statistics.read_text())
    databases = list(spec.databases) if spec is not None else []
    return _core.introspect_schema(conn, databases)


def first_connection(params, managed: Optional[ManagedServer], patience: float):
    """The run's first session. A server that answers but refuses (too many connections)
    for ``patience`` seconds is an "unreachable" finding; a DSN where nothing answers, and a
    login the server refuses (access denied, unknown database), are usage errors at once."""
    deadline = time.monotonic() + (patience or 60)
    while True:
        try:
            return _core.Connection.open(params)
        except _core.InvalidInput:  # a wrong password, user or database: no wait mends it
            raise
        except _core.GauntletError as e:
            answers = managed.alive if managed is not None else _core.server_answers(params)
            if not answers:
                if managed is None:
                    raise _core.InvalidInput(f"server: {e}") from None
                raise
            if time.monotonic() > deadline:
                raise Stop("unreachable", finding={
                    "kind": "unreachable", "at": 0, "signature": "unreachable: " + str(e).split(": ")[-1],
                    "detail": f"the server answers but refused connections for {patience:g} s: {e}",
                    "thread": 0, "statement": ""}) from None
            time.sleep(0.1)


def server_info(conn, managed: Optional[ManagedServer], out: pathlib.Path, target: str = "") -> dict:
    """What a comparison of runs needs to know about the server: its version, binary and command
    line (Gauntlet's own options included), and every variable (in OUT/server_variables.json)."""
    _, _, rows = conn.execute("SELECT VERSION()")
    info = {"version": rows[0][0] if rows else None,
            "binary": managed.binary if managed is not None else None,
            "command_line": managed.command_line if managed is not None else None}
    outcome, _, rows = conn.execute("SHOW GLOBAL VARIABLES")
    if outcome["kind"] == "ok":
        try:
            name = f"server_variables-{target}.json" if target else "server_variables.json"
            (out / name).write_text(json.dumps(dict(rows), indent=1, sort_keys=True) + "\n")
            info["variables"] = name
        except OSError as e:
            print(f"gauntlet: cannot write {out / name}: {e.strerror}", file=sys.stderr)
    return info


def died(managed: ManagedServer, patience: float = 10) -> bool:
    """True when the server is gone or going: a crashing server still writes its report
    for a moment after its connections dropped."""
    deadline = time.monotonic() + patience
    while managed.alive:
        try:
            managed.connect()
            return False
        except _core.GauntletError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
    return True


def crash_finding(managed: ManagedServer, phase: str, error: Exception) -> dict:
    crash = managed.crash()
    signature = crash["signature"] or "crash: no report in the error log"
    return {"kind": "crash", "at": 0, "signature": signature, "detail": f"{phase}: {error}\n{crash['log_excerpt']}",
            "thread": 0, "statement": "", "crash": crash}


def remove_stopped_server(dir: pathlib.Path) -> None:
    """Clears an earlier run's server folder, unless a server still runs there or it is not one that
    Gauntlet started (none of its files: a user's folder of that name)."""
    info = dir / "server.json"
    if any(dir.iterdir()) and not any((dir / name).exists() for name in ("server.json", "stdout.log", "error.log")):
        raise _core.InvalidInput(f"out: {dir} is not a server folder of an earlier run (no server.json, stdout.log "
                                 "or error.log); Gauntlet replaces only what a run of its own left: choose another "
                                 "--out")
    if info.exists() and ManagedServer.attach(dir).alive:
        raise _core.InvalidInput(f"out: the earlier run's server in {dir} is still running; "
                                 f"stop it with: gauntlet server stop --dir {dir}")
    shutil.rmtree(dir)
