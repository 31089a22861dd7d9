"""Progress by stage on a terminal, never into a pipe or in JSON (issue 26 item 1).

The CLI runs as a real process with standard error on a pseudo-terminal (python's `pty`): the
stages show ("reading 3,281 cells", "evaluating", ...), drawn by rich and erased before the
output, or one plain line each with CI=true. Into a pipe, and with --format json, nothing: the JSON
on standard output is byte for byte the one printed with no terminal anywhere.
"""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PORTFOLIO = "lab-year"  # the largest template: several markets and workloads, commitments, people
STAGE = re.compile(r"budgetbook (\w+): (.+?)(?: \x1b\[|\r|\n)")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")


def budgetbook(*args, terminal: bool, env: dict | None = None) -> tuple[int, bytes, bytes]:
    """(exit code, stdout, stderr) of `python -m budgetbook ARGS`; stdout a pipe, stderr a terminal or a pipe."""
    environ = {k: v for k, v in os.environ.items() if k != "CI"} | {"PYTHONPATH": str(ROOT)} | (env or {})
    command = [sys.executable, "-m", "budgetbook", *map(str, args)]
    if not terminal:
        done = subprocess.run(command, capture_output=True, env=environ, timeout=120)
        return done.returncode, done.stdout, done.stderr
    master, slave = pty.openpty()
    with subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave,
                          env=environ) as process:
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the process closed the terminal's last end
                break
            if not chunk:
                break
            seen += chunk
        out = process.stdout.read() if process.stdout else b""
        code = process.wait(timeout=120)
    os.close(master)
    return code, out, seen


def stages(shown: bytes) -> list[tuple[str, str]]:
    return STAGE.findall(shown.decode())


def test_a_portfolio_shows_its_stages_on_a_terminal_and_nothing_into_a_pipe(tmp_path):
    book = tmp_path / "portfolio.xlsx"
    code, out, shown = budgetbook("generate", PORTFOLIO, "-o", book, terminal=True)
    assert code == 0 and out.startswith(f"Wrote {book}: ".encode()), shown
    seen = stages(shown)
    names = [text.split()[0] for _, text in seen]
    assert {"building", "evaluating", "writing"} <= set(names) and {c for c, _ in seen} == {"generate"}, seen
    # drawn live, then the cursor given back and the line erased before the output
    assert b"\x1b[?25l" in shown and b"\x1b[?25h" in shown and shown.endswith(b"\x1b[2K"), shown[-80:]

    code, out, shown = budgetbook("check", book, terminal=True, env={"CI": "true"})
    assert code == 0 and out.decode().startswith(f"{book}: OK ("), shown
    lines = shown.decode().replace("\r\n", "\n").splitlines()
    assert lines[:2] == ["budgetbook check: opening", f"budgetbook check: reading {cells(book):,} cells"], lines
    assert {"evaluating", "audit", "reference", "comparing"} <= {line.split()[2] for line in lines}
    assert len(lines) == len(set(lines)) and "\x1b" not in shown.decode()  # CI=true: one plain line per stage

    json_on_terminal = budgetbook("check", book, "--format", "json", terminal=True)
    json_piped = budgetbook("check", book, "--format", "json", terminal=False)
    assert json_on_terminal[0] == json_piped[0] == 0
    assert json_on_terminal[1] == json_piped[1] and json_on_terminal[2] == json_piped[2] == b""  # byte-identical

    quiet = budgetbook("-q", "check", book, terminal=True)
    piped = budgetbook("generate", PORTFOLIO, "-o", tmp_path / "again.xlsx", terminal=False)
    assert quiet[0] == piped[0] == 0 and quiet[2] == piped[2] == b""


def cells(book: Path) -> int:
    import openpyxl

    wb = openpyxl.load_workbook(book)
    return sum(len(ws._cells) for ws in wb.worksheets)


def test_the_live_guard_keeps_only_the_line_redrawing():
    from budgetbook.output.plaintext import terminal_safe

    redraw = "\r\x1b[2K\x1b[1A\x1b[?25l\x1b[32mok\x1b[0m"
    assert terminal_safe(redraw, styled=True, live=True) == redraw
    hostile = "\x1b]0;pwned\x07\x1b[2J\x9b31m"  # a title change, a screen clear, a C1 CSI: still shown
    assert terminal_safe(hostile, styled=True, live=True) == "\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m"
    assert terminal_safe(redraw, styled=True) != redraw  # only the progress line's stream keeps them
