"""The `Cash flow` sheet's kit: months across, timing flags, then money rows per line item and market.

FAST layout: two header rows hold each month's bounds in months after the
plan's start (constants, not formulas, so no formula types a month number);
timing flags come next, one row per window, each the share of the window that
falls in the month, computed from its start and length columns (which read the
input cells); then, per line item and market, a row per workload (its cost x
its flag) and the line's row (their sum). Every row holds one formula copied
across the month columns. The Checks sheet checks that each line's months add
up to the line item's figure.

The line items write their own rows (`LineItem.cash_flow`); this module gives
them the grid, and `workbook/cash_flow.py` builds the sheet from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..plan.model import Market, Plan
from ..plan.timing import month_labels
from ..xlsx.cell_grid import col_letters
from . import style as st
from .grid import Blueprint, a1
from .names import Inputs

TITLE = "Cash flow"
START, MONTHS, TOTAL_COL, FIRST_MONTH_COL = 3, 4, 5, 6
HEADER_ROW, BEGIN_ROW, END_ROW = 4, 5, 6
# A line's row adds its rows with `+` (the evaluator computes a run of such cells in one call, a SUM one
# cell at a time); past this many, SUM of the range keeps the formula far below Excel's 8,192 characters.
CHAIN_LIMIT = 200

# the share of a window [start, start + months) inside [begin, end): evenly spread, zero for an empty window
FLAG = ("=IF({months}>k_none,MAX(k_none,MIN({end},{start}+{months})-MAX({begin},{start}))/{months},k_none)")


@dataclass(frozen=True)
class Flag:
    """A timing flag row: refer to it as `{flag}` in a money row's template."""

    row: int


class CashFlow:
    def __init__(self, book: Blueprint, plan: Plan, inp: Inputs, months: int):
        """`months`: how many month columns (`lineitems.phasing.month_count`: every window in every scenario)."""
        self.book, self.plan, self.inp = book, plan, inp
        self.months = months
        self.sheet = sheet = book.sheet(TITLE, "output")
        self.flags: dict[str, Flag] = {}
        self.line_rows: dict[tuple[str, str], int] = {}
        self.price_rows: dict[str, int] = {}  # market id -> its price index row, where its prices move
        sheet.put(1, 1, f"Cash flow: {plan.name}", "title")
        sheet.put(2, 1, "When the development cost is paid: every line item per market, month by month, "
                        "spread evenly over each workload's and role's months (see About). Serving and the "
                        "final-run compute are not in it.", "subtitle")
        for col, head in ((1, ""), (2, "Unit"), (START, "Start"), (MONTHS, "Months"), (TOTAL_COL, "Total")):
            sheet.put(HEADER_ROW, col, head, "header")
        for n, label in enumerate(month_labels(plan.start, self.months)):
            sheet.put(HEADER_ROW, self.col(n), label, "header", text=True)
        for row, label, first in ((BEGIN_ROW, "Month begins", 0), (END_ROW, "Month ends", 1)):
            sheet.put(row, 1, f"{label} (months after the plan's start)", "label")
            sheet.put(row, 2, "months", "unit")
            for n in range(self.months):
                sheet.put(row, self.col(n), n + first, "constant", st.WHOLE)
                book.name(f"cf_{label.split()[1]}_m{n + 1}", sheet, row, self.col(n), "constant")
        sheet.widths = {1: 46.0, 2: 12.0, START: 9.0, MONTHS: 9.0, TOTAL_COL: 14.0} | {
            self.col(n): 12.0 for n in range(self.months)}
        sheet.freeze = a1(END_ROW + 1, FIRST_MONTH_COL)
        # on paper it runs on down the pages, one page wide, the months and their bounds atop each
        sheet.print_title_rows, sheet.runs_on = f"{HEADER_ROW}:{END_ROW}", True
        sheet.row = END_ROW + 2

    def gpu_hours(self, market: Market) -> list[Any]:
        """The GPU-hours every line item buys in `market`'s column, as each declares them (`GpuHoursCells`)."""
        return gpu_hours_cells(self.plan, market)

    def col(self, n: int) -> int:
        return FIRST_MONTH_COL + n

    def _cell(self, row: int, col: int, *, absolute_col: bool = False, absolute_row: bool = False) -> str:
        return f"{'$' if absolute_col else ''}{col_letters(col)}{'$' if absolute_row else ''}{row}"

    def section(self, title: str) -> None:
        self.sheet.put(self.sheet.row, 1, title, "section", text=True)
        self.sheet.row += 1

    def gap(self) -> None:
        self.sheet.row += 1

    def _total(self, row: int, name: str, fmt: str, bold: bool = False, item: str = "", market: str = "") -> None:
        # kind "calc", not "figure": `show`'s figures are on the line items' sheets; the Checks sheet holds
        # these sums against them
        first, last = self._cell(row, self.col(0)), self._cell(row, self.col(self.months - 1))
        self.book.formula(self.sheet, row, TOTAL_COL, f"=SUM({first}:{last})", name, fmt=fmt,
                          style="total" if bold else "calc", item=item, market=market)

    def constant(self, label: str, value: float, name: str, unit: str) -> str:
        """One named constant of this plan (in the Start column), for the rows below to read; returns its name."""
        sheet, row = self.sheet, self.sheet.row
        sheet.put(row, 1, label, "label", text=True)
        sheet.put(row, 2, unit, "unit", text=True)
        sheet.put(row, START, value, "constant", st.WHOLE)
        self.book.name(name, sheet, row, START, "constant")
        sheet.row += 1
        return name

    # --- timing flags -------------------------------------------------------------------------

    def flag(self, key: str, label: str, start: str, months: str) -> Flag:
        """A timing flag (share of the window per month); `start` and `months` are formulas on input names."""
        sheet, row, book = self.sheet, self.sheet.row, self.book
        sheet.put(row, 1, label, "label", text=True)
        sheet.put(row, 2, "share", "unit")
        book.formula(sheet, row, START, start, f"cf_t_{key}_start", fmt=st.COUNT)
        book.formula(sheet, row, MONTHS, months, f"cf_t_{key}_months", fmt=st.COUNT)
        for n in range(self.months):
            col = self.col(n)
            formula = FLAG.format(months=self._cell(row, MONTHS, absolute_col=True),
                                  start=self._cell(row, START, absolute_col=True),
                                  begin=self._cell(BEGIN_ROW, col, absolute_row=True),
                                  end=self._cell(END_ROW, col, absolute_row=True))
            book.formula(sheet, row, col, formula, f"cf_t_{key}_m{n + 1}", fmt=st.SHARE)
        self._total(row, f"cf_t_{key}", st.SHARE)
        sheet.row += 1
        self.flags[key] = Flag(row)
        return self.flags[key]

    # --- money rows ---------------------------------------------------------------------------

    def row(self, label: str, template: str, name: str, market: Market, refs: dict[str, str | int | Flag] | None = None,
            *, item: str = "", kind: str = "calc", total: bool = True, unit: str = "", fmt: str = "") -> int:
        """A money row of one market: `template` with `{x}` a name (same in every month), a row of this
        sheet (`int`, its cell in the month's column) or a `Flag` (the flag's cell in the month's column)."""
        sheet, row, book = self.sheet, self.sheet.row, self.book
        money0 = fmt or st.money(self.plan.currency)
        sheet.put(row, 1, label, "figure" if kind == "figure" else "label", text=True)
        sheet.put(row, 2, unit or self.plan.currency, "unit", text=True)
        # each placeholder a name (the same every month) or a row (its cell in the month's column: `_cell`)
        names = {key: ref for key, ref in (refs or {}).items() if isinstance(ref, str)}
        rows = [(key, ref.row if isinstance(ref, Flag) else ref) for key, ref in (refs or {}).items()
                if not isinstance(ref, str)]
        style, market_id = "total" if kind == "figure" else "calc", market.id
        for n in range(self.months):
            col = self.col(n)
            letters = col_letters(col)
            values = names | {key: f"{letters}{r}" for key, r in rows}
            book.formula(sheet, row, col, template.format_map(values), f"{name}_m{n + 1}", fmt=money0,
                         style=style, item=item, market=market_id)
        if total:
            self._total(row, name, money0, bold=kind == "figure", item=item, market=market.id)
        sheet.row += 1
        return row

    def spread(self, label: str, cost: str, flag: Flag, name: str, market: Market, item: str) -> int:
        """A cost (a defined name) spread over a timing flag's months."""
        # no Total column: the line's row below has one, and on a portfolio these rows are most of the
        # sheet (a SUM per row is a cell the evaluator computes on its own)
        return self.row(label, "={cost}*{flag}", name, market, {"cost": cost, "flag": flag}, item=item, total=False)

    def per_run(self, title: str, plan, line, what: str, cost: str, prefix: str) -> None:
        """A section spreading each workload's `{cost}_{workload}_{market}` over its run, then the line per market."""
        self.section(title)
        for m in plan.markets:
            rows = [self.spread(f"{w.label or w.id}: {what}", cost.format(w=w.id, m=m.id), self.flags[f"run_{w.id}"],
                                f"{prefix}_{w.id}_{m.id}", m, line.id) for w in plan.workloads]
            self.line(line.id, line.label, m, rows)
        self.gap()

    def line(self, line_id: str, label: str, market: Market, parts: list[int]) -> int:
        """A line item's row of one market: the sum of its rows just above (`parts`, contiguous)."""
        title, name = f"{label}: {market.label or market.id}", f"cf_{line_id}_{market.id}"
        if len(parts) > CHAIN_LIMIT:
            row = self.row(title, "=SUM({first}:{last})", name, market, {"first": min(parts), "last": max(parts)},
                           item=line_id, kind="figure")
        elif parts:
            refs: dict[str, str | int | Flag] = {f"p{i}": r for i, r in enumerate(parts)}
            row = self.row(title, "=" + "+".join(f"{{{key}}}" for key in refs), name, market, refs, item=line_id,
                           kind="figure")
        else:
            row = self.row(title, "=k_none", name, market, item=line_id, kind="figure")
        self.line_rows[(line_id, market.id)] = row
        return row


__all__ = ["BEGIN_ROW", "END_ROW", "HEADER_ROW", "MONTHS", "START", "TITLE", "CashFlow", "Flag"]


def gpu_hours_cells(plan: Plan, market: Market) -> list[Any]:
    """The GPU-hours every line item of the plan buys in `market`'s column, as each declares them
    (`GpuHoursCells`); the plan names its items (`Plan.LINE_ITEMS`), so the kit needs no registry."""
    return [cells for li in plan.LINE_ITEMS if li.gpu_hours_cells is not None
            for cells in li.gpu_hours_cells(plan, market)]
