"""A workbook as the fast evaluator reads it: A1 references, cell values, formula texts and defined names.

Everything here is keyed by upper-case sheet title, as `formulas` keys its
results. Whatever the fast path does not handle raises `Unsupported` while
reading, before anything is compiled.
"""

from __future__ import annotations

import re
from typing import Any

MAX_RANGE_CELLS = 100_000

Area = tuple[str, int, int, int, int]  # (SHEET, r1, c1, r2, c2); the sheet may not exist
CellKey = tuple[str, int, int]         # (SHEET, row, col)

_CELL = r"(\$?)([A-Za-z]{1,3})(\$?)([0-9]{1,7})"
_REF_RE = re.compile(rf"^(?:(?P<sheet>'(?:[^']|'')+'|[A-Za-z_][A-Za-z0-9_.]*)!)?{_CELL}(?::{_CELL})?$")


class Unsupported(Exception):
    """The fast path does not handle this workbook; evaluate it with ExcelModel instead."""


def col_index(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


def col_letters(n: int) -> str:
    out = ""
    while n:
        n, r = divmod(n - 1, 26)
        out = chr(65 + r) + out
    return out


def parse_ref(text: str, sheet: str | None) -> Area | None:
    """The area of an A1 cell or range, optionally sheet-qualified (else on `sheet`); None if not one."""
    m = _REF_RE.match(text)
    if not m:
        return None
    quoted = m.group("sheet")
    if quoted is not None:
        if quoted.startswith("'"):
            quoted = quoted[1:-1].replace("''", "'")
        if "[" in quoted or "]" in quoted:
            raise Unsupported("external reference")
        sheet = quoted
    if sheet is None:
        return None
    c1, r1 = col_index(m.group(3)), int(m.group(5))
    if m.group(7) is not None:
        c2, r2 = col_index(m.group(7)), int(m.group(9))
    else:
        c2, r2 = c1, r1
    if not (1 <= r1 <= 1048576 and 1 <= r2 <= 1048576 and 1 <= c1 <= 16384 and 1 <= c2 <= 16384):
        return None
    r1, r2 = min(r1, r2), max(r1, r2)
    c1, c2 = min(c1, c2), max(c1, c2)
    if (r2 - r1 + 1) * (c2 - c1 + 1) > MAX_RANGE_CELLS:
        raise Unsupported("range too large")
    return (sheet.upper(), r1, c1, r2, c2)


class CellGrid:
    """Cells and workbook-scoped names of an openpyxl workbook, keyed by upper-case sheet title."""

    def __init__(self, workbook: Any):
        self.workbook = workbook
        self.sheets: dict[str, Any] = self._read_sheets(workbook)
        self.names: dict[str, Area] = self._read_names(workbook)
        self.formulas: dict[CellKey, str] = {}  # formula text, `=` included
        self.values: dict[CellKey, Any] = {}    # plain value of every other non-empty cell
        for title, ws in self.sheets.items():
            self._read_cells(title, ws)

    @staticmethod
    def _read_sheets(workbook: Any) -> dict[str, Any]:
        sheets = {}
        for ws in workbook.worksheets:
            if ws.title.upper() in sheets:
                raise Unsupported("two sheets differ only in case")
            if getattr(ws, "array_formulae", None):
                raise Unsupported("array formulas")
            if getattr(ws, "defined_names", None):
                raise Unsupported("sheet-scoped names")
            sheets[ws.title.upper()] = ws
        if getattr(workbook, "_external_links", None):
            raise Unsupported("external links")
        return sheets

    @staticmethod
    def _read_names(workbook: Any) -> dict[str, Area]:
        names = {}
        for name, defined in workbook.defined_names.items():
            if defined.localSheetId is not None:
                raise Unsupported("sheet-scoped name")
            ref = parse_ref(defined.attr_text or "", None)
            if ref is None:
                raise Unsupported(f"name {name} is not a plain reference")
            names[name.upper()] = ref
        return names

    def _read_cells(self, title: str, ws: Any) -> None:
        for (row, col), cell in ws._cells.items():
            value = cell.value
            if value is None:
                continue
            dt = cell.data_type
            if dt == "f":
                if not isinstance(value, str):
                    raise Unsupported("array or data-table formula")
                self.formulas[(title, row, col)] = value[1:] if value[:2] == "==" else value
            elif dt == "s":
                if not isinstance(value, str) or "_x" in value:
                    raise Unsupported("string cell")
                self.values[(title, row, col)] = value
            elif dt == "n" and isinstance(value, (int, float)) and not isinstance(value, bool):
                # ExcelModel.compile_cell rounds numbers to 15 decimals
                self.values[(title, row, col)] = round(value, 15) if isinstance(value, float) else value
            elif dt == "b" and isinstance(value, bool):
                self.values[(title, row, col)] = value
            else:
                raise Unsupported(f"cell of type {dt!r}")
