"""The bill formats, in the order they are tried: the first whose `detects` holds for a header reads the file.

The FOCUS side datasets (no charges) come first, as their headers share columns
with cost and usage; then the generic CSV; then FOCUS cost and usage by version,
newest first (a header with a column a version added is at least that version).
A new format is one module with `name`, `side`, `detects(header)` and
`read(ctx, source) -> list[Batch]`, and one line here.
"""

from __future__ import annotations

from typing import Protocol

from ...ledger.model import Batch
from . import focus_1_0, focus_1_1, focus_1_2, focus_1_3, focus_1_4, focus_commitments, focus_periods, generic
from .focus import MARKERS
from .kit import BillError, Context, clip
from .source import Source


class BillFormat(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def side(self) -> bool:
        """True: holds no charges, read before the files that do (they may match against it)."""

    def detects(self, header: list[str]) -> bool: ...

    def read(self, ctx: Context, source: Source) -> list[Batch]: ...


FORMATS: tuple[BillFormat, ...] = (
    focus_commitments.FORMAT,
    focus_periods.BILLING_PERIOD,
    focus_periods.INVOICE_DETAIL,
    generic.FORMAT,
    focus_1_4.FORMAT,
    focus_1_3.FORMAT,
    focus_1_2.FORMAT,
    focus_1_1.FORMAT,
    focus_1_0.FORMAT,
)


def detect(header: list[str]) -> BillFormat:
    for fmt in FORMATS:
        if fmt.detects(header):
            return fmt
    raise BillError(f"is neither a FOCUS export (no {', '.join(MARKERS[:2])}, ...) nor a generic bill (columns "
                    f"{','.join(generic.REQUIRED)}); its header is {clip(','.join(header))}")
