"""Own or rent at the moving price (issue 29, item 4): the break-even against a rented market whose prices move.

The worked example of `test_owned.py` (fixed costs 70,476.792; 10,519.2 deliverable hours in months 1 and 2 of
the plan, a busy hour's extra energy 0.5 x 0.168) against a second market, `cloud`, at 8 an H100-hour falling
20 % a year from the plan's start (no `as_of`): month n's hours cost 8 x 0.8 ^ (n / 12).
"""

import pytest
import yaml
from libreoffice import needs_libreoffice, recalculated_values
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
