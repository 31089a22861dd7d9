"""Progress on standard error, by stage, while a long command works (`budgetbook.progress` tells the stages).

Shown only where someone watches a terminal: standard error is a terminal, the output is not JSON
and the command is not `--quiet`. There, rich draws one live line (a spinner, the command, the
stage with its count, the time so far) that is erased when the work ends, before the output; with
`CI=true` (a CI runner that gives the job a terminal) each stage is one plain line instead, at most
once. Into a pipe or a file nothing is written, so the output is byte for byte what it is without.

The stage text is our own words and counts; a file name in it goes through `visible`, and the line
through the stream guard in its live mode (it keeps only colours and the line's own redrawing).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from ..progress import Stage, listening
from .emit import live_console, stderr
from .plaintext import visible


def wanted(fmt: str = "table", *, quiet: bool = False) -> str | None:
    """How progress is shown: "live" (rich), "lines" (CI=true) or None (a pipe, JSON, --quiet)."""
    stream = sys.stderr
    if quiet or fmt == "json" or not (getattr(stream, "isatty", None) and stream.isatty()):
        return None
    return "lines" if os.environ.get("CI", "").strip().lower() in ("true", "1", "yes") else "live"


@contextmanager
def shown(command: str, fmt: str = "table", *, quiet: bool = False) -> Iterator[None]:
    """Show the stages of the work inside the block, as `wanted` says; nothing at all where it says None."""
    mode = wanted(fmt, quiet=quiet)
    if mode is None:
        yield
    elif mode == "lines":
        with listening(_lines(command)):
            yield
    else:
        with _live(command) as listener, listening(listener):
            yield


def _lines(command: str):
    stream = stderr()
    seen: set[str] = set()

    def listener(stage: Stage) -> None:
        if stage.name not in seen:  # one line per stage at most, however often the work re-enters it
            seen.add(stage.name)
            stream.write(f"budgetbook {command}: {visible(stage.text)}\n")
            stream.flush()
    return listener


@contextmanager
def _live(command: str):
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}", markup=False), TimeElapsedColumn(),
                  console=live_console(), transient=True) as progress:
        task = progress.add_task(f"budgetbook {command}", total=None)

        def listener(stage: Stage) -> None:
            progress.update(task, description=f"budgetbook {command}: {visible(stage.text)}", refresh=True)
        yield listener
