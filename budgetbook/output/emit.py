"""Where every command's output goes: standard output and error behind the guard, rich consoles, JSON, lines.

Nothing else in budgetbook writes to a stream: `cli.py` calls a renderer of
`output/` (which writes through these), never `print` or `typer.echo`, so no
text reaches the terminal without `plaintext.Guarded`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from .plaintext import Guarded, guarded, visible

if TYPE_CHECKING:
    from rich.console import Console


def stdout(out: TextIO | Guarded | None = None) -> TextIO:
    """`out` (default: the current standard output) behind the guard (a `Guarded`, typed as the stream it wraps)."""
    return cast(TextIO, guarded(out if out is not None else sys.stdout))


def stderr() -> TextIO:
    """Standard error behind the guard."""
    return cast(TextIO, guarded(sys.stderr))


def console(out: TextIO | Guarded | None, width: int = 100) -> Console:
    """A rich console on `out` behind the guard, at least `width` wide (the terminal's width where wider).

    Styles only on a terminal, whatever FORCE_COLOR says: the guard keeps colour codes there alone.
    """
    from rich.console import Console

    stream = stdout(out)
    return Console(file=stream, width=max(width, Console().width), highlight=False, force_terminal=stream.isatty())


def live_console() -> Console:
    """A rich console on standard error for a live progress line (`output/progress.py`): on a terminal only,
    behind the guard in its live mode (colours and the line's own redrawing pass, nothing else)."""
    from rich.console import Console

    return Console(file=cast(TextIO, Guarded(sys.stderr, live=True)), force_terminal=True, highlight=False)


def line(text: str = "", *, err: bool = False, out: TextIO | Guarded | None = None) -> None:
    """One line of our own words (file names and plan text in it already `visible`), then a newline."""
    stream = stderr() if err else stdout(out)
    stream.write(text + "\n")
    stream.flush()


def text(body: str, out: TextIO | Guarded | None = None) -> None:
    """Text that is the output itself (a plan file, a budget as text), as it is: newlines and tabs kept."""
    stream = stdout(out)
    stream.write(body)
    stream.flush()


def wrote(path: Path | str, *, err: bool = False, verb: str = "Wrote") -> None:
    """`Wrote PATH`: the file an output went to, its name shown, never obeyed."""
    line(f"{verb} {visible(path)}", err=err)


def warning(message: object) -> None:
    """`Warning: ...` on standard error, one line."""
    line(f"Warning: {visible(message)}", err=True)


def error(message: object) -> None:
    """`Error: ...` on standard error, one line."""
    line(f"Error: {visible(message)}", err=True)


def ask_password(prompt: str) -> str:
    """A password typed on the terminal (not echoed, asked twice), else the first line of standard input."""
    if sys.stdin.isatty() and sys.stderr.isatty():
        import getpass

        while True:
            first = getpass.getpass(f"{prompt}: ", stream=stderr())
            if getpass.getpass(f"{prompt} again: ", stream=stderr()) == first:
                return first
            line("The two differ; once more.", err=True)
    return sys.stdin.readline().rstrip("\r\n")


def write_json(data: Any, out: TextIO | Guarded | None = None, *, default: Any = None) -> None:
    """`data` as indented JSON: the encoder escapes every control character, so the text stays exact."""
    line(json.dumps(data, indent=2, default=default), out=out)
