"""The terminal-safety guard: text from plans, workbooks, bills and mappings shown, never obeyed.

Labels, notes, invoice ids and file names are written by whoever wrote the
plan, edited the workbook or exported the bill. Printed raw, an ESC
(`\\x1b[2J`, OSC 8 links, `\\x1b]0;...\\x07` title changes) or a one-byte C1
CSI (`\\x9b`) drives the reader's terminal, a newline forges an extra line of
`check` output or a CSV row, and bidirectional overrides make a terminal show
text in another order than it holds ("Trojan Source").

Two layers, so that no output depends on one renderer remembering:

- `visible`, per field: every control character (newlines and bidi overrides
  too) written as its Python escape; renderers pass each text they print through
  it, so one field stays one line;
- `Guarded`, per stream: the only way `output/` writes to stdout and stderr; it
  escapes every C0 control but newline and tab, DEL and every C1 control left in
  whatever is written, keeping only the colour codes (SGR) rich writes itself,
  and only on a terminal (rich is told the same: `emit.console`).

A CSV cell has a third guard, `csv_text`: a spreadsheet opening the file runs a
cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a formula
(OWASP "CSV injection"), so every text a CSV writes from a plan, a workbook or a
bill goes through it and starts with `'` there (shown as text, never run).

JSON needs no field guard (its encoder escapes control characters, and it must
stay exact); it goes through the stream guard like everything else, unchanged.
"""

from __future__ import annotations

import re
from typing import TextIO

# C0 controls (tab, newline and ESC among them), DEL, C1 controls, the line and paragraph
# separators, and the bidirectional embeddings, overrides and isolates
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# what a terminal obeys in a stream: C0 but newline and tab, DEL, C1
_OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# the same, but a whole Select Graphic Rendition sequence (colour, bold) is kept: group 1
_OBEYED_BUT_SGR = re.compile("(\x1b\\[[0-9;]*m)|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# the same, and what a live progress line needs to redraw itself (rich's `Live`): a carriage return,
# the cursor moved up, down, sideways or to a column, the line erased, the cursor hidden or shown
_OBEYED_BUT_LIVE = re.compile("(\x1b\\[[0-9;]*m|\x1b\\[[0-9]*[ABCDGK]|\x1b\\[\\?25[hl]|\r)"
                              "|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _shown(match: re.Match) -> str:
    return match.group().encode("unicode_escape").decode("ascii")  # "\x1b" -> the four characters \x1b


def visible(text: object) -> str:
    """`text` with every control character written as its Python escape (`\\x1b`, `\\n`, `\\u202e`)."""
    return _CONTROL.sub(_shown, str(text))


# a cell starting with one of these is run as a formula when a CSV is opened in a spreadsheet (OWASP "CSV
# injection"); labels come from hand-written plans, edited workbooks and bills
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_text(text: object) -> str:
    """`text` as a CSV cell a spreadsheet opens as text: with a `'` in front where it would start a formula."""
    text = str(text)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def terminal_safe(text: str, *, styled: bool = False, live: bool = False) -> str:
    """`text` with what a terminal would obey escaped, newlines and tabs kept; `styled`: SGR kept too;
    `live` (with `styled`): a progress line's redrawing kept too."""
    if not styled:
        return _OBEYED.sub(_shown, text)
    return (_OBEYED_BUT_LIVE if live else _OBEYED_BUT_SGR).sub(lambda m: m.group(1) or _shown(m), text)


class Guarded:
    """A text stream that passes everything written through `terminal_safe` on its way to `raw`.

    Colour codes are kept only when `raw` is a terminal: the only case rich writes them
    (`emit.console` tells rich so), so on a pipe or in a file every ESC is shown.
    """

    def __init__(self, raw: TextIO, *, live: bool = False):
        self.raw = raw
        isatty = getattr(raw, "isatty", None)
        self.styled = bool(isatty and isatty())
        self.live = live  # a progress line (`output/progress.py`) redraws itself: on a terminal only

    def write(self, text: str) -> int:
        self.raw.write(terminal_safe(text, styled=self.styled, live=self.live))
        return len(text)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.styled

    def fileno(self) -> int:
        return self.raw.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self.raw, "encoding", None) or "utf-8"


def guarded(stream: TextIO | Guarded) -> Guarded:
    """`stream` behind the guard (as it is, if it is already)."""
    return stream if isinstance(stream, Guarded) else Guarded(stream)
