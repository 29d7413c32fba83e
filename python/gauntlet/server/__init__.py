"""Servers: ones Gauntlet starts (ManagedServer), ones it is pointed at (a DSN), sessions on
them (Connection), and the targets of a run (Target)."""

from .connection import Connection, Result
from .dsn import parse_dsn, recorded_login, redact, without_password
from .managed import (DEFAULT_BINARY, ManagedServer, ServerError, ServerRefused, check_known_options, option_list,
                      server_binary)
from .targets import Target, make_targets, parse_replica_flag, parse_target_flag

__all__ = ["check_known_options", "Connection", "DEFAULT_BINARY", "make_targets", "ManagedServer", "option_list",
           "parse_dsn", "parse_replica_flag", "parse_target_flag", "recorded_login", "redact", "Result", "server_binary",
           "ServerError", "ServerRefused", "Target", "without_password"]
