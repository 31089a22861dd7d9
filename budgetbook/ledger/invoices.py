"""The Actuals sheet's table of the bills imported: each invoice, each file and all of them reconcile, live.

One row per invoice (a batch), grouped by the file it came from: its rows, then for
each cost column it has (the mapping's, BilledCost or EffectiveCost, and for a
FOCUS bill the other one too) its total, mapped and unmapped amounts, as values
(what the import found), and a live `mapped + unmapped = total`. Then one row per
file and one for all invoices, each a live SUM over the invoice rows above (every
amount, both cost columns) with its own `mapped + unmapped = total`; all invoices'
mapped (in the mapping's cost column) is held to the markets' totals and their
unmapped to the Unmapped row (the months' facts). `act_inv_ok` holds every one of
these, and the Checks sheet's master check reads it.

Names: `act_inv<n>_{total,mapped,unmapped}` (the mapping's column), `act_inv<n>_other_*`
(the other column), `act_inv<n>_ok`; `act_file<k>_*` likewise per file; `act_inv_*`
for all invoices.
"""

from __future__ import annotations

from ..lineitems.registry import TOTAL
from ..plan.model import Plan
from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint, Sheet, a1
from .model import Actuals, Batch

TOTAL_COL, FIRST = 3, 4   # the Actuals and Variance sheets' Total column and first month column
ROWS_COL, COLUMN_COL = FIRST, FIRST + 1
# each cost column's block: (its name's column), total, mapped, unmapped, reconciles
MAIN = (None, TOTAL_COL, FIRST + 2, FIRST + 3, FIRST + 4)
OTHER = (FIRST + 5, FIRST + 6, FIRST + 7, FIRST + 8, FIRST + 9)
HEADS = ((1, "Invoice key"), (2, "File"), (TOTAL_COL, "Total"), (ROWS_COL, "Rows"), (COLUMN_COL, "Column"),
         (MAIN[2], "Mapped"), (MAIN[3], "Unmapped"), (MAIN[4], "Reconciles"), (OTHER[0], "Other column"),
         (OTHER[1], "Its total"), (OTHER[2], "Its mapped"), (OTHER[3], "Its unmapped"), (OTHER[4], "Reconciles"))


def _reconciles(book: Blueprint, sheet: Sheet, row: int, block: tuple, name: str, extra: str = "") -> str:
    """A live `ABS(total - (mapped + unmapped)) <= k_tolerance * ABS(total)` in the block's last column."""
    total, mapped, unmapped = (a1(row, c) for c in block[1:4])
    formula = f"ABS({total}-({mapped}+{unmapped}))<=k_tolerance*ABS({total})"
    book.formula(sheet, row, block[4], f"=AND({formula}{extra})" if extra else f"={formula}", name,
                 kind="check", style="check")
    sheet.red_when_false.append(a1(row, block[4]))
    return a1(row, block[4])


def _invoice_row(book: Blueprint, sheet: Sheet, row: int, n: int, batch: Batch, money: str) -> list[str]:
    sheet.put(row, 1, batch.key, "note", text=True)   # bill text: written as text, never as a formula
    sheet.put(row, 2, batch.source, "note", text=True)
    sheet.put(row, ROWS_COL, batch.rows, "text", st.WHOLE)
    sheet.put(row, COLUMN_COL, batch.cost_column, "note", text=True)
    checks = []
    for block, (column, (total, unmapped)), prefix in zip((MAIN, OTHER), batch.costs().items(), ("", "other_"),
                                                              strict=False):  # a generic bill: one column
        if block[0] is not None:
            sheet.put(row, block[0], column, "note", text=True)
        sheet.put(row, block[1], float(total), "text" if block is MAIN else "constant", money)
        if block is OTHER:
            book.name(f"act_inv{n}_other_total", sheet, row, block[1], "constant")
        for col, amount, what in ((block[2], total - unmapped, "mapped"), (block[3], unmapped, "unmapped")):
            sheet.put(row, col, float(amount), "constant", money)
            book.name(f"act_inv{n}_{prefix}{what}", sheet, row, col, "constant")
        checks.append(_reconciles(book, sheet, row, block, f"act_inv{n}_{prefix}ok"))
    return checks


def _sum_row(book: Blueprint, sheet: Sheet, row: int, label: str, ranges: list[tuple[int, int]], name: str,
             other: bool, money: str, extra: str = "") -> str:
    """A row of live sums over the invoice rows `ranges` (first, last), both cost columns where `other`."""
    sheet.put(row, 1, label, "figure", text=True)
    blocks = ((MAIN, ""), (OTHER, "other_")) if other else ((MAIN, ""),)
    checks = []
    for block, prefix in blocks:
        for col, what in zip(block[1:4], ("total", "mapped", "unmapped"), strict=True):
            cells = ",".join(f"{a1(first, col)}:{a1(last, col)}" for first, last in ranges)
            book.formula(sheet, row, col, f"=SUM({cells})", f"{name}_{prefix}{what}", fmt=money, style="total")
        checks.append(_reconciles(book, sheet, row, block, f"{name}_{prefix}ok", extra if not prefix else ""))
    return ",".join(checks)


def invoices_table(book: Blueprint, sheet: Sheet, plan: Plan, actuals: Actuals, row: int) -> None:
    """The table from `row` on (see the module's docstring)."""
    money = st.money(plan.currency)
    for col, head in HEADS:
        sheet.put(row, col, head, "header")
        if col >= FIRST:  # past the months of a short plan: wide enough for an invoice's total
            sheet.widths[col] = max(sheet.widths.get(col, 0.0), 14.0)
    if not actuals.batches:
        return
    files: dict[str, list[tuple[int, Batch]]] = {}
    for n, batch in enumerate(actuals.batches, 1):
        files.setdefault(batch.source, []).append((n, batch))
    spans, checks = [], []
    for batches in files.values():
        first = row + 1
        for n, batch in batches:
            row += 1
            checks += _invoice_row(book, sheet, row, n, batch, money)
        spans.append((first, row, any(b.other is not None for _, b in batches)))
    row += 1
    for k, (source, (first, last, other)) in enumerate(zip(files, spans, strict=True), 1):
        checks.append(_sum_row(book, sheet, row, f"File {source}", [(first, last)], f"act_file{k}", other, money))
        sheet.put(row, 2, plan.currency, "unit", text=True)
        row += 1
    markets = "+".join(f"act_{TOTAL.id}_{m}" for m in actuals.markets()) or "k_none"
    held = ("," + ",".join(checks) + f",ABS(act_inv_mapped-({markets}))<=k_tolerance*ABS(act_inv_mapped),"
            "ABS(act_inv_unmapped-act_unmapped)<=k_tolerance*ABS(act_inv_unmapped)")
    other = any(o for _, _, o in spans)
    _sum_row(book, sheet, row, "All invoices", [(f, la) for f, la, _ in spans], "act_inv", other, money, held)
    sheet.put(row, 2, plan.currency, "unit", text=True)
    row += 1
    sheet.put(row, 1, "All invoices reconcile: each invoice's and each file's mapped + unmapped is its total, in "
              "each cost column; all invoices' mapped add up to the markets' totals above and their unmapped to "
              "the Unmapped row (every month's facts)", "note")


def actuals_checks(actuals: Actuals) -> list[tuple[str, str, str, str]]:
    """The Checks sheet's rows for the Actuals sheet, (check, market, formula, name)."""
    if not actuals.batches:
        return []
    return [("Actuals: every invoice's and file's mapped + unmapped is its total, and all invoices' are the "
             "months' facts", "", "=act_inv_ok", "chk_act_invoices")]
