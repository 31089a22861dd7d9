"""A1 addresses as openpyxl's `openpyxl.utils.cell` reads and writes them, without importing openpyxl.

Importing any part of openpyxl runs its package `__init__` (~0.15 s: workbook, reader, writer, styles,
charts), which the read path (`check`, `extract`, `diff`, `show BOOK`) otherwise never needs. These are
the five helpers of it that path uses, with its answers and its refusals, every one a `ValueError`
(openpyxl's `CellCoordinatesException` is not one, which `review.audit` always meant to catch):
`tests/xlsx/test_a1.py` holds them to openpyxl's on every kind of address. `ILLEGAL_CHARACTERS_RE` is
openpyxl's pattern of the characters a cell cannot hold.
"""

from __future__ import annotations

import re
from functools import cache

from .cell_grid import col_index, col_letters

ILLEGAL_CHARACTERS_RE = re.compile(r"[\000-\010]|[\013-\014]|[\016-\037]")  # openpyxl.cell.cell's
_COORDINATE = re.compile(r"^[$]?([A-Za-z]{1,3})[$]?(\d+)$")
_RANGE = re.compile(r"^[$]?(?P<min_col>[A-Za-z]{1,3})?[$]?(?P<min_row>\d+)?"
                    r"(:[$]?(?P<max_col>[A-Za-z]{1,3})?[$]?(?P<max_row>\d+)?)?$")
_DIGITS = frozenset("0123456789")
_LAST_COLUMN = 18278  # ZZZ: openpyxl's bound (Excel's is XFD, 16,384)


class CoordinateError(ValueError):
    """An address openpyxl refuses with its `CellCoordinatesException`: a ValueError here."""


def get_column_letter(index: int) -> str:
    """`col_letters`, refusing what openpyxl refuses."""
    if not 1 <= index <= _LAST_COLUMN:
        raise ValueError(f"Invalid column index {index}")
    return col_letters(index)


@cache
def column_index_from_string(letters: str) -> int:
    """`col_index`, refusing what openpyxl refuses."""
    if not 0 < len(letters) <= 3 or not all("A" <= letter <= "Z" for letter in letters.upper()):
        raise ValueError(f"'{letters}' is not a valid column name. Column names are from A to ZZZ")
    return col_index(letters)


def coordinate_from_string(text: str) -> tuple[str, int]:
    """`B12` -> ("B", 12); `$b$12` -> ("b", 12), as openpyxl (the letters as given)."""
    match = _COORDINATE.match(text)
    if not match:
        raise CoordinateError(f"Invalid cell coordinates ({text})")
    column, row = match.group(1), int(match.group(2))
    if not row:
        raise CoordinateError(f"There is no row 0 ({text})")
    return column, row


def coordinate_to_tuple(text: str) -> tuple[int, int]:
    """`B12` -> (12, 2): split at the first digit, as openpyxl (no `$`)."""
    at = 0
    for at, ch in enumerate(text):  # noqa: B007  the first digit's place, or the last character's
        if ch in _DIGITS:
            break
    return int(text[at:]), column_index_from_string(text[:at])


def range_boundaries(text: str) -> tuple[int | None, int | None, int | None, int | None]:
    """`A1:B2` -> (1, 1, 2, 2) as (min column, min row, max column, max row); `A:B`, `1:2`, `A1` too."""
    problem = f"{text} is not a valid coordinate or range"
    match = _RANGE.match(text)
    if not match:
        raise ValueError(problem)
    min_col, min_row, sep, max_col, max_row = match.group("min_col", "min_row", 3, "max_col", "max_row")
    if sep:
        cols, rows = (min_col, max_col), (min_row, max_row)
        if not (all(cols + rows) or all(cols) and not any(rows) or all(rows) and not any(cols)):
            raise ValueError(problem)
    c1 = column_index_from_string(min_col) if min_col is not None else None
    r1 = int(min_row) if min_row is not None else None
    c2 = column_index_from_string(max_col) if max_col is not None else c1
    r2 = int(max_row) if max_row is not None else r1
    return c1, r1, c2, r2
