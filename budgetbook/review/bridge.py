"""The bridge of a budget change: a market's total from the old budget to the new, one step per changed input.

Finance reads a budget change as a bridge (a waterfall): the old total, then what each change adds
or takes away, then the new total (issue 26, item 3). Each step is the reference model's total with
the inputs changed so far set to their new values, less the total before it: the inputs are taken
in the order `diff` lists them, so a step is an input's effect with the ones before it applied (two
inputs that multiply share their cross term in whichever comes second; the steps add up exactly).
What no input change explains (markets, workloads or line items added or removed, settings, inputs
added or removed) is one last step, `other changes`. At most `MAX_STEPS` inputs get a step of
their own (each costs one run of the reference model); the rest go into `other changes` too.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..planning.targets import with_values
from ..reference import compute_breakdown, figure_name
from .diff import BudgetDiff

MAX_STEPS = 40
HALF_CENT = 0.005


@dataclass(frozen=True)
class Step:
    key: str      # the input's id-keyed path (`workloads[finetune].mfu`), or "" for `other changes`
    label: str    # as a reader reads it: the input's label
    delta: float  # what it moves the total by


@dataclass(frozen=True)
class Bridge:
    market: str
    label: str    # the market's label, as every table names it
    currency: str
    old: float
    new: float
    steps: list[Step]  # the changes that move the total (no zero steps); their deltas add up to new - old


def common_markets(diff: BudgetDiff) -> list[str]:
    """The markets on both sides, cheapest first on the new side (the decision the change leads to)."""
    both = {t.market: t.new for t in diff.totals if t.old is not None and t.new is not None}
    return sorted(both, key=lambda market: both[market] or 0.0)


def bridge(diff: BudgetDiff, market: str | None = None) -> Bridge | None:
    """`market`'s bridge (default: the new side's cheapest on both sides); None when no market is on both."""
    markets = common_markets(diff)
    if not markets:
        return None
    market = market or markets[0]
    total = figure_name("total", market)
    old_total = diff.old.breakdown.value(total)
    new_total = diff.new.breakdown.value(total)
    before = diff.old.inputs
    changed = [(c, c.new) for c in diff.inputs if c.change == "changed" and c.key in before and c.new is not None]
    steps, values, running = [], {}, old_total
    for change, num in changed[:MAX_STEPS]:
        values[before[change.key][0].path] = num
        value = compute_breakdown(with_values(diff.old.plan, values)).value(total)
        if abs(value - running) >= HALF_CENT:
            steps.append(Step(change.key, change.label or change.key, value - running))
        running = value
    if abs(new_total - running) >= HALF_CENT:
        steps.append(Step("", "other changes", new_total - running))
    return Bridge(market, diff.label(market), diff.currency, old_total, new_total, steps)
