"""`fit`: one input solved so that a market's total development cost (base case) equals a budget.

Rule. Every other input held, the total is a non-decreasing function of the solved input x (more
tokens, parameters, GPUs, days or runs buy more GPU-hours). Its fixed costs are the total at x = 0
(people, data, a commitment's block...): a budget at or below them buys nothing (one line saying by
how much). Otherwise the solution is the largest x whose total does not pass the budget:

- closed form where the total is linear in x (tokens, GPUs, days, runs, away from a commitment's
  block): x = (budget - fixed) / (total at x1 - fixed) x x1, kept when it lands;
- else bisection on the reference model (`reference.market_lines`): parameters (tokens follow them,
  so the cost is quadratic), or a commitment's block the hours fill then overflow.

It lands when the total is within half a cent of the budget (`TOLERANCE`). The value written is the
shortest decimal (fewest significant digits) that still lands, so the plan reads `5.2e12`, not
`5.2000000000131e12`. What binds: `budget` (it lands), `deadline` (one run's wall-clock days at the
workload's GPUs reach `--deadline`, or its `deadline_days`, before the budget is spent), `range` (the
input's allowed maximum is reached first) or `step` (the total jumps past the budget at x: the
largest x below the jump is kept). A deadline that more budget cannot meet (solving GPUs, runs) is an
error naming the GPUs a run would need.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

from ..errors import UsageError
from ..lineitems.registry import TOTAL, lines
from ..lineitems.scenario import Resolved
from ..lineitems.units import HOURS_PER_DAY
from ..physics.model import run_physics
from ..plan.model import Plan
from ..ranges.sensitivity import default_market
from ..reference import market_lines
from .targets import TOKENS_PER_PARAM, Target, target, with_values

TOLERANCE = 0.005   # half a cent: `check`'s default absolute tolerance
MAX_STEPS = 400     # bisection halvings: float64 brackets collapse long before


@dataclass
class Fit:
    plan: str
    currency: str
    market: str
    workload: str
    solve: str
    input: str                    # key path of the solved input
    name: str                     # its defined name in the workbook
    value: float                  # the solved value (as written)
    was: float                    # the plan's value
    budget: float
    total: float                  # the market's total development cost at the solution
    was_total: float
    fixed: float                  # the total with the solved input at 0
    binds: str                    # budget, deadline, range or step
    reason: str                   # what binds, in words
    method: str                   # closed_form or bisection
    tokens_per_param: float | None = None
    follows: dict[str, float] = field(default_factory=dict)   # key path -> value of the inputs that follow
    breakdown: list[dict[str, Any]] = field(default_factory=list)
    days_per_run: float | None = None
    gpus: float | None = None
    deadline_days: float | None = None
    gpus_for_deadline: float | None = None
    market_label: str = ""        # the market's label, as every table names it
    solved: Plan | None = field(default=None, repr=False)
    values: dict[tuple, Any] = field(default_factory=dict, repr=False)   # key path -> Num, to write

    def as_json(self) -> dict[str, Any]:
        keys = ("plan", "currency", "market", "workload", "solve", "input", "name", "value", "was", "budget",
                "total", "was_total", "fixed", "binds", "reason", "method", "tokens_per_param", "follows",
                "breakdown", "days_per_run", "gpus", "deadline_days", "gpus_for_deadline")
        return {key: getattr(self, key) for key in keys}


class Problem:
    """The total of one market, and one run's wall-clock days, as functions of the solved input."""

    def __init__(self, plan: Plan, market: str, chosen: Target):
        self.plan, self.market, self.target = plan, market, chosen
        self._totals: dict[float, float] = {}

    def at(self, x: float) -> Plan:
        return with_values(self.plan, self.target.values(x))

    def total(self, x: float) -> float:
        if x not in self._totals:
            self._totals[x] = market_lines(self.at(x), self.market, "base")[TOTAL.id]
        return self._totals[x]

    def run(self, x: float) -> Any:
        return run_physics(Resolved(self.at(x), "base").workloads[self.target.index])

    def days(self, x: float) -> float | None:
        return self.run(x).days


def fit(plan: Plan, budget: float | None, solve: str | None, *, workload: str | None = None,
        market: str | None = None, deadline: float | None = None, tokens_per_param: float | None = None) -> Fit:
    """`budget`, `solve` and `workload` default to the plan's `fit:` section (its budget's base case)."""
    section = getattr(plan, "fit", None)
    if (budget is None or solve is None) and section is None:
        raise UsageError("give `--budget AMOUNT` and `--solve INPUT`, or a `fit:` section in the plan "
                         "(budget, solve) that they default to")
    if section is not None:
        budget = section.budget.base if budget is None else budget
        solve = section.solve if solve is None else solve
        workload = section.workload if workload is None else workload
    assert budget is not None and solve is not None
    if not (math.isfinite(budget) and 0 < budget <= 1e15):
        raise UsageError(f"`--budget {budget:g}`: expected an amount above 0 and at most 1e15")
    if deadline is not None and not (math.isfinite(deadline) and 0 < deadline <= 3650):
        raise UsageError(f"`--deadline {deadline:g}`: expected days above 0 and at most 3650")
    if tokens_per_param is not None and solve != "params":
        raise UsageError("`--tokens-per-param` goes with `--solve params` (the tokens follow the parameters)")
    ids = [m.id for m in plan.markets]
    if market is not None and market not in ids:
        raise UsageError(f"`--market {market}`: the plan has no such market; it has {', '.join(ids)}")
    market = market or default_market(plan)
    chosen = target(plan, solve, workload, TOKENS_PER_PARAM if tokens_per_param is None else tokens_per_param)
    problem = Problem(plan, market, chosen)
    money = lambda v: f"{v:,.2f} {plan.currency}"  # noqa: E731
    fixed = problem.total(0.0)
    if fixed >= budget - TOLERANCE:
        raise UsageError(f"budget {money(budget)} is unreachable on `{market}`: the costs that do not move with "
                         f"`{chosen.cell.key_path}` alone come to {money(fixed)}, "
                         f"{money(fixed - budget)} over it")
    x, binds, reason, method = _on_budget(problem, budget, money)
    stated = plan.workloads[chosen.index].deadline_days
    if deadline is None and stated is not None:
        deadline = stated.base  # the workload's own deadline
    if deadline is not None:
        x, binds, reason = _deadline(problem, x, binds, reason, deadline)
    solved = problem.at(x)
    figures = market_lines(solved, market, "base")
    labels = {line.id: line.label for line in lines(plan)} | {TOTAL.id: TOTAL.label}
    run = problem.run(x)
    values = chosen.values(x)
    ratio = None if solve != "params" else TOKENS_PER_PARAM if tokens_per_param is None else tokens_per_param
    return Fit(plan.name, plan.currency, market, chosen.workload, solve, chosen.cell.key_path, chosen.cell.name,
               x, chosen.current, budget, figures[TOTAL.id], problem.total(chosen.current), fixed, binds, reason,
               method, ratio, {cell.key_path: values[cell.path].base for cell, _ in chosen.follow},
               [{"item": item, "label": labels[item], "value": value} for item, value in figures.items()],
               run.days, run.gpus, deadline, None if deadline is None else run.allocated_gpu_hours
               / (deadline * HOURS_PER_DAY), next(m.label or m.id for m in plan.markets if m.id == market),
               solved, values)


def _on_budget(problem: Problem, budget: float, money: Any) -> tuple[float, str, str, str]:
    """(x, binds, reason, method): the largest x whose total does not pass the budget, as written."""
    bounds = problem.target.bounds
    lands = lambda v: abs(problem.total(v) - budget) <= TOLERANCE  # noqa: E731
    fixed = problem.total(0.0)
    hi = problem.target.current if problem.target.current > 0 else 1.0
    while problem.total(hi) <= budget and hi < bounds.maximum:
        hi = min(hi * 2, bounds.maximum)
    if problem.total(hi) <= budget:  # the input's whole range fits in the budget
        if problem.total(hi) == fixed:
            raise UsageError(f"`{problem.target.cell.key_path}` does not move the total on `{problem.market}` "
                             "(nothing to solve): solve another input, or name another market or workload")
        return bounds.maximum, "range", (f"`{problem.target.cell.key_path}` reaches its allowed maximum "
                                         f"{bounds.maximum:g} at {money(problem.total(hi))}"), "closed_form"
    linear = hi * (budget - fixed) / (problem.total(hi) - fixed)
    if 0 < linear <= hi and lands(linear):
        return shortest(linear, lands), "budget", "the budget", "closed_form"
    lo = 0.0
    for _ in range(MAX_STEPS):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if lands(mid):
            return shortest(mid, lands), "budget", "the budget", "bisection"
        lo, hi = (mid, hi) if problem.total(mid) < budget else (lo, mid)
    if lo == 0.0:
        raise UsageError(f"the total on `{problem.market}` jumps from {money(problem.total(lo))} past the budget "
                         f"at the smallest `{problem.target.cell.key_path}`: the budget buys nothing")
    below = problem.total(lo)
    keep = shortest(lo, lambda v: v <= lo and problem.total(v) >= below - TOLERANCE)
    return keep, "step", (f"the total jumps from {money(below)} to {money(problem.total(hi))} at "
                          f"`{problem.target.cell.key_path}` = {hi:.6g}, past the budget"), "bisection"


def _deadline(problem: Problem, x: float, binds: str, reason: str, deadline: float) -> tuple[float, str, str]:
    """The solution held to one run's wall-clock days within `deadline` at the workload's GPUs."""
    days = problem.days(x)
    if days is None or days <= deadline:
        return x, binds, reason
    run = problem.run(x)
    needed = run.allocated_gpu_hours / (deadline * HOURS_PER_DAY)
    if problem.target.solve in ("gpus", "runs") or (problem.days(0.0) or 0.0) >= deadline:
        raise UsageError(f"no cluster of the plan's size meets the deadline of {deadline:g} days: one run of "
                         f"`{problem.target.workload}` takes {days:,.1f} days on {run.gpus:,.6g} GPUs; it needs "
                         f"{math.ceil(needed):,} GPUs (`gpus:`)")
    lo, hi = 0.0, x
    for _ in range(MAX_STEPS):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if (problem.days(mid) or 0.0) <= deadline else (lo, mid)
    within = lambda v: deadline * (1 - 1e-9) <= (problem.days(v) or 0.0) <= deadline  # noqa: E731
    kept = shortest(lo, within) if within(lo) else lo
    return kept, "deadline", (f"the deadline: one run fits {deadline:g} days on {run.gpus:,.6g} GPUs "
                              f"(the budget alone would buy {x:.6g}, {days:,.1f} days)")


def shortest(x: float, accept: Any) -> float:
    """The decimal with the fewest significant digits, next to `x` on either side, that `accept` takes."""
    if x <= 0 or not math.isfinite(x):
        return x
    exact = Decimal(repr(x))
    for digits in range(1, 18):
        quantum = Decimal(1).scaleb(exact.adjusted() - digits + 1)
        below = float(exact.quantize(quantum, rounding=ROUND_FLOOR))
        above = float(exact.quantize(quantum, rounding=ROUND_CEILING))
        found = [v for v in sorted({below, above}, key=lambda v: abs(v - x)) if v > 0 and accept(v)]
        if found:
            return found[0]
    return x
