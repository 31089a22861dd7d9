"""Finance's own content: what a user adds that no budgetbook formula reads is theirs (issue 31, item 1).

A sheet of notes and side calculations, a helper cell beside the figures: neither can change a
figure while no formula budgetbook wrote reads it, so each is reported once as `user_content`
(info, with where it is), never as an error. The test is the one that matters for forgery: the
cells (and sheets) that the formulas in budgetbook's own named cells read now, ranges and whole
rows or columns included. A user cell inside one of those is still a `structure` error, and a
formula of ours rewired to it is still `formula_changed` (the formula audit).

Built only when the structure audit found something to judge: a pristine book costs nothing.
"""

from __future__ import annotations

from ..errors import WorkbookError
from ..xlsx.a1 import coordinate_to_tuple, range_boundaries
from ..xlsx.formula_text import formula_of, references
from .findings import Finding
from .readback import OpenedWorkbook

Box = tuple[int, int, int, int]  # min_col, min_row, max_col, max_row (whole rows or columns: 1 .. the edge)
EDGE = 1 << 20                     # past any sheet's last row or column


class OursRead:
    """The places the formulas in budgetbook's named cells read, in the book as it is now."""

    def __init__(self, book: OpenedWorkbook):
        self.boxes: dict[str, list[Box]] = {}  # upper-cased sheet title -> areas read on it
        sheets = {ws.title.upper(): ws for ws in book.wb.worksheets}
        for spec in book.layout:
            where = book.locate(spec.name)
            if spec.formula is None or where is None:
                continue
            ws = sheets.get(where[0].upper())
            cell = ws._cells.get(coordinate_to_tuple(where[1].replace("$", ""))) if ws is not None else None
            text = formula_of(cell.value) if cell is not None else None
            if text is not None:
                self._add(book, text, where[0])

    def _add(self, book: OpenedWorkbook, text: str, sheet: str) -> None:
        try:
            refs = references(text)
        except WorkbookError:
            return
        for ref in refs:
            if ref.name is not None:
                target = book.names.get(ref.name.lower())
                if target is not None:
                    self._box(target[0], target[1].replace("$", ""))
            elif ref.cell is not None:
                self._box(ref.sheet or sheet, ref.cell)

    def _box(self, sheet: str, area: str) -> None:
        try:
            min_col, min_row, max_col, max_row = range_boundaries(area)
        except (ValueError, TypeError):  # `#REF!` and the like read no place
            return
        self.boxes.setdefault(sheet.upper(), []).append(
            (min_col or 1, min_row or 1, max_col or EDGE, max_row or EDGE))

    def reads_sheet(self, sheet: str) -> bool:
        return sheet.upper() in self.boxes

    def reads_cell(self, sheet: str, cell: str) -> bool:
        row, col = coordinate_to_tuple(cell)
        return any(c0 <= col <= c1 and r0 <= row <= r1 for c0, r0, c1, r1 in self.boxes.get(sheet.upper(), ()))


def added_sheet(title: str) -> Finding:
    return Finding("user_content", f"sheet `{title}` is the user's own: no formula of budgetbook's reads it",
                   title)


def added_cell(sheet: str, cell: str, text: str) -> Finding:
    return Finding("user_content", f"formula cell `{text}` is the user's own: no formula of budgetbook's "
                   "reads it", sheet, cell)
