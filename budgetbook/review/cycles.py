"""Whether a cell's formula reads itself, through the cells and defined names it reads: a bounded walk.

Both evaluators leave a cell on a cycle without a value, which reads back as
None: without this walk a circular input would be reported as a blank cell.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..errors import WorkbookError
from ..xlsx.a1 import coordinate_to_tuple, get_column_letter, range_boundaries
from ..xlsx.formula_text import formula_of, references


class OpenedWorkbook(Protocol):
    """What a walk reads of an opened workbook (`readback.OpenedWorkbook`): its sheets and defined names."""

    wb: Any
    names: dict[str, tuple[str, str]]

Node = tuple[str, str]  # (SHEET TITLE upper-cased, "C5")
MAX_CELLS_WALKED = 20_000  # the walk gives up (no cycle claimed) past this: bounded on any workbook
MAX_RANGE_CELLS = 1_024    # cells of one range followed


def cycle_through(book: OpenedWorkbook, sheet: str, cell: str) -> list[str] | None:
    """The cells from `sheet!cell` back to itself (`['Inputs!C5', 'Inputs!C6', 'Inputs!C5']`), or None."""
    sheets = {ws.title.upper(): ws for ws in book.wb.worksheets}
    start: Node = (sheet.upper(), cell.replace("$", "").upper())
    parent: dict[Node, Node] = {}
    stack = [start]
    while stack:
        node = stack.pop()
        for nxt in cells_read(book, node, sheets):
            if nxt == start:
                return _path(sheets, parent, node, start)
            if nxt not in parent:
                parent[nxt] = node
                if len(parent) > MAX_CELLS_WALKED:
                    return None
                stack.append(nxt)
    return None


def _path(sheets: dict[str, Any], parent: dict[Node, Node], last: Node, start: Node) -> list[str]:
    nodes = [last]
    while nodes[-1] != start:
        nodes.append(parent[nodes[-1]])
    nodes.reverse()
    return [f"{sheets[s].title}!{c}" for s, c in nodes + [start]]


def cells_read(book: OpenedWorkbook, node: Node, sheets: dict[str, Any]) -> list[Node]:
    """The cells the formula at `node` reads, a defined name as the cell it names (none when it holds no
    formula); `sheets`: the workbook's worksheets by upper-cased title (built once per walk)."""
    sheet, cell = node
    ws = sheets.get(sheet)
    if ws is None:
        return []
    found = ws._cells.get(coordinate_to_tuple(cell))  # not ws[cell]: that would create the cell
    text = formula_of(found.value) if found is not None else None
    if text is None:
        return []
    try:
        refs = references(text)
    except WorkbookError:
        return []
    out: list[Node] = []
    for ref in refs:
        if ref.name is not None:
            where = book.names.get(ref.name.lower())
            if where is not None:
                out.append((where[0].upper(), where[1].replace("$", "")))
        elif ref.cell is not None:
            out += [((ref.sheet or ws.title).upper(), c) for c in cells_in(ref.cell, MAX_RANGE_CELLS) or []]
    return out


def cells_in(area: str, cap: int) -> list[str] | None:
    """The first `cap` cells of an A1 range; None for whole rows or columns (`A:A`, `3:5`) or junk.

    Counted before listing: `A1:XFD1048576` must not become 17 billion strings.
    """
    try:
        min_col, min_row, max_col, max_row = range_boundaries(area)
    except (ValueError, TypeError):
        return None
    if min_col is None or min_row is None or max_col is None or max_row is None:
        return None
    out = []
    for row in range(min_row, min(max_row, min_row + cap) + 1):
        for col in range(min_col, min(max_col, min_col + cap) + 1):
            out.append(f"{get_column_letter(col)}{row}")
            if len(out) >= cap:
                return out
    return out
