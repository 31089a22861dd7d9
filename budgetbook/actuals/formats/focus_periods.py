"""The FOCUS 1.4 Billing Period and Invoice Detail datasets: what was invoiced, not the charges.

Both come beside the Cost and Usage dataset in a 1.4 export; the charges (and so
every amount budgetbook counts) are in that one. Imported, each is told apart and
noted in the summary with its rows, so a folder of 1.4 datasets can be given whole.
"""

from __future__ import annotations

from ..model import Batch
from .checks import hold_count
from .kit import Context, run
from .source import Source


class _Dataset:
    side = True

    def __init__(self, name: str, label: str, marks: tuple[str, ...]):
        self.name, self.label, self.marks = name, label, marks

    def detects(self, header: list[str]) -> bool:
        return all(c in header for c in self.marks) and "ChargePeriodStart" not in header

    def read(self, ctx: Context, source: Source) -> list[Batch]:
        source.count()
        rows = run(ctx.con, f"SELECT count(*) FROM {source.scan()}")[0][0]
        hold_count(source, rows)
        ctx.notes.append(f"{source.path.name}: FOCUS 1.4 {self.label} dataset ({rows:,} rows): no charges, not "
                         "counted (the Cost and Usage dataset holds them)")
        return []


BILLING_PERIOD = _Dataset("focus-billing-period", "Billing Period", ("BillingPeriodStatus", "BillingPeriodStart"))
INVOICE_DETAIL = _Dataset("focus-invoice-detail", "Invoice Detail", ("InvoiceDetailId", "InvoiceIssueDate"))
