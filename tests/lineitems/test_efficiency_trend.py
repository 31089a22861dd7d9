"""An efficiency trend (issue 29, item 4): a run needs fewer GPU-hours the later it starts, if the plan says so.

Prices of 2026-01-15, the plan starts 2026-03 (2 months later). A GPU-hour does 25 % more useful work a year
(`efficiency_change_per_year: 0.25`); a run takes the efficiency of the month it starts. `early` starts with
the plan (2 months after as_of): 1,000 ideal hours / MFU 0.4 x 1.25 ^ -(2 / 12); `late` starts 2026-09 (8
months after): 1,000 x utilization 2.5 x 1.25 ^ -(8 / 12). At 2 a GPU-hour.
"""

import json

import pytest
import yaml
from cli_run import run
from libreoffice import needs_libreoffice, recalculated_values
from lineitem_case import assert_cash_flow_matches_reference, assert_figures

from budgetbook.planfile.loader import plan_from_text
from budgetbook.ranges.simulate import simulate
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

PLAN = {"name": "efficiency", "as_of": "2026-01-15", "start": "2026-03",
        "markets": [{"id": "cloud", "gpu_prices": {"H100_SXM": 2}}],
        "workloads": [{"id": "early", "gpu": "H100_SXM", "ideal_gpu_hours": 1000, "mfu": 0.4,
                       "efficiency_change_per_year": 0.25, "months": 2},
                      {"id": "late", "gpu": "H100_SXM", "ideal_gpu_hours": 1000, "utilization": 2.5,
                       "efficiency_change_per_year": 0.25, "start": "2026-09", "months": 2}]}
EARLY = 1000 / 0.4 * 1.25 ** (-2 / 12)   # 2,408.7 GPU-hours, not 2,500
LATE = 1000 * 2.5 * 1.25 ** (-8 / 12)    # 2,154.4
EXPECTED = {"compute_cloud": 2 * (EARLY + LATE), "total_cloud": 2 * (EARLY + LATE)}


def test_a_later_run_needs_fewer_hours(tmp_path):
    figures = assert_figures(tmp_path, yaml.safe_dump(PLAN), EXPECTED)
    assert figures["compute_cloud"] == pytest.approx(9126.3, abs=0.1)  # 10,000 without the trend
    text = yaml.safe_dump(PLAN)
    plan = plan_from_text(text)
    values = evaluate_workbook(write_workbook(plan, text, tmp_path / "trend.xlsx"))
    assert values["cmp_early_alloc_cloud"] == pytest.approx(EARLY, rel=1e-12)
    assert values["cmp_late_efficiency_cloud"] == pytest.approx(1.25 ** (-8 / 12), rel=1e-12)
    assert_cash_flow_matches_reference(plan, values)


def test_the_physics_shows_the_mfu_of_the_start(tmp_path, capsys):
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(PLAN))
    code, out, _ = run(capsys, "show", path, "--format", "json")
    assert code == 0
    [early] = [row for row in json.loads(out)["workloads"] if row["workload"] == "early"]
    assert early["allocated_gpu_hours"] == pytest.approx(EARLY)
    assert early["mfu"] == pytest.approx(0.4 / 1.25 ** (-2 / 12))  # 0.415: the stated MFU, 2 months on


def test_allocated_hours_take_no_trend(tmp_path, capsys):
    bad = PLAN | {"workloads": [{"id": "w", "gpu": "H100_SXM", "allocated_gpu_hours": 100,
                                 "efficiency_change_per_year": 0.2}]}
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(bad))
    code, _, err = run(capsys, "show", path)
    assert code == 2 and "`efficiency_change_per_year` does not apply" in err and "Traceback" not in err


def test_simulate_draws_the_trend():
    ranged = PLAN | {"workloads": [dict(PLAN["workloads"][1], efficiency_change_per_year={
        "low": 0, "base": 0.25, "high": 0.5})]}
    stats = simulate(plan_from_text(yaml.safe_dump(ranged)), samples=2000, seed=1).markets["cloud"]
    # 5,000 at no change, 5,000 x 1.5 ^ -(8 / 12) = 3,816 at the most; the base 4,309 in between
    edges, _ = stats.histogram
    assert 3816 < edges[0] < stats.p10 < 2 * LATE < stats.p90 < edges[-1] <= 5000 + 1e-6


@needs_libreoffice
def test_libreoffice_agrees(tmp_path):
    text = yaml.safe_dump(PLAN)
    (tmp_path / "in").mkdir()
    book = write_workbook(plan_from_text(text), text, tmp_path / "in" / "trend.xlsx")
    values = recalculated_values(book, tmp_path / "out")
    assert values["checks_ok"] is True
    for name, expected in EXPECTED.items():
        assert values[name] == pytest.approx(expected, rel=1e-9), name
