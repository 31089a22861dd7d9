"""The windows costs are spread over, in one scenario, and how many months a plan's cash flow spans.

Rule: a workload runs from its `start` (default the plan's start) for its
`months` (a cluster: its `days` as months of 365.25 / 12 days; otherwise one
month unless stated), its runs side by side. Its compute, failed runs and
egress are spread evenly over that window; its checkpoints are stored from
the end of the run for `retention_months`, the storage cost spread evenly over
those months. A role is paid evenly from its `start` for its `months`. A
market's extra engineering days and the further items fall in the plan's
first month. Contingency follows the lines it is a share of, month by month.

These functions read a plan seen in one scenario (`Resolved`: plain floats);
the reference rules use them. The workbook computes the same windows with
formulas on its Cash flow sheet; only `month_count` (how many month columns
it has) is shared, because that is layout.

And the price of each month: where a market's prices move
(`price_change_per_year`, r), month n pays the stated price x (1 + r) ^ ((n +
the months from `as_of` to the plan's start) / 12), the price index of the
month; a commitment's hours keep their committed price (`committed`).
"""

from __future__ import annotations

from typing import Any

from ..plan.numbers import SCENARIOS
from ..plan.timing import (
    DAYS_PER_MONTH,
    DEFAULT_WORKLOAD_MONTHS,
    SETUP_MONTHS,
    horizon,
    months_after_as_of,
    offset_of,
)
from .scenario import MarketView, Resolved
from .units import MONTHS_PER_YEAR

Window = tuple[float, float]   # (start, months), in months after the plan's start
FIRST_MONTH: Window = (0.0, float(SETUP_MONTHS))


def _start(plan: Any, start: Any) -> float:
    offset = offset_of(plan.start, start)
    return 0.0 if offset is None else number(offset)


def number(value: Any) -> Any:
    """float(value); a numpy array of samples (`simulate` runs these rules on arrays) as it is."""
    return value if hasattr(value, "shape") else float(value)


def run_window(plan: Any, workload: Any) -> Window:
    if workload.months is not None:
        months = workload.months
    elif workload.cluster is not None:
        months = workload.cluster.days / DAYS_PER_MONTH
    else:
        months = DEFAULT_WORKLOAD_MONTHS
    return _start(plan, workload.start), number(months)


def kept_window(plan: Any, workload: Any) -> Window:
    """Checkpoints are stored from the end of the run, for their retention months."""
    start, months = run_window(plan, workload)
    retention = workload.checkpoints.retention_months if workload.checkpoints is not None else 0.0
    return start + months, number(retention)


def role_window(plan: Any, role: Any) -> Window:
    return _start(plan, role.start), number(role.months)


def owned_window(plan: Any, owned: Any) -> Window:
    """The months the plan holds an owned cluster: from its purchase, for its `months` (default its life)."""
    months = owned.months if owned.months is not None else owned.life_years * MONTHS_PER_YEAR
    return _start(plan, owned.start), number(months)


def windows(plan: Any, owned: bool = True) -> list[Window]:
    """Every window of a plan in one scenario (`owned=False`: an owned cluster's aside)."""
    found = [FIRST_MONTH]
    for workload in plan.workloads:
        found += [run_window(plan, workload), kept_window(plan, workload)]
    found += [role_window(plan, role) for role in plan.people.roles]
    for c in plan.commitments:
        offset = offset_of(plan.start, c.start)
        found.append(((0.0 if offset is None else float(offset)), float(c.term_months)))
    if owned:
        found += [owned_window(plan, m.owned) for m in plan.markets if getattr(m, "owned", None) is not None]
    return found


def month_count(plan: Any, owned: bool = True) -> int:
    """The months of the cash flow: enough for every window in every scenario (`owned=False`: the windows
    but an owned cluster's)."""
    ends = [start + months for s in SCENARIOS for start, months in windows(Resolved(plan, s), owned)]
    return horizon(ends)


def price_index(view: MarketView, market: Any) -> list[float] | None:
    """Each month's price / the stated price on `market` (None where its prices do not move)."""
    change = market.price_change_per_year
    if change is None:
        return None
    offset = months_after_as_of(view.plan)
    return [(1 + change) ** ((n + offset) / MONTHS_PER_YEAR) for n in range(view.months)]


def committed(plan: Any, market: Any, gpu: str) -> bool:
    """Whether a commitment reserves `gpu` on `market`: its hours there pay the committed price, flat for the
    term (and those the block cannot hold the fallback rate, at the month's price: `commitment`)."""
    return any(c.market == market.id and c.gpu == gpu for c in getattr(plan, "commitments", None) or [])


def paid_index(view: MarketView, market: Any, gpu: str) -> list[float] | None:
    """The price index of `gpu`'s hours on `market`: the market's, None where they do not move or are committed."""
    return None if committed(view.plan, market, gpu) else price_index(view, market)
