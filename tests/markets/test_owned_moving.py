"""Own or rent at the moving price (issue 29, item 4): the break-even against a rented market whose prices move,
and the overflow to a fallback whose prices move.

The worked example of `test_owned.py` (fixed costs 70,476.792; 10,519.2 deliverable hours in months 1 and 2 of
the plan, a busy hour's extra energy 0.5 x 0.168) against a second market, `cloud`, at 8 an H100-hour falling
20 % a year from the plan's start (no `as_of`): month n's hours cost 8 x 0.8 ^ (n / 12).
"""

import pytest
import yaml
from libreoffice import needs_libreoffice, recalculated_values
from lineitem_case import assert_cash_flow_matches_reference, both_ways
from markets.test_owned import OWNED, WORKLOADS

from budgetbook.planfile.loader import plan_from_text
from budgetbook.reference import ownership
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

DATA = {"name": "owned-moving", "start": "2026-01",
        "markets": [{"id": "neo", "gpu_prices": {"H100_SXM": 2.0}},
                    {"id": "cloud", "gpu_prices": {"H100_SXM": 8.0}, "price_change_per_year": -0.2},
                    {"id": "cluster", "kind": "owned", "owned": OWNED}],
        "workloads": WORKLOADS}
TEXT = yaml.safe_dump(DATA, sort_keys=False)
MOVED = 10519.2 * (0.8 ** (1 / 12) + 0.8 ** (2 / 12))   # deliverable hours x the month's index
EXPECTED = 70476.792 / (8 * MOVED - 0.084 * 21038.4)    # 0.4353, not 0.4232 at the stated price
FLAT_NEO = 70476.792 / (21038.4 * 1.916)


# the overflow of test_owned.py's example (5,000, 4,480.8 and 4,480.8 H100-hours in months 0-2 at 2) when the
# fallback `neo` is 20 % cheaper a year: each month's hours at that month's price
FALLING = {"name": "owned-overflow-moving", "start": "2026-01",
           "markets": [{"id": "neo", "gpu_prices": {"H100_SXM": 2.0}, "price_change_per_year": -0.2},
                       {"id": "cluster", "kind": "owned", "owned": OWNED}], "workloads": WORKLOADS}
OVERFLOW = [5000 * 2, 4480.8 * 2 * 0.8 ** (1 / 12), 4480.8 * 2 * 0.8 ** (2 / 12)]


def test_the_overflow_pays_the_fallbacks_price_of_the_month(tmp_path):
    text = yaml.safe_dump(FALLING, sort_keys=False)
    plan = plan_from_text(text, "falling")
    reference, workbook = both_ways(tmp_path, text)
    assert reference["owned_overflow_cluster"] == pytest.approx(sum(OVERFLOW), rel=1e-12)
    assert workbook["owned_overflow_cluster"] == pytest.approx(sum(OVERFLOW), rel=1e-12)
    assert sum(OVERFLOW) == pytest.approx(27430.93, abs=0.01)  # 27,923.2 at the stated price
    values = evaluate_workbook(write_workbook(plan, text, tmp_path / "cash.xlsx"))
    assert [values[f"cf_own_cluster_overflow_cluster_m{n}"] for n in (1, 2, 3)] == pytest.approx(OVERFLOW, rel=1e-12)
    assert_cash_flow_matches_reference(plan, values)


def test_the_breakeven_sees_the_moving_price():
    [entry] = ownership(plan_from_text(TEXT, "moving"))
    assert entry["breakeven_utilization"] == {"neo": pytest.approx(FLAT_NEO, rel=1e-12),
                                              "cloud": pytest.approx(EXPECTED, rel=1e-12)}
    assert EXPECTED > 70476.792 / (21038.4 * (8 - 0.084))  # cheaper renting later: owning must be busier


def test_the_formulas_agree(tmp_path):
    (tmp_path / "in").mkdir()
    book = write_workbook(plan_from_text(TEXT, "moving"), TEXT, tmp_path / "in" / "own.xlsx")
    evaluated = evaluate_workbook(book)
    assert evaluated["checks_ok"] is True
    assert evaluated["own_cluster_breakeven_cloud_cluster"] == pytest.approx(EXPECTED, rel=1e-12)
    assert evaluated["own_cluster_breakeven_neo_cluster"] == pytest.approx(FLAT_NEO, rel=1e-12)
    assert evaluated["sum_own_cluster_breakeven_cloud_cluster"] == pytest.approx(EXPECTED, rel=1e-12)


@needs_libreoffice
def test_libreoffice_agrees(tmp_path):
    (tmp_path / "in").mkdir()
    book = write_workbook(plan_from_text(TEXT, "moving"), TEXT, tmp_path / "in" / "own.xlsx")
    values = recalculated_values(book, tmp_path / "out")
    assert values["checks_ok"] is True
    assert values["own_cluster_breakeven_cloud_cluster"] == pytest.approx(EXPECTED, rel=1e-9)
    (tmp_path / "in2").mkdir()
    text = yaml.safe_dump(FALLING, sort_keys=False)
    book = write_workbook(plan_from_text(text, "falling"), text, tmp_path / "in2" / "falling.xlsx")
    values = recalculated_values(book, tmp_path / "out2")
    assert values["owned_overflow_cluster"] == pytest.approx(sum(OVERFLOW), rel=1e-9)
