"""The sources a plan cites in YAML comments, per input, and back: an edited note written as the comment.

The templates cite a source for nearly every number in a comment (`H100_SXM: 3.00  # seed 000:
"48,000 hrs x $3.00"`). An input's note is the comment on its key's line, after the comment lines
right above the key at the key's own indent (`# seed 000: "a day or two extra"` above
`extra_engineering_days:`), joined by spaces. The workbook writes it in Inputs' "Note / source"
column and the cell's input message; `extract` writes an edited note back as the key's comment.

Line positions come from ruamel.yaml's round-trip loader (`lc`), comments from the text itself: a
`#` after white space on an input's line (input values are numbers, or flow maps of numbers, so a
`#` there starts a comment). A text ruamel cannot read gives no notes, never an error: the plan
was validated by the loader already.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from typing import Any

_COMMENT = re.compile(r"(?:^|\s)#(.*)$")
_COMMENT_LINE = re.compile(r"^(\s*)#(.*)$")


def _round_trip(text: str) -> Any:
    from ruamel.yaml import YAML

    try:
        return YAML().load(io.StringIO(text))
    except Exception:  # noqa: BLE001  the loader has validated the plan; notes are a courtesy
        return None


def _position(data: Any, path: tuple) -> tuple[int, int] | None:
    """(line, column), 0-based, of the key at `path`; None where the plan does not spell it out."""
    node = data
    try:
        for part in path[:-1]:
            node = node[part]
        if not hasattr(node, "lc") or path[-1] not in node:
            return None
        line, col = node.lc.key(path[-1])
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    return int(line), int(col)


def _clean(text: str) -> str:
    return text.strip().lstrip("#").strip()


def _above(lines: list[str], line: int, col: int) -> list[int]:
    """The comment lines right above `line` at indent `col` (top first)."""
    found = []
    at = line - 1
    while at >= 0 and (m := _COMMENT_LINE.match(lines[at])) and len(m.group(1)) == col:
        found.append(at)
        at -= 1
    return found[::-1]


def input_comments(text: str, paths: Iterable[tuple]) -> dict[tuple, str]:
    """{key path: its note} for every path in `paths` whose key carries a comment in `text`."""
    if "#" not in text:
        return {}  # no comment at all: not worth ruamel's round trip (~0.2 s on a 100-workload plan)
    data = _round_trip(text)
    if data is None:
        return {}
    lines = text.splitlines()
    notes = {}
    for path in paths:
        where = _position(data, path)
        if where is None or where[0] >= len(lines):
            continue
        line, col = where
        parts = [_clean(_COMMENT_LINE.match(lines[at]).group(2)) for at in _above(lines, line, col)]  # type: ignore[union-attr]
        if (m := _COMMENT.search(lines[line])) is not None:
            parts.append(_clean(m.group(1)))
        note = " ".join(part for part in parts if part)
        if note:
            notes[path] = note
    return notes


def with_comments(text: str, notes: dict[tuple, str]) -> str:
    """`text` with each path's comment set to its note (the comment lines above it folded into it)."""
    if not notes:
        return text  # nothing to write: before ruamel's round trip (~0.2 s on a 100-workload plan), not after
    data = _round_trip(text)
    if data is None:
        return text
    lines = text.splitlines(keepends=True)
    drop: set[int] = set()
    for path, note in notes.items():
        where = _position(data, path)
        if where is None or where[0] >= len(lines):
            continue
        line, col = where
        drop.update(_above([s.rstrip("\r\n") for s in lines], line, col))
        body = lines[line].rstrip("\r\n")
        ending = lines[line][len(body):]
        note = " ".join(note.split())  # one line: a comment cannot hold a line break
        found = _COMMENT.search(body)
        if found is None:
            lines[line] = f"{body.rstrip()}   # {note}{ending}" if note else lines[line]
        elif note:  # the comment's place kept: aligned comments stay aligned
            lines[line] = f"{body[:found.start(1)]} {note}{ending}"
        else:
            lines[line] = f"{body[:found.start()].rstrip()}{ending}"
    return "".join(s for i, s in enumerate(lines) if i not in drop)
