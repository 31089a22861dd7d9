"""What is worked out once per plan: `input_cells` per plan object (`check` asks for it 6-11 times), the
reference's breakdown per plan content (`diff PLAN BOOK` reads two plans of one content); each caller gets
its own copy, and the memo lets go of a plan when the plan goes."""

from __future__ import annotations

import dataclasses
import gc
import weakref

from budgetbook import reference
from budgetbook.lineitems.phasing import month_count
from budgetbook.plan import inputs
from budgetbook.plan.inputs import input_cells
from budgetbook.plan.yamlsafe import parse_yaml_text
from budgetbook.planfile.loader import PLAN_MODEL, resolve


def _plan(template: str):
    """The template's plan, validated but not laid out (a blueprint's Sensitivity cells hold their plan)."""
    return PLAN_MODEL.model_validate(parse_yaml_text(resolve(template)[1]))


def test_a_plan_s_input_cells_are_worked_out_once_and_dropped_with_it():
    gc.collect()
    held = len(inputs._KNOWN)
    plan = _plan("finetune-13b-lora")
    first = input_cells(plan)
    assert first == inputs._input_cells(plan) and first[0].name == "mkt_hyperscaler_on_demand_price_h100_sxm"
    first.clear()  # a caller's own list: the next caller's is whole
    second = input_cells(plan)
    assert second == inputs._input_cells(plan) and len(second) > 10
    assert inputs._KNOWN._known[id(plan)][1] == tuple(second) and len(inputs._KNOWN) == held + 1
    other = _plan("pretrain-7b")
    assert input_cells(other) == inputs._input_cells(other) != second
    del plan, other
    gc.collect()
    assert len(inputs._KNOWN) == held


def test_a_breakdown_is_worked_out_once_per_plan_content():
    plan, same, other = _plan("lab-year"), _plan("lab-year"), _plan("pretrain-7b")
    first = reference.compute_breakdown(plan)
    held = len(reference._memo())
    again = reference.compute_breakdown(same)  # another plan object of the same content: not worked out again
    assert len(reference._memo()) == held
    fresh = reference._breakdown(same)
    assert [dataclasses.astuple(f) for f in again.figures] == [dataclasses.astuple(f) for f in fresh.figures]
    assert (again.plan, again.currency, again.markets) == (fresh.plan, fresh.currency, fresh.markets)
    assert again.source is same and first.source is plan
    assert all(a is not b for a, b in zip(first.figures, again.figures, strict=True))
    again.figures[0].value = -1.0  # a caller's own figures: the next caller's are whole
    assert reference.compute_breakdown(same).figures[0].value == fresh.figures[0].value != -1.0
    theirs = reference.compute_breakdown(other)
    assert [dataclasses.astuple(f) for f in theirs.figures] == \
        [dataclasses.astuple(f) for f in reference._breakdown(other).figures] != \
        [dataclasses.astuple(f) for f in again.figures]
    assert reference._months(same) == month_count(same) and len(reference._months) >= 2  # its market views' months


def test_the_breakdown_memo_lets_go_of_its_plan():
    plan = _plan("own-vs-rent")
    reference.compute_breakdown(plan)
    gone = weakref.ref(plan)
    del plan
    gc.collect()
    assert gone() is None  # the memo holds the figures, not the plan they came from
