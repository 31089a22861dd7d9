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
    # A sheet's used range: A1 to its last row and last column. ExcelModel (the evaluator's fallback)
    # and openpyxl's iter_rows create every cell of it, empty or not: one cell at XFD1048576 is 17
    # billion of them. A budget sheet's is at most ~100,000 (500 workloads x 20 markets).
    max_used_range: int = 2_000_000
    max_rows: int = 200_000           # <row> elements: openpyxl keeps a RowDimension (~1 KB) per formatted row
    max_linked_cells: int = 1_000_000  # cells a hyperlink's range covers: openpyxl copies the link into each
    max_shared_strings: int = 2_000_000
    # budgetbook names every input and figure: ~70,000 names at 500 workloads x 6 markets, ~250,000 at
    # the plan's caps (500 x 20)
    max_defined_names: int = 500_000
    # cell formats, column ranges, hyperlinks, data validations, conditional formats,
    # comments, relationships (each kind on its own): one object each in openpyxl, a few in a budget
    # workbook (Excel itself stops at 64,000 cell formats)
    max_objects: int = 200_000
    # cells the ExcelModel fallback may build (used ranges plus every range read, each ~1 KB); the fast
    # evaluator, which handles every workbook budgetbook writes, needs no such limit
    max_model_cells: int = 500_000
    # a bill (FOCUS or generic CSV) that `actuals` scans out of core: a month's export of a large account
    # is a few hundred MB (1,000,000 FOCUS rows are ~330 MB); past this, split the export by month
    max_bill_bytes: int = 1_000_000_000


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
