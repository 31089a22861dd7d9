"""A workbook as the fast evaluator reads it: A1 references, cell values, formula texts and defined names.

Everything here is keyed by upper-case sheet title, as `formulas` keys its
results. Whatever the fast path does not handle raises `Unsupported` while
reading, before anything is compiled.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import Any

from .xstring import unescape

MAX_RANGE_CELLS = 100_000

Area = tuple[str, int, int, int, int]  # (SHEET, r1, c1, r2, c2); the sheet may not exist
CellKey = tuple[str, int, int]         # (SHEET, row, col)
PlainCell = tuple[int, int, Any, str]  # (row, col, value, openpyxl's data type: f, s, n, b, e, ...)

_CELL = r"\$?([A-Za-z]{1,3})\$?([0-9]{1,7})"
_SHEET = r"(?:(?P<sheet>'(?:[^']|'')+'|[A-Za-z_][A-Za-z0-9_.]*)!)?"
_REF_RE = re.compile(rf"^{_SHEET}{_CELL}(?::{_CELL})?$")  # groups: sheet, letters, row, letters, row
_COLUMNS_RE = re.compile(rf"^{_SHEET}\$?(?P<a>[A-Za-z]{{1,3}}):\$?(?P<b>[A-Za-z]{{1,3}})$")  # A:A, $B:$D
_ROWS_RE = re.compile(rf"^{_SHEET}\$?(?P<a>[0-9]{{1,7}}):\$?(?P<b>[0-9]{{1,7}})$")              # 3:3, $1:$5
MAX_ROW, MAX_COL = 1048576, 16384


COLUMN_BITS, ROW_BITS = 15, 21  # a column fits in 15 bits (16,384: XFD), a row in 21 (1,048,576)


def packed_cell(tab: int, row: int, col: int) -> int:
    """A cell as one int: its sheet's number, row and column, ordered in that order (`lean_book` keys a sheet's
    cells with tab 0, `PackedCells` and `sheetkit.grid.Places` a workbook's)."""
    return (tab << (COLUMN_BITS + ROW_BITS)) | (row << COLUMN_BITS) | col


def unpacked_cell(key: int) -> tuple[int, int, int]:
    """(tab, row, column) of `packed_cell`'s int."""
    return key >> (COLUMN_BITS + ROW_BITS), (key >> COLUMN_BITS) & ((1 << ROW_BITS) - 1), key & ((1 << COLUMN_BITS) - 1)


class Unsupported(Exception):
    """The fast path does not handle this workbook; evaluate it with ExcelModel instead."""


@cache  # called for every reference a workbook is read with (~100,000 at 44,000 formula cells)
def col_index(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


@cache  # called for every cell a workbook is laid out and read with (~75,000 at 16,000 formula cells)
def col_letters(n: int) -> str:
    out = ""
    while n:
        n, r = divmod(n - 1, 26)
        out = chr(65 + r) + out
    return out


def _sheet_of(m: re.Match, sheet: str | None) -> str | None:
    quoted = m.group("sheet")
    if quoted is None:
        return sheet
    if quoted.startswith("'"):
        quoted = quoted[1:-1].replace("''", "'")
    if "[" in quoted or "]" in quoted:
        raise Unsupported("external reference")
    return quoted


def parse_ref(text: str, sheet: str | None) -> Area | None:
    """The area of an A1 cell or range, optionally sheet-qualified (else on `sheet`); None if not one."""
    m = _REF_RE.match(text)
    if m is None:
        return None
    quoted, a, r1, b, r2 = m.groups()
    if quoted is not None:
        title = _sheet_title(quoted)
    elif sheet is None:
        return None
    else:
        title = sheet.upper()
    c1, row1 = col_index(a), int(r1)
    if b is None:  # one cell
        if 1 <= row1 <= MAX_ROW and 1 <= c1 <= MAX_COL:
            return (title, row1, c1, row1, c1)
        return None
    c2, row2 = col_index(b), int(r2)
    if not (1 <= row1 <= MAX_ROW and 1 <= row2 <= MAX_ROW and 1 <= c1 <= MAX_COL and 1 <= c2 <= MAX_COL):
        return None
    return _bounded((title, min(row1, row2), min(c1, c2), max(row1, row2), max(c1, c2)))


@cache  # a workbook names a few sheets ~100,000 times; an external reference raises, and is not kept
def _sheet_title(quoted: str) -> str:
    """The upper-case title of a reference's sheet prefix as written (`'Cash flow'`, `Inputs`)."""
    if quoted.startswith("'"):
        quoted = quoted[1:-1].replace("''", "'")
    if "[" in quoted or "]" in quoted:
        raise Unsupported("external reference")
    return quoted.upper()


def _bounded(area: Area) -> Area:
    _, r1, c1, r2, c2 = area
    if (r2 - r1 + 1) * (c2 - c1 + 1) > MAX_RANGE_CELLS:
        raise Unsupported("range too large")
    return area


def parse_lines(text: str, sheet: str) -> Area | None:
    """Whole columns (`A:A`, `Inputs!$B:$D`) or rows (`3:5`) as the full area they name; None if not one."""
    m = _COLUMNS_RE.match(text)
    if m:
        c1, c2 = sorted((col_index(m.group("a")), col_index(m.group("b"))))
        if c2 > MAX_COL:
            return None
        return (str(_sheet_of(m, sheet)).upper(), 1, c1, MAX_ROW, c2)
    m = _ROWS_RE.match(text)
    if m:
        r1, r2 = sorted((int(m.group("a")), int(m.group("b"))))
        if not 1 <= r1 <= r2 <= MAX_ROW:
            return None
        return (str(_sheet_of(m, sheet)).upper(), r1, 1, r2, MAX_COL)
    return None


class CellGrid:
    """Cells and workbook-scoped names of an openpyxl workbook, keyed by upper-case sheet title."""

    def __init__(self, workbook: Any, *, decode_text: bool = False,
                 cells: Mapping[str, Iterable[PlainCell]] | None = None, names: Mapping[str, str] | None = None):
        """`decode_text`: text cells are read as Excel reads them (`_xHHHH_` decoded) rather than refused;
        `cells`: {sheet title: each cell as (row, column, value, data type)}, read for that sheet instead of
        the cells its worksheet holds, and `names`: {workbook-scoped name: its reference}, beside the names the
        workbook holds (a book being written whose cells and names openpyxl never held: `workbook.streamed`)."""
        self.workbook = workbook
        self.decode_text = decode_text
        self.sheets: dict[str, Any] = self._read_sheets(workbook)
        self.formulas: dict[CellKey, str] = {}  # formula text, `=` included
        self.values: dict[CellKey, Any] = {}    # plain value of every other non-empty cell
        self.extent: dict[str, tuple[int, int]] = {}  # SHEET -> (last row, last column) holding a value or formula
        for title, ws in self.sheets.items():
            given = cells.get(ws.title) if cells is not None else None
            self._read_cells(title, given if given is not None else held_cells(ws))
        self.whole_line_names: set[str] = set()  # names of whole columns or rows, held cut (`clamp`)
        self.names: dict[str, Area] = self._read_names(workbook, names or {})

    def settle(self, results: dict[CellKey, Any]) -> PackedCells:
        """Once every formula is computed: its formula cells' results (None: no value), the formula texts let
        go of, and the other cells' values, all held packed (`PackedCells`); returns the results, which then
        stand for `formulas` too (a cell has a result exactly where it holds a formula)."""
        tabs = {title: n for n, title in enumerate(self.sheets)}
        packed = PackedCells({key: results.get(key) for key in self.formulas}, tabs)
        self.formulas, self.values = packed, PackedCells(self.values, tabs)  # type: ignore[assignment]
        return packed

    def clamp(self, area: Area) -> Area:
        """Whole columns or rows cut to the sheet's used rows or columns: what lies beyond is blank.

        Only for a function that ignores blank cells (`shapes`), so the value is the one the full
        column gives: ExcelModel builds all 1,048,576 rows of it (~850 MB) to get the same sum.
        """
        sheet, r1, c1, r2, c2 = area
        last_row, last_col = self.extent.get(sheet, (1, 1))
        clamped = (sheet, r1, c1, max(r1, min(r2, last_row)), max(c1, min(c2, last_col)))
        return _bounded(clamped)

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

    def _read_names(self, workbook: Any, given: Mapping[str, str]) -> dict[str, Area]:
        """Each name's area; one of whole columns or rows is held cut to the used range (its value, the
        top-left cell, is the same), and may be read only where blanks do not count (`shapes`)."""
        names = {}
        for name, defined in workbook.defined_names.items():
            if defined.localSheetId is not None:
                raise Unsupported("sheet-scoped name")
            names[name.upper()] = self._area(name, defined.attr_text or "")
        for name, text in given.items():
            names[name.upper()] = self._area(name, text)
        return names

    def _area(self, name: str, text: str) -> Area:
        ref = parse_ref(text, None)
        if ref is None and "!" in text and (lines := parse_lines(text, "")) is not None:
            ref = self.clamp(lines)
            self.whole_line_names.add(name.upper())
        if ref is None:
            raise Unsupported(f"name {name} is not a plain reference")
        return ref

    def _read_cells(self, title: str, cells: Iterable[PlainCell]) -> None:
        last_row = last_col = 0
        # one int object per row and column number, shared by every key that holds it: cells given as arrays
        # (`workbook.streamed`) make a new one per cell past 256 (~8 MB of 260,000 keys on the largest plan)
        number = {n: n for n in range(1, 1025)}.setdefault
        for row, col, value, dt in cells:
            if value is None:
                continue
            row, col = number(row, row), number(col, col)
            if row > last_row:
                last_row = row
            if col > last_col:
                last_col = col
            if dt == "f":
                if not isinstance(value, str):
                    raise Unsupported("array or data-table formula")
                self.formulas[(title, row, col)] = value[1:] if value[:2] == "==" else value
            elif dt == "s":
                if not isinstance(value, str) or ("_x" in value and not self.decode_text):
                    raise Unsupported("string cell")
                self.values[(title, row, col)] = unescape(value) if self.decode_text else value
            elif dt == "n" and isinstance(value, (int, float)) and not isinstance(value, bool):
                # ExcelModel.compile_cell rounds numbers to 15 decimals
                self.values[(title, row, col)] = round(value, 15) if isinstance(value, float) else value
            elif dt == "b" and isinstance(value, bool):
                self.values[(title, row, col)] = value
            else:
                raise Unsupported(f"cell of type {dt!r}")
        if last_row:
            self.extent[title] = (last_row, last_col)


class PackedCells:
    """{(SHEET, row, col): value} read as a dict is, held as two arrays: each key one int (the sheet's number,
    row and column packed), sorted, and the values in that order. A dict with a tuple key each was ~40 MB of
    the results the largest plan's `check` holds while it lays the plan out (`CellGrid.settle`); a look-up
    is a binary search (~1 us, for the few hundred thousand reads that follow)."""

    __slots__ = ("_tabs", "_keys", "_floats", "_others")

    def __init__(self, cells: Mapping[CellKey, Any], tabs: Mapping[str, int]):
        self._tabs = tabs  # SHEET -> its number
        keys = [packed_cell(tabs[sheet], row, col) for sheet, row, col in cells]
        values = list(cells.values())
        order = sorted(range(len(keys)), key=keys.__getitem__)
        self._keys = array("q", [keys[i] for i in order])
        # a number as a C double, not an object: the evaluation's own, scattered among its freed objects, went
        # with it (their memory given back whole); any other value (text, bool, None, an error) by its place
        self._floats = array("d", bytes(8 * len(order)))
        self._others: dict[int, Any] = {}
        for place, i in enumerate(order):
            value = values[i]
            if isinstance(value, float):
                self._floats[place] = value
            else:
                self._others[place] = value

    def _index(self, key: CellKey) -> int:
        """Where the key's value is; -1 where there is none (off every sheet held, or no such cell)."""
        tab = self._tabs.get(key[0])
        if tab is None:
            return -1
        packed = packed_cell(tab, key[1], key[2])
        keys = self._keys
        i = bisect_left(keys, packed)
        return i if i < len(keys) and keys[i] == packed else -1

    def __contains__(self, key: CellKey) -> bool:
        return self._index(key) >= 0

    def _value(self, i: int) -> Any:
        others = self._others
        return others[i] if i in others else self._floats[i]

    def __getitem__(self, key: CellKey) -> Any:
        i = self._index(key)
        if i < 0:
            raise KeyError(key)
        return self._value(i)

    def get(self, key: CellKey, default: Any = None) -> Any:
        i = self._index(key)
        return default if i < 0 else self._value(i)

    def __len__(self) -> int:
        return len(self._keys)


def held_texts(ws: Any) -> Iterator[tuple[int, int, str]]:
    """(row, column, text) of each cell of `held_cells` holding text, not a formula (the lean reader's without
    a tuple per formula cell: `lean_book.CellStore.texts`)."""
    texts = getattr(getattr(ws, "_cells", None), "texts", None)
    if texts is not None:
        return texts()
    return ((row, col, value) for row, col, value, kind in held_cells(ws) if kind != "f" and isinstance(value, str))


def held_cells(ws: Any) -> Iterator[PlainCell]:
    """The cells a worksheet (openpyxl's or the lean reader's) holds, as `PlainCell`s (the lean reader's
    without a cell object each: `lean_book.CellStore.plain`); a chartsheet holds none."""
    cells = getattr(ws, "_cells", {})
    plain = getattr(cells, "plain", None)
    if plain is not None:
        return plain()
    return ((row, col, cell.value, cell.data_type) for (row, col), cell in cells.items())
