"""Text from plans and workbooks made safe to print: control characters shown, never obeyed.

Labels, notes and file names are written by whoever wrote the plan or edited
the workbook. Printed raw, an ESC (`\\x1b[2J`, OSC 8 links, title changes) or a
one-byte C1 CSI (`\\x9b`) drives the reader's terminal, a newline forges an
extra line of `check` output or a CSV row, and bidirectional overrides make
a terminal show text in another order than it holds ("Trojan Source"). Every
human or CSV output passes its text through `visible`; JSON needs nothing
(its encoder escapes control characters, and it must stay exact).
"""

from __future__ import annotations

import re

# C0 controls (tab, newline and ESC among them), DEL, C1 controls, the line and paragraph
# separators, and the bidirectional embeddings, overrides and isolates
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _shown(match: re.Match) -> str:
    return match.group().encode("unicode_escape").decode("ascii")  # "\x1b" -> the four characters \x1b


def visible(text: object) -> str:
    """`text` with every control character written as its Python escape (`\\x1b`, `\\n`, `\\u202e`)."""
    return _CONTROL.sub(_shown, str(text))
