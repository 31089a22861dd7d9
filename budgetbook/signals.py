"""SIGTERM, SIGHUP and SIGINT as one exception, so every `finally` runs and no temporary file is left behind.

By default SIGTERM and SIGHUP end the process on the spot: an atomic write
(`atomic.atomic_output`) would leave its `.tmp` file in the destination's
folder. Raised as `Terminated` instead, they unwind the stack, and `cli.main`
says one line. Ctrl-C (SIGINT) is raised the same way rather than as
KeyboardInterrupt, which typer turns into a silent exit 130.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

HANDLED = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class Terminated(BaseException):  # noqa: N818  like KeyboardInterrupt: not an Exception, so nothing swallows it
    """The process was asked to stop by a signal."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum
        self.signal_name = signal.Signals(signum).name


def _raise(signum: int, _frame) -> None:
    raise Terminated(signum)


@contextlib.contextmanager
def signals_as_exceptions() -> Iterator[None]:
    """Within the block, SIGTERM, SIGHUP and SIGINT raise `Terminated` (main thread only: others cannot)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _raise) for sig in HANDLED}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
