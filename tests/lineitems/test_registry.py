"""The registry is the one list of line items: everything derives from it, and clashes are refused up front."""

from __future__ import annotations

import dataclasses

import pytest

from budgetbook.lineitems import gap, registry
from budgetbook.lineitems.base import Line
from budgetbook.lineitems.registry import LINE_ITEMS, reserved_line_ids, reserved_titles
from budgetbook.plan.model import Plan
from budgetbook.planfile.loader import load_plan
from budgetbook.planfile.model import PLAN_MODEL
from budgetbook.reference import compute_breakdown
from budgetbook.workbook.build import build_book

COMPUTE = next(li for li in LINE_ITEMS if li.id == "compute")


@pytest.mark.parametrize("change, clash", [
    ({"id": "people"}, "id 'people'"),
    ({"id": "extra", "fixed_title": "Summary"}, "sheet title 'Summary'"),
    ({"id": "extra", "fixed_title": "failed RUNS"}, "sheet title 'failed RUNS'"),
    ({"id": "extra", "fixed_title": None, "name_prefix": "x_", "known_lines": (Line("total", "Total"),)},
     "line id 'total'"),
])
def test_a_new_item_that_clashes_is_refused_at_import(change, clash):
    newcomer = dataclasses.replace(COMPUTE, **change)
    with pytest.raises(ValueError, match=f"two line items share the {clash}"):
        registry._refuse_clashes(LINE_ITEMS + (newcomer,))


SERVING = next(li for li in LINE_ITEMS if li.id == "serving")
SRV = SERVING.section.input_prefix


@pytest.mark.parametrize("newcomer, first, second", [
    # an item's calculations under another item's section prefix: `srv_` names both
    (dataclasses.replace(COMPUTE, id="evaluation", fixed_title=None, known_lines=(), name_prefix=SRV),
     "the name prefix 'srv_' of line item 'evaluation'", "the input prefix 'srv_' of the `serving:` section of "
                                                          "line item 'serving'"),
    # one item whose section's inputs and calculations take one prefix
    (dataclasses.replace(COMPUTE, id="evaluation", fixed_title=None, known_lines=(), name_prefix="eval_",
                         section=dataclasses.replace(SERVING.section, key="evaluation", input_prefix="eval_")),
     "the input prefix 'eval_' of the `evaluation:` section of line item 'evaluation'",
     "the name prefix 'eval_' of line item 'evaluation'"),
    # an item's calculations under another's: every `ppl_x_` name is a `ppl_` name too
    (dataclasses.replace(COMPUTE, id="extra", fixed_title=None, known_lines=(), name_prefix="ppl_x_"),
     "the name prefix 'ppl_x_' of line item 'extra'", "the name prefix 'ppl_' of line item 'people'"),
    (dataclasses.replace(COMPUTE, id="extra", fixed_title=None, known_lines=(), name_prefix="sum"),
     "the name prefix 'sum' of line item 'extra'", "the frame's prefix 'sum_' (Summary rows)"),
])
def test_a_prefix_shared_by_a_section_and_an_item_names_both(newcomer, first, second):
    with pytest.raises(registry.RegistryClash) as refused:
        registry._refuse_clashes(LINE_ITEMS + (newcomer,))
    message = str(refused.value)
    assert first in message and second in message, message
    assert "share one namespace of defined names; give one of them a prefix of its own" in message


def test_the_registered_prefixes_are_all_apart():
    registry._refuse_shared_prefixes(LINE_ITEMS)
    prefixes = [prefix for prefix, _ in registry._prefix_owners(LINE_ITEMS)]
    assert len(prefixes) == len(set(prefixes)) > len(LINE_ITEMS)


def test_reserved_ids_and_titles_come_from_the_items():
    assert reserved_line_ids() == {"total", "gpu_spend"} | {line.id for li in LINE_ITEMS for line in li.known_lines} \
        | {line.id for line in gap.LINES}
    assert {"compute", "failed_runs", "storage_egress", "people", "final_run", "serving", "serving_api",
            "contingency"} <= reserved_line_ids()
    assert {li.fixed_title.lower() for li in LINE_ITEMS if li.fixed_title} <= reserved_titles()


def test_plan_model_is_the_core_plus_every_section_in_registry_order():
    sections = [li.section.key for li in LINE_ITEMS if li.section]
    assert list(PLAN_MODEL.model_fields) == list(Plan.model_fields) + sections


def test_every_items_rule_is_stated():
    for li in LINE_ITEMS:
        assert len(li.doc) > 40, li.id


@pytest.mark.parametrize("template", ["finetune-13b-lora", "pretrain-7b", "deepseek-v3"])
def test_sheets_and_figures_follow_the_registry(template):
    plan = load_plan(template)
    titles = [s.title for s in build_book(plan).sheets]
    serving = plan.serving
    options = [] if serving is None or serving.api_price_per_million_tokens is None else ["Options"]  # build or buy
    assert titles == ["About", "Inputs", *registry.calc_sheet_titles(plan), "Summary", "Procurement", *options,
                      "Cash flow", "Sensitivity", "Checks"]
    market = plan.markets[0].id
    items = [f.item for f in compute_breakdown(plan).figures if f.market == market]
    assert items == ([line.id for line in registry.development_lines(plan)] + ["total"]
                     + [line.id for line in registry.beside_lines(plan)]
                     + ([line.id for line in gap.LINES] if len(plan.markets) > 1 else []))
