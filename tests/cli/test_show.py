"""`budgetbook show` in each format, through the real entry point."""

from __future__ import annotations

import csv
import io
import json

import pytest
import yaml
from cli_run import run

from budgetbook.planfile.loader import template_names


def shown(capsys, *args: str) -> str:
    """stdout of a `show` that succeeded quietly."""
    code, out, err = run(capsys, *args)
    assert (code, err) == (0, ""), err
    return out


def by_name(data: dict) -> dict[str, dict]:
    return {f["name"]: f for f in data["figures"]}


def test_json_default_template_matches_seed_000(capsys):
    data = json.loads(shown(capsys, "show", "finetune-13b-lora", "--format", "json"))
    assert data["plan"] == "finetune-13b-lora" and data["currency"] == "USD"
    assert data["markets"] == ["hyperscaler_on_demand", "decentralized_market"]
    f = by_name(data)
    assert [f[f"{i}_hyperscaler_on_demand"]["value"] for i in ("compute", "failed_runs", "people")] == \
        [144000.0, 36000.0, 60000.0]
    assert [f[f"{i}_decentralized_market"]["value"] for i in ("compute", "failed_runs", "people")] == \
        [86400.0, 21600.0, 60000.0]
    assert 4000 <= f["storage_egress_hyperscaler_on_demand"]["value"] <= 8000
    assert 2000 <= f["storage_egress_decentralized_market"]["value"] <= 4000
    assert f["total_hyperscaler_on_demand"]["value"] == pytest.approx(250_000, rel=0.03)
    assert f["total_decentralized_market"]["value"] == pytest.approx(172_000, rel=0.03)
    compute = f["compute_hyperscaler_on_demand"]
    assert (compute["item"], compute["market"], compute["label"]) == ("compute", "hyperscaler_on_demand", "Compute")
    assert (compute["low"], compute["high"]) == (135000.0, 162000.0)  # 1.5x and 1.8x utilization
    assert "low" not in f["people_hyperscaler_on_demand"]


def test_no_plan_means_default_template(capsys):
    assert shown(capsys, "show", "--format", "json") == shown(capsys, "show", "finetune-13b-lora", "--format", "json")


def test_json_deepseek_headline(capsys):
    f = by_name(json.loads(shown(capsys, "show", "deepseek-v3", "--format", "json")))
    assert f["final_run_h800_rental"]["value"] == 5_576_000.0
    assert f["total_h800_rental"]["value"] > 5 * 5_576_000


@pytest.mark.parametrize("template", template_names())
def test_csv_has_one_row_per_figure_and_agrees_with_json(template, capsys):
    data = json.loads(shown(capsys, "show", template, "--format", "json"))
    rows = list(csv.DictReader(io.StringIO(shown(capsys, "show", template, "--format", "csv"))))
    assert list(rows[0]) == ["name", "item", "market", "label", "value", "low", "high"]
    money, physics = rows[:len(data["figures"])], rows[len(data["figures"]):]
    assert [r["name"] for r in money] == [f["name"] for f in data["figures"]]
    for row, figure in zip(money, data["figures"]):
        assert float(row["value"]) == figure["value"]
        assert row["low"] == ("" if "low" not in figure else repr(figure["low"]))
    # then the physical figures: each a key of the JSON's `workloads`, named as on the Compute sheet
    from budgetbook.lineitems.serving import PRINTED as SERVING
    from budgetbook.physics.model import PRINTED

    expected = [(f"cmp_{w['workload']}_{suffix}_{w['market']}", key, w[key]) for w in data["workloads"]
                for key, suffix, _ in PRINTED if w[key] is not None]
    # and serving's (a key of the JSON's `serving`, named as on the Serving sheet)
    expected += [(f"{stem}_{s['market']}", key, s[key]) for s in data.get("serving", [])
                 for key, stem, _ in SERVING if key in s]
    assert [(r["name"], r["item"], float(r["value"])) for r in physics] == expected
    assert "allocated_gpu_hours" in {r["item"] for r in physics}


def test_markdown_table(capsys):
    out = shown(capsys, "show", "finetune-13b-lora", "--format", "markdown").splitlines()
    assert out[0] == "| name | item | market | label | value | low | high |"
    # the figures (a stage: post-training; adjustments; the gap to the cheapest, 8 a market), then ideal and
    # allocated GPU-hours
    assert len(out) == 2 + 16 + 16 + 4
    assert "| cmp_finetune_alloc_decentralized_market | allocated_gpu_hours | decentralized_market | " \
           "LoRA fine-tune, 13B on 2B tokens: allocated GPU-hours (all runs) | 48,000.00 |  |  |" in out
    assert "| compute_hyperscaler_on_demand | compute | hyperscaler_on_demand | Compute | 144,000.00 | " \
           "135,000.00 | 162,000.00 |" in out


def test_table_groups_markets_and_keeps_magnitudes_apart(capsys):
    out = shown(capsys, "show", "deepseek-v3")
    assert "$5,576,000" in out and "$49,275,779" in out
    assert "$12,488,000 to $28,616,000" in out  # compute range, low to high
    # final run and serving come after the total, under their own heading
    assert out.index("Total development cost") < out.index("beside the total, not added to it") \
        < out.index("Final-run compute (inside Compute)")
    assert "Serving (after training, never added)" in out
    out = shown(capsys, "show", "pretrain-7b", "--format", "table")
    # markets side by side by label, and the decision in one line below
    header = out[:out.index("Compute")]
    for market in ("Neo-cloud", "Decentralized market", "Hybrid (commit core,", "Hyperscaler"):
        assert market in header
    assert out.index("$414,940") < out.index("$231,236") < out.index("Failed runs")  # one row, two markets
    # the markets' sourced reliability (the template, docs/accounting.md) narrows the gap from $208,635 (20.0 %)
    assert "Cheapest: Decentralized market, $977,953 total development cost (best $771,192, worst $1,340,749); " \
           "saves $68,282 (6.5%) against the next cheapest, Neo-cloud" in " ".join(out.split())


def test_support_assistant_markets_by_label_and_a_small_saving_in_cents(capsys):
    out = " ".join(shown(capsys, "show", "support-assistant").split())
    # the two totals are $0.06 apart ($2.99 against $3.00 an hour, 6 GPU-hours): not "saves $0 (0.0%)"
    assert "saves $0.06 (under 0.1%) against the next cheapest, Hyperscaler on-demand H100 at $3.00" in out
    serving = out[out.index("Serving (base case)"):]
    assert "Neo-cloud H100" in serving and "neo_cloud" not in serving  # labels (wrapped), as every table


def test_csv_label_cannot_become_a_formula(tmp_path, capsys):
    from budgetbook.planfile.loader import template_text

    plan = tmp_path / "p.yaml"
    plan.write_text(template_text("finetune-13b-lora") + "items:\n  - id: tools\n    label: '=HYPERLINK(1)'\n"
                    "    cost: 10\n")
    rows = list(csv.DictReader(io.StringIO(shown(capsys, "show", str(plan), "--format", "csv"))))
    assert next(r for r in rows if r["item"] == "tools")["label"] == "'=HYPERLINK(1)"


def test_bad_format_is_usage_error(capsys):
    code, out, err = run(capsys, "show", "--format", "xml")
    assert code == 2 and out == "" and "xml" in err


def test_table_range_reads_lower_first_with_to(capsys, tmp_path):
    """A commitment's saving is larger in the best case (a block of 1 GPU, not 3): the JSON keeps each case,
    the table prints the lower first, "-$7,149 to $1,617", never "$1,617-$-7,149"."""
    plan = tmp_path / "plan.yaml"
    plan.write_text(yaml.safe_dump({
        "name": "ranged-commit", "markets": [{"id": "cloud", "gpu_prices": {"H100_SXM": 2}}],
        "workloads": [{"id": "w", "gpu": "H100_SXM", "ideal_gpu_hours": 1500, "utilization": 1, "months": 3}],
        "commitments": [{"market": "cloud", "gpu": "H100_SXM", "gpus": {"low": 1, "base": 2, "high": 3},
                         "term_months": 3, "fallback_price_per_gpu_hour": 4}]}))
    saving = by_name(json.loads(shown(capsys, "show", str(plan), "--format", "json")))["commitment_saving_cloud"]
    # best: 1 GPU, 3 x 730.5 hours at 2 against 1,500 hours at 4; worst: 3 GPUs
    assert saving["low"] == pytest.approx(6000 - 3 * 730.5 * 2)
    assert saving["high"] == pytest.approx(6000 - 3 * 3 * 730.5 * 2)
    out = shown(capsys, "show", str(plan))
    assert "-$7,149 to $1,617" in out and "the lower first" in out
    assert "$1,617-" not in out
