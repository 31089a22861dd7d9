"""Money over time: the monthly reference, the Cash flow sheet, `show --by month`, and their inputs.

The worked example (hand-computed):

- plan start 2026-01; market `cloud`: H100 at $2/GPU-hour, storage $0.10/GB-month, no egress;
- `train`: 1,000 allocated GPU-hours ($2,000) from 2026-02 for 2 months: $1,000 in Feb and Mar;
  it saves 100 GB kept 2 months ($20): storage from the run's end, $10 in Apr and May;
- `cluster`: 10 GPUs x 45.65625 days (1.5 months of 30.4375 days) = 10,957.5 GPU-hours = $21,915,
  from the start: 2/3 in Jan ($14,610), 1/3 in Feb ($7,305);
- one engineer, $10,000 a month for 3 months from offset 1: $10,000 in Feb, Mar, Apr;
- data, $600: paid in the first month.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import math

import openpyxl
import pytest
import yaml
from cli_run import run
from hypothesis import given, settings
from libreoffice import needs_libreoffice, recalculate
from lineitem_case import assert_cash_flow_matches_reference
from strategies import plans

from budgetbook.planfile.loader import plan_from_data, plan_from_text, resolve, template_names
from budgetbook.reference import compute_breakdown, compute_monthly
from budgetbook.workbook.build import workbook_layout
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

EXAMPLE = {
    "name": "phased", "start": "2026-01",
    "markets": [{"id": "cloud", "gpu_prices": {"H100_SXM": 2}, "storage_per_gb_month": 0.1}],
    "workloads": [
        {"id": "train", "gpu": "H100_SXM", "allocated_gpu_hours": 1000, "start": "2026-02", "months": 2,
         "checkpoints": {"size_gb": 100, "saves": 1, "retention_months": 2}},
        {"id": "cluster", "gpu": "H100_SXM", "cluster": {"gpus": 10, "days": 45.65625}},
    ],
    "people": {"roles": [{"role": "Engineer", "count": 1, "months": 3, "monthly_cost": 10000, "start": 1}]},
    "items": [{"id": "data", "cost": 600}],
}
EXPECTED = {  # Jan, Feb, Mar, Apr, May
    "compute": [14610, 1000 + 7305, 1000, 0, 0],
    "failed_runs": [0, 0, 0, 0, 0],
    "storage_egress": [0, 0, 0, 10, 10],
    "people": [0, 10000, 10000, 10000, 0],
    "data": [600, 0, 0, 0, 0],
}


def example_plan(data: dict = EXAMPLE):
    return plan_from_data(copy.deepcopy(data), "phased.yaml")


def rows_of(monthly, market: str = "cloud") -> dict[str, list[float]]:
    return {r.item: r.values for r in monthly.rows if r.market == market}


def test_worked_example_by_hand():
    monthly = compute_monthly(example_plan())
    assert monthly.months == ["2026-01", "2026-02", "2026-03", "2026-04", "2026-05"]
    rows = rows_of(monthly)
    for item, expected in EXPECTED.items():
        assert rows[item] == pytest.approx(expected, abs=1e-9), item
    total = [sum(month) for month in zip(*EXPECTED.values(), strict=True)]
    assert rows["total"] == pytest.approx(total)
    assert monthly.cumulative("cloud")[-1] == pytest.approx(compute_breakdown(example_plan()).value("total_cloud"))


def test_worked_example_workbook_month_by_month(tmp_path):
    plan = example_plan()
    text = yaml.safe_dump(EXAMPLE, sort_keys=False)
    values = evaluate_workbook(write_workbook(plan, text, tmp_path / "phased.xlsx"))
    assert values["checks_ok"] is True
    for item, expected in EXPECTED.items():
        got = [values[f"cf_{item}_cloud_m{n}"] for n in range(1, 6)]
        assert got == pytest.approx(expected, abs=1e-6), item
    assert values["cf_t_run_cluster_months"] == pytest.approx(1.5)  # days / k_days_per_month
    assert values["cf_t_kept_train_start"] == pytest.approx(3)  # the run's end: offset 1 + 2 months
    assert_cash_flow_matches_reference(plan, values)


@settings(max_examples=300, deadline=None)
@given(plans())
def test_months_sum_to_every_figure(plan_and_text):
    plan, _ = plan_and_text
    figures = {f.name: f.value for f in compute_breakdown(plan).figures}
    monthly = compute_monthly(plan)
    for row in monthly.rows:
        assert row.total == figures[f"{row.item}_{row.market}"]
        assert len(row.values) == len(monthly.months)
        # every cost is paid, never refunded; a commitment's overflow premium is negative only where the
        # fallback rate is below the committed price, an adjustment where finance types a discount,
        # reliability where SLA credits (money back) exceed its costs
        refunded = (row.item in ("commitment", "adjustments", "reliability")
                    or (row.item == "total" and plan.adjustments))
        # a month past the end of an owned cluster's life can hold -1.5e-13 of financing (its book value 0, rounded)
        assert refunded or all(v >= -1e-9 * max(1.0, abs(row.total)) for v in row.values), row
        assert math.isclose(sum(row.values), row.total, rel_tol=1e-12, abs_tol=1e-9), row


@pytest.mark.parametrize("template", template_names())
def test_templates_without_a_schedule_keep_their_figures(template):
    """A plan with no timing keys: every figure as before, the months add up to it."""
    plan = plan_from_text(resolve(template)[1], template)
    monthly = compute_monthly(plan)
    breakdown = compute_breakdown(plan)
    for row in monthly.rows:
        assert math.isclose(sum(row.values), breakdown.value(f"{row.item}_{row.market}"), rel_tol=1e-12)


def test_windows_past_the_months_turn_the_check_red(capsys, tmp_path):
    """An input edited to run past the sheet's months: the months no longer add up, and Checks says so."""
    plan = example_plan()
    out = write_workbook(plan, yaml.safe_dump(EXAMPLE), tmp_path / "phased.xlsx")
    wb = openpyxl.load_workbook(out)
    sheet, cell = next(iter(wb.defined_names["role1_start"].destinations))
    wb[sheet][cell.replace("$", "")].value = 4  # the engineer now ends in month 7; the sheet has 5
    wb.save(tmp_path / "edited.xlsx")
    values = evaluate_workbook(tmp_path / "edited.xlsx")
    assert values["chk_cf_people_cloud"] is False and values["checks_ok"] is False
    assert values["people_cloud"] == 30000  # the figure itself is unchanged
    code, out, _ = run(capsys, "check", tmp_path / "edited.xlsx", "--format", "json")
    findings = [f for f in json.loads(out)["findings"] if f["kind"] == "mismatch"]
    assert code == 1 and [f["message"] for f in findings] == [
        "the schedule now runs to 2026-07 (7 months) but the Cash flow sheet has 5: its months no longer add up "
        "to the figures; extract the plan and generate the workbook again"]


def test_check_holds_each_month_against_the_reference(capsys, tmp_path):
    """A month typed over is `hardcoded`, and its line's month differs from the reference: one `mismatch`."""
    out = write_workbook(example_plan(), yaml.safe_dump(EXAMPLE), tmp_path / "phased.xlsx")
    wb = openpyxl.load_workbook(out)
    sheet, cell = next(iter(wb.defined_names["cf_cmp_train_cloud_m3"].destinations))
    wb[sheet][cell.replace("$", "")].value = 5
    wb.save(tmp_path / "edited.xlsx")
    code, text, _ = run(capsys, "check", tmp_path / "edited.xlsx", "--format", "json")
    findings = {(f["kind"], f["name"]): f for f in json.loads(text)["findings"]}
    assert code == 1
    assert ("hardcoded", "cf_cmp_train_cloud_m3") in findings
    mismatch = findings[("mismatch", "cf_compute_cloud_m3")]
    assert mismatch["message"] == "Compute (cloud) in 2026-03 is 5.00; the reference model gives 1,000.00"
    assert ("mismatch", "cf_total_cloud_m3") in findings


def test_extract_writes_changed_timing_back(capsys, tmp_path):
    plan = example_plan()
    out = write_workbook(plan, yaml.safe_dump(EXAMPLE, sort_keys=False), tmp_path / "phased.xlsx")
    wb = openpyxl.load_workbook(out)
    for name, new in (("wl_train_start", 3), ("wl_cluster_start", 0.5), ("wl_train_months", 4)):
        sheet, cell = next(iter(wb.defined_names[name].destinations))
        wb[sheet][cell.replace("$", "")].value = new
    wb.save(tmp_path / "edited.xlsx")
    code, text, err = run(capsys, "extract", tmp_path / "edited.xlsx")
    assert code == 0, err
    data = yaml.safe_load(text)
    train, cluster = data["workloads"]
    assert train["start"] == "2026-04"  # given as a month: written back as one
    assert cluster["start"] == 0.5 and train["months"] == 4
    rows = rows_of(compute_monthly(plan_from_data(data)))
    assert rows["compute"][3:7] == pytest.approx([500, 500, 500, 500])
    code, out_json, err = run(capsys, "check", tmp_path / "edited.xlsx", "--format", "json")
    report = json.loads(out_json)
    assert {f["name"] for f in report["findings"] if f["kind"] == "input_changed"} >= {
        "wl_train_start", "wl_cluster_start", "wl_train_months"}


@pytest.mark.parametrize(("key", "value", "message"), [
    (("workloads", 0, "start"), "2025-12", "`workloads[0].start`: 2025-12 is before the plan's start 2026-01"),
    (("workloads", 0, "start"), "Feb", "`workloads[0].start`: expected a month as YYYY-MM (such as 2026-01), "
                                       "got 'Feb'"),
    (("workloads", 0, "start"), -1, "`workloads[0].start`: must be at least 0 and at most 600, got -1"),
    (("workloads", 0, "months"), 0, "`workloads[0].months`: must be greater than 0 and at most 600, got 0"),
    (("people", "roles", 0, "start"), "2025-01", "`people.roles[0].start`: 2025-01 is before the plan's start"),
    (("start",), "2026-13", "`start`: expected a month as YYYY-MM"),
])
def test_bad_timing_is_one_line_exit_2(capsys, tmp_path, key, value, message):
    data = copy.deepcopy(EXAMPLE)
    node = data
    for part in key[:-1]:
        node = node[part]
    node[key[-1]] = value
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    code, out, err = run(capsys, "show", path)
    assert code == 2 and out == ""
    assert err.startswith(f"Error: {path}: {message}") and err.count("\n") == 1, err


def test_a_month_needs_the_plans_start(capsys, tmp_path):
    data = copy.deepcopy(EXAMPLE)
    del data["start"]
    path = tmp_path / "nostart.yaml"
    path.write_text(yaml.safe_dump(data))
    code, _, err = run(capsys, "show", path)
    assert code == 2 and "`workloads[0].start`: a calendar month needs the plan's own `start`" in err


def test_offsets_without_a_plan_start_are_months_m1_m2(capsys):
    data = copy.deepcopy(EXAMPLE)
    del data["start"]
    data["workloads"][0]["start"] = 1
    monthly = compute_monthly(example_plan(data))
    assert monthly.months == ["M1", "M2", "M3", "M4", "M5"]
    assert rows_of(monthly)["compute"] == pytest.approx(EXPECTED["compute"])


# --- show --by month, every format -----------------------------------------------------------

def shown(capsys, tmp_path, fmt: str) -> str:
    path = tmp_path / "phased.yaml"
    path.write_text(yaml.safe_dump(EXAMPLE, sort_keys=False))
    code, out, err = run(capsys, "show", path, "--by", "month", "--format", fmt)
    assert (code, err) == (0, ""), err
    return out


def test_show_by_month_json(capsys, tmp_path):
    data = json.loads(shown(capsys, tmp_path, "json"))
    assert data["months"] == ["2026-01", "2026-02", "2026-03", "2026-04", "2026-05"]
    assert [(r["market"], r["item"]) for r in data["rows"]] == [
        ("cloud", item) for item in ("compute", "failed_runs", "storage_egress", "people", "data", "adjustments",
                                     "total")]
    compute = data["rows"][0]
    assert compute["values"] == pytest.approx(EXPECTED["compute"]) and compute["total"] == pytest.approx(23915)
    assert data["cumulative"] == [{"market": "cloud", "values": pytest.approx([15210, 33515, 44515, 54525, 54535])}]


def test_show_by_month_csv(capsys, tmp_path):
    out = shown(capsys, tmp_path, "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["market", "item", "label", "2026-01", "2026-02", "2026-03", "2026-04", "2026-05", "total"]
    assert rows[1][:3] == ["cloud", "compute", "Compute"]
    assert [float(v) for v in rows[1][3:]] == pytest.approx(EXPECTED["compute"] + [23915])
    assert rows[4] == ["cloud", "people", "People", "0.0", "10000.0", "10000.0", "10000.0", "0.0", "30000.0"]
    assert rows[-1][:3] == ["cloud", "cumulative", "Cumulative spend"] and rows[-1][-1] == ""
    assert len(rows) == 1 + 7 + 1


def test_show_by_month_markdown(capsys, tmp_path):
    lines = shown(capsys, tmp_path, "markdown").splitlines()
    assert lines[0] == "| market | item | label | 2026-01 | 2026-02 | 2026-03 | 2026-04 | 2026-05 | total |"
    assert lines[1] == "|---|---|---|---:|---:|---:|---:|---:|---:|"
    assert lines[5] == "| cloud | people | People | 0.00 | 10,000.00 | 10,000.00 | 10,000.00 | 0.00 | 30,000.00 |"
    assert lines[-1] == "| cloud | cumulative | Cumulative spend | 15,210.00 | 33,515.00 | 44,515.00 | 54,525.00 " \
                        "| 54,535.00 |  |"


def test_show_by_month_table(capsys, tmp_path):
    out = shown(capsys, tmp_path, "table")
    assert "phased: cloud, by month (USD)" in out
    lines = [line for line in out.splitlines() if line.startswith("│ 2026-02")]
    assert len(lines) == 1 and "$8,305" in lines[0] and "$10,000" in lines[0] and "$33,515" in lines[0]
    total = next(line for line in out.splitlines() if line.startswith("│ Total"))
    assert "$23,915" in total and "$54,535" in total


# --- LibreOffice, the independent oracle, month by month ------------------------------------

@needs_libreoffice
def test_libreoffice_cash_flow_agrees_with_reference(tmp_path):
    plan = example_plan()
    (tmp_path / "in").mkdir()
    book = write_workbook(plan, yaml.safe_dump(EXAMPLE, sort_keys=False), tmp_path / "in" / "phased.xlsx")
    saved = recalculate(book, tmp_path / "out")
    wb = openpyxl.load_workbook(saved, data_only=True)
    where = {s.name: (s.sheet, s.cell) for s in workbook_layout(plan)}
    values = {name: wb[sheet][cell].value for name, (sheet, cell) in where.items()}
    assert values["checks_ok"] is True
    assert_cash_flow_matches_reference(plan, values)
