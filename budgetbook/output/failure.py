"""The one place a failure becomes words: one line on standard error (behind the guard) and an exit code.

`BudgetbookError` (errors.py: the one hierarchy of problems a user can fix) is its
own line, exit 2 (its `exit_code`); a usage error from click is one line pointing
to `--help`, exit 2; a signal or Ctrl-C says no file was left half-written, exit
128 + the signal; an OSError left over is the output stream itself; anything else
is a bug, said so, exit 3 (`--debug` shows its traceback, through the guard too).
"""

from __future__ import annotations

import signal
import traceback
from typing import TYPE_CHECKING, TypeGuard

import typer

from ..atomic import describe_os_error
from ..errors import BudgetbookError
from ..signals import Terminated
from .emit import error, line, stderr

if TYPE_CHECKING:
    from click import ClickException

NOTHING_HALF_WRITTEN = "no file was left half-written (outputs are replaced only once complete)"
BUG = 3


def report_failure(exc: BaseException, *, debug: bool = False) -> int:
    """Say what went wrong in one line on standard error; return the exit code."""
    exc = _stop_within(exc)
    if isinstance(exc, BudgetbookError):
        error(exc)
        return exc.exit_code
    if isinstance(exc, typer.Abort):
        line("Aborted.", err=True)
        return 1
    if isinstance(exc, KeyboardInterrupt):
        error(f"interrupted; {NOTHING_HALF_WRITTEN}")
        return 128 + signal.SIGINT
    if isinstance(exc, Terminated):
        why = "interrupted" if exc.signum == signal.SIGINT else f"stopped by {exc.signal_name}"
        error(f"{why}; {NOTHING_HALF_WRITTEN}")
        return 128 + exc.signum
    if isinstance(exc, OSError):  # files are the api's to report; what is left is the output stream itself
        error(f"cannot write the output: {describe_os_error(exc)}")
        return 2
    if _is_usage_error(exc):
        message = exc.format_message().replace("Value error, ", "")
        if not message:
            return 0  # bare `budgetbook`: the help was the answer
        command = getattr(getattr(exc, "ctx", None), "command_path", "budgetbook")
        error(f"{message} (see `{command} --help`)")
        return 2
    if debug:
        stderr().write("".join(traceback.format_exception(exc)))
    else:
        error(f"unexpected {type(exc).__name__}: {exc} (this is a bug in budgetbook; run with --debug for the "
              "traceback)")
    return BUG


def _stop_within(exc: BaseException) -> BaseException:
    """The signal or Ctrl-C that `exc` was made from, else `exc`: Python wraps what a class's `__set_name__`
    raises in a RuntimeError (3.11), so a signal landing while a module defines a class (a module imported on
    first use) came out as a bug, exit 3."""
    cause: BaseException | None = exc
    for _ in range(8):  # a chain Python made is short; a cycle someone made is not followed forever
        if cause is None:
            break
        if isinstance(cause, (Terminated, KeyboardInterrupt)):
            return cause
        cause = cause.__cause__
    return exc


def _is_usage_error(exc: BaseException) -> TypeGuard[ClickException]:
    # typer 0.29 vendors click as typer._click; older typers raise click's own classes
    import click

    vendored = getattr(getattr(typer, "_click", None), "exceptions", None)
    classes = [click.exceptions.ClickException] + ([vendored.ClickException] if vendored else [])
    return isinstance(exc, tuple(classes))
