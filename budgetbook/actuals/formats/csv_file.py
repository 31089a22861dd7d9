"""The CSV container: a UTF-8 text file with a header line, every column read as text.

Its rows are also counted over its bytes (`records.count_records`, a pass apart from
DuckDB's reader) and the reader is held to that count, so no row can vanish.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from .kit import BillError, lit

NAME = "csv"
NOT_UTF8 = ("the bill looks latin-1 or Windows-1252; save it as UTF-8 (e.g. "
            "`iconv -f latin1 -t utf-8 bill.csv > bill-utf8.csv`)")


def detects(head: bytes) -> bool:
    return True  # the fallback: a file that is no other container is read as CSV


def header(path: Path, head: bytes) -> list[str]:
    first = head.split(b"\n", 1)[0].removeprefix(b"\xef\xbb\xbf").rstrip(b"\r")
    if not first.strip():
        raise BillError("is empty: expected a CSV header line")
    try:
        names = next(csv.reader(io.StringIO(first.decode("utf-8"))))
    except UnicodeDecodeError:
        raise BillError(f"line 1 is not UTF-8: {NOT_UTF8}") from None
    return [h.strip() for h in names]


def scan(path: Path, names: list[str]) -> str:
    columns = ", ".join(f"{lit(h)}: 'VARCHAR'" for h in names)
    return (f"read_csv({lit(str(path.resolve()))}, header=true, auto_detect=false, delim=',', quote='\"', "
            f"escape='\"', columns={{{columns}}}, parallel=true)")
