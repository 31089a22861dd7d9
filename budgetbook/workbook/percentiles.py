"""Summary's simulated percentiles: P10, P50 and P90 of each market's total, and the share of samples
in which it is the cheapest, computed by budgetbook.

A Monte Carlo over the ranges (`ranges/simulate.py`) at a fixed sample count, distribution and seed,
so the same plan always writes the same numbers and `check` can hold them to it. They are values,
labelled as computed by budgetbook, not formulas: no spreadsheet function reruns the model.

The simulation is worked out once per plan (`memo.PlanMemo`), so `generate` runs it before the plan is laid
out (`simulate_first`): on the largest plan its draws and line items (~90 MB at once) were made while the
~200 MB layout was held, the peak of rendering the book.
"""

from __future__ import annotations

from typing import Any

from ..plan.model import Plan
from ..ranges.ranged import ranged_inputs
from ..sheetkit import style as st
from ..sheetkit.rows import CalcSheet, market_col
from .computed import Computed, Lazy
from .memo import PlanMemo

SAMPLES, SEED, DISTRIBUTION = 10_000, 0, "triangular"
# (key of `simulate`'s MarketStats, label, unit: None for the plan's currency); a row's cells are `sim_<key>_<market>`
ROWS = (("p10", "P10", None), ("p50", "P50 (median)", None), ("p90", "P90", None),
        ("cheapest", "Cheapest in (share of samples)", "share of samples"))
COMPUTED_KEYS = tuple(key for key, _, _ in ROWS)  # every number this block writes


def _simulated(plan: Plan) -> Any:
    from ..ranges.simulate import simulate  # on first use, not at import: loads numpy

    return simulate(plan, SAMPLES, SEED, DISTRIBUTION)


# a plan (or one of its content) simulated once while it lives: `generate` before laying it out
simulated: PlanMemo[Any] = PlanMemo(_simulated)


def simulate_first(plan: Plan) -> None:
    """Simulate the plan's percentiles now, while little else is held, where it has ranges (`generate`, before
    laying it out: the Summary's cells read the result). A plan the simulation fails on is left to fail as it
    did, when the Summary is written."""
    if ranged_inputs(plan):
        simulated.ahead(plan)


def add_percentiles(sheet: CalcSheet, plan: Plan) -> dict[str, int]:
    """The block, where the plan has ranges; returns each key's row (none without ranges)."""
    if not ranged_inputs(plan):
        return {}
    result = Lazy.of(simulated, plan)
    money0 = st.money(plan.currency)
    sheet.section(f"Total development cost, simulated (computed by budgetbook: {SAMPLES:,} samples, "
                  f"{DISTRIBUTION}, seed {SEED})")
    rows = {}
    for key, label, unit in ROWS:
        row = rows[key] = sheet.sheet.row
        sheet.sheet.put(row, 1, f"{label}, computed by budgetbook", "label")
        sheet.sheet.put(row, 2, unit or plan.currency, "unit", text=True)
        for market in plan.markets:
            col = market_col(plan, market)
            pick = lambda r, m=market.id, k=key: getattr(r.markets[m], k)  # noqa: E731
            sheet.sheet.put(row, col, Computed(result, pick), "constant", st.PERCENT if unit else money0)
            sheet.book.name(f"sim_{key}_{market.id}", sheet.sheet, row, col, "constant", market=market.id)
        sheet.sheet.row += 1
    sheet.note("Values, not formulas: every range drawn at once (a market's price once for all its workloads); "
               "`budgetbook check` recomputes them; `budgetbook simulate` gives more samples.")
    sheet.gap()
    return rows
