"""What an untrusted workbook may cost, and the refusal raised when it would cost more.

Every check below `safety` raises `Refused` with a reason only; `safety` names
the file once, at its boundary, as a `WorkbookError`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """What an acceptable workbook may cost; every limit is a refusal, never a truncation."""

    max_file_bytes: int = 100_000_000
    max_uncompressed: int = 300_000_000
    max_ratio: float = 200.0          # typical sheet XML deflates 5-50x; a bomb ~1000x
    ratio_min_bytes: int = 1_000_000  # tiny members compress absurdly well and harmlessly
    max_members: int = 5_000
    max_cells: int = 2_000_000        # openpyxl keeps ~200 bytes per cell in memory
    max_merged_cells: int = 1_000_000
    max_content_types_bytes: int = 5_000_000


DEFAULT_LIMITS = Limits()


class Refused(Exception):
    """Why a workbook is refused, without the file's name (the caller adds it)."""


def human_size(n: int) -> str:
    """A byte count the way a refusal shows it: `6.2 MB`, `2.0 GB`, `950 KB`."""
    if n >= 1_000_000_000:
        return f"{n / 1e9:,.1f} GB"
    if n >= 1_000_000:
        return f"{n / 1e6:,.0f} MB" if n >= 10_000_000 else f"{n / 1e6:,.1f} MB"
    return f"{n / 1e3:,.0f} KB"


def one_line(exc: BaseException) -> str:
    """An exception's text fit for a one-line message: whitespace folded, at most 200 characters."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."
