"""Nothing past 9999-12: a plan with a calendar `start` whose windows run past Excel's last month is refused.

Excel's calendar ends on 9999-12-31, so a workbook cannot date a month after 9999-12 (`show --by
month` would label it `10000-01`). Each window (a workload's run and its checkpoints' retention, a
role's months, a commitment's term) is held to it in every scenario, and the first that runs past is
named by its key path, as a plan error is.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from ..plan.numbers import SCENARIOS
from ..plan.timing import LAST_MONTH, month_labels, month_number, offset_of
from .phasing import kept_window, owned_window, role_window, run_window
from .scenario import Resolved


def _windows(plan: Any) -> Iterator[tuple[str, float, float]]:
    """(key path of the length, start, months) of every window of a plan seen in one scenario."""
    for i, workload in enumerate(plan.workloads):
        at = f"workloads[{i}]"
        length = f"{at}.months" if workload.months is not None else \
            f"{at}.cluster.days" if workload.cluster is not None else f"{at}.start"
        yield (length, *run_window(plan, workload))
        if workload.checkpoints is not None:
            yield (f"{at}.checkpoints.retention_months", *kept_window(plan, workload))
    for i, role in enumerate(plan.people.roles):
        yield (f"people.roles[{i}].months", *role_window(plan, role))
    for i, c in enumerate(plan.commitments):
        offset = offset_of(plan.start, c.start)
        yield f"commitments[{i}].term_months", 0.0 if offset is None else float(offset), float(c.term_months)
    for i, market in enumerate(plan.markets):
        if getattr(market, "owned", None) is not None:
            key = "months" if market.owned.months is not None else "life_years"
            yield (f"markets[{i}].owned.{key}", *owned_window(plan, market.owned))


def past_last_month(plan: Any) -> str | None:
    """The first window that runs past 9999-12, in words with its key path; None when none does."""
    if plan.start is None:
        return None
    room = month_number(LAST_MONTH) - month_number(plan.start) + 1  # months from the start to 9999-12
    for scenario in ("base", *(s for s in SCENARIOS if s != "base")):
        for key, start, months in _windows(Resolved(plan, scenario)):
            used = math.ceil(start + months - 1e-9)  # whole months, as the cash flow's horizon counts them
            if used > room:
                case = "" if scenario == "base" else f" (in the {scenario} case)"
                last = month_labels(plan.start, used)[-1]
                return (f"`{key}`: it runs to {last}{case}, past {LAST_MONTH}, the last month Excel's calendar "
                        f"holds; with `start: {plan.start}` a plan may run {room:,} month{'s' if room > 1 else ''}")
    return None
