"""The Fit sheet's reference (`workbook/fit_sheet.py`): per market, what the plan's `fit:` budget buys.

Two ways to one answer. The sheet's live rows take the cost that moves with the solved input from the
workbook's own rows of its workload: (compute + failed runs + reliability, + storage & egress when
solving runs) x (1 + the contingency share); `live_rows` prices the same decomposition with the
reference rules. The closed form is then x0 x (budget - fixed) / moving, fixed = total - moving, where
x0 is the input's value in the plan (0 where the budget does not pass the fixed costs).

`fit` solves the same budget on the reference model itself (`planning.fit`). Where the decomposition is
the total's real slope (the total at x0 less the total at 0) and the closed form lands on the budget,
the live answer is fit's: the flag `linear` (1) says so. Elsewhere (a commitment's block, an owned
cluster, an adjustment's formula, parameters whose tokens follow them, a deadline, the input's maximum)
the sheet's answer is fit's value. Both the flag and that value are computed by budgetbook for the plan
as generated; `check` reports them stale once edited inputs move them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import UsageError
from ..lineitems import compute, failed_runs, reliability, storage_egress
from ..lineitems.budget_fit import SECTION, SOLVED, workload_index
from ..lineitems.registry import TOTAL
from ..plan.model import Plan
from ..reference import market_lines, market_view
from .targets import target

LIVE = ("x0", "moving", "fixed", "closed")  # the sheet's live rows `check` holds to this reference
COMPUTED = ("linear", "computed")           # its rows computed by budgetbook (`fits_<key>_<market>`)


def _moving(view: Any, index: int, solve: str) -> float:
    """The workload's cost on the view's market that moves with the solved input, by the reference rules."""
    w = view.plan.workloads[index]
    part = compute.workload_compute(view, w).cost + failed_runs.failed(view, w) + reliability.workload_cost(view, w)
    if solve == "runs" and w.checkpoints is not None:
        stored = storage_egress.workload_storage(view, w)
        part += stored.storage + stored.egress
    contingency = view.plan.contingency
    return part * (1 + contingency.share) if contingency is not None else part


def solved_value(view: Any, index: int, solve: str) -> float:
    """The solved input's value in the view's scenario."""
    node = view.plan.workloads[index]
    for key in SOLVED[solve][1]:
        node = getattr(node, key)
    return float(node)


def live_rows(plan: Plan, scenario: str = "base") -> dict[str, dict[str, float]]:
    """Per market: the live rows' values (x0, moving, fixed, closed) in `scenario`."""
    section, index = SECTION.of(plan), workload_index(plan)
    out = {}
    for market in plan.markets:
        view = market_view(plan, market.id, scenario)
        budget, x0 = float(view.plan.fit.budget), solved_value(view, index, section.solve)
        total = market_lines(plan, market.id, scenario)[TOTAL.id]
        moving = _moving(view, index, section.solve)
        fixed = total - moving
        closed = x0 * (budget - fixed) / moving if moving > 0 and budget > fixed else 0.0
        out[market.id] = {"x0": x0, "moving": moving, "fixed": fixed, "closed": closed}
    return out


def computed(plan: Plan) -> dict[str, dict[str, float]]:
    """Per market, base case: `fit`'s answer (0 where it has none) and whether the closed form is it (1, 0)."""
    from .fit import TOLERANCE, Problem, fit  # on first use, not at import: loads numpy (its default market)

    section, index = SECTION.of(plan), workload_index(plan)
    workload = plan.workloads[index].id
    rows = live_rows(plan, "base")
    out = {}
    for market in plan.markets:
        row = rows[market.id]
        try:
            result = fit(plan, section.budget.base, section.solve, workload=workload, market=market.id)
        except UsageError:  # out of reach, or the input does not move this market's total
            out[market.id] = {"linear": 0.0, "computed": 0.0}
            continue
        problem = Problem(plan, market.id, target(plan, section.solve, workload))
        linear = (section.solve != "params" and result.binds == "budget" and row["x0"] > 0 and row["closed"] > 0
                  and abs(row["moving"] - (result.was_total - result.fixed)) <= max(TOLERANCE, 1e-9 * row["moving"])
                  and abs(problem.total(row["closed"]) - section.budget.base) <= TOLERANCE)
        out[market.id] = {"linear": 1.0 if linear else 0.0, "computed": result.value}
    return out


def sheet_rows(plan: Plan, scenario: str = "base") -> Iterator[tuple[str, str, str, str, float]]:
    """(name, key, market, label, value) of each live row of the Fit sheet, which `check` holds to this
    reference; none where the plan has no `fit:`."""
    if SECTION.of(plan) is None:
        return
    for market, row in live_rows(plan, scenario).items():
        for key in LIVE:
            yield f"fits_{key}_{market}", key, market, f"Fit: {key}", row[key]
