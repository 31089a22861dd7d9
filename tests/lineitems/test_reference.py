"""The reference model against the seeds' own numbers, and its accounting invariants."""

from __future__ import annotations

import pytest

from budgetbook.lineitems.compute import hours_per_run as resolved_hours_per_run
from budgetbook.lineitems.gap import LINES as GAP_LINES
from budgetbook.lineitems.registry import beside_total_ids
from budgetbook.lineitems.scenario import Resolved
from budgetbook.planfile.loader import load_plan, template_names
from budgetbook.reference import compute_breakdown

BESIDE_TOTAL = beside_total_ids()


def hours_per_run(plan, workload, scenario):
    return resolved_hours_per_run(Resolved(workload, scenario))


def figures(template: str) -> dict[str, float]:
    return {f.name: f.value for f in compute_breakdown(load_plan(template)).figures}


def test_finetune_matches_seed_000_table():
    f = figures("finetune-13b-lora")
    # seed 000, scenario one: "48,000 hrs x $3.00 = $144,000" and "$1.80 = $86,400"
    assert (f["compute_hyperscaler_on_demand"], f["failed_runs_hyperscaler_on_demand"],
            f["people_hyperscaler_on_demand"]) == (144000, 36000, 60000)
    assert (f["compute_decentralized_market"], f["failed_runs_decentralized_market"],
            f["people_decentralized_market"]) == (86400, 21600, 60000)
    assert 4000 <= f["storage_egress_hyperscaler_on_demand"] <= 8000
    assert 2000 <= f["storage_egress_decentralized_market"] <= 4000
    assert f["total_hyperscaler_on_demand"] == pytest.approx(250_000, rel=0.03)
    assert f["total_decentralized_market"] == pytest.approx(172_000, rel=0.03)


def test_pretrain_7b_hours_lie_in_seed_band():
    plan = load_plan("pretrain-7b")
    pretrain = next(w for w in plan.workloads if w.id == "pretrain")
    for scenario in ("low", "base", "high"):
        ideal, allocated = hours_per_run(plan, pretrain, scenario)
        # seed 000: "You're now at 100K-1M GPU-hours"
        assert 100_000 <= allocated <= 1_000_000, (scenario, allocated)
        assert allocated > ideal
    # 6 x 7e9 x 5e12 FLOP at 989 TFLOP/s and 50 % MFU
    assert hours_per_run(plan, pretrain, "base")[1] == pytest.approx(6 * 7e9 * 5e12 / 989e12 / 3600 / 0.5)


def test_pretrain_7b_hybrid_runs_twelve_ablations_at_seed_prices():
    plan = load_plan("pretrain-7b")
    breakdown = compute_breakdown(plan)
    rows = breakdown.details_frame().set_index(["market", "workload"])
    # seed 000: an experiment that "cost $8,000 suddenly cost $3,800"
    assert rows.loc[("hyperscaler_commit", "ablations"), "compute"] / 5 == pytest.approx(8000, rel=0.01)
    assert rows.loc[("decentralized_market", "ablations"), "compute"] / 5 == pytest.approx(3800, rel=0.01)
    hybrid = rows.loc[("hybrid", "ablations")]
    assert (hybrid["runs"], hybrid["pays"]) == (12, "decentralized_market")
    assert rows.loc[("hybrid", "pretrain"), "pays"] == "hyperscaler_commit"
    f = {x.name: x.value for x in breakdown.figures}
    # twelve cheap experiments cost about as much as five dear ones
    assert f["compute_hybrid"] - f["compute_hyperscaler_commit"] == pytest.approx(12 * 3780 - 5 * 7980)


def test_deepseek_v3_headline_is_far_below_development_cost():
    f = figures("deepseek-v3")
    # DeepSeek-V3 report: 2.788M H800 hours at $2 = $5.576M
    assert f["final_run_h800_rental"] == 5_576_000
    # seed 003: 2,000 GPUs x 60 days "about 2.9 million GPU-hours ... about 6 million dollars"
    plan = load_plan("deepseek-v3")
    exploratory = next(w for w in plan.workloads if w.id == "exploratory")
    assert hours_per_run(plan, exploratory, "base") == (None, 2_880_000)
    assert f["total_h800_rental"] > 5 * f["final_run_h800_rental"]
    assert f["serving_api_h800_rental"] > f["serving_h800_rental"]  # at this volume, building beats buying


@pytest.mark.parametrize("template", template_names())
def test_total_is_sum_of_line_items_and_excludes_other_magnitudes(template):
    breakdown = compute_breakdown(load_plan(template))
    for market in breakdown.markets:
        gaps = {line.id for line in GAP_LINES}  # the gap to the cheapest: its own test (`test_gap.py`)
        lines = {f.item: f for f in breakdown.figures if f.market == market and f.item not in gaps}
        parts = [f for item, f in lines.items() if item != "total" and item not in BESIDE_TOTAL]
        assert {"compute", "failed_runs", "storage_egress", "people"} <= {f.item for f in parts}
        total = lines["total"]
        assert total.value == pytest.approx(sum(f.value for f in parts))
        if total.low is not None:
            assert total.low == pytest.approx(sum(f.low if f.low is not None else f.value for f in parts))
            assert total.high == pytest.approx(sum(f.high if f.high is not None else f.value for f in parts))
            assert total.low <= total.value <= total.high
        owns = any(m.id == market and m.owned is not None for m in breakdown.source.markets)
        for item in BESIDE_TOTAL & set(lines):
            # never inside: the total must not change if they were zero. A rented market holds no cluster; on an
            # owned one the cluster's hours cost nothing per hour (its `owned_*` lines pay them), so the stages'
            # compute there is what the fallback's overflow leaves, none here
            # commit or rent: nothing on a market that pays no commitment, and committing (now) may cost more
            pays_commitment = lines.get("commitment") is not None and lines["commitment_block"].value > 0
            assert lines[item].value > 0 or (not owns and item == "owned_book_value") or \
                (owns and item.startswith("stage_")) or (item.startswith("commitment_") and not pays_commitment) \
                or item in SAVINGS
        assert all(f.value >= 0 for item, f in lines.items() if item not in SAVINGS)


SAVINGS = {"commitment_saving", "commitment_wait_saving"}  # differences: either side may cost more


@pytest.mark.parametrize("template", template_names())
def test_every_template_has_sourced_comments_and_loads_without_warnings(template, recwarn):
    from budgetbook.planfile.loader import template_text

    load_plan(template)
    assert not [w for w in recwarn if "PlanWarning" in type(w.message).__name__]
    assert template_text(template).count("#") >= 10  # assumptions carry their source


def test_pretrain_7b_figures():
    f = figures("pretrain-7b")
    base_hours = 6 * 7e9 * 5e12 / 989e12 / 3600 / 0.5
    assert f["final_run_hyperscaler_commit"] == pytest.approx(base_hours * 3.80)
    assert f["final_run_neo_cloud"] == pytest.approx(base_hours * 3.23)
    assert f["final_run_hybrid"] == f["final_run_hyperscaler_commit"]
    assert f["people_hyperscaler_commit"] == 560_000  # 3x3 + 1x3 + 1x2 engineer-months at $40K
    assert f["people_decentralized_market"] == 560_000 + 2 * 2000
    assert f["total_decentralized_market"] < f["total_neo_cloud"] < f["total_hyperscaler_commit"]
