"""`budgetbook reforecast` (issue 30 item 1): a frozen baseline beside the reforecast, both variances, and the
forecast at completion from the run rate beside the one from the remaining plan.

After two months of bills (the test export: January and February, AWS and payroll), a reforecast freezes the
book's plan as the Baseline sheet; an input is then raised and the book reforecast again: the baseline's
figures stay what the first froze (and `check` is OK), both reforecasts keep their dates, the Variance sheet
shows actual - baseline and actual - reforecast, and the run-rate forecast at completion is the one computed
here by hand from the bills and the plan's GPU-hours. `--from-actuals` re-estimates the inputs from the bills
(checked against the same hand computation), and `diff`/`show` name either version (`BOOK.xlsx@baseline`).
"""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
import yaml
from cli_run import run, sha
from focus_bills import focus_rows, write_sample_bills

from budgetbook.actuals.api import import_actuals
from budgetbook.actuals.reforecast import reforecast
from budgetbook.api import check_workbook, generate_workbook
from budgetbook.reference import compute_monthly
from budgetbook.review.readback import open_book
from budgetbook.xlsx.evaluate import evaluate_workbook

TEMPLATE = Path(__file__).parents[2] / "templates" / "pretrain-7b.yaml"
M = "hyperscaler_commit"
PRICE = f"mkt_{M}_price_h100_sxm"


def _cell(wb, name: str):
    sheet, ref = next(iter(wb.defined_names[name].destinations))
    return wb[sheet][ref.replace("$", "")]


def without_reliability(d: Path) -> Path:
    """pretrain-7b without its markets' `reliability:` blocks. The Reliability line is priced from compute but is
    not GPU spend (support, people-days), so the run-rate forecast keeps its remaining plan as planned while
    `--from-actuals` re-prices it: with the blocks the two forecasts differ by that line's change (0.9 %), and
    the hand computation below would have to model it."""
    data = yaml.safe_load(TEMPLATE.read_text())
    for market in data["markets"]:
        market.pop("reliability", None)
    (d / "plan.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return d / "plan.yaml"


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    d = tmp_path_factory.mktemp("reforecast")
    generate_workbook(without_reliability(d), d / "plan.xlsx")
    import_actuals(d / "plan.xlsx", write_sample_bills(d), d / "billed.xlsx", mapping=d / "map.yaml")
    first = reforecast(d / "billed.xlsx", d / "rf1.xlsx", today=dt.date(2026, 3, 2))
    wb = openpyxl.load_workbook(d / "rf1.xlsx")
    price = _cell(wb, PRICE)
    high = _cell(wb, f"{PRICE}_high").value
    price.value = high  # the re-plan: the commitment's price at the top of its range
    wb.save(d / "edited.xlsx")
    second = reforecast(d / "edited.xlsx", d / "rf2.xlsx", today=dt.date(2026, 3, 20))
    return d, first, second, high


def test_the_baseline_is_frozen_once_and_each_reforecast_keeps_its_date(books):
    d, first, second, _ = books
    assert first.first and not second.first
    assert second.baseline.frozen == "2026-03-02" and second.baseline.reforecasts == ("2026-03-02", "2026-03-20")
    assert second.baseline.digest == first.baseline.digest == first.baseline.expected_digest()
    baseline = compute_monthly(open_book(d / "billed.xlsx").plan)  # the plan the bills were imported into
    values = evaluate_workbook(d / "rf2.xlsx")
    for row in baseline.rows:
        if row.item == "total":
            for n, v in enumerate(row.values, 1):
                assert values[f"bl_total_{row.market}_m{n}"] == pytest.approx(v, rel=1e-12, abs=1e-9)
                assert values[f"bl_total_{row.market}_m{n}"] == evaluate_workbook(d / "rf1.xlsx")[
                    f"bl_total_{row.market}_m{n}"]
    assert "2026-03-20" in openpyxl.load_workbook(d / "rf2.xlsx")["Baseline"]["A2"].value


def test_the_reforecast_checks_ok_with_both_variances(books):
    d, _, _, high = books
    report = check_workbook(d / "rf2.xlsx")
    assert report.ok, [f.message for f in report.findings if f.severity == "error"]
    values = evaluate_workbook(d / "rf2.xlsx")
    assert values[PRICE] == high and values["checks_ok"] is True
    rf, base = values[f"var_total_{M}_plan"], values[f"ver_baseline_{M}"]
    assert rf > base  # the raised price: the reforecast is dearer than the baseline
    actual = values[f"var_total_{M}_actual"]
    assert values[f"ver_vs_baseline_{M}"] == pytest.approx(actual - values[f"ver_baseline_to_date_{M}"], rel=1e-12)
    assert values[f"ver_vs_reforecast_{M}"] == pytest.approx(actual - values[f"var_total_{M}_plan_to_date"],
                                                             rel=1e-12)
    assert values[f"ver_vs_baseline_{M}"] != pytest.approx(values[f"ver_vs_reforecast_{M}"])
    assert values[f"ver_eac_plan_vs_baseline_{M}"] == pytest.approx(values[f"ver_eac_plan_{M}"] - base, rel=1e-12)


def test_the_run_rate_forecast_at_completion_matches_a_hand_computation(books):
    d, *_ = books
    values = evaluate_workbook(d / "rf2.xlsx")
    rows = focus_rows()
    # from the bills: what the market was billed (every mapped AWS row, and payroll), the GPU-hours and the
    # price paid (the p5 instance-hours x 8, and compute's billed cost: the rules in focus_bills.MAPPING)
    aws = sum((Decimal(str(r["BilledCost"])) for r in rows if r["ServiceName"] != "Amazon CloudWatch"), Decimal(0))
    actual = float(aws + Decimal("198500.00") + Decimal("203250.00"))
    hours = float(sum((Decimal(str(r["ConsumedQuantity"])) * 8 for r in rows if r["SkuId"] == "p5.48xlarge"),
                      Decimal(0)))
    compute = sum((Decimal(str(r["BilledCost"])) for r in rows
                   if (r["ServiceName"] == "Amazon EC2" and str(r["SkuId"]).startswith("p5"))
                   or r["ChargeCategory"] in ("Purchase", "Credit", "Tax")), Decimal(0))
    price = float(compute) / hours
    assert values[f"var_total_{M}_actual"] == pytest.approx(actual, rel=1e-12)
    assert values[f"var_price_gpuh_{M}"] == pytest.approx(price, rel=1e-12)
    # from the plan: its GPU-hours in all and in the two months billed, its remaining plan, GPU spend's too
    planned, to_date = values[f"var_gpuh_plan_{M}"], values[f"var_gpuh_plan_to_date_{M}"]
    remaining = values[f"var_total_{M}_plan"] - values[f"var_total_{M}_plan_to_date"]
    gpu_remaining = values[f"var_gpu_spend_{M}_plan"] - values[f"var_gpu_spend_{M}_plan_to_date"]
    assert to_date > 0 and planned > to_date and hours > 0
    by_hand = actual + remaining - gpu_remaining + (planned - to_date) * (hours / to_date) * price
    assert values[f"ver_eac_run_rate_{M}"] == pytest.approx(by_hand, rel=1e-9)
    assert values[f"ver_eac_run_rate_{M}"] != pytest.approx(values[f"ver_eac_plan_{M}"])


def test_a_typed_over_baseline_fails_check(books, tmp_path):
    d, *_ = books
    wb = openpyxl.load_workbook(d / "rf2.xlsx")
    cell = _cell(wb, f"bl_compute_{M}_m2")
    cell.value = cell.value * 0.5
    wb.save(tmp_path / "typed.xlsx")
    report = check_workbook(tmp_path / "typed.xlsx")
    assert not report.ok and ("structure", f"bl_compute_{M}_m2") in {(f.kind, f.name) for f in report.findings}


def test_cli_reforecast(capsys, books, tmp_path):
    d, *_ = books
    before = sha(d / "rf2.xlsx")
    code, out, err = run(capsys, "reforecast", d / "rf2.xlsx", "-o", tmp_path / "rf3.xlsx")
    assert code == 0 and "kept the baseline frozen 2026-03-02" in out and "reforecast 3" in out
    assert sha(d / "rf2.xlsx") == before
    code, _, err = run(capsys, "reforecast", d / "rf2.xlsx", "-o", d / "rf2.xlsx")
    assert code == 2 and "overwrite the input" in err and sha(d / "rf2.xlsx") == before


# --- --from-actuals: the current inputs re-estimated from the bills' run rate ---------------------------------

@pytest.fixture(scope="module")
def from_actuals(books):
    d, *_ = books
    result = reforecast(d / "billed.xlsx", d / "rfa.xlsx", today=dt.date(2026, 3, 5), actuals=True)
    later = reforecast(d / "rfa.xlsx", d / "rfa2.xlsx", today=dt.date(2026, 4, 1))
    return d, result, later


def test_from_actuals_the_inputs_are_the_run_rate_computed_by_hand(from_actuals):
    d, result, _ = from_actuals
    rows = focus_rows()
    # the bills, by hand (as above): the GPU-hours billed and the price paid for them
    hours = float(sum((Decimal(str(r["ConsumedQuantity"])) * 8 for r in rows if r["SkuId"] == "p5.48xlarge"),
                      Decimal(0)))
    compute = sum((Decimal(str(r["BilledCost"])) for r in rows
                   if (r["ServiceName"] == "Amazon EC2" and str(r["SkuId"]).startswith("p5"))
                   or r["ChargeCategory"] in ("Purchase", "Credit", "Tax")), Decimal(0))
    paid = float(compute) / hours
    # the plan, by hand: $3.80 a GPU-hour planned; January's hours are the ablations' 2,100 x 5 runs x 1.25
    # (waste), February's the pretrain's first month, as the billed book's own sheet computes them
    before = evaluate_workbook(d / "billed.xlsx")
    to_date = before[f"var_gpuh_plan_to_date_{M}"]
    assert before[f"var_gpuh_plan_{M}_m1"] == pytest.approx(2100 * 5 * 1.25, rel=1e-12)
    ratio = hours / to_date
    after = evaluate_workbook(d / "rfa.xlsx")
    assert after[PRICE] == pytest.approx(3.80 * paid / 3.80, rel=1e-12)
    assert after[f"{PRICE}_low"] == pytest.approx(3.40 * paid / 3.80, rel=1e-12)
    assert after["wl_pretrain_mfu"] == pytest.approx(0.50 / ratio, rel=1e-12)
    assert after["wl_ablations_allocated_gpu_hours"] == pytest.approx(2100 * ratio, rel=1e-12)
    assert after["wl_pretrain_waste"] == before["wl_pretrain_waste"]  # the rest of the plan as it was
    # so the reforecast plans, to date, the hours billed at the price paid, and the run rate is what it was
    assert after[f"var_gpuh_plan_to_date_{M}"] == pytest.approx(hours, rel=1e-9)
    assert after[f"var_price_plan_{M}"] == pytest.approx(paid, rel=1e-12)
    assert after[f"ver_eac_run_rate_{M}"] == pytest.approx(before[f"ver_eac_run_rate_{M}"], rel=1e-9)
    rr = result.run_rate
    assert rr is not None and rr.ratio == pytest.approx(ratio, rel=1e-9)
    assert set(rr.changed) == {"markets[0].gpu_prices.H100_SXM", "workloads[0].mfu",
                               "workloads[1].allocated_gpu_hours"}


def test_from_actuals_keeps_the_baseline_and_shows_both_variances(from_actuals):
    d, result, later = from_actuals
    assert result.first and later.baseline.reforecasts == ("2026-03-05", "2026-04-01")
    assert later.baseline.digest == result.baseline.digest
    for book in ("rfa.xlsx", "rfa2.xlsx"):
        report = check_workbook(d / book)
        assert report.ok, [f.message for f in report.findings if f.severity == "error"]
    values = evaluate_workbook(d / "rfa2.xlsx")
    frozen = compute_monthly(open_book(d / "billed.xlsx").plan)
    for row in frozen.rows:
        if row.item == "total" and row.market == M:
            assert [values[f"bl_total_{M}_m{n}"] for n in range(1, len(row.values) + 1)] == pytest.approx(
                row.values, rel=1e-12, abs=1e-9)
    actual = values[f"var_total_{M}_actual"]
    assert values[f"ver_vs_baseline_{M}"] == pytest.approx(actual - values[f"ver_baseline_to_date_{M}"], rel=1e-12)
    assert values[f"ver_vs_reforecast_{M}"] == pytest.approx(actual - values[f"var_total_{M}_plan_to_date"],
                                                             rel=1e-12)
    assert values[f"ver_eac_plan_{M}"] != pytest.approx(values[f"ver_baseline_{M}"])


def test_cli_from_actuals_json_and_a_book_without_bills(capsys, books, tmp_path):
    d, *_ = books
    code, out, err = run(capsys, "reforecast", d / "billed.xlsx", "-o", tmp_path / "a.xlsx", "--from-actuals",
                         "--format", "json")  # `run` holds the JSON to the published schema
    report = json.loads(out)
    assert code == 0 and report["command"] == "reforecast" and report["froze"] is True
    assert report["from_actuals"]["gpu_hours"]["ratio"] < 1 and "workloads[0].mfu" in report["from_actuals"]["inputs"]
    code, _, err = run(capsys, "reforecast", d / "plan.xlsx", "-o", tmp_path / "b.xlsx", "--from-actuals")
    assert code == 2 and "--from-actuals: the book has no bills" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "b.xlsx").exists()


# --- diff and show name either version: BOOK.xlsx@baseline, BOOK.xlsx@reforecast ---------------------------------

def test_diff_and_show_name_the_baseline_and_the_reforecast(capsys, books, from_actuals):
    d, *_ = books
    _, result, _ = from_actuals
    book = d / "rfa.xlsx"
    code, out, err = run(capsys, "show", f"{book}@baseline", "--format", "json")
    assert code == 0, err
    sheet = evaluate_workbook(book)  # the Baseline sheet's frozen values: the other implementation
    totals = {f["market"]: f["value"] for f in json.loads(out)["figures"] if f["item"] == "total"}
    assert totals == pytest.approx({m: sheet[f"bl_total_{m}"] for m in totals}, rel=1e-12)
    code, now, _ = run(capsys, "show", f"{book}@reforecast", "--format", "json")
    assert code == 0 and json.loads(now)["figures"] == json.loads(run(capsys, "show", book, "--format", "json")[1])[
        "figures"]
    code, out, err = run(capsys, "diff", f"{book}@baseline", f"{book}@reforecast", "--format", "json")
    report = json.loads(out)
    assert code == 0 and (report["old"]["kind"], report["new"]["kind"]) == ("baseline", "reforecast")
    assert {i["key"] for i in report["inputs"]} == {
        "markets[hyperscaler_commit].gpu_prices.H100_SXM", "workloads[pretrain].mfu",
        "workloads[ablations].allocated_gpu_hours"}
    assert report["total"][M]["old"] == pytest.approx(result.baseline.total(M), rel=1e-12)
    # the baseline is the plan the bills were imported into: nothing changed from that book to it
    code, out, _ = run(capsys, "diff", d / "billed.xlsx", f"{d / 'rf2.xlsx'}@baseline", "--format", "json")
    assert code == 0 and json.loads(out)["inputs"] == [] and all(
        t["delta"] == 0 for t in json.loads(out)["total"].values())
    code, _, err = run(capsys, "show", f"{d / 'plan.xlsx'}@baseline")
    assert code == 2 and "the book has no baseline" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "diff", f"{TEMPLATE}@baseline", book)
    assert code == 2 and "names a version of a workbook" in err


def test_from_actuals_refuses_an_input_pushed_out_of_its_bounds():
    """A tenth of the planned hours billed would put the pretrain's MFU at 5: refused, naming the input."""
    from budgetbook.actuals.run_rate import from_actuals
    from budgetbook.errors import WorkbookError
    from budgetbook.ledger.model import Actuals, Batch, Charge
    from budgetbook.planfile.loader import plan_from_text

    text = TEMPLATE.read_text()
    plan = plan_from_text(text, str(TEMPLATE))
    used = Decimal(1312)  # January's plan: 13,125 GPU-hours (the ablations)
    charge = Charge("2026-01", M, "compute", "", Decimal(5000), used, 1)
    held = Actuals("USD", (Batch("inv-1", "bill.csv", "generic", "amount", 1, Decimal(5000), (charge,)),))
    with pytest.raises(WorkbookError) as caught:
        from_actuals(plan, text, held, "book.xlsx")
    message = str(caught.value)
    assert message.startswith("book.xlsx: --from-actuals: workloads[0].mfu") and "at most 1" in message
