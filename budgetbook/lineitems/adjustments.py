"""Adjustments: the lines finance owns (a negotiated discount, an FX hedge, a one-off legal review).

Rule: each adjustment adds its amount (negative for a discount) to its market's total
development cost, in its month (the plan's first month when none is given). An amount is a
number, or a formula of the user's own over budgetbook's figures of that market that come
before it (`=-0.05*compute_hyperscaler_commit`), kept as its text and evaluated by both
implementations. Per market, the line is the sum of that market's adjustments.

The plan key is `adjustments:` (label, market, item: a line id or `other`, month, amount, note);
every book has the `Adjustments` sheet (a plan without the key: blank rows only; `null`: none, as a
book written before every book had one), a table of the plan's adjustments with 20 blank rows more,
each row's cells named
`adj_<n>_label`, `adj_<n>_market`, `adj_<n>_item`, `adj_<n>_month`, `adj_<n>_amount` (`n` from 1),
unlocked, with data validation on market, item and month. The figure `adjustments_<market>` is
`SUMIF` of the Amount column over the Market column (no array formulas: every reader evaluates it);
the Cash flow's row is `SUMIFS` by market and by the row's month used (`adjc_<n>_month`, a plain
helper column). `check` reads the table back (`review/adjustments.py`), so rows typed in the book
flow into the reference too.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from ..plan.model import ID_PATTERN, Plan, Strict
from ..sheetkit import style as st
from ..sheetkit.cash_flow import END_ROW, CashFlow
from ..sheetkit.grid import Blueprint, a1, quoted
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, market_col
from . import adjustment_formula
from .base import Line, LineItem, Section, built_in_lines, rule
from .phasing import month_count
from .scenario import MarketView

TITLE = "Adjustments"
LINE = Line("adjustments", "Adjustments (finance's own lines)")
BLANK_ROWS = 20   # rows ready for finance to type into
OTHER = "other"   # an adjustment's item when it is no line of ours
MAX_AMOUNT = 1e12
FIELDS = ("label", "market", "item", "month", "amount")
# the table's columns: A label, B market, C item, D month, E amount, F month used (helper), G note
COLUMNS = {"label": 1, "market": 2, "item": 3, "month": 4, "amount": 5, "month_used": 6, "note": 7}


class Adjustment(Strict):
    label: str = Field(min_length=1, max_length=200, description="what the line is (`Negotiated discount`)")
    market: str = Field(pattern=ID_PATTERN, description="the market whose total it adjusts")
    item: str = Field(OTHER, pattern=ID_PATTERN, description="the line it belongs to (a line id), or other")
    month: int | None = Field(None, ge=1, le=600, description="month of the plan it falls in (1: the first)")
    amount: float | str = Field(description="a number (negative for a discount), or a formula over our "
                                            "figures of its market (`=-0.05*compute_<market>`)")
    note: str = Field("", max_length=2000, description="the reason or source")

    @field_validator("amount")
    @classmethod
    def _amount(cls, value: float | str) -> float | str:
        if isinstance(value, str):
            adjustment_formula.names_read(value)  # refuses what is not a formula of names and numbers
        elif not -MAX_AMOUNT <= value <= MAX_AMOUNT:
            raise ValueError(f"an amount is between -{MAX_AMOUNT:g} and {MAX_AMOUNT:g}")
        return value


def _adjustments(plan: Any) -> list[Any]:
    return SECTION.of(plan) or []


def readable(plan: Any, market: str) -> set[str]:
    """The figures (lower-cased defined names) an adjustment of `market` may read: its market's lines
    that come before adjustments."""
    names: set[str] = set()
    for li in plan.LINE_ITEMS:
        if li.id == ITEM_ID:
            break
        names |= {f"{line.id}_{market}".lower() for line in li.lines(plan)}
    return names


def problem(plan: Any, adj: Any) -> tuple[str, str] | None:
    """(field, what is wrong) of an adjustment against the plan, or None: the plan's and `check`'s rule."""
    markets = [m.id for m in plan.markets]
    if adj.market not in markets:
        return "market", f"market `{adj.market}` is not one of this plan's markets ({', '.join(markets)})"
    items = sorted(built_in_lines(plan.LINE_ITEMS)) + [OTHER]
    if adj.item not in items and adj.item not in {line.id for line in _plan_lines(plan)}:
        return "item", f"item `{adj.item}` is not a line of this plan or `{OTHER}`"
    months = month_count(plan)
    if adj.month is not None and adj.month > months:
        return "month", f"month {adj.month} is outside the plan's {months} month(s)"
    if isinstance(adj.amount, str):
        allowed = readable(plan, adj.market)
        for name in adjustment_formula.names_read(adj.amount):
            if name not in allowed:
                return "amount", (f"the formula reads `{name}`, not one of budgetbook's figures of market "
                                  f"`{adj.market}` that come before adjustments (a total, another adjustment, "
                                  "or not ours: circular or unchecked)")
    return None


def _plan_lines(plan: Any) -> list[Line]:
    return [line for li in plan.LINE_ITEMS if li.id != ITEM_ID for line in li.lines(plan)]


def validate(plan: Plan) -> None:
    for i, adj in enumerate(_adjustments(plan)):
        found = problem(plan, adj)
        if found is not None:
            raise ValueError(f"`adjustments[{i}].{found[0]}`: {found[1]}")


# the key left out: a blank table (every book has the sheet); `null`: no sheet, as a book written before
# every book had one is read (`review/readback.py`), so its layout still matches
SECTION = Section("adjustments", list[Adjustment] | None, Field(default_factory=list, max_length=200), TITLE, "adj_",
                  lambda plan: [], validate=validate,
                  examples=([], [{"label": "One-off legal review", "market": "hyperscaler_on_demand",
                                  "amount": 12000, "note": "quote from counsel"}]))

ITEM_ID = "adjustments"


def lines(plan: Any) -> list[Line]:
    return [] if SECTION.of(plan) is None else [LINE]


# --- the reference rule -------------------------------------------------------------------

def amount_of(adj: Any, view: MarketView) -> Any:
    """An adjustment's amount on its market: the number, or its formula over the lines computed so far."""
    if not isinstance(adj.amount, str):
        return float(adj.amount)
    figures = {f"{line}_{view.market.id}".lower(): value for line, value in view.lines.items()}
    return adjustment_formula.evaluate(adj.amount, figures)


def reference(view: MarketView) -> dict[str, float]:
    if SECTION.of(view.plan) is None:
        return {}
    total: Any = 0.0
    for adj in _adjustments(view.plan):
        if adj.market == view.market.id:
            total = total + amount_of(adj, view)
    return {LINE.id: total}


def monthly(view: MarketView) -> dict[str, list[float]]:
    if SECTION.of(view.plan) is None:
        return {}
    months: list[Any] = [0.0] * view.months
    for adj in _adjustments(view.plan):
        if adj.market == view.market.id:
            months[(adj.month or 1) - 1] = months[(adj.month or 1) - 1] + amount_of(adj, view)
    return {LINE.id: months}


# --- the sheet ----------------------------------------------------------------------------

def table_rows(plan: Any) -> int:
    """The rows of the table: one a plan adjustment, and `BLANK_ROWS` more (`review.adjustments` reads them)."""
    return len(_adjustments(plan)) + BLANK_ROWS


def table_top(plan: Any) -> int:
    """The first row of the table (adjustment 1); its header is the row above."""
    return 10


def _column(plan: Any, field: str) -> str:
    """The table's column of `field`, absolute (`$E$10:$E$29`)."""
    top, col = table_top(plan), COLUMNS[field]
    first, last = a1(top, col), a1(top + table_rows(plan) - 1, col)
    return "$" + first.rstrip("0123456789") + "$" + str(top) + ":$" + last.rstrip("0123456789") + "$" + \
        str(top + table_rows(plan) - 1)


def build(book: Blueprint, plan: Plan, inp: Inputs) -> None:
    if SECTION.of(plan) is None:
        return
    sheet = CalcSheet(book, plan, TITLE, "calc", "Adjustments",
                      "Finance's own lines: type a label, market, line item, month and amount (a number, or a "
                      "formula over our figures) into a blank row; each adds into its market's total.")
    ids_row = sheet.sheet.row
    sheet.text_row("Market id (what a row's Market column names)", lambda m: m.id)
    sheet.row(LINE.label, plan.currency, st.money(plan.currency), "=SUMIF({markets},{market},{amounts})", LINE.id,
              kind="figure", item=LINE.id, markets=_column(plan, "market"), market=ids_row,
              amounts=_column(plan, "amount"))
    _table(book, sheet.sheet, plan, ids_row)


def _table(book: Blueprint, ws: Any, plan: Any, ids_row: int) -> None:
    top = table_top(plan)
    heads = {"label": "Label", "market": "Market", "item": "Line item", "month": "Month",
             "amount": f"Amount ({plan.currency})", "month_used": "Month used", "note": "Reason / source"}
    ws.put(top - 2, 1, "The adjustments (blank rows are ready; a row with no market adds nowhere)", "section")
    for field, col in COLUMNS.items():
        ws.put(top - 1, col, heads[field], "header")
    first, last = a1(ids_row, market_col(plan, plan.markets[0])), a1(ids_row, market_col(plan, plan.markets[-1]))
    markets = "$" + first.rstrip("0123456789") + f"${ids_row}:$" + last.rstrip("0123456789") + f"${ids_row}"
    items = ",".join([line.id for line in _plan_lines(plan) if line.in_total] + [OTHER])
    months = month_count(plan)
    adjustments = _adjustments(plan)
    money = st.money(plan.currency)
    for n in range(1, table_rows(plan) + 1):
        row = top + n - 1
        adj = adjustments[n - 1] if n <= len(adjustments) else None
        values = {"label": adj.label if adj else None, "market": adj.market if adj else None,
                  "item": adj.item if adj else None, "month": adj.month if adj else None,
                  "amount": adj.amount if adj else None}
        for field in FIELDS:
            value = values[field]
            fmt = money if field == "amount" else (st.COUNT if field == "month" else None)
            formula = field == "amount" and isinstance(value, str)
            ws.put(row, COLUMNS[field], value, "input", fmt)
            if formula:  # the user's own formula over our figures (checked on load): a formula, not text
                ws.cells[(row, COLUMNS[field])].is_text = False
            book.name(f"adj_{n}_{field}", ws, row, COLUMNS[field], "input")
        ws.put(row, COLUMNS["note"], adj.note if adj else None, "input", text=True)
        month = a1(row, COLUMNS["month"])
        book.formula(ws, row, COLUMNS["month_used"], f"=MAX({month},cf_ends_m1)", f"adjc_{n}_month", fmt=st.COUNT,
                     style="mechanism")
    rows = f"{top}:{top + table_rows(plan) - 1}"
    b, c, d = (chr(ord("A") + COLUMNS[f] - 1) for f in ("market", "item", "month"))
    rules = [(b, {"type": "list", "formula1": markets, "message": "a market of this plan (its id, as in row "
                  f"{ids_row})"}),
             (d, {"type": "whole", "operator": "between", "formula1": "1", "formula2": str(months),
                  "message": f"a month of the plan, 1 to {months} (blank: the first)"})]
    if len(items) <= 250:  # a list typed into the rule holds at most 255 characters
        rules.append((c, {"type": "list", "formula1": f'"{items}"', "message": "a line of this plan, or other"}))
    first_row, last_row = rows.split(":")
    for letter, rule_ in rules:
        ws.validations.append((f"{letter}{first_row}:{letter}{last_row}", rule_))


def cash_flow(cf: CashFlow, plan: Plan, inp: Inputs) -> None:
    if SECTION.of(plan) is None:
        return
    cf.section(TITLE)
    ids_row = 6  # `build`'s text row: the first row below the header's gap
    for m in plan.markets:
        cell = a1(ids_row, market_col(plan, m))
        market = f"{quoted(TITLE)}!${cell.rstrip('0123456789')}${ids_row}"  # the same cell in every month
        sheet = quoted(TITLE)
        row = cf.row(f"{LINE.label}: in their month", "=SUMIFS({amounts},{markets},{market},{used},{month})",
                     f"cf_adj_{m.id}", m, {"amounts": f"{sheet}!{_column(plan, 'amount')}",
                                           "markets": f"{sheet}!{_column(plan, 'market')}", "market": market,
                                           "used": f"{sheet}!{_column(plan, 'month_used')}", "month": END_ROW},
                     item=LINE.id, total=False)
        cf.line(LINE.id, LINE.label, m, [row])
    cf.gap()


ITEM = LineItem(id=ITEM_ID, doc=rule(__doc__), known_lines=(LINE,), lines=lines, reference=reference, build=build,
                sheet_titles=lambda plan, taken: [TITLE] if SECTION.of(plan) is not None else [],
                fixed_title=TITLE, name_prefix="adjc_", section=SECTION, monthly=monthly, cash_flow=cash_flow)
