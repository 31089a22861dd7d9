"""Which number formats show a date, as openpyxl tells, without importing openpyxl (`xlsx.a1` says why).

The lean reader gives a cell whose style shows a date its date (`lean.LeanReader._styles`), as openpyxl does;
`openpyxl.styles.numbers` would load the whole package. `tests/xlsx/test_a1.py` holds both to openpyxl's.
"""

from __future__ import annotations

import re

# Excel's built-in number formats that show a date or a time (ECMA-376 18.8.30): 14-22 and 45-47
BUILTIN_DATE_FORMATS = frozenset({*range(14, 23), 45, 46, 47})
# a quoted literal, or anything in brackets but elapsed hours, minutes or seconds: openpyxl's STRIP_RE
_STRIP = re.compile(r'".*?"|\[(?!hh?\]|mm?\]|ss?\])[^\]]*\]')
_DATE_PART = re.compile(r"(?<![_\\])[dmhysDMHYS]")


def is_date_format(code: str | None) -> bool:
    """Whether a format code shows a date or a time: its first section holds d, m, h, y or s."""
    if code is None:
        return False
    return _DATE_PART.search(_STRIP.sub("", code.split(";")[0])) is not None
