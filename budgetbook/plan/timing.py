"""When money goes out: a plan's months, and the window (start, length in months) of everything that costs.

A plan may give `start: 2026-01` (a calendar month); a workload or a role may
give its own `start`, as a month or as an offset in months from the plan's
start (`start: 2` is the plan's third month), and its length in `months`.
Times are in months from the plan's start, as floats: a window is
`[start, start + months)`, and month `n` (0-based) is `[n, n + 1)`.

The reference rules spread costs over these windows in plain Python; the
workbook's Cash flow sheet computes the same windows from its input cells
with formulas. Only the number of month columns (the horizon) is shared: it is
layout, fixed when the workbook is generated.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, TypeAlias

from pydantic import BeforeValidator

from .numbers import Num, num
from .numbers import _parse as parse_num

DAYS_PER_MONTH = 365.25 / 12   # an average month: a cluster's days become months of its window
MAX_MONTHS = 600
LAST_MONTH = "9999-12"         # Excel's calendar ends on 9999-12-31: no month of a plan may run past it
SETUP_MONTHS = 1               # a market's extra engineering days fall in the plan's first month
DEFAULT_WORKLOAD_MONTHS = 1    # a workload that states no length, and is not a cluster, takes one month
_MONTH = re.compile(r"^([0-9]{4})-(0[1-9]|1[0-2])$")


def _month_text(value: Any) -> str:
    """A calendar month `YYYY-MM` (a YAML date `2026-01-01` is taken as its month)."""
    if hasattr(value, "year") and hasattr(value, "month") and not isinstance(value, str):
        return f"{value.year:04d}-{value.month:02d}"
    if not isinstance(value, str) or not _MONTH.match(value.strip()) or value.strip().startswith("0000"):
        raise ValueError(f"expected a month as YYYY-MM (such as 2026-01), got {value!r:.40}"
                         + ("; the calendar has no year 0000" if isinstance(value, str) and
                            value.strip().startswith("0000") else ""))
    return value.strip()


Month: TypeAlias = Annotated[str, BeforeValidator(_month_text)]
OFFSET_BOUNDS = num(0, MAX_MONTHS, unit="months",
                    description="a month (YYYY-MM), or months after the plan's start; default the plan's start")
Offset: TypeAlias = Annotated[Num, OFFSET_BOUNDS]
Months: TypeAlias = Annotated[Num, num(0, MAX_MONTHS, gt=True, unit="months",
                                       description="how long it runs; default a cluster's days, else one month")]


def _start(value: Any) -> Any:
    # a month text stays text; anything else is an offset in months (a number or a range), parsed here so
    # a bad offset says what an offset allows instead of what a month looks like
    if isinstance(value, str) or (hasattr(value, "month") and not isinstance(value, (int, float, dict))):
        return _month_text(value)
    return parse_num(value, OFFSET_BOUNDS)


Start: TypeAlias = Annotated[Month | Offset, BeforeValidator(_start)]


def month_number(month: str) -> int:
    year, mon = month.split("-")
    return int(year) * 12 + int(mon) - 1


def offset_of(plan_start: str | None, start: Any) -> Any:
    """A start as months after the plan's start: an offset as given (a `Num`, or a float in one scenario),
    a calendar month counted from the plan's `start`; None where none is given. Raises ValueError."""
    if not isinstance(start, str):
        return start
    if plan_start is None:
        raise ValueError("a calendar month needs the plan's own `start` (such as `start: 2026-01` at the top "
                         "of the plan); or give an offset in months")
    months = month_number(start) - month_number(plan_start)
    if months < 0:
        raise ValueError(f"{start} is before the plan's start {plan_start}")
    if months > MAX_MONTHS:  # as an offset is capped: the same month given as a calendar month is too
        raise ValueError(f"{start} is {months:,} months after the plan's start {plan_start}; at most "
                         f"{MAX_MONTHS} (as for an offset)")
    return months


def month_labels(plan_start: str | None, count: int) -> list[str]:
    """`2026-01`, `2026-02`, ... from the plan's start; `M1`, `M2`, ... when the plan gives no start."""
    if plan_start is None:
        return [f"M{n + 1}" for n in range(count)]
    first = month_number(plan_start)
    return [f"{(first + n) // 12:04d}-{(first + n) % 12 + 1:02d}" for n in range(count)]


def share(start: float, months: float, month: int) -> float:
    """The share of a window `[start, start + months)` that falls in month `month` (0-based): evenly spread."""
    if hasattr(start, "shape") or hasattr(months, "shape"):  # `simulate`: numpy arrays of samples
        import numpy as np

        overlap = np.minimum(month + 1, start + months) - np.maximum(month, start)
        return np.where(months > 0, np.maximum(0.0, overlap) / np.where(months > 0, months, 1.0), 0.0)  # type: ignore[return-value]
    if months <= 0:
        return 0.0
    overlap = min(month + 1, start + months) - max(month, start)
    return max(0.0, overlap) / months


def spread(amount: float, start: float, months: float, count: int) -> list[float]:
    """`amount` spread evenly over a window, in `count` months."""
    return [amount * share(start, months, n) for n in range(count)]


def horizon(ends: list[float]) -> int:
    """How many whole months hold every window (the workbook's month columns); at least one."""
    # a window ending a hair past a month boundary (floating point) does not open a month of its own
    return max([1] + [math.ceil(end - 1e-9) for end in ends])


def months_after_as_of(plan: Any) -> int:
    """Whole months from the prices' date (`as_of`) to the plan's first month; 0 without both."""
    if plan.as_of is None or plan.start is None:
        return 0
    return month_number(plan.start) - (plan.as_of.year * 12 + plan.as_of.month - 1)
