"""The frozen baseline of a reforecast book: its figures as values on a `Baseline` sheet, and its versions.

`budgetbook reforecast` keeps the book's plan as it stood (its development lines,
per market and month, from the reference model) as the baseline, and lets the
current inputs become the reforecast. The baseline travels with the bills (the
embedded actuals' `baseline`), so `check` holds the Baseline sheet's values to it
(they are named constants: an edited one is a structure finding) and its digest
(SHA-256 over the frozen date, the plan's name and every value: an edit of the
hidden copy is told). A second reforecast keeps the first's baseline and adds its
date: `reforecasts` lists them all, oldest first.

Baseline sheet: per market of the baseline, one row per development line with each
month's value (`bl_<item>_<market>_m<n>`, constants), the market's total row
(`bl_total_<market>_m<n>`, a live SUM) and totals across the months.
"""

from __future__ import annotations

from ..lineitems.registry import TOTAL
from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint, a1
from .model import Baseline

SHEET = "Baseline"
TOTAL_COL, FIRST, HEADER_ROW = 3, 4, 4


def baseline_of(monthly, markets: list[tuple[str, str]], frozen: str, plan_text: str = "") -> Baseline:
    """The baseline of a plan's months (`reference.MonthlyBreakdown`, base case), frozen on `frozen`; `plan_text`
    the plan's own text, kept beside its figures (and sealed with them)."""
    lines = tuple((r.market, r.item, r.label, tuple(float(v) for v in r.values)) for r in monthly.rows
                  if r.item != TOTAL.id)
    return Baseline(frozen, monthly.plan, tuple(monthly.months), lines, tuple(markets), plan_text=plan_text).sealed()


def build_baseline_sheet(book: Blueprint, currency: str, baseline: Baseline) -> None:
    sheet = book.sheet(SHEET, "calc")
    money = st.money(currency)
    sheet.put(1, 1, f"Baseline: {baseline.plan}, frozen {baseline.frozen}", "title", text=True)
    dates = ", ".join(baseline.reforecasts) or "none"
    sheet.put(2, 1, f"The budget as it stood when frozen (values, held by `budgetbook check` to the digest "
              f"{baseline.digest[:19]}...); reforecasts since: {dates}. The Variance sheet holds the actuals "
              "against it and against the reforecast (the current inputs).", "subtitle", text=True)
    for col, head in ((1, ""), (2, "Unit"), (TOTAL_COL, "Total")):
        sheet.put(HEADER_ROW, col, head, "header")
    count = len(baseline.months)
    for n, label in enumerate(baseline.months):
        sheet.put(HEADER_ROW, FIRST + n, label, "header", text=True)
    sheet.widths = {1: 52.0, 2: 12.0, TOTAL_COL: 14.0} | {FIRST + n: 12.0 for n in range(count)}
    sheet.freeze = a1(HEADER_ROW + 1, FIRST)
    row = HEADER_ROW + 2
    for market, label in baseline.markets:
        mine = [line for line in baseline.lines if line[0] == market]
        if not mine:
            continue
        sheet.put(row, 1, f"Baseline: {label}", "section", text=True)
        row += 1
        first = row
        for _, item, item_label, values in mine:
            sheet.put(row, 1, item_label, "label", text=True)
            sheet.put(row, 2, currency, "unit", text=True)
            for n, value in enumerate(values):
                sheet.put(row, FIRST + n, value, "constant", money)
                book.name(f"bl_{item}_{market}_m{n + 1}", sheet, row, FIRST + n, "constant")
            book.formula(sheet, row, TOTAL_COL, f"=SUM({a1(row, FIRST)}:{a1(row, FIRST + count - 1)})",
                         f"bl_{item}_{market}", fmt=money)
            row += 1
        sheet.put(row, 1, f"{TOTAL.label}: {label}", "figure", text=True)
        sheet.put(row, 2, currency, "unit", text=True)
        for n in range(count):
            book.formula(sheet, row, FIRST + n, f"=SUM({a1(first, FIRST + n)}:{a1(row - 1, FIRST + n)})",
                         f"bl_{TOTAL.id}_{market}_m{n + 1}", fmt=money, style="total")
        book.formula(sheet, row, TOTAL_COL, f"=SUM({a1(row, FIRST)}:{a1(row, FIRST + count - 1)})",
                     f"bl_{TOTAL.id}_{market}", fmt=money, style="total")
        row += 2


# --- the Variance sheet's versions of a market: baseline, reforecast, the two forecasts at completion ----------

def _run_rate(market: str, gpu: bool, hours: bool) -> str:
    """The forecast at completion from the run rate: the actuals to date, the remaining plan of every line but the
    GPU spend, and the GPU spend's remaining planned GPU-hours at the rate hours were consumed so far (billed /
    planned to date) and the price paid per GPU-hour (`var_price_gpuh`); the remaining plan where no hours were
    planned or billed to date."""
    rest = f"var_{TOTAL.id}_{market}_actual+var_{TOTAL.id}_{market}_plan-var_{TOTAL.id}_{market}_plan_to_date"
    if not gpu:
        return f"={rest}"
    remaining = f"(var_gpu_spend_{market}_plan-var_gpu_spend_{market}_plan_to_date)"
    if not hours:
        return f"={rest}"
    h, hd, hb = f"var_gpuh_plan_{market}", f"var_gpuh_plan_to_date_{market}", f"var_gpuh_actual_{market}"
    return (f"={rest}-{remaining}+IF(AND({hd}>k_none,{hb}>k_none),({h}-{hd})*{hb}/{hd}*var_price_gpuh_{market},"
            f"{remaining})")


def versions_rows(book: Blueprint, sheet, currency: str, baseline: Baseline | None, market: str, label: str,
                  months: list[str], row: int, *, gpu: bool, hours: bool) -> int:
    """The rows from `row` on; the row after them."""
    money = st.money(currency)
    last = FIRST + len(months) - 1
    sheet.put(row, 1, f"Versions: {label}", "section", text=True)
    row += 1
    if baseline is not None and baseline.has(market):
        sheet.put(row, 1, f"Baseline (frozen {baseline.frozen}): plan", "label", text=True)
        for n, month in enumerate(months):
            ref = (f"bl_{TOTAL.id}_{market}_m{baseline.months.index(month) + 1}" if month in baseline.months
                   else "k_none")
            book.formula(sheet, row, FIRST + n, f"={ref}", f"ver_baseline_{market}_m{n + 1}", fmt=money,
                         market=market)
        book.formula(sheet, row, TOTAL_COL, f"=bl_{TOTAL.id}_{market}", f"ver_baseline_{market}", kind="figure",
                     fmt=money, market=market)
        rows = (("baseline_to_date", "Baseline to date (months billed)",
                 "=IF(cf_ends_m{m}<=act_months,ver_baseline_{market}_m{m},k_none)"),
                ("vs_baseline", "Actual - baseline to date",
                 "=var_total_{market}_actual_m{m}-ver_baseline_to_date_{market}_m{m}"),
                ("vs_reforecast", "Actual - reforecast to date (the Variance above)",
                 "=var_total_{market}_variance_m{m}"))
        for key, text, template in rows:
            row += 1
            sheet.put(row, 1, text, "label", text=True)
            for n in range(len(months)):
                book.formula(sheet, row, FIRST + n, template.format(m=n + 1, market=market),
                             f"ver_{key}_{market}_m{n + 1}", fmt=money, market=market)
            book.formula(sheet, row, TOTAL_COL, f"=SUM({a1(row, FIRST)}:{a1(row, last)})", f"ver_{key}_{market}",
                         kind="figure", fmt=money, market=market)
        row += 1
    eacs = [("eac_plan", "Forecast at completion: actuals to date + the remaining reforecast plan",
             f"=var_{TOTAL.id}_{market}_forecast"),
            ("eac_run_rate", "Forecast at completion: the run rate (hours consumed and price paid so far)",
             _run_rate(market, gpu, hours))]
    for key, text, formula in eacs:
        sheet.put(row, 1, text, "figure", text=True)
        sheet.put(row, 2, currency, "unit", text=True)
        book.formula(sheet, row, TOTAL_COL, formula, f"ver_{key}_{market}", kind="figure", fmt=money,
                     style="total", market=market)
        row += 1
        if baseline is not None and baseline.has(market):
            sheet.put(row, 1, f"{text.split(':')[0]} ({key.removeprefix('eac_').replace('_', ' ')}) - baseline",
                      "label", text=True)
            sheet.put(row, 2, currency, "unit", text=True)
            book.formula(sheet, row, TOTAL_COL, f"=ver_{key}_{market}-ver_baseline_{market}",
                         f"ver_{key}_vs_baseline_{market}", kind="figure", fmt=money, market=market)
            row += 1
    return row + 1


def versions_named(baseline: Baseline | None, market: str, months: list[str], billed: int, total, gpu,
                   hours: tuple[list[float], list[float]] | None, price: float) -> dict[str, float]:
    """The reference of `versions_rows` (computed from the variance reference's lines, not the sheet): `total`
    and `gpu` are the market's total and GPU-spend `VarianceLine`s (gpu None where the plan has no GPU lines),
    `hours` (planned, billed) per month or None, `price` the price paid per GPU-hour."""
    out: dict[str, float] = {}
    t = total.totals()
    out[f"ver_eac_plan_{market}"] = t["forecast"]
    remaining = t["plan"] - t["plan_to_date"]
    run_rate = t["actual"] + remaining
    if gpu is not None and hours is not None:
        g = gpu.totals()
        gpu_remaining = g["plan"] - g["plan_to_date"]
        planned, used = hours
        h, hd, hb = sum(planned), sum(planned[:billed]), sum(used)
        run_rate += -gpu_remaining + ((h - hd) * hb / hd * price if hd > 0 and hb > 0 else gpu_remaining)
    out[f"ver_eac_run_rate_{market}"] = run_rate
    if baseline is not None and baseline.has(market):
        base = [baseline.month_value(market, m) for m in months]
        to_date = [v if n < billed else 0.0 for n, v in enumerate(base)]
        vs = [a - b for a, b in zip(total.actual, to_date, strict=True)]
        for key, values in (("baseline", base), ("baseline_to_date", to_date), ("vs_baseline", vs),
                            ("vs_reforecast", total.variance)):
            out |= {f"ver_{key}_{market}_m{n}": v for n, v in enumerate(values, 1)}
            out[f"ver_{key}_{market}"] = sum(values)
        out[f"ver_baseline_{market}"] = baseline.total(market)
        for key in ("eac_plan", "eac_run_rate"):
            out[f"ver_{key}_vs_baseline_{market}"] = out[f"ver_{key}_{market}"] - baseline.total(market)
    return out
