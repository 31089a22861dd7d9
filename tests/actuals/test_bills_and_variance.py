"""Budget vs actuals: bills imported with every dollar accounted for, the Variance sheet held against the
reference (our evaluator, LibreOffice), re-imports idempotent, bad bills refused in one line."""

from __future__ import annotations

import dataclasses
import io
import json
from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
from cli_run import run, sha
from focus_bills import MAPPING, PAYROLL, column_total, focus_rows, write_focus, write_sample_bills
from hypothesis import given, settings
from hypothesis import strategies as st
from libreoffice import needs_libreoffice, recalculated_values
from strategies import plans

from budgetbook.actuals.api import book_variance, import_actuals
from budgetbook.actuals.bills import BillError
from budgetbook.api import check_workbook, extract_plan, generate_workbook, show_months
from budgetbook.ledger.embed import read_embedded_actuals
from budgetbook.ledger.variance import compute_variance
from budgetbook.output.actuals import render_variance
from budgetbook.planfile.loader import load_plan
from budgetbook.xlsx.evaluate import evaluate_workbook

PLAN = Path(__file__).parents[2] / "templates" / "pretrain-7b.yaml"


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("actuals")
    generate_workbook(PLAN, d / "plan.xlsx")
    write_sample_bills(d)
    return d


@pytest.fixture(scope="module")
def imported(base) -> Path:
    import_actuals(base / "plan.xlsx", [base / "aws.csv", base / "payroll.csv"], base / "imported.xlsx",
                   mapping=base / "map.yaml")
    return base / "imported.xlsx"


def _embedded(path: Path):
    wb = openpyxl.load_workbook(path)
    return read_embedded_actuals(wb, path.read_bytes())


@pytest.mark.parametrize("column", ["BilledCost", "EffectiveCost"])
def test_every_dollar_is_accounted_for_to_the_cent(base, tmp_path, column):
    rows = focus_rows()
    (tmp_path / "map.yaml").write_text(MAPPING.replace("cost_column: BilledCost", f"cost_column: {column}"))
    result = import_actuals(base / "plan.xlsx", [base / "aws.csv"], tmp_path / "out.xlsx",
                            mapping=tmp_path / "map.yaml")
    charges = [c for b in result.imported for c in b.charges]
    mapped = sum((c.amount for c in charges if c.item != "unmapped"), Decimal(0))
    unmapped = sum((c.amount for c in charges if c.item == "unmapped"), Decimal(0))
    assert mapped + unmapped == column_total(rows, column)  # exact decimals: to the cent and beyond
    assert unmapped == Decimal("824.74")  # CloudWatch, two months: listed, never dropped
    for batch in result.imported:  # each invoice by FOCUS ChargeCategory: they add up to it too
        spent = dict(batch.categories)
        assert sum(spent.values(), Decimal(0)) == batch.total
        assert spent["Credit"] == Decimal("-5000") and spent["Tax"] == Decimal("1234.56")
        assert spent["Purchase"] == (Decimal("266486.40") if column == "BilledCost" else 0)
    assert [w for w, _, _ in result.actuals.unmapped()] == ["AWS / Amazon CloudWatch / Usage"]
    by_item = {}
    for c in charges:
        by_item[c.item] = by_item.get(c.item, Decimal(0)) + c.amount
    if column == "BilledCost":  # the Savings Plan fee (Purchase) is the invoice; covered usage is billed 0
        assert by_item["compute"] == 2 * (Decimal("266486.40") - 5000 + Decimal("1234.56"))
        assert by_item.get("commitment", Decimal(0)) == 0
    else:  # amortised: the fee is spread onto the hours used (compute) and the unused part (commitment)
        assert by_item["commitment"] > 0 and by_item["compute"] + by_item["commitment"] == \
            2 * (Decimal("266486.40") - 5000 + Decimal("1234.56"))
    # GPU-hours from ConsumedQuantity (instance-hours) x 8, billed under compute
    hours = result.actuals.gpu_hours()
    assert hours[("2026-01", "hyperscaler_commit")] == 2 * 24 * 28 * 8
    assert hours[("2026-02", "hyperscaler_commit")] == 11 * 24 * 28 * 8


def test_imported_book_checks_clean_and_extracts(imported, base):
    report = check_workbook(imported)
    assert report.ok, [f.message for f in report.findings if f.severity == "error"]
    assert not [f for f in report.findings if f.kind in ("structure", "mismatch")]
    assert extract_plan(imported).strip() == PLAN.read_text().strip()
    wb = openpyxl.load_workbook(imported)
    assert wb.sheetnames[-4:] == ["Actuals", "Variance", "_budgetbook", "_actuals"]
    assert wb["_actuals"].sheet_state == "hidden"


def test_variance_reference_worked_example(imported):
    report = book_variance(imported)
    assert report.billed == 2 and report.months[:2] == ["2026-01", "2026-02"]
    line = {(ln.market, ln.item): ln for ln in report.lines}
    people = line[("hyperscaler_commit", "people")].totals()
    # plan: 200,000 a month in January and February (pretrain-7b's team); payroll 198,500 + 203,250
    assert people["plan_to_date"] == pytest.approx(400_000)
    assert people["actual"] == pytest.approx(401_750)
    assert people["variance"] == pytest.approx(1_750)
    assert people["variance_pct"] == pytest.approx(1_750 / 400_000)
    # forecast at completion = actuals to date + the plan of March (160,000)
    assert people["forecast"] == pytest.approx(401_750 + 160_000)
    out = io.StringIO()
    render_variance(report, "table", 0.0, out)
    # money as `show` prints it, markets by label (issue 26: one look)
    assert "People  OVER" in out.getvalue() and "AWS / Amazon CloudWatch / Usage: $825" in out.getvalue()
    assert "hyperscaler_commit" not in out.getvalue() and "$400,000" in out.getvalue()
    assert "implied utilisation vs plan 1.16x" in out.getvalue()
    billed_hours = (2 + 11) * 24 * 28 * 8
    price = report.prices["hyperscaler_commit"][1]  # the block's fee (less credit, plus tax) / GPU-hours used
    assert price == pytest.approx(2 * (266486.40 - 5000 + 1234.56) / billed_hours)
    assert report.planned_price["hyperscaler_commit"] == pytest.approx(3.80)  # one GPU type: its price
    planned, billed = report.hours["hyperscaler_commit"]
    assert sum(billed) == billed_hours
    assert f"price per GPU-hour: paid ${price:,.2f}, planned $3.80" in out.getvalue()
    # planned GPU-hours paid = compute / price x (1 + waste), month by month: the Cash flow's compute and
    # failed runs of the commit market at $3.80
    months = {(r.item, n): v for r in show_months(PLAN).rows if r.market == "hyperscaler_commit"
              for n, v in enumerate(r.values)}
    for n in range(6):
        assert planned[n] == pytest.approx((months[("compute", n)] + months[("failed_runs", n)]) / 3.80)
    assert report.named()["var_utilisation_hyperscaler_commit"] == pytest.approx(sum(planned[:2]) / billed_hours)


def test_reimport_is_idempotent_and_a_new_month_appends(imported, base, tmp_path):
    # January's bills first; then February's, with January's again: February appends, January is replaced
    write_focus(tmp_path / "jan.csv", focus_rows({"2026-01": 2}))
    write_focus(tmp_path / "feb.csv", focus_rows({"2026-02": 11}))
    first = import_actuals(base / "plan.xlsx", [tmp_path / "jan.csv", base / "payroll.csv"], tmp_path / "jan.xlsx",
                           mapping=base / "map.yaml")
    assert first.actuals.closed_months(["2026-01", "2026-02"]) == 2 and not first.replaced  # payroll: to February
    again = import_actuals(tmp_path / "jan.xlsx", [tmp_path / "feb.csv", base / "aws.csv"], tmp_path / "both.xlsx",
                           mapping=base / "map.yaml")
    # February from feb.csv is new; aws.csv's January replaces what is held, not add; its February is feb.csv's
    # rows again in the same command: counted once (noted), as docs/bills.md says
    assert again.replaced == ["focus|AWS|123456789012|2026-01-01|"]
    assert "aws.csv: focus|AWS|123456789012|2026-02-01|: the same 89 rows as feb.csv, counted once" in again.notes
    held, expected = _embedded(tmp_path / "both.xlsx"), _embedded(imported)  # the Variance is a function of these
    assert [dataclasses.replace(b, source="") for b in held.batches] == [
        dataclasses.replace(b, source="") for b in expected.batches]  # February's from feb.csv, counted once


@needs_libreoffice
def test_variance_sheet_agrees_with_libreoffice_and_the_reference(imported, tmp_path):
    values = recalculated_values(imported, tmp_path / "lo")
    reference = book_variance(imported).named()
    assert len(reference) > 300
    for name, expected in reference.items():
        assert values[name] == pytest.approx(expected, rel=1e-9, abs=1e-6), name


def test_the_master_check_covers_the_variance_sheet(imported, tmp_path):
    values = evaluate_workbook(imported)
    own = sorted(name for name in values if name.startswith("chk_var_"))
    assert own and all(values[name] is True for name in own) and values["checks_ok"] is True
    assert "chk_var_plan_total_hyperscaler_commit" in own and "chk_var_bills_hyperscaler_commit" in own
    wb = openpyxl.load_workbook(imported)
    sheet, ref = next(iter(wb.defined_names["var_gpu_spend_hyperscaler_commit_actual_m1"].destinations))
    wb[sheet][ref] = 1.0  # a line's actual typed over: the lines no longer add up to the total (the bills')
    wb.save(tmp_path / "typed.xlsx")
    values = evaluate_workbook(tmp_path / "typed.xlsx")
    assert values["chk_var_bills_hyperscaler_commit"] is True
    assert values["chk_var_total_hyperscaler_commit"] is False and values["checks_ok"] is False


def test_check_finds_a_typed_over_actual_and_variance(imported, tmp_path):
    wb = openpyxl.load_workbook(imported)
    names = wb.defined_names
    sheet, ref = next(iter(names["act_people_hyperscaler_commit_m1"].destinations))
    wb[sheet][ref] = 1.0
    sheet, ref = next(iter(names["var_total_hyperscaler_commit_forecast"].destinations))
    wb[sheet][ref] = 123.0
    wb.save(tmp_path / "edited.xlsx")
    report = check_workbook(tmp_path / "edited.xlsx")
    kinds = {(f.kind, f.name) for f in report.findings}
    assert ("structure", "act_people_hyperscaler_commit_m1") in kinds
    assert ("hardcoded", "var_total_hyperscaler_commit_forecast") in kinds
    assert not report.ok


def test_cli_actuals_and_variance(capsys, base, tmp_path):
    out = tmp_path / "book.xlsx"
    inputs = {p: sha(p) for p in (base / "plan.xlsx", base / "aws.csv", base / "map.yaml")}
    code, stdout, err = run(capsys, "actuals", base / "plan.xlsx", base / "aws.csv", "--map", base / "map.yaml",
                            "-o", out, "--format", "json")
    assert code == 0, err
    assert {p: sha(p) for p in inputs} == inputs  # no input modified
    code, _, err = run(capsys, "actuals", base / "plan.xlsx", base / "aws.csv", "-o", base / "aws.csv")
    assert code == 2 and "would overwrite the input file" in err and sha(base / "aws.csv") == inputs[base / "aws.csv"]
    data = json.loads(stdout)
    assert [b["key"] for b in data["imported"]] == ["focus|AWS|123456789012|2026-01-01|",
                                                    "focus|AWS|123456789012|2026-02-01|"]
    assert data["unmapped"][0]["amount"] == pytest.approx(824.74)
    code, stdout, err = run(capsys, "variance", out, "--format", "json")
    # at the level a bill can know: the GPU spend (compute + failed runs + the block's idle hours, billed as one
    # fee) is 1.4 % under; storage is 189.4 % over (the default threshold is 10 %); no GPU line is "-100 %"
    data = json.loads(stdout)
    assert code == 1 and data["threshold_pct"] == 10.0
    assert data["over"] == [{"market": "hyperscaler_commit", "item": "storage_egress"}]
    lines = {line["item"]: line for line in data["lines"]}
    assert lines["gpu_spend"]["plan_to_date"] == pytest.approx(532_972.80)
    assert lines["gpu_spend"]["actual"] == pytest.approx(525_441.92)
    assert lines["gpu_spend"]["variance_pct"] == pytest.approx(-0.01413, abs=1e-5)
    assert all(lines[i]["plan_only"] and "actual" not in lines[i] for i in ("compute", "failed_runs", "commitment"))
    assert err.count("over budget: ") == 1 and "Storage & egress +189.4 %" in err
    code, stdout, err = run(capsys, "variance", out, "--format", "json", "--threshold", "200")
    assert code == 0 and json.loads(stdout)["over"] == [] and "over budget" not in err
    code, stdout, _ = run(capsys, "variance", out, "--format", "csv", "--threshold", "1000000")
    assert code == 0 and stdout.splitlines()[0].startswith("market,item,label,plan,plan_to_date,actual")
    code, _, err = run(capsys, "variance", base / "plan.xlsx")
    assert code == 2 and "carries no bills" in err and len(err.strip().splitlines()) == 1


def _bad(capsys, base, tmp_path, text: str, *extra) -> str:
    bill = tmp_path / "bad.csv"
    bill.write_text(text)
    before = sha(base / "plan.xlsx")
    out = tmp_path / "out.xlsx"
    code, stdout, err = run(capsys, "actuals", base / "plan.xlsx", bill, "--map", base / "map.yaml", "-o", out, *extra)
    assert code == 2 and not out.exists() and sha(base / "plan.xlsx") == before
    assert err.startswith("Error: ") and len(err.strip().splitlines()) == 1, err
    assert str(bill) in err
    return err


def _focus_text(rows: list[dict], drop: str | None = None) -> str:
    import csv
    import io

    from focus_bills import COLUMNS

    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=[c for c in COLUMNS if c != drop], extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def test_bad_bills_one_line_each_nothing_written(capsys, base, tmp_path):
    rows = focus_rows({"2026-01": 1}, description="p5", days=2)
    assert "without the column BillingCurrency" in _bad(capsys, base, tmp_path, _focus_text(rows, "BillingCurrency"))
    euro = [r | {"BillingCurrency": "EUR"} for r in rows]
    assert "billed in 'EUR' but the plan is in USD" in _bad(capsys, base, tmp_path, _focus_text(euro))
    text = [r | {"BilledCost": "12,5 EUR"} if i == 3 else r for i, r in enumerate(rows)]
    assert "line 5: BilledCost '12,5 EUR' is not a number" in _bad(capsys, base, tmp_path, _focus_text(text))
    late = [r | {"ChargePeriodStart": "2027-03-01T00:00:00Z"} if i == 0 else r for i, r in enumerate(rows)]
    assert "dated 2027-03, outside the plan's months 2026-01 to 2026-06" in \
        _bad(capsys, base, tmp_path, _focus_text(late))
    assert "neither a FOCUS export" in _bad(capsys, base, tmp_path, "a,b\n1,2\n")
    assert "is empty" in _bad(capsys, base, tmp_path, "")
    assert "line 2: date 'soon' is not a calendar date" in _bad(capsys, base, tmp_path,
                                                               "date,market,item,amount\nsoon,neo_cloud,compute,1\n")


def test_an_oversized_bill_is_refused_before_it_is_read(capsys, base, tmp_path):
    big = tmp_path / "big.csv"
    with open(big, "wb") as f:  # sparse: 2 GB on paper, nothing on disk
        f.truncate(2 * 1024**3)
    out = tmp_path / "out.xlsx"
    code, _, err = run(capsys, "actuals", base / "plan.xlsx", big, "-o", out)
    assert code == 2 and not out.exists()
    assert "2,147,483,648 bytes; a bill file may be at most 1,000,000,000" in err


def test_currency_with_a_rate_is_converted(base, tmp_path):
    rows = [r | {"BillingCurrency": "EUR"} for r in focus_rows({"2026-01": 1}, days=2)]
    write_focus(tmp_path / "eur.csv", rows)
    (tmp_path / "map.yaml").write_text(MAPPING + "rates: {EUR: 1.25}\n")
    result = import_actuals(base / "plan.xlsx", [tmp_path / "eur.csv"], tmp_path / "out.xlsx",
                            mapping=tmp_path / "map.yaml")
    assert result.imported[0].total == (column_total(rows) * Decimal("1.25")).quantize(Decimal("1e-10"))
    assert result.imported[0].other[1] == (column_total(rows, "EffectiveCost") * Decimal("1.25")).quantize(
        Decimal("1e-10"))  # the other cost column at the same rate


def test_csv_injection_stays_text_and_is_listed(capsys, base, tmp_path):
    rows = focus_rows({"2026-01": 1}, days=2)
    rows[-1] |= {"ServiceName": '=HYPERLINK("http://evil.example","click")'}  # the unmapped CloudWatch row
    rows[-2] |= {"ChargeCategory": "Refund"}  # not a FOCUS category: listed, and mapped like any charge
    write_focus(tmp_path / "inj.csv", rows)
    out = tmp_path / "out.xlsx"
    code, _, err = run(capsys, "actuals", base / "plan.xlsx", tmp_path / "inj.csv", "--map", base / "map.yaml",
                       "-o", out)
    assert code == 0 and "Warning:" in err and "=HYPERLINK" in err and "written as text" in err
    assert "ChargeCategory 'Refund' is not one FOCUS defines" in err
    ws = openpyxl.load_workbook(out)["Actuals"]
    cells = [c for row in ws.iter_rows() for c in row if isinstance(c.value, str) and "HYPERLINK" in c.value]
    assert cells and all(c.data_type == "s" for c in cells)
    assert check_workbook(out).ok


def test_bad_mapping_and_plan_without_start(capsys, base, tmp_path):
    (tmp_path / "map.yaml").write_text(MAPPING.replace("market: hyperscaler_commit", "market: hyperscaler", 1))
    code, _, err = run(capsys, "actuals", base / "plan.xlsx", base / "aws.csv", "--map", tmp_path / "map.yaml",
                       "-o", tmp_path / "out.xlsx")
    assert code == 2 and "`rules[0].market`: `hyperscaler` is not a market of the plan" in err
    (tmp_path / "map.yaml").write_text("rules: [{match: {}, market: neo_cloud, item: compute, color: red}]\n")
    code, _, err = run(capsys, "actuals", base / "plan.xlsx", base / "aws.csv", "--map", tmp_path / "map.yaml",
                       "-o", tmp_path / "out.xlsx")
    assert code == 2 and "`rules[0].color`: unknown key `color`" in err and len(err.strip().splitlines()) == 1
    plan = tmp_path / "nostart.yaml"
    plan.write_text((Path(__file__).parents[2] / "templates" / "finetune-13b-lora.yaml").read_text())
    generate_workbook(plan, tmp_path / "nostart.xlsx")
    code, _, err = run(capsys, "actuals", tmp_path / "nostart.xlsx", base / "payroll.csv", "-o", tmp_path / "o.xlsx")
    assert code == 2 and "gives no `start` month" in err


def test_reference_is_independent_of_the_book(imported):
    # the reference reads only the plan and the facts: the template's plan and the embedded bills give the same
    assert compute_variance(load_plan(PLAN), _embedded(imported)).named() == book_variance(imported).named()


def test_samples_are_the_tests_export(tmp_path):
    # samples/ holds what the tests import (README's worked example): regenerate them from focus_bills.py
    samples = Path(__file__).parents[2] / "samples"
    write_focus(tmp_path / "focus.csv", focus_rows())
    assert (samples / "focus-aws-2026-01-02.csv").read_bytes() == (tmp_path / "focus.csv").read_bytes()
    assert (samples / "focus-mapping.yaml").read_text() == MAPPING
    assert (samples / "payroll-2026.csv").read_text() == PAYROLL


@settings(max_examples=4)
@given(plans(), st.data())
def test_variance_formulas_agree_with_the_reference_over_random_plans(plan_and_text, data):
    """Random plans (markets, hybrids, commitments, schedules) and random bills on them: the Variance
    sheet's formulas, evaluated, give the reference's every figure (two implementations, one accounting)."""
    from hypothesis import assume

    from budgetbook.ledger.model import Actuals, Batch, Charge
    from budgetbook.ledger.sheets import line_ids, plan_months
    from budgetbook.workbook.build import build_workbook
    from budgetbook.xlsx.evaluate import evaluate_workbook

    plan, text = plan_and_text
    assume(plan.start is not None)
    months = plan_months(plan)
    items = [i for i, _ in line_ids(plan)[:-1]]
    charge = st.builds(Charge, st.sampled_from(months[: max(1, len(months) - 1)]),
                       st.sampled_from([m.id for m in plan.markets]), st.sampled_from(items), st.just(""),
                       st.decimals(-1000, 10**6, places=2, allow_nan=False, allow_infinity=False),
                       st.decimals(0, 10**5, places=3, allow_nan=False, allow_infinity=False), st.integers(1, 9))
    charges = data.draw(st.lists(charge, min_size=1, max_size=8))
    charges = [c if c.item == "compute" else Charge(c.month, c.market, c.item, "", c.amount, Decimal(0), c.rows)
               for c in charges]
    actuals = Actuals(plan.currency, (Batch("generic|x", "x.csv", "generic", "amount", 1, Decimal(0),
                                            tuple(charges)),))
    values = {k.lower(): v for k, v in evaluate_workbook(b"", build_workbook(plan, text, actuals=actuals)).items()}
    for name, expected in compute_variance(plan, actuals).named().items():
        assert values[name.lower()] == pytest.approx(expected, rel=1e-9, abs=1e-6), name


def test_hidden_actuals_edited_to_a_foreign_market_is_one_line(capsys, imported, tmp_path):
    from budgetbook.ledger.embed import SHEET

    wb = openpyxl.load_workbook(imported)
    ws = wb[SHEET]
    ws["B4"] = ws["B4"].value.replace('"market":"hyperscaler_commit"', '"market":"elsewhere"', 1)
    wb.save(tmp_path / "forged.xlsx")
    code, _, err = run(capsys, "check", tmp_path / "forged.xlsx")
    assert code == 2 and "market `elsewhere`" in err and len(err.strip().splitlines()) == 1


def test_a_parquet_export_imports_as_its_csv(base, tmp_path):
    import duckdb

    con = duckdb.connect()  # the CSV with typed columns, as providers ship Parquet: DECIMAL costs, timestamps
    con.execute(f"""COPY (SELECT * REPLACE (CAST(BilledCost AS DECIMAL(38,10)) AS BilledCost,
                                  CAST(ChargePeriodStart AS TIMESTAMP) AS ChargePeriodStart)
                          FROM read_csv('{base / "aws.csv"}', all_varchar=true))
                    TO '{tmp_path / "aws.parquet"}' (FORMAT parquet)""")
    con.close()
    parquet = import_actuals(base / "plan.xlsx", [tmp_path / "aws.parquet"], tmp_path / "p.xlsx",
                             mapping=base / "map.yaml")
    csv_ = import_actuals(base / "plan.xlsx", [base / "aws.csv"], tmp_path / "c.xlsx", mapping=base / "map.yaml")
    assert [(b.key, b.total, b.charges) for b in parquet.actuals.batches] == \
        [(b.key, b.total, b.charges) for b in csv_.actuals.batches] and parquet.imported[0].total > 0


def test_generic_bills_are_keyed_by_invoice_else_market_item_and_month(base, tmp_path):
    (tmp_path / "gpu.csv").write_text("date,market,item,amount,quantity,unit,invoice\n"
                                      "2026-01-20,hyperscaler_commit,compute,1000.50,500,GPU-hours,INV-1\n"
                                      "2026-01-25,hyperscaler_commit,compute,99.50,50,GPU-hours,INV-2\n")
    first = import_actuals(base / "plan.xlsx", [base / "payroll.csv", tmp_path / "gpu.csv"], tmp_path / "a.xlsx")
    keys = [b.key.rsplit("|d:", 1)[0] for b in first.actuals.batches]  # without an invoice: + a content digest
    assert keys == ["generic|hyperscaler_commit|people|2026-01", "generic|hyperscaler_commit|people|2026-02",
                    "generic|invoice|INV-1", "generic|invoice|INV-2"]  # payroll and GPU bills of January apart
    assert first.actuals.gpu_hours()[("2026-01", "hyperscaler_commit")] == 550
    (tmp_path / "fix.csv").write_text("date,market,item,amount,invoice\n2026-01-25,hyperscaler_commit,compute,"
                                      "89.50,INV-2\n")  # a corrected invoice replaces the first when asked
    with pytest.raises(BillError, match=r"fix\.csv: holds invoice 'generic\|invoice\|INV-2' \(1 row, 89\.50\), "
                       r"which .*a\.xlsx holds from gpu\.csv with other rows \(1 row, 99\.50\).*add --replace$"):
        import_actuals(tmp_path / "a.xlsx", [tmp_path / "fix.csv"], tmp_path / "b.xlsx")
    assert not (tmp_path / "b.xlsx").exists()
    again = import_actuals(tmp_path / "a.xlsx", [tmp_path / "fix.csv"], tmp_path / "b.xlsx", replace=True)
    assert again.replaced == ["generic|invoice|INV-2"]
    assert again.actuals.amount("2026-01", "hyperscaler_commit", "compute") == Decimal("1090.00")


def test_the_actual_line_of_the_chart_stops_at_the_last_billed_month(imported):
    """Two months billed: the cumulative actual runs over those two (D:E), the plan over all six (D:I); an actual
    line running flat through unbilled months would read as an under-spend."""
    import re
    import zipfile

    with zipfile.ZipFile(imported) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    refs = next(re.findall(r"<(?:c:)?f>'Variance'!([^<]*)</(?:c:)?f>", x) for x in charts if "'Variance'!" in x)
    categories, plan, _, actual = refs
    assert categories.endswith(":$I$4") and plan.startswith("$D$") and plan.split(":")[1].startswith("$I$")
    assert actual.startswith("$D$") and actual.split(":")[1].startswith("$E$")
