"""Honest by default (issue 29, item 1): an omitted MFU takes the evidence's, said in every output; leave-one-out."""

from __future__ import annotations

import importlib.util
import json
import statistics
from pathlib import Path

import pytest
import yaml
from cli_run import run

from budgetbook.plan.evidence import PUBLISHED_RUNS, evidence_mfu, published_mfus
from budgetbook.planfile.loader import plan_from_text
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

ROOT = Path(__file__).resolve().parents[2]
PLAN = {"name": "defaults", "markets": [{"id": "rent", "gpu_prices": {"H100_SXM": 2.0}}],
        "workloads": [{"id": "pre", "gpu": "H100_SXM", "flops": {"params": 7e9, "tokens": 2e12}},
                      {"id": "f8", "gpu": "H100_SXM", "precision": "fp8", "flops": {"params": 7e9, "tokens": 2e12}}]}


def test_the_default_is_the_median_of_the_published_runs_with_p10_p90():
    mfus = published_mfus()
    default = evidence_mfu().num
    assert default.base == pytest.approx(statistics.median(mfus)) == pytest.approx(0.3913, abs=1e-4)
    deciles = statistics.quantiles(mfus, n=10, method="inclusive")
    assert (default.low, default.high) == (pytest.approx(deciles[0]), pytest.approx(deciles[-1]))
    assert default.ranged and default.lowers_cost


def test_an_omitted_mfu_is_priced_and_said_in_show_and_the_workbook(tmp_path, capsys):
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(PLAN, sort_keys=False))
    code, out, err = run(capsys, "show", path, "--format", "json", "--strict")
    assert (code, err) == (0, "")
    data = json.loads(out)
    pre, f8 = data["workloads"]
    ideal = 6 * 7e9 * 2e12 / (989e12 * 3600)
    assert pre["mfu_source"] == "default" and pre["mfu"] == pytest.approx(0.39125, abs=1e-5)
    assert pre["allocated_gpu_hours"] == pytest.approx(ideal / pre["mfu"])
    # FP8: the evidence is against the BF16 peak, so the default is halved against the FP8 peak: the same hours
    assert f8["mfu"] == pytest.approx(pre["mfu"] * 989 / 1979)
    assert f8["allocated_gpu_hours"] == pytest.approx(pre["allocated_gpu_hours"])
    compute = next(f for f in data["figures"] if f["name"] == "compute_rent")
    low, high = evidence_mfu().num.high, evidence_mfu().num.low  # the optimistic end is the higher MFU
    assert compute["value"] == pytest.approx(2 * 2.0 * ideal / pre["mfu"])
    assert compute["low"] == pytest.approx(2 * 2.0 * ideal / low)
    assert compute["high"] == pytest.approx(2 * 2.0 * ideal / high)
    assert [n["key"] for n in data["notes"]] == ["workloads[0].mfu", "workloads[1].mfu"]
    assert "default: median of 12 published runs" in data["notes"][0]["message"]
    assert "default: median of 12 published runs" in pre["mfu_note"]
    code, table, _ = run(capsys, "show", path)
    assert code == 0 and "0.391 (default)" in table and "default: median of 12 published runs" in table
    code, calibrated, _ = run(capsys, "calibrate", path)
    assert code == 0 and "default: median of 12 published runs" in calibrated

    plan = plan_from_text(path.read_text())
    book = write_workbook(plan, path.read_text(), tmp_path / "b.xlsx")
    values = evaluate_workbook(book)
    assert values["checks_ok"] is True and values["compute_rent"] == pytest.approx(compute["value"])
    assert values["cmp_pre_mfu_rent"] == pytest.approx(pre["mfu"])
    assert run(capsys, "check", book)[0] == 0  # the default is an input like any other
    import openpyxl

    inputs = openpyxl.load_workbook(book)["Inputs"]
    said = [c.value for row in inputs.iter_rows() for c in row if isinstance(c.value, str)]
    assert any("default: median of 12 published runs" in text for text in said)


def test_a_workload_that_is_a_published_run_is_priced_and_ranked_without_it(tmp_path, capsys):
    llama = next(r for r in PUBLISHED_RUNS if r.id == "llama2_70b")
    plan = {"name": "llama", "markets": [{"id": "rent", "gpu_prices": {"A100": 1.0}}],
            "workloads": [{"id": "run", "gpu": "A100", "flops": {"params": 70e9, "tokens": 2e12}}]}
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(plan))
    workload = plan_from_text(path.read_text()).workloads[0]
    others = [m for r in PUBLISHED_RUNS if r.id != llama.id for m in [r.mfu]]
    assert workload.mfu_default.without == "llama2_70b"
    assert workload.mfu.base == pytest.approx(statistics.median(others))
    code, out, _ = run(capsys, "calibrate", "deepseek-v3", "--format", "json")
    final = next(w for w in json.loads(out)["workloads"] if w["workload"] == "final_run")
    below = sum(1 for r in PUBLISHED_RUNS if r.id != "deepseek_v3" and r.mfu <= final["mfu_bf16"])
    assert final["without"] == "deepseek_v3" and final["percentile"] == pytest.approx(100 * below / 11)


def test_the_benchmark_meets_the_issue_on_the_published_runs():
    spec = importlib.util.spec_from_file_location("bench_defaults", ROOT / "benchmarks" / "bench_defaults.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rows = [bench.row(r) for r in PUBLISHED_RUNS]
    assert all(r["left_out"] is not None and r["runs"] == len(PUBLISHED_RUNS) - 1 for r in rows)
    assert 0.85 <= statistics.median(r["ratio"] for r in rows) <= 1.15
    assert sum(r["inside"] for r in rows) >= 2 / 3 * len(rows)
