"""Data specs: what tables a run creates and what rows it loads.

Two formats: our JSON (a Schema with row counts and per-column value
expressions, see grammars/oltp/sbtest.json) and RQG's `.zz` files, which are
Perl: they are evaluated by the same embedded Perl that runs grammar blocks,
then expanded the way RQG's gendata does (tables are the product of rows x
engines x charsets x collations x partitions x pk x row_formats x options,
columns the product of types x null x default x sign x indexes x charsets x
collations). Differences from RQG: column order is kept as declared (RQG
shuffles it), and rows go in 1000 per INSERT (RQG: 50).
"""

from __future__ import annotations

import itertools
import json
import os
import re

from .. import _core, stock
from .grammar import Schema

_NUMERIC = {"tinyint", "smallint", "mediumint", "int", "integer", "bigint", "decimal", "dec", "numeric",
            "fixed", "float", "double", "real", "bit", "bool", "boolean"}
_TEMPORAL = {"date", "time", "datetime", "timestamp", "year"}
_BLOB = {"blob", "tinyblob", "mediumblob", "longblob", "binary", "varbinary"}


def load_data_spec(path: str, *, trusted_perl: bool = False) -> Schema:
    """A Schema from a JSON data spec or an RQG .zz file. A .zz file's Perl runs restricted as
    grammar code does (see Grammar) unless ``trusted_perl``."""
    path = stock.resolve(path)
    if not os.path.exists(path):
        raise _core.InvalidInput(f"{path}: data spec not found")
    if os.path.isdir(path):
        raise _core.InvalidInput(f"{path}: a data spec is a file, not a folder")
    if path.endswith(".json"):
        schema = Schema.from_json(path)
        schema._source = path
        return schema
    if ".zz" in os.path.basename(path):
        with open(path) as f:
            spec = json.loads(_core.perl_data_to_json(f.read(), path, trusted_perl))
        schema = schema_from_zz(spec, path)
        schema._lenient = True  # like RQG's gendata: tables the server refuses are skipped
        schema._source = path
        return schema
    raise _core.InvalidInput(f"{path}: unknown data spec format (expected .json or .zz)")


def _list(spec: dict, keys, default):
    """A .zz list setting (several spellings), with RQG's default."""
    for key in keys:
        if spec and key in spec and spec[key] is not None:
            value = spec[key]
            return value if isinstance(value, list) else [value]
    return default


def _sanitize(text: str) -> str:
    return re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9]", "_", text)).strip("_")


def _value_token(item, kind: str) -> str:
    """One item of a $data list as a grammar token."""
    if item is None:
        return ""
    if isinstance(item, (int, float)):
        return str(item)
    name = str(item)
    if name.lower() == "null":
        return "NULL"
    if name == "letter":
        return "_char(1)"  # a quoted letter: it must be a string value
    if re.fullmatch(r"[a-z_]+(\(\d+(,\d+)?\))?", name):
        return "_" + name
    return "'" + name.replace("'", "''") + "'"


def _values(column: "_core.Column", base: str, data: dict) -> str:
    if base in _NUMERIC:
        items = _list(data, ["numbers"], None)
    elif base in _TEMPORAL:
        items = _list(data, ["temporals"], None)
    elif base in _BLOB:
        items = _list(data, ["blobs"], None)
    elif base in ("enum", "set"):
        items = _list(data, ["enum", "strings"], None)
    else:
        items = _list(data, ["strings"], None)
    if not items:
        return ""
    # undef in a $data list means "a value of the column's type".
    plain = _core.Column(column.name, column.type, nullable=False)
    default = _core.default_values(plain)
    tokens = [_value_token(i, base) or default for i in items]
    return " | ".join(tokens)


def schema_from_zz(spec: dict, file: str = "<zz>") -> Schema:
    tables_spec = spec.get("tables") or {}
    fields_spec = spec.get("fields") or {}
    data = spec.get("data") or {}
    databases = _list(spec, ["schemas"], ["test"])

    columns = []
    for sql in _list(fields_spec, ["sqls"], []):
        m = re.match(r"\s*`([^`]+)`\s+(.*)", sql, re.S) or re.match(r"\s*(\S+)\s+(.*)", sql, re.S)
        if not m:
            raise _core.InvalidInput(f"{file}: cannot read column definition {sql!r}")
        definition = m.group(2).strip()
        lower = definition.lower()
        col = _core.Column(m.group(1), definition, raw=True, nullable="not null" not in lower,
                           auto_increment="auto_increment" in lower)
        base = re.match(r"[a-z]+", lower).group(0)
        col.values = "NULL" if col.auto_increment else _values(col, base, data)
        columns.append(col)

    types = _list(fields_spec, ["types"], ["int", "varchar", "date", "time", "datetime"])
    if types == [None]:
        types = []
    names_seen = set()
    for type_, null, default, sign, index, charset, collation in itertools.product(
            types, _list(fields_spec, ["null"], [None]), _list(fields_spec, ["default"], [None]),
            _list(fields_spec, ["sign"], [None]), _list(fields_spec, ["indexes", "keys"], [None, "key"]),
            _list(fields_spec, ["charsets"], [None]), _list(fields_spec, ["collations"], [None])):
        if type_ is None:
            continue
        base = re.match(r"[a-z]+", type_.lower()).group(0)
        if null and "not" in str(null).lower() and default and "null" in str(default).lower():
            continue  # NOT NULL DEFAULT NULL cannot be created
        is_char = base in ("char", "varchar", "text", "tinytext", "mediumtext", "longtext", "enum", "set")
        if base not in _NUMERIC:
            sign = None
        if not is_char:
            charset = collation = None
        ddl = type_
        if base in ("char", "varchar") and "(" not in type_:
            ddl += "(1)"
        if base in ("enum", "set") and "(" not in type_:
            ddl += "(" + ",".join(f"'{c}'" for c in "abcdefghijklmnopqrstuvwxyz") + ")"
        if sign:
            ddl += f" {sign}"
        if charset:
            ddl += f" CHARACTER SET {charset}"
        if collation:
            ddl += f" COLLATE {collation}"
        if null:
            ddl += f" {null}"
        if default:
            ddl += f" {default}"
        parts = ["col", type_, sign, charset, collation, "not_null" if null and "not" in str(null).lower() else None,
                 "default" if default else None, "key" if index else None]
        name = _sanitize("_".join(str(p) for p in parts if p))
        while name in names_seen:
            name += "_2"
        names_seen.add(name)
        col = _core.Column(name, ddl, raw=True, nullable=not (null and "not" in str(null).lower()))
        col.indexed = bool(index)
        col.values = _values(col, base, data)
        columns.append(col)

    keys = list(_list(fields_spec, ["index_sqls"], []))
    # Mark the columns the raw index definitions cover, for `_field_pk` and
    # `_field_indexed` in grammars run without a server (gensql).
    by_name = {c.name: c for c in columns}
    for key in keys:
        m = re.search(r"\(([^)]*)\)", key)
        for name in (re.sub(r"[`\s]|\(\d+\)", "", n) for n in (m.group(1).split(",") if m else [])):
            if name in by_name:
                by_name[name].indexed = True
                if key.strip().upper().startswith("PRIMARY"):
                    by_name[name].primary = True
    keys += [f"KEY (`{c.name}`)" for c in columns if c.indexed and c.raw and not c.primary
             and not c.type.lower().endswith(("text", "blob")) and "text" not in c.type.lower()]

    tables = []
    names = _list(tables_spec, ["names"], [])
    used = set()
    combos = itertools.product(
        _list(tables_spec, ["rows"], [0, 1, 2, 10, 100]), _list(tables_spec, ["engines"], [None]),
        _list(tables_spec, ["charsets"], [None]), _list(tables_spec, ["collations"], [None]),
        _list(tables_spec, ["partitions"], [None]), _list(tables_spec, ["pk", "primary_key"], ["integer auto_increment"]),
        _list(tables_spec, ["row_formats"], [None]), _list(tables_spec, ["options"], [None]))
    for i, (rows, engine, charset, collation, partition, pk, row_format, options) in enumerate(combos):
        if i < len(names) and names[i]:
            name = names[i]
        else:
            pk_name = None
            if pk:
                pk_name = pk.lower().replace("integer", "int").replace("auto_increment", "autoinc")
            name = _sanitize("_".join(str(p) for p in (f"table{rows}", engine, charset, collation,
                                                        "p" if partition else None, pk_name,
                                                        row_format) if p))
        base_name = name
        n = 2
        while name in used:
            name = f"{base_name}_{n}"
            n += 1
        used.add(name)
        table_columns = []
        if pk:
            lower = pk.lower()
            pk_col = _core.Column("pk", re.sub(r"\s*auto_increment", "", pk, flags=re.I), primary=True,
                                  auto_increment="auto_increment" in lower)
            pk_col.values = "NULL" if pk_col.auto_increment else "_int_unsigned"
            table_columns.append(pk_col)
        table_columns += columns
        table_options = []
        if charset:
            table_options.append(f"CHARACTER SET {charset}")
        if collation:
            table_options.append(f"COLLATE {collation}")
        if row_format:
            table_options.append(f"ROW_FORMAT={row_format}")
        if options:
            table_options.append(options)
        if partition:
            table_options.append(f"PARTITION BY {partition}")
        for db in databases:
            t = _core.Table(name, table_columns, rows=int(rows or 0), engine=engine or "", database=db)
            t.options = " ".join(table_options)
            t.keys = keys
            tables.append(t)
    return Schema(tables, databases)
