"""What a run does with signals and its progress line: both are the terminal's side of a run."""

from __future__ import annotations

import signal
import threading
import time
from typing import Callable, Optional


class Stopped(KeyboardInterrupt):
    """A signal (SIGINT, SIGTERM, SIGHUP) stopped a run, bench or campaign after it wrote what it
    had and stopped its servers. ``signum``: the signal (the command line exits 128 + signum);
    ``result``: the stopped run's RunResult (None for bench and campaign: their folders hold what
    was done). A KeyboardInterrupt, so that Ctrl-C in Python or a notebook stops the caller too."""

    def __init__(self, signum: int, result=None):
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum
        self.result = result


def raise_if_signalled(result):
    """``result`` (a RunResult) unless a signal stopped its run: then Stopped carrying it."""
    name = result.summary().get("signal")
    if name:
        raise Stopped(int(getattr(signal.Signals, name)), result)
    return result


def progress_printer(stream) -> Callable:
    """A progress callback printing one line a second: on a terminal in place, else as plain lines."""
    state = {"t0": time.monotonic(), "n": 0}

    def tick(second):
        if second is None:
            return False
        state["n"] += second["statements"]
        errors = sum(v for k, v in second["outcomes"].items() if k != "ok")
        line = (f"[{second['t']:6.0f}s] {second['statements']:>8,} stmt/s  p95 {second['p95_ms']:8.2f} ms  "
                f"errors/s {errors:>6,}  total {state['n']:,}")
        if second.get("verified"):  # statements an oracle checked through
            line += f"  verified/s {second['verified']:,}"
        if stream.isatty():
            stream.write("\r" + line)
        else:
            stream.write(line + "\n")
        stream.flush()
        return False
    return tick


_ignoring_after_a_stop = False


def ignore_signals_after_a_stop() -> None:
    """For a process that ends when a signal stops its run (the command line): from then on SIGINT,
    SIGTERM and SIGHUP are ignored while it finishes and exits, so that a second one sent right after
    the first (as process supervisors do) cannot kill it with its results half written."""
    global _ignoring_after_a_stop
    _ignoring_after_a_stop = True


class Interrupts:
    """While a run lasts, SIGINT, SIGTERM and SIGHUP only set a flag.

    The run then ends at the next safe point (the executor's tick, between
    load batches, between the steps of a run) and still writes its results
    and stops its server; a second signal does not break that. Only the main
    thread can take signals; elsewhere (a background Run) this does nothing.
    """

    SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))

    def __init__(self):
        self.signum: Optional[int] = None
        self._previous: dict = {}

    def __enter__(self) -> "Interrupts":
        if threading.current_thread() is threading.main_thread():
            for s in self.SIGNALS:
                try:
                    self._previous[s] = signal.signal(s, self._handle)
                except (OSError, ValueError):
                    pass
        return self

    def _handle(self, signum, frame) -> None:
        if self.signum is None:
            self.signum = signum

    def __exit__(self, *exc) -> None:
        ignore = self.signum is not None and _ignoring_after_a_stop
        for s, handler in self._previous.items():
            signal.signal(s, signal.SIG_IGN if ignore else handler)

    def __bool__(self) -> bool:
        return self.signum is not None


# Settings of a run: name -> (kind, low, high). The CLI and config files use
