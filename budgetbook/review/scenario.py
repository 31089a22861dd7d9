"""`check` reads the scenario switch and the ranges: a workbook set to `worst` is held against the worst case.

The typed inputs of a range (value, low, high) are all legitimate edits: each is read back by its
defined name, validated like a value (a number inside the key's hard bounds), and an edited end is an
`input_changed` like an edited value; a value outside its Low-High is a fair edit, read as the range
covering all three with an `outside_range` warning (`widen.py`). The reference is then recomputed from the
current inputs in the workbook's scenario (`best` = the reference's `low`, `worst` = its `high`).
"""

from __future__ import annotations

import math
from typing import Any

from ..plan.inputs import InputCell, input_cells
from ..plan.numbers import Num
from ..planning.fit_book import computed as fit_computed
from ..reference import Breakdown, at_end
from ..sheetkit.scenario import CHOICES, DEFAULT, NAME, PLAN_SCENARIO
from ..workbook.percentiles import COMPUTED_KEYS, simulated
from ..workbook.sensitivity import TITLE
from .compare import close_enough
from .findings import Finding, clipped, jsonable
from .readback import OpenedWorkbook, formula_of
from .widen import CHECK_ADVICE, covering, widened_message


def read_scenario(book: OpenedWorkbook, evaluated: dict[str, Any]) -> tuple[str, list[Finding]]:
    """The workbook's scenario (`best`, `base` or `worst`) and what is wrong with it."""
    where = book.locate(NAME)
    if where is None:
        return DEFAULT, [Finding("missing", f"input `{NAME}` is gone: its defined name or sheet was deleted",
                                 name=NAME)]
    raw = book.raw(NAME)
    value = evaluated.get(NAME) if formula_of(raw) else raw
    text = value.strip().lower() if isinstance(value, str) else None
    if text not in CHOICES:
        return DEFAULT, [Finding("invalid_input", f"Scenario: expected one of {', '.join(CHOICES)}, got "
                                 f"{clipped(value)}", *where, NAME, actual=jsonable(value))]
    assert text is not None
    if text == DEFAULT:
        return text, []
    return text, [Finding("input_changed", f"Scenario: {DEFAULT} -> {text}", *where, NAME, DEFAULT, text)]


def read_ranges(book: OpenedWorkbook, cells: list[InputCell], values: dict[tuple, Num],
                evaluated: dict[str, Any], baseline: dict[str, Num]) -> tuple[dict[tuple, Num], list[Finding]]:
    """`values` (each input's current value) with the current low and high of every ranged input."""
    out = dict(values)
    findings: list[Finding] = []
    for cell in cells:
        if not cell.num.ranged or cell.path not in values:
            continue
        base = values[cell.path].base
        ends: dict[str, float] = {}
        for end in ("low", "high"):
            name = f"{cell.name}_{end}"
            where = book.locate(name)
            if where is None:
                findings.append(Finding("missing", f"input `{name}` ({cell.key_path} {end}) is gone: its defined "
                                        "name or sheet was deleted", name=name))
                continue
            raw = book.raw(name)
            value = evaluated.get(name.lower()) if formula_of(raw) else raw
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or not cell.bounds.allows(float(value)):
                findings.append(Finding("invalid_input", f"{cell.label} ({end}): expected a number "
                                        f"{cell.bounds.describe()}, got {clipped(value)}", *where, name,
                                        actual=jsonable(value)))
                continue
            ends[end] = float(value)
            old = baseline.get(cell.name)
            was = getattr(old, end) if old is not None and old.ranged else None
            if was is not None and not math.isclose(was, ends[end], rel_tol=1e-12, abs_tol=0.0):
                findings.append(Finding("input_changed", f"{cell.label} ({end}): {was:g} -> {ends[end]:g}",
                                        *where, name, was, ends[end]))
        if len(ends) < 2:
            continue
        message = widened_message(cell, base, ends["low"], ends["high"])
        if message is not None:  # a fair edit: the range read is the one covering all three (`widen.py`)
            sheet, ref = book.where(cell.name)
            findings.append(Finding("outside_range", message + CHECK_ADVICE, sheet, ref, cell.name,
                                    actual=[ends["low"], base, ends["high"]]))
        out[cell.path] = covering(cell, base, ends["low"], ends["high"])
    return out, findings


def in_scenario(breakdown: Breakdown, scenario: str) -> Breakdown:
    """The breakdown with each figure's `value` its value in `scenario` (best: `low`, worst: `high`)."""
    return at_end(breakdown, PLAN_SCENARIO[scenario])


def computed_findings(book: OpenedWorkbook, current: Any, rel_tol: float, abs_tol: float) -> list[Finding]:
    """Warnings where the numbers budgetbook computed (Sensitivity totals, Summary percentiles, the Fit sheet's
    answer and flag) no longer fit
    the edited inputs: they are values, computed for the plan as generated, and do not move with an edit.

    A number typed over while the inputs are unchanged is a `structure` error (the audit holds each to
    what budgetbook wrote); this is the other case, inputs edited, and only a warning: the fix is to
    extract the plan and generate again.
    """
    if {c.name: c.num for c in input_cells(current)} == {c.name: c.num for c in input_cells(book.plan)}:
        return []
    expected: dict[str, float] = {}
    if any(spec.name.startswith("sim_") for spec in book.layout):
        for market, stats in simulated(current).markets.items():
            expected |= {f"sim_{key}_{market}": getattr(stats, key) for key in COMPUTED_KEYS}
    if any(spec.name.startswith("fits_linear_") for spec in book.layout):
        for market, values in fit_computed(current).items():
            expected |= {f"fits_{key}_{market}": value for key, value in values.items()}
    if TITLE in {sheet.title for sheet in book.blueprint.sheets}:
        from ..ranges.sensitivity import sensitivity  # on first use, not at import: loads numpy

        result = sensitivity(current)
        expected["sens_base"] = result.base
        for k, swing in enumerate(result.inputs, 1):
            expected |= {f"sens_low_{k}": swing.low_total, f"sens_high_{k}": swing.high_total}
    stale: list[tuple[str, str, str, float, float]] = []
    for name, want in expected.items():
        where = book.locate(name)
        have = book.raw(name) if where is not None else None
        if where is not None and isinstance(have, (int, float)) and not isinstance(have, bool) \
                and not close_enough(float(have), want, rel_tol, abs_tol):
            stale.append((name, where[0], where[1], float(have), want))
    if not stale:
        return []
    name, sheet, cell, have, want = stale[0]
    more = f" (and {len(stale) - 1} more)" if len(stale) > 1 else ""
    return [Finding("stale", f"`{name}` was computed by budgetbook for the inputs as generated ({have:,.2f}); with "
                    f"the current inputs it is {want:,.2f}{more}: run `budgetbook extract` and `generate` again to "
                    "refresh the computed numbers", sheet, cell, name, want, have)]
