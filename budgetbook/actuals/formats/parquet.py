"""The Parquet container: FOCUS exports as providers also ship them (typed columns, read as text).

Detected by its magic bytes; its header is the file's schema; a DECIMAL cost keeps
its digits as text and a timestamp with a time zone reads as UTC (the session's
time zone, `kit.duckdb_connection`). Parquet has no lines: a bad row is named by
its number. The column layout inside (FOCUS by version, generic) is the format's.
"""

from __future__ import annotations

from pathlib import Path

from .kit import MEMORY_LIMIT, col, lit, run

NAME = "parquet"
MAGIC = b"PAR1"


def detects(head: bytes) -> bool:
    return head.startswith(MAGIC)


def header(path: Path, head: bytes) -> list[str]:
    import duckdb

    con = duckdb.connect(config={"memory_limit": MEMORY_LIMIT, "threads": 1})
    try:
        sql = f"DESCRIBE SELECT * FROM read_parquet({lit(str(path.resolve()))})"
        return [row[0] for row in run(con, sql, what="Parquet")]
    finally:
        con.close()


def scan(path: Path, names: list[str]) -> str:
    columns = ", ".join(f"CAST({col(h, names)} AS VARCHAR) AS {col(h, names)}" for h in names)
    return f"(SELECT {columns} FROM read_parquet({lit(str(path.resolve()))}))"
