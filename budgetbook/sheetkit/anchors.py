"""Which cells get a defined name: inputs, constants, figures, checks and row and column anchors.

LibreOffice 7.4 counts defined names in 16 bits and never finishes opening a book of more than
65,535 of them (issue 28 item 4); naming every calculation made a 140-workload, 5-market portfolio
unopenable there (two thirds of its names were Cash flow month cells). A book that would name
more cells than that (`NAME_BUDGET`) names fewer: a calculation keeps a name of its own only where
it anchors: the first named cell of its row, or of its column, on its
sheet. Every other calculation is found by its anchors, the named cell of its row and the named
cell of its column (`CellSpec.row_anchor`, `col_anchor`): rows and columns a user inserts move the
anchors, and so the cell, as they move a name. The layout still lists every cell under its name
(`check` reports it by that name); only the workbook's defined names are fewer. A 500-workload,
6-market portfolio keeps about 50,000 names of 255,000. A smaller book keeps every name: formulas
that read by name are easier to follow.

Only the calculation sheets and the Cash flow's months go by anchors: inputs, constants, figures,
checks, the outputs' cells and the physical figures `show` reports (`keeping`) keep their names (users
read them, adjustments and other formulas type them). A formula that read a
calculation by a name it no longer has reads the cell instead, by an absolute reference (`$D$40`,
`'Compute'!$D$40`): what a defined name of one cell means, so every row stays one R1C1 formula.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from ..xlsx.cell_grid import col_letters
from .grid import Blueprint, CellSpec, quoted

# LibreOffice 7.4 counts named ranges in 16 bits: at 65,536 names `soffice --convert-to` waits forever
# (65,535 convert in 3.6 s; measured with benchmarks/bench_scale.py's portfolios and a bare workbook)
LIBREOFFICE_MAX_NAMES = 65_535
NAME_BUDGET = LIBREOFFICE_MAX_NAMES  # a book naming more cells than this goes by anchors (read at each call)
NAMED_KINDS = ("input", "constant", "figure", "check")
# a string literal, a quoted sheet title (both skipped whole) or an identifier (a name, a function, A1)
_TOKEN = re.compile(r'"(?:[^"]|"")*"|\'(?:[^\']|\'\')*\'|[A-Za-z_][A-Za-z0-9_.]*')
_A1 = re.compile(r"([A-Z]{1,3})([0-9]+)")
_set = object.__setattr__  # CellSpec is frozen
_FIELDS = CellSpec.__slots__


def anchor(book: Blueprint, sheets: Collection[str], keeping: Callable[[], Collection[str]] = tuple) -> None:
    """Leave a name on the cells that need one (`NAMED_KINDS`, the names `keeping()`
    gives, anchors, every cell off `sheets`);
    find the other calculations of `sheets` by their anchors.

    The calculations without a name are written out of every formula that read them by name. A book
    that can name every cell within `NAME_BUDGET` does: its formulas read by name (`=fail_w0_cost_m1*F10`).
    """
    if len(book.specs) <= NAME_BUDGET:
        return
    keep, on = set(keeping()), set(sheets)
    by_sheet: dict[str, list[str]] = {}  # sheet -> the names on it
    for name, (sheet, _row, _col) in book.where.items():
        if sheet.title in on:
            by_sheet.setdefault(sheet.title, []).append(name)
    unnamed = 0  # the names no cell keeps (their specs have anchors): formulas read their cells (`$D$40`)
    for title, names in by_sheet.items():
        unnamed += _anchor_sheet(book, title, names, keep)
    del by_sheet
    if unnamed:
        _rewrite_formulas(book)


def _anchor_sheet(book: Blueprint, title: str, names: list[str], keep: set[str]) -> int:
    """Anchor the calculations of one sheet (a sheet at a time, holding no spec, its cells ordered by the
    ints `where` holds, not by a tuple each: the largest plan's layout is made beside the book `check`
    reads, and this was its peak); returns how many cells lost their name."""
    names.sort(key=book.where.packed)  # row by row: one sheet's cells, packed row before column
    rows: dict[int, str] = {}  # row -> the named cell anchoring it (leftmost)
    cols: dict[int, str] = {}  # column -> the named cell anchoring it (topmost: the first met row by row)
    specs, where = book.specs, book.where
    own = {name for name in names if specs[name].kind in NAMED_KINDS or name in keep}
    unnamed = 0
    for name in names:
        if name in own:
            _sheet, row, col = where[name]
            rows.setdefault(row, name)
            cols.setdefault(col, name)
    for name in names:
        if name in own:
            continue
        _sheet, row, col = where[name]
        by_row, by_col = rows.get(row), cols.get(col)
        if by_row is None or by_col is None:
            rows.setdefault(row, name)
            cols.setdefault(col, name)
            continue
        specs[name] = _with(specs[name], row_anchor=by_row, col_anchor=by_col)
        unnamed += 1
    return unnamed


def _with(spec: CellSpec, **changes: str) -> CellSpec:
    """`dataclasses.replace(spec, **changes)` without its per-call field walk and checks (the layout of the
    largest plan replaces ~400,000 specs). CellSpec has slots: each field is set through the frozen
    class's descriptor, in order, as `__init__` does."""
    changed = object.__new__(CellSpec)
    for key in _FIELDS:
        _set(changed, key, changes.get(key, getattr(spec, key)))
    return changed


def _rewrite_formulas(book: Blueprint) -> None:
    """Every formula reading an unnamed calculation (a spec with anchors) by name reads its cell instead (its
    spec too)."""
    specs, where = book.specs, book.where

    def rewrite(formula: str, on: str) -> str:
        def one(match: re.Match) -> str:
            text = match.group()
            spec = specs.get(text)
            if spec is None or spec.named:
                return text
            sheet, row, col = where[text]
            ref = f"${col_letters(col)}${row}"
            return ref if sheet.title == on else f"{quoted(sheet.title)}!{ref}"

        return _TOKEN.sub(one, formula)

    for sheet in book.sheets:
        for cell in sheet.cells.values():
            value = cell.value
            if isinstance(value, str) and value.startswith("=") and not cell.is_text:
                written = rewrite(value, sheet.title)
                if written != value:
                    cell.value = written
                    if cell.name is not None:
                        spec = book.specs[cell.name]
                        book.specs[cell.name] = _with(spec, formula=written)
    if book.lean:  # its formula cells are their specs alone
        for name, spec in specs.items():
            if spec.formula is not None and (written := rewrite(spec.formula, spec.sheet)) != spec.formula:
                specs[name] = _with(spec, formula=written)


def anchored_at(spec: CellSpec, locate: Callable[[str], tuple[str, str] | None]) -> tuple[str, str] | None:
    """(sheet, `D40`) of an unnamed cell now: its row anchor's row, its column anchor's column, on their
    sheet; None when either anchor is gone, or the two are no longer on one sheet."""
    by_row, by_col = locate(spec.row_anchor), locate(spec.col_anchor)
    if by_row is None or by_col is None or by_row[0] != by_col[0]:
        return None
    row, col = _A1.fullmatch(by_row[1].replace("$", "")), _A1.fullmatch(by_col[1].replace("$", ""))
    if row is None or col is None:
        return None
    cell = f"{col.group(1)}{row.group(2)}"
    return by_row[0], spec.cell if cell == spec.cell else cell  # where it was written: its own string, not a copy
