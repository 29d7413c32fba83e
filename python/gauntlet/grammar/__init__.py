"""Grammars and what they generate from: the grammar language, schemas and data specs."""

from .data_spec import load_data_spec, schema_from_zz
from .grammar import (BUILTIN_GRAMMARS, Column, Coverage, Generator, Grammar, RuleContext, Schema, Table,
                      split_statements)

__all__ = ["BUILTIN_GRAMMARS", "Column", "Coverage", "Generator", "Grammar", "load_data_spec", "RuleContext",
           "Schema", "schema_from_zz", "split_statements", "Table"]
