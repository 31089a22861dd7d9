"""A plan's further `items` keep their own line ids, and a built-in line added later never breaks them.

The built-in line here is registered by the test, as a newcomer would add one: an `evaluation` line
(2 % of compute, beside the total) that takes the id `deepseek-v3`'s own `evaluation` item uses. The
plan still loads, warns once, keeps every other figure's name, and both implementations agree.
"""

from __future__ import annotations

import sys

import pytest
from cli_run import run
from lineitem_case import both_ways, plan_yaml

from budgetbook.lineitems import compute, registry
from budgetbook.lineitems.base import Line, LineItem, no_sheet
from budgetbook.lineitems.items import line_ids
from budgetbook.planfile.loader import load_plan, plan_warnings, template_text
from budgetbook.planfile.model import PLAN_MODEL
from budgetbook.reference import compute_breakdown
from budgetbook.sheetkit import style as st
from budgetbook.sheetkit.rows import CalcSheet, NameOf

EVALUATION = Line("evaluation", "Evaluation (built in)", in_total=False)
SHARE = 0.02


def _reference(view) -> dict[str, float]:
    return {EVALUATION.id: SHARE * view.lines[compute.LINE.id]}


def _build(book, plan, inp) -> None:
    sheet = CalcSheet.resume(book, plan, compute.TITLE)
    sheet.section("Evaluation, beside the total")
    sheet.row(EVALUATION.label, plan.currency, st.money(plan.currency), f"={SHARE}*{{c}}", EVALUATION.id,
              kind="figure", item=EVALUATION.id, c=NameOf(compute.LINE.id))


NEWCOMER = LineItem(id="evaluation", doc="Evaluation: 2 % of compute on each market, beside the total.",
                    known_lines=(EVALUATION,), lines=lambda plan: [EVALUATION], reference=_reference,
                    build=_build, sheet_titles=no_sheet, name_prefix="evl_")


def register(monkeypatch) -> tuple[LineItem, ...]:
    """The registry with the newcomer after Compute, wherever a module holds the registry's tuple."""
    old = registry.LINE_ITEMS
    new = (old[0], NEWCOMER, *old[1:])
    registry._refuse_clashes(new)  # a valid registration: no id, title or prefix clash
    for name, module in list(sys.modules.items()):
        if name.startswith("budgetbook") and getattr(module, "LINE_ITEMS", None) is old:
            monkeypatch.setattr(module, "LINE_ITEMS", new)
    monkeypatch.setattr(PLAN_MODEL, "LINE_ITEMS", new)  # the full plan model's items, which its checks iterate
    return new


@pytest.fixture
def with_evaluation(monkeypatch):
    return register(monkeypatch)


def names(plan) -> set[str]:
    return {figure.name for figure in compute_breakdown(plan).figures}


def test_a_plan_keeps_loading_when_a_built_in_line_takes_its_items_id(with_evaluation, tmp_path):
    before = load_plan("deepseek-v3")  # loaded through the patched registry: the newcomer is in it
    assert [item.id for item in before.items] == ["data", "evaluation"]
    assert line_ids(before) == {"data": "data", "evaluation": "evaluation_item"}
    warnings = plan_warnings(before)
    assert warnings == ["`items[1].id`: `evaluation` is also the id of a built-in line (`Evaluation (built in)`, "
                        "line item 'evaluation'), so this item's figures are named `evaluation_item_<market>` "
                        "(`show`'s item `evaluation_item`): give the item another id to choose its names"]
    markets = [m.id for m in before.markets]
    got = names(before)
    assert {f"evaluation_{m}" for m in markets} | {f"evaluation_item_{m}" for m in markets} <= got
    reference, workbook = both_ways(tmp_path, template_text("deepseek-v3"))
    assert reference.keys() == workbook.keys() == got
    for name, value in reference.items():
        assert abs(workbook[name] - value) <= 1e-9 * max(1.0, abs(value)), name
    for m in markets:  # the built-in line has its rule; the plan's item keeps its cost
        assert reference[f"evaluation_{m}"] == pytest.approx(SHARE * reference[f"compute_{m}"], rel=1e-12)
        assert reference[f"evaluation_item_{m}"] == 1_000_000


def test_every_other_figure_keeps_its_name(monkeypatch):
    plain = names(load_plan("deepseek-v3"))
    register(monkeypatch)
    renamed = names(load_plan("deepseek-v3"))
    markets = [m.id for m in load_plan("deepseek-v3").markets]
    assert renamed - plain == {f"evaluation_item_{m}" for m in markets}  # the built-in's names are its own
    assert plain - renamed == set()  # `evaluation_<market>` now names the built-in line


def test_the_warning_reaches_the_command_line_and_strict_refuses(with_evaluation, capsys, tmp_path):
    code, out, err = run(capsys, "show", "deepseek-v3", "--format", "json")
    assert code == 0
    assert "`items[1].id`: `evaluation` is also the id of a built-in line" in err
    code, _, err = run(capsys, "show", "deepseek-v3", "--strict")
    assert code == 2 and "--strict makes them errors" in err


def test_an_item_named_like_a_line_today_is_renamed_not_refused(tmp_path):
    items = [{"id": "contingency", "cost": 5}, {"id": "contingency_item", "cost": 7}, {"id": "data", "cost": 3}]
    text = plan_yaml(items=items, contingency={"share": 0.5})
    reference, workbook = both_ways(tmp_path, text)
    for market in ("a", "b"):
        assert workbook[f"contingency_item_item_{market}"] == reference[f"contingency_item_item_{market}"] == 5
        assert workbook[f"contingency_item_{market}"] == reference[f"contingency_item_{market}"] == 7
        assert workbook[f"data_{market}"] == 3
        assert workbook[f"contingency_{market}"] == pytest.approx(reference[f"contingency_{market}"], rel=1e-12)
