"""The `Actuals` sheet (the bills, as values) and the live `Variance` sheet, added to the Blueprint.

Actuals: per market that bills map to, one row per development line item with
each month's billed amount as a named value (`act_<item>_<market>_m<n>`, facts,
not formulas), the market's total, the GPU-hours billed under compute; then the
unmapped charges (in no market's total: listed so they are mapped, never lost)
and the bills imported (`invoices`): per invoice, per file and in all, in each cost
column, mapped + unmapped = total, live, held to the months' facts (`act_inv_ok`,
on the Checks sheet's master check).

Variance: per market and line item (and the total), months across, every row
one formula copied across:

    plan          = the line's Cash flow month             (cf_<item>_<market>_m<n>)
    plan to date  = IF(month ends <= months of bills, plan, 0)
    actual        = the Actuals month                      (act_<item>_<market>_m<n>)
    variance      = actual - plan to date
    variance %    = variance / plan to date (0 when nothing was planned)
    cumulative plan, cumulative actual
    forecast      = IF(month closed, actual, plan); its total is the forecast at completion
                    (actuals to date + the remaining plan)

and per market the effective price paid per GPU-hour (compute billed / GPU-hours
billed) where the bills carry quantities.

Bills are compared at the level a bill can know (`variance_blocks`): a GPU bill says
what the hours cost, not which were failed runs or a commitment's idle hours, so a
market's GPU spend (its `billed="gpu"` lines: compute, failed runs, commitment idle
and overflow, ...) is one block held against the bills, and those lines follow it as
plan only (plan, plan to date, cumulative plan: never an "actual" of 0 and a
variance of -100 %); lines no bill carries (contingency) are plan only too.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..lineitems.base import GPU_SPEND
from ..lineitems.phasing import month_count
from ..lineitems.registry import TOTAL, development_lines
from ..output.words import plural
from ..plan.model import Plan
from ..plan.timing import month_labels
from ..sheetkit import style as st
from ..sheetkit.cash_flow import gpu_hours_cells
from ..sheetkit.grid import Blueprint, Sheet, a1
from .baseline import build_baseline_sheet, versions_rows
from .invoices import FIRST, TOTAL_COL, invoices_table
from .model import Actuals

ACTUALS, VARIANCE = "Actuals", "Variance"
HEADER_ROW = 4
# the planned GPU-hours row adds two products per workload: past this many its formula nears Excel's 8,192
# characters, and the rows are left out (the prices stay)
MAX_HOURS_WORKLOADS = 40

# the Variance rows of one market and line: (key, label, unit kind, template, total template or None)
ROWS = (
    ("plan", "plan", "money", "={cf}", "=SUM({first}:{last})"),
    ("plan_to_date", "plan to date (months billed)", "money", "=IF({end}<=act_months,{plan},k_none)",
     "=SUM({first}:{last})"),
    ("actual", "actual", "money", "={act}", "=SUM({first}:{last})"),
    ("variance", "variance (actual - plan to date)", "money", "={actual}-{plan_to_date}", "=SUM({first}:{last})"),
    ("variance_pct", "variance %", "share", "=IF(ABS({plan_to_date})>k_none,{variance}/{plan_to_date},k_none)",
     "=IF(ABS({plan_to_date})>k_none,{variance}/{plan_to_date},k_none)"),
    ("cum_plan", "cumulative plan", "money", "=SUM({plan_first}:{plan})", None),
    ("cum_actual", "cumulative actual", "money", "=SUM({actual_first}:{actual})", None),
    ("forecast", "forecast (actual where billed, else plan)", "money", "=IF({end}<=act_months,{actual},{plan})",
     "=SUM({first}:{last})"),
)


def plan_months(plan: Plan) -> list[str]:
    return month_labels(plan.start, month_count(plan))


PLAN_ONLY_ROWS = ("plan", "plan_to_date", "cum_plan")  # a plan-only block's rows (of ROWS)


@dataclass(frozen=True)
class Block:
    """One Variance block of a market: `parts`, the development lines whose Cash flow (plan) and Actuals (bills)
    rows it adds; `plan_only`, a block no bill can be held against (shown without actual and variance)."""

    id: str
    label: str
    parts: tuple[str, ...]
    plan_only: bool = False


def line_ids(plan: Plan) -> list[tuple[str, str]]:
    """(id, label) of the development lines (the Actuals sheet's rows of a market), then the total."""
    return [(line.id, line.label) for line in development_lines(plan)] + [(TOTAL.id, TOTAL.label)]


def variance_blocks(plan: Plan) -> list[Block]:
    """The Variance blocks of a market, in order: its GPU spend (when the plan has GPU lines), every development
    line (plan only when a bill cannot carry it on its own: `Line.billed`), then the total."""
    lines = development_lines(plan)
    gpu = [line for line in lines if line.billed == "gpu"]
    blocks = []
    if gpu:
        parts = ", ".join(line.label.split(":")[0].lower() for line in gpu)
        blocks.append(Block(GPU_SPEND.id, f"{GPU_SPEND.label} ({parts})", tuple(line.id for line in gpu)))
    for line in lines:
        label = {"gpu": f"{line.label} (plan only, in GPU spend)", "plan": f"{line.label} (plan only)"}.get(
            line.billed, line.label)
        blocks.append(Block(line.id, label, (line.id,), plan_only=line.billed != "line"))
    return blocks + [Block(TOTAL.id, TOTAL.label, (TOTAL.id,))]


def _sum_of(prefix: str, parts: tuple[str, ...], market: str, suffix: str = "") -> str:
    """`cf_compute_m_m1+cf_failed_runs_m_m1`: the named cells of `parts`, added."""
    return "+".join(f"{prefix}_{part}_{market}{suffix}" for part in parts)


def _header(sheet: Sheet, title: str, subtitle: str, months: list[str]) -> None:
    sheet.put(1, 1, title, "title", text=True)
    sheet.put(2, 1, subtitle, "subtitle")
    for col, head in ((1, ""), (2, "Unit"), (TOTAL_COL, "Total")):
        sheet.put(HEADER_ROW, col, head, "header")
    for n, label in enumerate(months):
        sheet.put(HEADER_ROW, FIRST + n, label, "header", text=True)
    sheet.widths = {1: 52.0, 2: 12.0, TOTAL_COL: 14.0} | {FIRST + n: 12.0 for n in range(len(months))}
    sheet.freeze = a1(HEADER_ROW + 1, FIRST)


def build_actuals_sheets(book: Blueprint, plan: Plan, actuals: Actuals) -> None:
    months = plan_months(plan)
    about = book.get("About")
    row = max(r for r, _ in about.cells) + 1
    about.put(row, 1, "Bills", "section", text=True)
    about.put(row, 2, f"Actuals: the imported bills, as values ({plural(len(actuals.batches), 'invoice')}); "
              "Variance: the "
              "plan against them, live. `budgetbook variance this.xlsx` prints it; `budgetbook actuals this.xlsx "
              "BILLS... -o OUT.xlsx` adds a month (the same invoice again replaces it).", "text", text=True)
    _actuals_sheet(book, plan, actuals, months)
    _variance_sheet(book, plan, actuals, months)
    if actuals.baseline is not None:
        build_baseline_sheet(book, plan.currency, actuals.baseline)


def variance_checks(plan: Plan, actuals: Actuals) -> list[tuple[str, str, str, str]]:
    """The Checks sheet's rows for the Variance sheet, (check, market, formula, name): its plan is the Cash flow's,
    its line items' actuals add up to its total, and that total is the bills' (the Actuals sheet)."""
    rows = []
    blocks = variance_blocks(plan)
    for market in actuals.markets():
        for block in blocks:
            plan_total, cash_flow = f"var_{block.id}_{market}_plan", _sum_of("cf", block.parts, market)
            rows.append((f"Variance {block.label}: the plan is the Cash flow's", market,
                         f"=ABS({plan_total}-({cash_flow}))<=k_tolerance*ABS({cash_flow})",
                         f"chk_var_plan_{block.id}_{market}"))
        actual, bills = f"var_{TOTAL.id}_{market}_actual", f"act_{TOTAL.id}_{market}"
        parts = "+".join(f"var_{b.id}_{market}_actual" for b in blocks[:-1] if not b.plan_only) or "k_none"
        rows.append(("Variance: the line items' actuals add up to the total actual", market,
                     f"=ABS({actual}-({parts}))<=k_tolerance*ABS({actual})", f"chk_var_total_{market}"))
        rows.append(("Variance: the total actual is the bills' (Actuals)", market,
                     f"=ABS({actual}-{bills})<=k_tolerance*ABS({bills})", f"chk_var_bills_{market}"))
    return rows


def _sum_row(book: Blueprint, sheet: Sheet, row: int, months: list[str], name: str, fmt: str,
             style: str = "calc") -> None:
    book.formula(sheet, row, TOTAL_COL, f"=SUM({a1(row, FIRST)}:{a1(row, FIRST + len(months) - 1)})", name,
                 fmt=fmt, style=style)


def _values_row(book: Blueprint, sheet: Sheet, row: int, label: str, unit: str, values: list[float], name: str,
                fmt: str, months: list[str]) -> None:
    sheet.put(row, 1, label, "label", text=True)
    sheet.put(row, 2, unit, "unit", text=True)
    for n, value in enumerate(values):
        sheet.put(row, FIRST + n, value, "constant", fmt)
        book.name(f"{name}_m{n + 1}", sheet, row, FIRST + n, "constant")
    _sum_row(book, sheet, row, months, name, fmt)


def _actuals_sheet(book: Blueprint, plan: Plan, actuals: Actuals, months: list[str]) -> None:
    sheet = book.sheet(ACTUALS, "calc")
    money = st.money(plan.currency)
    _header(sheet, f"Actuals: {plan.name}", "What the bills say, month by month (facts, as values: `budgetbook "
            "actuals` writes them from the imported bills; the Variance sheet holds them against the plan).", months)
    cells, hours = actuals.by_cell(), actuals.gpu_hours()
    row = HEADER_ROW + 1
    sheet.put(row, 1, "Months billed (from the plan's first month to the last month any bill covers)", "label")
    sheet.put(row, 2, "months", "unit")
    sheet.put(row, TOTAL_COL, actuals.closed_months(months), "constant", st.WHOLE)
    book.name("act_months", sheet, row, TOTAL_COL, "constant")
    row += 2
    labels = {m.id: m.label or m.id for m in plan.markets}
    for market in actuals.markets():
        sheet.put(row, 1, f"Bills: {labels[market]}", "section", text=True)
        row += 1
        first = row
        for line_id, label in line_ids(plan)[:-1]:
            values = [float(cells.get((m, market, line_id), 0)) for m in months]
            _values_row(book, sheet, row, label, plan.currency, values, f"act_{line_id}_{market}", money, months)
            row += 1
        sheet.put(row, 1, f"{TOTAL.label}: {labels[market]}", "figure", text=True)
        sheet.put(row, 2, plan.currency, "unit", text=True)
        for n in range(len(months)):
            col = FIRST + n
            book.formula(sheet, row, col, f"=SUM({a1(first, col)}:{a1(row - 1, col)})",
                         f"act_{TOTAL.id}_{market}_m{n + 1}", fmt=money, style="total")
        _sum_row(book, sheet, row, months, f"act_{TOTAL.id}_{market}", money, "total")
        row += 1
        values = [float(hours.get((m, market), 0)) for m in months]
        _values_row(book, sheet, row, "GPU-hours billed under compute", "GPU-hours", values, f"act_gpuh_{market}",
                    st.HOURS, months)
        row += 2
    sheet.put(row, 1, "Unmapped charges: in no market's total; add a rule to the mapping file", "section")
    row += 1
    values = [float(cells.get((m, "", "unmapped"), 0)) for m in months]
    _values_row(book, sheet, row, "Unmapped", plan.currency, values, "act_unmapped", money, months)
    row += 1
    for what, amount, count in actuals.unmapped():
        sheet.put(row, 1, what, "note", text=True)  # bill text: written as text, never as a formula
        sheet.put(row, 2, plural(count, 'row'), "unit", text=True)
        sheet.put(row, TOTAL_COL, _money(amount), "text", money)
        row += 1
    row += 1
    sheet.put(row, 1, "Bills imported (a re-import of the same invoice key replaces it)", "section")
    invoices_table(book, sheet, plan, actuals, row + 1)


def _money(amount: Decimal) -> float:
    return float(amount)


def _variance_sheet(book: Blueprint, plan: Plan, actuals: Actuals, months: list[str]) -> None:
    sheet = book.sheet(VARIANCE, "output")
    money = st.money(plan.currency)
    _header(sheet, f"Variance: {plan.name}", "Plan (the Cash flow) against the bills (Actuals), per market and "
            "line item, month by month; the forecast at completion is the actuals to date plus the remaining plan.",
            months)
    labels = {m.id: m.label or m.id for m in plan.markets}
    row, chart_rows, series, ends = HEADER_ROW + 2, [], [], {}
    billed = actuals.closed_months(months)
    last = len(months) - 1
    for market in actuals.markets():
        sheet.put(row, 1, f"Variance: {labels[market]}", "section", text=True)
        row += 1
        for block in variance_blocks(plan):
            line_id, label = block.id, block.label
            shown = [spec for spec in ROWS if not block.plan_only or spec[0] in PLAN_ONLY_ROWS]
            at = {key: row + i for i, (key, *_rest) in enumerate(shown)}
            base = f"var_{line_id}_{market}"
            for key, what, unit, template, total in shown:
                r = at[key]
                fmt = money if unit == "money" else st.PERCENT
                sheet.put(r, 1, f"{label}: {what}", "figure" if key == "forecast" else "label", text=True)
                sheet.put(r, 2, plan.currency if unit == "money" else "%", "unit", text=True)
                for n in range(len(months)):
                    col = FIRST + n
                    refs = {k: a1(v, col) for k, v in at.items()} | {
                        "cf": _sum_of("cf", block.parts, market, f"_m{n + 1}"),
                        "act": _sum_of("act", block.parts, market, f"_m{n + 1}"),
                        "end": f"cf_ends_m{n + 1}", "plan_first": _abs_col(at["plan"], FIRST),
                        "actual_first": _abs_col(at.get("actual", at["plan"]), FIRST)}
                    book.formula(sheet, r, col, template.format_map(refs), f"{base}_{key}_m{n + 1}", fmt=fmt,
                                 item=line_id, market=market)
                if total is not None:
                    refs = {k: a1(v, TOTAL_COL) for k, v in at.items()} | {
                        "first": a1(r, FIRST), "last": a1(r, FIRST + last)}
                    book.formula(sheet, r, TOTAL_COL, total.format_map(refs), f"{base}_{key}", fmt=fmt,
                                 kind="figure", style="total" if key == "forecast" else "calc", item=line_id,
                                 market=market)
            row += len(shown)
            if not block.plan_only:
                sheet.put(row, 1, f"{label}: forecast at completion - plan", "label", text=True)
                sheet.put(row, 2, plan.currency, "unit", text=True)
                book.formula(sheet, row, TOTAL_COL,
                             f"={a1(at['forecast'], TOTAL_COL)}-{a1(at['plan'], TOTAL_COL)}",
                             f"{base}_at_completion", kind="figure", fmt=money, item=line_id, market=market)
                row += 1
            row += 1
            if line_id == TOTAL.id:
                chart_rows += [at["cum_plan"], at["cum_actual"]]
                ends[at["cum_actual"]] = FIRST + max(billed, 1) - 1  # the actual line stops at the last bill
                series += [f"{labels[market]}: plan", f"{labels[market]}: actual"]
        if len(plan.workloads) <= MAX_HOURS_WORKLOADS:
            row = _hours_rows(book, sheet, plan, market, labels[market], months, row)
        sheet.put(row, 1, f"Effective price paid per GPU-hour: {labels[market]}", "label", text=True)
        sheet.put(row, 2, f"{plan.currency}/GPU-hour", "unit", text=True)
        price = st.money(plan.currency, 2)
        for n in range(len(months)):
            hours, paid = f"act_gpuh_{market}_m{n + 1}", f"act_compute_{market}_m{n + 1}"
            book.formula(sheet, row, FIRST + n, f"=IF({hours}>k_none,{paid}/{hours},k_none)",
                         f"var_price_gpuh_{market}_m{n + 1}", fmt=price, market=market)
        hours, paid = f"act_gpuh_{market}", f"act_compute_{market}"
        book.formula(sheet, row, TOTAL_COL, f"=IF({hours}>k_none,{paid}/{hours},k_none)", f"var_price_gpuh_{market}",
                     kind="figure", fmt=price, market=market)
        row += 1
        sheet.put(row, 1, f"Planned price per GPU-hour (Procurement): {labels[market]}", "label", text=True)
        sheet.put(row, 2, f"{plan.currency}/GPU-hour", "unit", text=True)
        book.formula(sheet, row, TOTAL_COL, f"=prc_avg_price_{market}", f"var_price_plan_{market}", kind="figure",
                     fmt=price, market=market)
        row = versions_rows(book, sheet, plan.currency, actuals.baseline, market, labels[market], months, row + 2,
                            gpu=any(b.id == GPU_SPEND.id for b in variance_blocks(plan)),
                            hours=len(plan.workloads) <= MAX_HOURS_WORKLOADS) + 1
    if chart_rows:
        sheet.chart = {"kind": "line", "title": "Cumulative spend: plan vs actual", "rows": chart_rows,
                       "labels_row": HEADER_ROW, "first_col": FIRST, "last_col": FIRST + last,
                       "anchor": f"A{row + 1}", "currency": plan.currency, "series": series, "ends": ends}


def _hours_rows(book: Blueprint, sheet: Sheet, plan: Plan, market: str, label: str, months: list[str],
                row: int) -> int:
    """GPU-hours planned (the hours every line item buys, as each declares them: allocated hours, the failed
    runs' share of them, ..., spread as they are bought), planned in the billed months, billed; and planned to
    date / billed, the implied utilisation against the plan (1 = as planned; 0.8 = a quarter more hours paid for
    the work)."""
    rows = {"gpuh_plan": row, "gpuh_plan_to_date": row + 1, "gpuh_actual": row + 2}
    texts = {"gpuh_plan": "GPU-hours planned (allocated, failed runs included)",
             "gpuh_plan_to_date": "GPU-hours planned to date (months billed)", "gpuh_actual": "GPU-hours billed"}
    bought = gpu_hours_cells(plan, next(m for m in plan.markets if m.id == market))
    for key, r in rows.items():
        sheet.put(r, 1, f"{texts[key]}: {label}", "label", text=True)
        sheet.put(r, 2, "GPU-hours", "unit", text=True)
        for n in range(len(months)):
            col, m = FIRST + n, n + 1
            if key == "gpuh_plan":
                formula = "=" + ("+".join(f"{_factor(b.term)}*cf_t_{b.flag}_m{m}" for b in bought) or "k_none")
            elif key == "gpuh_plan_to_date":
                formula = f"=IF(cf_ends_m{m}<=act_months,{a1(rows['gpuh_plan'], col)},k_none)"
            else:
                formula = f"=act_gpuh_{market}_m{m}"
            book.formula(sheet, r, col, formula, f"var_{key}_{market}_m{m}", fmt=st.HOURS, market=market)
        book.formula(sheet, r, TOTAL_COL, f"=SUM({a1(r, FIRST)}:{a1(r, FIRST + len(months) - 1)})",
                     f"var_{key}_{market}", kind="figure", fmt=st.HOURS, market=market)
    r = row + 3
    sheet.put(r, 1, f"Implied utilisation vs plan (GPU-hours planned to date / billed): {label}", "label", text=True)
    sheet.put(r, 2, "x", "unit")
    planned, billed = a1(rows["gpuh_plan_to_date"], TOTAL_COL), a1(rows["gpuh_actual"], TOTAL_COL)
    book.formula(sheet, r, TOTAL_COL, f"=IF({billed}>k_none,{planned}/{billed},k_none)", f"var_utilisation_{market}",
                 kind="figure", fmt=st.MULTIPLIER, market=market)
    return r + 1


def _factor(term: str) -> str:
    """A line item's GPU-hours term, ready to multiply."""
    return f"({term})" if "+" in term or "-" in term else term


def _abs_col(row: int, col: int) -> str:
    ref = a1(row, col)
    return "$" + ref.rstrip("0123456789") + str(row)
