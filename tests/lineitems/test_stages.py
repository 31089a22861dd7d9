"""Stages (issue 29, item 5): a stage's compute beside the total, the cost per experiment, experiments per 10,000."""

import pytest
from cli_run import run
from lineitem_case import assert_figures, plan_yaml

from budgetbook.planfile.loader import load_plan, template_text
from budgetbook.reference import compute_breakdown
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook


def test_stages_are_inside_compute_and_an_experiment_costs_its_compute_per_run(tmp_path):
    # a: 3/GPU-hour, b: 2. pretrain 1,000 h; 4 ablation runs of 100 h and a sweep of 2 runs of 50 h: 500 h in 6 runs
    workloads = [{"id": "pre", "kind": "pretrain", "gpu": "H100_SXM", "allocated_gpu_hours": 1000},
                 {"id": "abl", "kind": "ablation", "gpu": "H100_SXM", "allocated_gpu_hours": 100, "runs": 4},
                 {"id": "swp", "kind": "sweep", "gpu": "H100_SXM", "allocated_gpu_hours": 50, "runs": 2},
                 {"id": "ev", "kind": "eval", "gpu": "H100_SXM", "allocated_gpu_hours": 10}]
    figures = assert_figures(tmp_path, plan_yaml(workloads=workloads), {
        "stage_pretraining_a": 3000, "stage_experiments_a": 1500, "stage_evals_a": 30,
        "experiment_cost_a": 1500 / 6, "experiment_cost_b": 1000 / 6, "compute_a": 4530})
    assert "stage_post_training_a" not in figures  # no workload of that stage: no line
    assert figures["total_a"] == figures["compute_a"]  # counted once, inside compute


def test_seed_000s_experiments_said_outright(tmp_path, capsys):
    """Seed 000: "The experiments you'd never run because they cost $8,000 suddenly cost $3,800, and you run
    twelve of them instead of five"."""
    plan = load_plan("pretrain-7b")
    f = {x.name: x.value for x in compute_breakdown(plan).figures}
    assert f["experiment_cost_hyperscaler_commit"] == pytest.approx(8000, rel=0.01)
    assert f["experiment_cost_hybrid"] == pytest.approx(3800, rel=0.01)
    assert f["stage_pretraining_hybrid"] + f["stage_experiments_hybrid"] == pytest.approx(f["compute_hybrid"])
    book = write_workbook(plan, template_text("pretrain-7b"), tmp_path / "p.xlsx")
    values = evaluate_workbook(book)
    assert values["sum_experiments_per_budget_hybrid"] == pytest.approx(10_000 / f["experiment_cost_hybrid"])
    assert values["experiment_cost_hybrid"] == pytest.approx(f["experiment_cost_hybrid"])
    code, out, _ = run(capsys, "show", "pretrain-7b")
    assert code == 0 and "Experiments per 10,000 USD: Hyperscaler (committed) 1.3" in out
    assert "Pre-training compute" in out and "Cost per experiment" in out
