"""A bill file as DuckDB reads it: its container (Parquet or CSV, told apart by its bytes), header and scan.

Every column is read as text (numbers are cast, and refused, in SQL). A CSV's rows
are also counted by `records.count_records`, a pass over its bytes that DuckDB's
reader is then held to (`checks.validate`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ...xlsx.limits import Limits
from . import csv_file, parquet
from .kit import BillError
from .records import Records, count_records

HEADER_BYTES = 1_000_000
CONTAINERS: tuple[ModuleType, ...] = (parquet, csv_file)  # the first whose `detects` holds; CSV is the fallback


@dataclass
class Source:
    path: Path
    header: list[str]
    container: ModuleType
    records: Records | None = None  # CSV: the rows counted over its bytes (`count`)

    def count(self) -> None:
        """Count a CSV's rows over its bytes (refusing NUL bytes, non-UTF-8 bytes, lines over the cap)."""
        if self.container is csv_file and self.records is None:
            self.records = count_records(self.path)

    def scan(self) -> str:
        """The file's rows as SQL, every column text."""
        return self.container.scan(self.path, self.header)

    def where(self, row: int) -> str:
        """`line N` of a CSV's data row `row` (0-based), `row N` of a Parquet file's."""
        line = self.records.line_of(row) if self.records is not None else None
        return f"line {line:,}" if line is not None else f"row {row + 1:,}"


def open_source(path: Path) -> Source:
    """The file's header, after the checks that need no scan: its name, size and kind."""
    if any(ch in str(path.resolve()) for ch in "*?[{"):  # DuckDB would read the name as a pattern of files
        raise BillError("has `*`, `?`, `[` or `{` in its path, which the CSV reader takes as a pattern of "
                        "files; rename or move it")
    try:
        size = path.stat().st_size
        limit = Limits().max_bill_bytes
        if size > limit:
            raise BillError(f"is {size:,} bytes; a bill file may be at most {limit:,} (split the export by month)")
        if not path.is_file():
            raise BillError("is not a regular file")
        with open(path, "rb") as f:
            head = f.read(HEADER_BYTES)
    except OSError as exc:
        raise BillError(f"cannot read: {exc.strerror or type(exc).__name__}") from None
    container = next(c for c in CONTAINERS if c.detects(head))
    header = container.header(path, head)
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:
        raise BillError(f"has the column {twice[0]} twice")
    return Source(path, header, container)
