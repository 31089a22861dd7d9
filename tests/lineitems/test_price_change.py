"""Prices that move (issue 29, item 4): a market's price change a year, month by month from `as_of`, three ways."""

import pytest
import yaml
from cli_run import run
from libreoffice import error_cells, needs_libreoffice, recalculated_values
from lineitem_case import assert_cash_flow_matches_reference, assert_figures

from budgetbook.planfile.loader import plan_from_text
from budgetbook.reference import compute_monthly
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

# prices of 2026-01-15, the plan starts 2026-03: month n of the plan is n + 2 months after as_of
PLAN = {"name": "moving", "as_of": "2026-01-15", "start": "2026-03", "markets": [
    {"id": "cloud", "gpu_prices": {"H100_SXM": 3}, "price_change_per_year": {"low": -0.3, "base": -0.2, "high": 0}},
    {"id": "flat", "gpu_prices": {"H100_SXM": 2.5}},
    {"id": "mix", "hybrid": {"assign": {"w": "cloud", "v": "flat"}}}],
    "workloads": [{"id": "w", "gpu": "H100_SXM", "ideal_gpu_hours": 1000, "utilization": 1.5, "months": 12},
                  {"id": "v", "gpu": "H100_SXM", "ideal_gpu_hours": 500, "utilization": 1, "start": 6, "months": 3}]}
# 20 % cheaper a year: month n's price is 3 x 0.8 ^ ((n + 2) / 12); w's 1,500 hours run months 0-11, v's 500 months 6-8
W = 1500 * 3 * sum(0.8 ** ((n + 2) / 12) for n in range(12)) / 12     # 3,922.28, not 4,500
V = 500 * 3 * sum(0.8 ** ((n + 2) / 12) for n in (6, 7, 8)) / 3       # 1,268.99, not 1,500
EXPECTED = {"compute_cloud": W + V, "compute_flat": 2000 * 2.5, "compute_mix": W + 500 * 2.5,
            "gap_gpu_price_cloud": W + V - 5000, "gap_gpu_price_flat": 0}


def test_the_price_of_the_month_agrees_in_the_reference_and_formulas(tmp_path):
    figures = assert_figures(tmp_path, yaml.safe_dump(PLAN), EXPECTED)
    assert figures["compute_cloud"] == pytest.approx(5191.2679, rel=1e-7)
    months = next(r.values for r in compute_monthly(plan_from_text(yaml.safe_dump(PLAN))).rows
                  if r.market == "cloud" and r.item == "compute")
    assert months[0] == pytest.approx(1500 * 3 / 12 * 0.8 ** (2 / 12))      # month 0: two months after as_of
    assert months[7] == pytest.approx((1500 * 3 / 12 + 500) * 0.8 ** (9 / 12))  # w and v both run in month 7


def test_the_cash_flow_pays_each_month_its_price(tmp_path):
    text = yaml.safe_dump(PLAN)
    plan = plan_from_text(text)
    values = evaluate_workbook(write_workbook(plan, text, tmp_path / "moving.xlsx"))
    assert values["checks_ok"] is True
    assert values["cf_months_after_as_of"] == 2
    assert_cash_flow_matches_reference(plan, values)
    flat = dict(PLAN, markets=[dict(PLAN["markets"][0], price_change_per_year=0), PLAN["markets"][1]])
    text = yaml.safe_dump(flat)
    values = evaluate_workbook(write_workbook(plan_from_text(text), text, tmp_path / "zero.xlsx"))
    assert values["compute_cloud"] == pytest.approx(2000 * 3, rel=1e-12)  # a change of 0: the stated price


@needs_libreoffice
def test_libreoffice_agrees(tmp_path):
    text = yaml.safe_dump(PLAN)
    (tmp_path / "in").mkdir()
    book = write_workbook(plan_from_text(text), text, tmp_path / "in" / "moving.xlsx")
    values = recalculated_values(book, tmp_path / "out")
    assert error_cells(tmp_path / "out" / "moving.xlsx") == []
    assert values["checks_ok"] is True
    for name, expected in EXPECTED.items():
        assert values[name] == pytest.approx(expected, rel=1e-9, abs=1e-9), name


@pytest.mark.parametrize(("change", "message"), [
    ({"markets": [PLAN["markets"][0], PLAN["markets"][1], dict(PLAN["markets"][2], price_change_per_year=-0.1)]},
     "a hybrid market pays the prices of the markets it assigns"),
])  # a commitment's market may move: its block keeps the committed price (tests/lineitems/test_commit_or_rent.py)
def test_a_price_read_as_stated_may_not_move(tmp_path, capsys, change, message):
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(PLAN | change))
    code, _, err = run(capsys, "show", path)
    assert code == 2 and message in err and "Traceback" not in err


def test_an_owned_cluster_keeps_its_price(tmp_path, capsys):
    """Its cost is its purchase and running costs; its fallback's prices may move (tests/markets/
    test_owned_moving.py: the overflow pays the month's price)."""
    owned = {"gpu": "H100_SXM", "count": 8, "price_per_gpu": 25000, "fallback": "neo"}
    data = {"name": "owned", "start": "2026-01", "workloads": PLAN["workloads"][:1], "markets": [
        {"id": "neo", "gpu_prices": {"H100_SXM": 2}},
        {"id": "cluster", "kind": "owned", "owned": owned, "price_change_per_year": -0.2}]}
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(data))
    code, _, err = run(capsys, "show", path)
    assert code == 2 and "remove `price_change_per_year`, or give it on the rented markets" in err
