"""Committed capacity, by hand: 10 H100 reserved for a month = 10 x 730.5 = 7,305 GPU-hours at $2 (=$14,610).

Idle hours cost the committed price; overflow (hours the block cannot hold in a month) costs the fallback
rate, $4, of which compute already holds the committed $2.
"""

from __future__ import annotations

import copy

import pytest
import yaml
from cli_run import run
from lineitem_case import assert_cash_flow_matches_reference, assert_figures

from budgetbook.planfile.loader import plan_from_text
from budgetbook.reference import compute_monthly
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

MARKETS = [{"id": "commit", "gpu_prices": {"H100_SXM": 2}}, {"id": "od", "gpu_prices": {"H100_SXM": 4}}]
BLOCK = {"market": "commit", "gpu": "H100_SXM", "gpus": 10, "term_months": 1, "fallback_price_per_gpu_hour": 4}


def plan(hours: float, **block) -> str:
    data = {"name": "commit-example", "start": "2026-01", "markets": copy.deepcopy(MARKETS),
            "workloads": [{"id": "w", "gpu": "H100_SXM", "allocated_gpu_hours": hours}],
            "commitments": [BLOCK | block]}
    return yaml.safe_dump(data, sort_keys=False)


def test_block_kept_busy_costs_hours_at_the_committed_price(tmp_path):
    assert_figures(tmp_path, plan(7305), {"compute_commit": 14610, "commitment_commit": 0, "total_commit": 14610,
                                          "compute_od": 29220, "commitment_od": 0, "total_od": 29220})


def test_half_busy_block_pays_its_idle_half(tmp_path):
    # 3,652.5 hours used ($7,305 in compute), 3,652.5 idle at $2 = $7,305: the whole block, $14,610
    assert_figures(tmp_path, plan(3652.5), {"compute_commit": 7305, "commitment_commit": 7305,
                                            "total_commit": 14610})


def test_overflow_is_priced_at_the_fallback_rate(tmp_path):
    # 10,957.5 hours: 7,305 in the block at $2, 3,652.5 overflow at $4 = 14,610 + 14,610 = 29,220
    assert_figures(tmp_path, plan(10957.5), {"compute_commit": 21915, "commitment_commit": 7305,
                                             "total_commit": 29220})


def test_a_term_longer_than_the_work_is_idle_after_it(tmp_path):
    text = plan(7305, term_months=3)
    assert_figures(tmp_path, text, {"commitment_commit": 29220, "total_commit": 43830})
    monthly = compute_monthly(plan_from_text(text))
    rows = {(r.market, r.item): r.values for r in monthly.rows}
    assert rows[("commit", "commitment")] == pytest.approx([0, 14610, 14610])
    assert rows[("commit", "total")] == pytest.approx([14610, 14610, 14610])
    values = evaluate_workbook(write_workbook(plan_from_text(text), text, tmp_path / "term.xlsx"))
    assert [values[f"cf_com_1_idle_commit_m{n}"] for n in (1, 2, 3)] == pytest.approx([0, 7305, 7305])
    assert values["com_1_reserved_commit"] == pytest.approx(21915)
    assert_cash_flow_matches_reference(plan_from_text(text), values)


def test_a_hybrid_pays_the_commitment_of_the_market_it_uses(tmp_path):
    data = yaml.safe_load(plan(3652.5))
    data["markets"].append({"id": "mix", "hybrid": {"assign": {"w": "commit"}}})
    text = yaml.safe_dump(data, sort_keys=False)
    assert_figures(tmp_path, text, {"commitment_mix": 7305, "total_mix": 14610})


@pytest.mark.parametrize(("block", "message"), [
    ({"market": "nowhere"}, "`commitments[0].market`: `nowhere` is not a market with prices"),
    ({"gpu": "A100"}, "`commitments[0].gpu`: market `commit` has no price for GPU `A100` (the committed price)"),
    ({"gpus": 0}, "`commitments[0].gpus`: must be greater than 0 and at most 1e6, got 0"),
    ({"start": "2025-06"}, "`commitments[0].start`: 2025-06 is before the plan's start 2026-01"),
])
def test_bad_commitment_is_one_line_exit_2(capsys, tmp_path, block, message):
    path = tmp_path / "bad.yaml"
    path.write_text(plan(100, **block))
    code, out, err = run(capsys, "show", path)
    assert code == 2 and err.startswith(f"Error: {path}: {message}") and err.count("\n") == 1, err
