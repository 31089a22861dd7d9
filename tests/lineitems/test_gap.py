"""The gap to the cheapest market by category (issue 29, item 3): a worked example three ways, random plans add up."""

import json

import pytest
import yaml
from cli_run import run
from hypothesis import given, settings
from libreoffice import error_cells, needs_libreoffice, recalculated_values
from lineitem_case import assert_figures, reliability_plan
from strategies import plans

from budgetbook.lineitems.gap import CATEGORIES
from budgetbook.planfile.loader import plan_from_text
from budgetbook.reference import compute_breakdown
from budgetbook.workbook.write import write_workbook

# 1,500 allocated GPU-hours (1,000 ideal x 1.5): cloud at 3 with interruptions, support and days; dec at 2 with
# verification; bare at 2 with nothing else (the cheapest, 3,000); a day costs 1,000
PLAN = reliability_plan("gap")
LOST = 2.4 / 24 * (2 * 0.5 + 0.5)  # 0.15 of cloud's paid hours redone: goodput 0.85
EXPECTED = {
    "gap_gpu_price_cloud": 1500 * (3 - 2),                      # bare's hours x the price difference
    "gap_goodput_cloud": 4500 * LOST / (1 - LOST),              # 794.12: the hours redone, at cloud's compute
    "gap_overheads_cloud": 4500 * (0.05 - 0.01) + (2 + 1 * 3) * 1000,  # support less SLA, setup and debugging days
    "gap_verification_dec": 3000 * (0.1 + 0.02) + 3 * 1000,     # redundant and rejected work, the vetting days
    "gap_verification_mix": 3000 * (0.1 + 0.02) + 3 * 1000,     # the hybrid pays dec's verification
    "gap_gpu_price_dec": 0, "gap_utilization_cloud": 0, "gap_people_cloud": 0,
    **{f"gap_{c.id}_bare": 0 for c in CATEGORIES},              # the cheapest: no gap
}


def test_the_gap_by_category_agrees_in_the_reference_and_formulas_and_adds_up(tmp_path):
    figures = assert_figures(tmp_path, yaml.safe_dump(PLAN), EXPECTED)
    for market in ("cloud", "dec", "bare", "mix"):
        gap = sum(figures[f"gap_{c.id}_{market}"] for c in CATEGORIES)
        assert gap == pytest.approx(figures[f"total_{market}"] - figures["total_bare"], rel=1e-12, abs=1e-9)
    assert figures["total_cloud"] - figures["total_bare"] == pytest.approx(7474.1176, rel=1e-6)


@needs_libreoffice
def test_libreoffice_agrees_and_summary_links_the_gap(tmp_path):
    text = yaml.safe_dump(PLAN)
    (tmp_path / "in").mkdir()
    book = write_workbook(plan_from_text(text), text, tmp_path / "in" / "gap.xlsx")
    values = recalculated_values(book, tmp_path / "out")
    assert error_cells(tmp_path / "out" / "gap.xlsx") == []
    assert values["checks_ok"] is True and values["chk_gap_cloud"] is True
    for name, expected in EXPECTED.items():
        assert values[name] == pytest.approx(expected, rel=1e-9, abs=1e-9), name
        assert values[f"sum_{name}"] == pytest.approx(expected, rel=1e-9, abs=1e-9), name


def test_show_prints_the_gap_and_its_json(tmp_path, capsys):
    path = tmp_path / "gap.yaml"
    path.write_text(yaml.safe_dump(PLAN))
    code, out, _ = run(capsys, "show", path)
    assert code == 0 and "the gap to the" in out and "Gap: verification" in out  # the title wraps
    code, out, _ = run(capsys, "show", path, "--format", "json")  # `run` validates it against the schema
    gap = json.loads(out)["gap"]
    assert gap["cheapest"] == "bare"
    assert gap["by_market"]["dec"]["verification"] == pytest.approx(3360)
    assert gap["by_market"]["cloud"]["total"] == pytest.approx(sum(
        v for k, v in gap["by_market"]["cloud"].items() if k != "total"))
    one = dict(PLAN, markets=[PLAN["markets"][2]])
    path.write_text(yaml.safe_dump(one))
    code, out, _ = run(capsys, "show", path, "--format", "json")
    assert code == 0 and "gap" not in json.loads(out) and "gap_" not in out  # one market: no decision, no gap


@settings(max_examples=25, deadline=None)
@given(plans())
def test_random_plans_gap_adds_up_to_the_total_difference(plan_and_text):
    plan, _ = plan_and_text
    figures = {f.name: f for f in compute_breakdown(plan).figures}
    ids = [m.id for m in plan.markets]
    if len(ids) < 2:
        assert not any(name.startswith("gap_") for name in figures)
        return
    def at(name: str, end: str) -> float:
        value = getattr(figures[name], end)
        return figures[name].value if value is None else value

    for end in ("value", "low", "high"):
        totals = {m: at(f"total_{m}", end) for m in ids}
        lowest = min(totals.values())
        for m in ids:
            gap = sum(at(f"gap_{c.id}_{m}", end) for c in CATEGORIES)
            assert gap == pytest.approx(totals[m] - lowest, rel=1e-9, abs=1e-6 + 1e-12 * abs(totals[m]))
