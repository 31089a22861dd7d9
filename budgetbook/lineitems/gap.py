"""The gap to the cheapest market, by category (issue 29, item 3): why each other market costs more.

Rule: the cheapest market is the first with the lowest total. What it saves against a market (that
market's total less the cheapest's) is split into eight categories that add up to it exactly. Compute
is allocated hours H x the average price per GPU-hour P (compute / H): its difference is the *GPU
price* (the cheapest's hours x the difference of the prices: H_c x (P_m - P_c)) plus the *utilization*
(the difference of the hours bought, at the market's price: (H_m - H_c) x P_m), and H_c x P_c +
H_c x (P_m - P_c) + (H_m - H_c) x P_m is H_m x P_m, so nothing is left over. Every other line of the
total falls in one category, the difference of its sum there: an owned cluster's lines are its GPU price
(its overflow to the fallback market, with a commitment's idle and overflow hours, utilization); failed
runs; storage and egress; people; of the reliability line, the hours redone after interruptions are
*goodput*, the redundant and rejected work and the vetting days *verification*, and support less SLA
credits, setup and debugging days *overheads*, with further items, the contingency and finance's
adjustments. A plan with one market has no gap. The categories are figures (`gap_<category>_<market>`)
on Procurement, linked on Summary, and `show` prints them under the total.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..markets.registry import LINE_ITEMS as KIND_ITEMS
from ..sheetkit import style as st
from ..sheetkit.rows import FIRST_COL, CalcSheet, NameOf
from ..xlsx.cell_grid import col_letters
from . import compute, reliability
from .base import Line
from .scenario import MarketView


@dataclass(frozen=True)
class Category:
    id: str
    label: str

    @property
    def line(self) -> Line:
        return Line(f"gap_{self.id}", f"Gap: {self.label}", in_total=False)


CATEGORIES = (  # the order ClusterMAX's TCO reads a provider in: price, then what the price leaves out
    Category("gpu_price", "GPU price"),
    Category("utilization", "utilization"),
    Category("goodput", "goodput"),
    Category("failed_runs", "failed runs"),
    Category("overheads", "overheads"),
    Category("verification", "verification"),
    Category("storage_egress", "storage and egress"),
    Category("people", "people"),
)
LINES = tuple(c.line for c in CATEGORIES)
PREFIX = "gap_"
# the lines of the total each in one category; a line not named here (further items, contingency,
# adjustments) is an overhead; compute is split in two (price, utilization), reliability in three
OF_LINE = {"commitment": "utilization", "failed_runs": "failed_runs", "storage_egress": "storage_egress",
           "people": "people"} | {
    line.id: "utilization" if line.billed == "gpu" else "gpu_price"  # an owned cluster's overflow is hours bought
    for item in KIND_ITEMS for line in item.known_lines if line.in_total}
SPLIT = (compute.LINE.id, reliability.LINE.id)


def category_of(line_id: str) -> str:
    return OF_LINE.get(line_id, "overheads")


# --- the reference rule -------------------------------------------------------------------

def parts(view: MarketView, line_ids: list[str]) -> dict[str, Any]:
    """One market's amounts per category, its allocated hours and its average price per GPU-hour; `view.lines`
    holds its lines already, `line_ids` are the lines of the total."""
    hours = sum(compute.workload_compute(view, w).allocated_hours for w in view.plan.workloads)
    cost = view.lines[compute.LINE.id]
    out: dict[str, Any] = {c.id: 0.0 for c in CATEGORIES}
    out["hours"], out["price"] = hours, cost / hours if hours else 0.0
    for line_id in line_ids:
        if line_id not in SPLIT:
            out[category_of(line_id)] += view.lines[line_id]
    if reliability.LINE.id in line_ids:
        for key, value in reliability.parts(view).items():
            out[key] += value
    return out


def gaps(by_market: dict[str, dict[str, Any]], totals: dict[str, float]) -> dict[str, dict[str, float]]:
    """Market -> category -> its share of the gap to the cheapest market (empty with one market)."""
    if len(totals) < 2:
        return {}
    lowest = min(totals.values())
    c = by_market[next(m for m, total in totals.items() if total <= lowest)]
    out = {}
    for market, p in by_market.items():
        gap = {k.id: p[k.id] - c[k.id] for k in CATEGORIES}
        gap["gpu_price"] += c["hours"] * (p["price"] - c["price"])
        gap["utilization"] += (p["hours"] - c["hours"]) * p["price"]
        out[market] = gap
    return out


# --- the sheet: rows on Procurement, linked on Summary ------------------------------------

def _terms(plan: Any, line_ids: list[str], category: str) -> list[tuple[str, Any]]:
    """The (sign, placeholder) of each amount in the category, as the market's column reads it."""
    terms: list[tuple[str, Any]] = [("+", NameOf(i)) for i in line_ids if i not in SPLIT and category_of(i) == category]
    if reliability.LINE.id in line_ids:
        if category == "goodput":
            terms.append(("+", NameOf("rel_goodput")))
        elif category == "verification":
            terms.append(("+", NameOf("rel_verification")))
        elif category == "overheads":
            terms += [("+", NameOf(reliability.LINE.id)), ("-", NameOf("rel_goodput")),
                      ("-", NameOf("rel_verification"))]
    return terms


def procurement_rows(sheet: CalcSheet, plan: Any, line_ids: list[str], total: int, alloc: int, price: int) -> None:
    """The section under Procurement's saving: the cheapest market's number, each category's amount per market,
    and the gap by category (the figures), all live; `total`, `alloc` and `price` are its rows of the total,
    the allocated hours and the average price."""
    if len(plan.markets) < 2:
        return
    cols = [col_letters(FIRST_COL + i) for i in range(len(plan.markets))]
    counter = sheet.counter()
    lowest = f"MIN(${cols[0]}${total}:${cols[-1]}${total})"
    pick = f"${cols[-1]}${counter}"
    for col in reversed(cols[:-1]):
        pick = f"IF(${col}${total}<={lowest},${col}${counter},{pick})"
    money0 = st.money(plan.currency)
    sheet.gap()
    sheet.section("The gap to the cheapest, by category (adds up to what the cheapest saves)")
    k = sheet.row("The cheapest market's number (the first with the lowest total)", "market", st.WHOLE,
                  f"={pick}", "prc_gap_cheapest")

    def cheapest(row: int) -> str:
        return f"CHOOSE({{k}},{','.join(f'${col}${row}' for col in cols)})"

    amounts: dict[str, int] = {}
    for category in CATEGORIES:
        terms = _terms(plan, line_ids, category.id)
        if terms:
            text = "".join(f"{sign}{{t{i}}}" for i, (sign, _) in enumerate(terms)).removeprefix("+")
            amounts[category.id] = sheet.row(
                f"{category.label.capitalize()}: this market's amount", plan.currency, money0, f"={text}",
                f"prc_gap_amount_{category.id}", **{f"t{i}": ref for i, (_, ref) in enumerate(terms)})
    for category in CATEGORIES:
        parts: list[str] = []
        refs: dict[str, Any] = {"k": k}
        if category.id == "gpu_price":  # the cheapest's hours x the difference of the average prices
            parts.append(f"{cheapest(alloc)}*({{price}}-{cheapest(price)})")
            refs["price"] = price
        elif category.id == "utilization":  # the difference of the hours at this market's average price
            parts.append(f"({{alloc}}-{cheapest(alloc)})*{{price}}")
            refs |= {"alloc": alloc, "price": price}
        if category.id in amounts:
            parts.append(f"{{own}}-{cheapest(amounts[category.id])}")
            refs["own"] = amounts[category.id]
        sheet.row(category.line.label, plan.currency, money0, "=" + ("+".join(parts) or "k_none"), category.line.id,
                  kind="figure", item=category.line.id, **(refs if parts else {}))


def summary_height(plan: Any) -> int:
    """The rows Summary keeps free for its links to the gap (written once Procurement has the figures)."""
    return len(LINES) + 2 if len(plan.markets) > 1 else 0


def summary_rows(sheet: CalcSheet, plan: Any, at: int) -> None:
    """Summary's links to the gap by category, in the rows kept free at `at` (`summary_height`): written after
    Procurement, so each reads its figure's cell in the same column."""
    if len(plan.markets) < 2:
        return
    after, sheet.sheet.row = sheet.sheet.row, at
    money0 = st.money(plan.currency)
    sheet.section("The gap to the cheapest, by category (adds up to what the cheapest saves; see Procurement)")
    for line in LINES:
        sheet.row(line.label, plan.currency, money0, "={gap}", f"sum_{line.id}", gap=NameOf(line.id))
    sheet.sheet.row = after
