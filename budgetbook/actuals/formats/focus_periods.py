"""The FOCUS 1.4 Billing Period and Invoice Detail datasets: what was invoiced, not the charges.

Both come beside the Cost and Usage dataset in a 1.4 export; the charges (and so
every amount budgetbook counts) are in that one. Imported, each is told apart and
noted in the summary with its rows, so a folder of 1.4 datasets can be given whole.
The Invoice Detail's BilledCost per invoice is then held against the Cost and Usage
rows of that invoice imported alongside, to the cent: a line each in the summary,
and a warning where they differ (a charge missing from the export, or an invoice
not final yet).
"""

from __future__ import annotations

from decimal import Decimal

from ...ledger.model import Batch
from .checks import hold_count, number_ok
from .kit import BillError, Context, clip, col, rate_sql, run
from .source import Source

INVOICE_KEY = ("BillingAccountId", "BillingPeriodStart", "InvoiceId")


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
        plural = "" if rows == 1 else "s"
        ctx.notes.append(f"{source.path.name}: FOCUS 1.4 {self.label} dataset ({rows:,} row{plural}): no charges, "
                         "not counted (the Cost and Usage dataset holds them)")
        if self is INVOICE_DETAIL:
            invoices = _invoices(ctx, source)
            ctx.finish.append(lambda batches: _reconcile(ctx, source, invoices, batches))
        return []


def _invoices(ctx: Context, source: Source) -> dict[tuple[str, str, str], Decimal]:
    """(account, billing period's first day, invoice id) -> its BilledCost, in the plan's currency."""
    header = source.header
    missing = [c for c in ("BilledCost", "BillingCurrency", *INVOICE_KEY) if c not in header]
    if missing:
        raise BillError(f"is a FOCUS 1.4 Invoice Detail dataset without the column {missing[0]}")
    cost = col("BilledCost", header)
    bad = run(ctx.con, f"SELECT count(*) FROM {source.scan()} WHERE NOT {number_ok(cost, False)}")[0][0]
    if bad:
        raise BillError(f"BilledCost is not a number in {bad:,} of its rows")
    rate, params = rate_sql(col("BillingCurrency", header), ctx.mapping, ctx.plan)
    found = run(ctx.con, f"""
        SELECT coalesce(trim({col('BillingAccountId', header)}), ''),
               coalesce(substr(trim({col('BillingPeriodStart', header)}), 1, 10), ''),
               coalesce(trim({col('InvoiceId', header)}), ''),
               sum(CAST(CAST(trim({cost}) AS DECIMAL(38,10)) * {rate} AS DECIMAL(38,10)))
        FROM {source.scan()} GROUP BY ALL ORDER BY ALL""", params)
    return {(a, p, i): total for a, p, i, total in found}


def _reconcile(ctx: Context, source: Source, invoices: dict[tuple[str, str, str], Decimal],
               batches: list[Batch]) -> None:
    cent = Decimal("0.01")
    if ctx.mapping.cost_column != "BilledCost":
        ctx.notes.append(f"{source.path.name}: the invoices are not held against the rows: the mapping counts "
                         f"{ctx.mapping.cost_column}, an invoice BilledCost")
        return
    for (account, period, invoice), billed in invoices.items():
        mine = [b for b in batches if b.format == "focus" and b.key.rsplit("|", 3)[1:] == [account, period, invoice]]
        name = f"invoice {clip(invoice, 40)} of account {clip(account, 40)}"
        if not mine:
            ctx.notes.append(f"{source.path.name}: {name}: {billed:,.2f} invoiced, no Cost and Usage rows of it "
                             "in this import")
            continue
        rows = sum((b.total for b in mine), Decimal(0))
        if rows.quantize(cent) == billed.quantize(cent):
            ctx.notes.append(f"{source.path.name}: {name}: invoiced {billed:,.2f} = its Cost and Usage rows "
                             f"{rows:,.2f}")
        else:
            ctx.warnings.append(f"{source.path}: {name}: invoiced {billed:,.2f} but its Cost and Usage rows come "
                                f"to {rows:,.2f} ({rows - billed:+,.2f}): a charge is missing from the export, or "
                                "the invoice is not final")


BILLING_PERIOD = _Dataset("focus-billing-period", "Billing Period", ("BillingPeriodStatus", "BillingPeriodStart"))
INVOICE_DETAIL = _Dataset("focus-invoice-detail", "Invoice Detail", ("InvoiceDetailId", "InvoiceIssueDate"))
