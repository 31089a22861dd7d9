"""Fit: the plan's own budget, and which input `fit`'s answer in the workbook solves for it.

Rule: with a `fit:` section the workbook gains a `Fit` sheet (`workbook/fit_sheet.py`): per market, the
value of `solve` (tokens, params, gpus, days or runs of `workload`, default the final run) at which the
market's total development cost equals `budget`. Where the total is linear in that input it is a live
formula, (budget - the costs that do not move) / the cost per unit; elsewhere the value `budgetbook fit`
computes, labelled so, which `check` reports stale once an edited input moves it. The section adds no
line: the budget is an input finance types, the answer a figure beside the totals.

This module holds the section's keys and its checks; `planning/fit_book.py` is the sheet's reference.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ..plan.inputs import InputCell, walk
from ..plan.model import ID_PATTERN, Plan, Strict
from ..plan.numbers import Num, num
from .base import LineItem, Section, rule
from .scenario import MarketView

# what each `solve` moves: (the workload's hours must come from, key path under the workload); runs: any
SOLVED = {"tokens": ("flops", ("flops", "tokens")), "params": ("flops", ("flops", "params")),
          "gpus": ("cluster", ("cluster", "gpus")), "days": ("cluster", ("cluster", "days")),
          "runs": (None, ("runs",))}


class BudgetFit(Strict):
    """A budget, and the input the workbook solves for it on each market."""

    budget: Annotated[Num, num(0, 1e15, gt=True, unit="money", description="the total development cost to "
                                                                           "spend, on each market")]
    solve: Literal["tokens", "params", "gpus", "days", "runs"] = Field(
        "tokens", description="the input solved, as `budgetbook fit --solve` names it")
    workload: str | None = Field(None, pattern=ID_PATTERN, description="the workload whose input is solved; "
                                                                       "default the final run")
    note: str = Field("", max_length=2000)


def input_cells(plan: Plan) -> list[InputCell]:
    section = SECTION.of(plan)
    if section is None:
        return []
    return list(walk(section, ("fit",), (SECTION.input_prefix.rstrip("_"),), "fit"))


def workload_index(plan: Plan) -> int:
    """The position of the workload the section solves (validated: one exists)."""
    section = SECTION.of(plan)
    ids = [w.id for w in plan.workloads]
    if section.workload is not None:
        return ids.index(section.workload)
    finals = [i for i, w in enumerate(plan.workloads) if w.final_run]
    return finals[0] if len(finals) == 1 else 0


def validate(plan: Plan) -> None:
    section = SECTION.of(plan)
    if section is None:
        return
    ids = [w.id for w in plan.workloads]
    if section.workload is not None and section.workload not in ids:
        raise ValueError(f"`fit.workload`: the plan has no workload `{section.workload}`; it has {', '.join(ids)}")
    if section.workload is None and len(ids) > 1 and sum(1 for w in plan.workloads if w.final_run) != 1:
        raise ValueError(f"`fit.workload`: give the workload to solve ({', '.join(ids)}): the plan has "
                         "no single final run (`final_run: true`)")
    workload = plan.workloads[workload_index(plan)]
    way = SOLVED[section.solve][0]
    if way is not None and workload.hours_given != way:
        raise ValueError(f"`fit.solve`: {section.solve} needs a workload whose hours come from `{way}`; "
                         f"`{workload.id}` takes them from `{workload.hours_given}`")


SECTION = Section("fit", BudgetFit | None, None, "Fit: what a budget buys", "fit_", input_cells, validate=validate,
                  examples=({"budget": 1_000_000}, {"budget": 5e6, "solve": "params"}))


def reference(view: MarketView) -> dict[str, float]:
    return {}


TITLE = "Fit"
# its sheet is built after the line items' (`workbook/fit_sheet.py`: it reads `fit`, which reads the registry)
ITEM = LineItem(id="fit", doc=rule(__doc__), known_lines=(), lines=lambda plan: [], reference=reference,
                build=lambda book, plan, inp: None,
                sheet_titles=lambda plan, taken: [TITLE] if SECTION.of(plan) is not None else [],
                fixed_title=TITLE, name_prefix="fits_", section=SECTION)
