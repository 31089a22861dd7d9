"""Commit or rent (issue 29, item 4): a commitment's block against its hours on demand at the month's price."""

import pytest
import yaml
from cli_run import run
from libreoffice import error_cells, needs_libreoffice, recalculated_values
from lineitem_case import assert_cash_flow_matches_reference, assert_figures

from budgetbook.planfile.loader import plan_from_text
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

# prices of 2026-01-15, the plan starts 2026-03: month n is n + 2 months after as_of; on `cloud` prices fall 20 %
# a year. One H100 reserved for months 0-2 at 2 (730.5 hours a month); `w` uses 500 H100-hours a month in months
# 0-5; `v` runs A100s on `cloud`, not committed, so its price moves.
PLAN = {"name": "commit-or-rent", "as_of": "2026-01-15", "start": "2026-03", "markets": [
    {"id": "cloud", "gpu_prices": {"H100_SXM": 2, "A100_80GB": 1.5}, "price_change_per_year": -0.2}],
    "workloads": [{"id": "w", "gpu": "H100_SXM", "ideal_gpu_hours": 3000, "utilization": 1, "months": 6},
                  {"id": "v", "gpu": "A100_80GB", "ideal_gpu_hours": 600, "utilization": 1, "months": 6}],
    "commitments": [{"market": "cloud", "gpu": "H100_SXM", "gpus": 1, "term_months": 3,
                     "fallback_price_per_gpu_hour": 4}]}
INDEX = [0.8 ** ((n + 2) / 12) for n in range(6)]
FALLBACK = [4 * i for i in INDEX]                             # the on-demand rate of the month
RESERVED = 730.5
BLOCK = 3 * RESERVED * 2 + sum(500 * f for f in FALLBACK[3:])  # the block flat; months 3-5 overflow on demand
ON_DEMAND = sum(500 * f for f in FALLBACK)                     # the same 3,000 hours, each at its month's rate
# commit now or wait: by default half the term (1.5 months), then the block for months 1.5-3 at the price then
# (2 x 0.8 ^ (1.5 / 12)); month 0 and half of month 1 on demand, months 3-5 overflow as before
LATER = 2 * 0.8 ** (1.5 / 12)
WAIT = (500 * FALLBACK[0] + RESERVED / 2 * LATER + (500 - RESERVED / 2) * FALLBACK[1] + RESERVED * LATER
        + sum(500 * f for f in FALLBACK[3:]))
EXPECTED = {
    "compute_cloud": 3000 * 2 + 600 * 1.5 * sum(INDEX) / 6,   # the committed H100 flat, the A100 at the month's price
    "commitment_cloud": 3 * (RESERVED - 500) * 2 + sum(500 * (f - 2) for f in FALLBACK[3:]),
    "commitment_block_cloud": BLOCK, "commitment_on_demand_cloud": ON_DEMAND,
    "commitment_saving_cloud": ON_DEMAND - BLOCK,
    "commitment_wait_cloud": WAIT, "commitment_wait_saving_cloud": WAIT - BLOCK,
}


def test_the_block_against_renting_at_the_moving_price(tmp_path):
    figures = assert_figures(tmp_path, yaml.safe_dump(PLAN), EXPECTED)
    # the block (4,383 flat + 5,367 overflow) against 11,042 on demand: committing saves 1,292
    assert figures["commitment_saving_cloud"] == pytest.approx(1292.10, abs=0.01)
    # the compute and the commitment line pay what the block costs: the used hours in compute, the rest here
    assert figures["commitment_block_cloud"] == pytest.approx(3000 * 2 + figures["commitment_cloud"])


def test_the_cash_flow_pays_each_month_its_fallback(tmp_path):
    text = yaml.safe_dump(PLAN)
    plan = plan_from_text(text)
    values = evaluate_workbook(write_workbook(plan, text, tmp_path / "commit.xlsx"))
    assert values["checks_ok"] is True
    assert_cash_flow_matches_reference(plan, values)
    assert values["cf_com_1_on_demand_cloud_m4"] == pytest.approx(500 * FALLBACK[3], rel=1e-12)


def test_without_moving_prices_the_comparison_is_at_the_stated_fallback(tmp_path):
    flat = PLAN | {"markets": [{"id": "cloud", "gpu_prices": {"H100_SXM": 2, "A100_80GB": 1.5}}]}
    assert_figures(tmp_path, yaml.safe_dump(flat), {
        "commitment_block_cloud": 3 * RESERVED * 2 + 3 * 500 * 4, "commitment_on_demand_cloud": 3000 * 4,
        "commitment_saving_cloud": 3000 * 4 - 3 * RESERVED * 2 - 3 * 500 * 4,
        # waiting 1.5 months buys nothing cheaper: 1.5 x 730.5 hours fewer reserved, 500 + 134.75 on demand
        "commitment_wait_cloud": 1.5 * RESERVED * 2 + (500 + 500 - RESERVED / 2) * 4 + 3 * 500 * 4})


def test_waiting_for_a_falling_price(tmp_path):
    """Seed 003's falling prices against committing now: a 12-month block of 4 GPUs used in full, prices 30 %
    lower a year, on demand 3. Waiting 6 months rents 6 x 4 x 730.5 hours at the month's on-demand rate, then
    commits at 2 x 0.7 ^ 0.5 = 1.673 for the last 6: the block now (2 an hour all year) is cheaper by 8,101."""
    plan = {"name": "wait", "start": "2026-01", "as_of": "2026-01-01", "markets": [
        {"id": "cloud", "gpu_prices": {"H100_SXM": 2}, "price_change_per_year": -0.3}],
        "workloads": [{"id": "w", "gpu": "H100_SXM", "allocated_gpu_hours": 12 * 4 * RESERVED, "months": 12}],
        "commitments": [{"market": "cloud", "gpu": "H100_SXM", "gpus": 4, "term_months": 12, "wait_months": 6,
                         "fallback_price_per_gpu_hour": 3}]}
    month = 4 * RESERVED
    waiting = sum(month * 3 * 0.7 ** (n / 12) for n in range(6)) + 6 * month * 2 * 0.7 ** 0.5
    figures = assert_figures(tmp_path, yaml.safe_dump(plan), {
        "commitment_block_cloud": 12 * month * 2, "commitment_wait_cloud": waiting,
        "commitment_wait_saving_cloud": waiting - 12 * month * 2})
    assert figures["commitment_wait_saving_cloud"] == pytest.approx(8101.0, abs=0.1)


def test_show_says_it_beside_the_total(tmp_path, capsys):
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(PLAN))
    code, out, _ = run(capsys, "show", path)
    assert code == 0
    assert "Saving from committing (on demand - the block)" in out and "1,292" in out


@needs_libreoffice
def test_libreoffice_agrees(tmp_path):
    text = yaml.safe_dump(PLAN)
    (tmp_path / "in").mkdir()
    book = write_workbook(plan_from_text(text), text, tmp_path / "in" / "commit.xlsx")
    values = recalculated_values(book, tmp_path / "out")
    assert error_cells(tmp_path / "out" / "commit.xlsx") == []
    assert values["checks_ok"] is True
    for name, expected in EXPECTED.items():
        assert values[name] == pytest.approx(expected, rel=1e-9), name
