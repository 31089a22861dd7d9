"""Finance's own rows, edited in LibreOffice as a user types them (issue 31's Done-when).

One LibreOffice session serves every test here (each edit is about a second); the books are
the default template's.

- a scratch sheet whose formulas read Summary, and a helper cell on Summary: `check` exit 0
  with `user_content` info; `generate` refuses to replace the book without `--force`;
- an adjustment of -5,000 typed into the Adjustments sheet's first blank row, and a formula
  adjustment (-5 % of a market's compute) in the next: each market's total drops by it in
  LibreOffice's recalculation and in `check`'s reference, `check` exit 0, `extract` writes both,
  and `show` of the extracted plan gives the new totals.
"""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
import yaml
from cli_run import run
from libreoffice import needs_uno, uno_session

from budgetbook.api import generate_workbook
from budgetbook.lineitems.adjustments import FIELDS
from budgetbook.plan.templates import template_names
from budgetbook.planfile.loader import load_plan, plan_from_text, template_text
from budgetbook.workbook.build import workbook_blueprint, workbook_layout
from budgetbook.workbook.write import write_workbook

FT = "finetune-13b-lora"


@pytest.fixture(scope="module")
def office():
    with uno_session() as session:
        yield session


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    return generate_workbook(FT, tmp_path_factory.mktemp("finance") / "pristine.xlsx")


def check_json(capsys, book: Path) -> tuple[int, dict]:
    code, out, err = run(capsys, "check", book, "--format", "json")
    assert code in (0, 1), err
    return code, json.loads(out)


@needs_uno
def test_scratch_sheet_and_helper_cell_typed_in_libreoffice_are_the_users(capsys, office, pristine, tmp_path):
    book = office.edit(pristine, tmp_path / "scratch.xlsx", [
        {"op": "insert_sheet", "sheet": "My notes"},
        {"op": "set_value", "sheet": "My notes", "cell": "A1", "value": "Discount we expect"},
        {"op": "set_formula", "sheet": "My notes", "cell": "B1", "formula": "=Summary!C20*-0.05"},
        {"op": "set_formula", "sheet": "My notes", "cell": "B2", "formula": "=SUM(Summary!C16:C19)"},
        {"op": "unprotect", "sheet": "Summary"},
        {"op": "type", "sheet": "Summary", "cell": "C60", "text": "=C16*-0.05"}])  # below the figures
    wb = openpyxl.load_workbook(book)
    assert wb["Summary"]["C60"].value == "=C16*-0.05" and wb["My notes"]["B1"].value.startswith("=")
    code, report = check_json(capsys, book)
    assert code == 0 and report["ok"], report["findings"]
    own = sorted((f["severity"], f["sheet"], f["cell"]) for f in report["findings"] if f["kind"] == "user_content")
    assert own == [("info", "My notes", None), ("info", "Summary", "C60")], report["findings"]
    assert all(f["severity"] == "info" for f in report["findings"])
    code, out, err = run(capsys, "generate", FT, "-o", book)
    assert code == 2 and "was edited since it was generated" in err and "My notes" in err
    code, out, err = run(capsys, "diff", pristine, book, "--format", "json")
    assert code == 0, err
    assert {(a["kind"], a["sheet"]) for a in json.loads(out)["audit"]} == {("user_content", "My notes"),
                                                                         ("user_content", "Summary")}


def test_every_book_has_the_adjustments_table(pristine):
    """Issue 31, item 2: each template's book (none has `adjustments:`) lays out the table, its rows named;
    the default's book as written: the 20 blank rows unlocked, market, item and month validated."""
    for name in template_names():
        plan = load_plan(name)
        assert plan.adjustments == [], name
        blueprint, names = workbook_blueprint(plan), {spec.name for spec in workbook_layout(plan)}
        assert "Adjustments" in [sheet.title for sheet in blueprint.sheets], name
        assert all(f"adj_{n}_{field}" in names for n in range(1, 21) for field in FIELDS), name
        assert all(f"adjustments_{m.id}" in names for m in plan.markets), name
    wb = openpyxl.load_workbook(pristine)
    ws = wb["Adjustments"]
    cells = [wb.defined_names[f"adj_{n}_{field}"].attr_text.split("!")[1].replace("$", "")
             for n in range(1, 21) for field in FIELDS]
    assert all(ws[c].value is None and ws[c].protection.locked is False for c in cells)
    assert ws.protection.sheet
    validated = {str(dv.sqref).split(":")[0][0] for dv in ws.data_validations.dataValidation}
    assert {"B", "C", "D"} <= validated
    for title in ("Summary", "Procurement", "Cash flow"):
        assert any(c.value and "Adjustments" in str(c.value) for row in wb[title].iter_rows() for c in row), title


def test_a_book_written_before_every_book_had_the_table_still_checks(capsys, tmp_path):
    """A book of today's format written before the table came to every book (its plan without the key,
    laid out with none) checks, extracts, diffs and is replaced by `generate` as before."""
    text = template_text(FT)
    old = write_workbook(plan_from_text(text + "adjustments: null\n"), text, tmp_path / "old.xlsx")
    wb = openpyxl.load_workbook(old)
    assert "Adjustments" not in wb.sheetnames and "adj_1_label" not in wb.defined_names
    code, report = check_json(capsys, old)
    assert code == 0 and all(f["severity"] == "info" for f in report["findings"]), report["findings"]
    assert not [f for f in report["figures"] if f["name"].startswith("adjustments_")]
    code, out, err = run(capsys, "diff", old, FT, "--format", "json")
    assert code == 0 and all(f["delta"] == 0 for f in json.loads(out)["figures"]), err
    code, _, err = run(capsys, "extract", old, "-o", tmp_path / "old.yaml")
    assert code == 0 and "adjustments" not in (tmp_path / "old.yaml").read_text(encoding="utf-8"), err
    code, _, err = run(capsys, "generate", tmp_path / "old.yaml", "-o", old)  # not an edit: replaced
    assert code == 0, err
    assert "Adjustments" in openpyxl.load_workbook(old).sheetnames
    assert check_json(capsys, old)[0] == 0


A, B = "hyperscaler_on_demand", "decentralized_market"


@needs_uno
def test_adjustments_typed_in_libreoffice_flow_into_the_totals(capsys, office, pristine, tmp_path):
    book = pristine  # the template has no `adjustments:`: its book has the blank table all the same
    code, report = check_json(capsys, book)
    before = {f["name"]: f["value"] for f in report["figures"]}
    assert code == 0 and before[f"adjustments_{A}"] == 0.0
    first = openpyxl.load_workbook(book).defined_names["adj_1_label"].attr_text.split("$")[-1]  # its row
    row, nxt = int(first), int(first) + 1
    edited = office.edit(book, tmp_path / "edited.xlsx", [
        {"op": "type", "sheet": "Adjustments", "cell": f"A{row}", "text": "Negotiated discount"},
        {"op": "type", "sheet": "Adjustments", "cell": f"B{row}", "text": A},
        {"op": "type", "sheet": "Adjustments", "cell": f"E{row}", "text": "-5000"},
        {"op": "type", "sheet": "Adjustments", "cell": f"G{row}", "text": "signed 2026-11-30"},
        {"op": "type", "sheet": "Adjustments", "cell": f"A{nxt}", "text": "Volume discount"},
        {"op": "type", "sheet": "Adjustments", "cell": f"B{nxt}", "text": B},
        {"op": "type", "sheet": "Adjustments", "cell": f"C{nxt}", "text": "compute"},
        {"op": "type", "sheet": "Adjustments", "cell": f"E{nxt}", "text": f"=-0.05*compute_{B}"}])
    discount = -0.05 * before[f"compute_{B}"]
    # LibreOffice's own recalculation, as it stored it
    cached = openpyxl.load_workbook(edited, data_only=True)
    summary = {name: cached[d.attr_text.split("!")[0].strip("'")][d.attr_text.split("!")[1].replace("$", "")].value
               for name, d in cached.defined_names.items() if name in (f"total_{A}", f"total_{B}")}
    assert summary[f"total_{A}"] == pytest.approx(before[f"total_{A}"] - 5000)
    assert summary[f"total_{B}"] == pytest.approx(before[f"total_{B}"] + discount)
    code, report = check_json(capsys, edited)
    assert code == 0, report["findings"]
    figures = {f["name"]: f for f in report["figures"]}
    assert figures[f"total_{A}"]["reference"] == pytest.approx(before[f"total_{A}"] - 5000)
    assert figures[f"total_{B}"]["reference"] == pytest.approx(before[f"total_{B}"] + discount)
    assert [f["kind"] for f in report["findings"] if f["name"] and f["name"].startswith("adj_")] == \
        ["input_changed", "input_changed"]
    out = tmp_path / "extracted.yaml"
    code, _, err = run(capsys, "extract", edited, "-o", out)
    assert code == 0, err
    written = yaml.safe_load(out.read_text(encoding="utf-8"))["adjustments"]
    assert [(a["market"], a["amount"]) for a in written] == [(A, -5000), (B, f"=-0.05*compute_{B}")]
    assert "# signed 2026-11-30" in out.read_text(encoding="utf-8")
    code, text, err = run(capsys, "show", out, "--format", "json")
    assert code == 0, err
    shown = {f["name"]: f["value"] for f in json.loads(text)["figures"]}
    assert shown[f"total_{A}"] == pytest.approx(before[f"total_{A}"] - 5000)
    assert shown[f"total_{B}"] == pytest.approx(before[f"total_{B}"] + discount)


def test_bad_adjustment_rows_are_one_finding_each_naming_the_cell(capsys, tmp_path):
    """Issue 31, item 4 (openpyxl edits, no LibreOffice): each bad row one `invalid_input` at its cell."""
    book = generate_workbook(FT, tmp_path / "book.xlsx")
    wb = openpyxl.load_workbook(book)
    ws = wb["Adjustments"]
    row = int(wb.defined_names["adj_1_label"].attr_text.split("$")[-1])
    bad_rows = [("nowhere", None, 7),                        # an unknown market
                (A, 99, -100),                               # a month outside the plan's
                (A, None, "lots"),                           # text where an amount belongs
                (A, None, f"=0.1*total_{A}"),                # circular: the total it adds into
                (A, None, "=-0.05*Summary!C16")]             # a cell, not one of our names
    for offset, (market, month, amount) in enumerate(bad_rows):
        ws.cell(row + offset, 1, f"bad {offset}")
        ws.cell(row + offset, 2, market)
        ws.cell(row + offset, 4, month)
        ws.cell(row + offset, 5, amount)
    ws.cell(row + len(bad_rows), 1, "good")
    ws.cell(row + len(bad_rows), 2, B)
    ws.cell(row + len(bad_rows), 5, -700)
    wb.save(tmp_path / "bad.xlsx")
    code, report = check_json(capsys, tmp_path / "bad.xlsx")
    bad = [(f["cell"], f["name"]) for f in report["findings"] if f["kind"] == "invalid_input"]
    assert code == 1 and bad == [(f"B{row}", "adj_1_market"), (f"D{row + 1}", "adj_2_month"),
                                 (f"E{row + 2}", "adj_3_amount"), (f"E{row + 3}", "adj_4_amount"),
                                 (f"E{row + 4}", "adj_5_amount")], report["findings"]
    assert "Summary!C16" in next(f["message"] for f in report["findings"] if f["name"] == "adj_5_amount")
    figures = {f["name"]: f for f in report["figures"]}  # the other figures still compared, the good row in them
    assert figures[f"compute_{A}"]["value"] == pytest.approx(figures[f"compute_{A}"]["reference"])
    assert figures[f"adjustments_{B}"]["reference"] == -700



@pytest.mark.parametrize("name", ["adj_3_amount", "adj_2_label", "adj_10_month"])
def test_a_deleted_adjustment_name_is_missing_not_a_row_lost(capsys, pristine, tmp_path, name):
    """A row of the table whose name is deleted cannot be read; an amount typed there would be dropped without a
    word, and a deleted label ended the table there (every row after it unread): an error naming it, exit 1
    (the tamper fuzzer found `adj_10_amount` deleted and check OK)."""
    wb = openpyxl.load_workbook(pristine)
    del wb.defined_names[name]
    wb.save(tmp_path / "tampered.xlsx")
    code, report = check_json(capsys, tmp_path / "tampered.xlsx")
    missing = [f["name"] for f in report["findings"] if f["kind"] == "missing"]
    assert code == 1 and not report["ok"] and missing == [name], report["findings"]

def test_diff_shows_each_adjustment_as_its_own_change(capsys, tmp_path):
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(template_text(FT), encoding="utf-8")
    new.write_text(template_text(FT) + f"adjustments:\n  - {{label: FX hedge, market: {A}, amount: -5000}}\n",
                   encoding="utf-8")
    code, out, err = run(capsys, "diff", old, new, "--format", "json")
    data = json.loads(out)
    assert code == 0 and [(s["kind"], s["key"], s["change"]) for s in data["structure"]] == [
        ("adjustment", "adjustments[0]", "added")], err
    assert data["structure"][0]["new"]["amount"] == -5000
    assert {f["name"]: f["delta"] for f in data["figures"]}[f"total_{A}"] == pytest.approx(-5000)


def test_formula_amounts_read_as_excel_reads_them():
    """The reference's reading of an amount's formula (no workbook): Excel's postfix `%`, no `^`, `/` by a number."""
    from budgetbook.lineitems.adjustment_formula import FormulaProblem, evaluate

    figures = {"compute_a": 200.0}
    assert [evaluate(t, figures) for t in ("=compute_a/5%", "=-5%*compute_a", "=(compute_a+100)%",
                                           "=compute_a*-5%+100")] == pytest.approx([4000, -10, 3, 90])
    for bad in ("=compute_a^2", "=compute_a/0", "=100/compute_a", "=SUM(compute_a)", "=A1", "=other_a"):
        with pytest.raises(FormulaProblem):
            evaluate(bad, figures)


def test_bills_map_to_the_adjustments_line_and_actuals_keeps_a_typed_row(capsys, tmp_path):
    """`actuals` (issue 31, item 3): a bill of item `adjustments` is that line's actual, and a row typed in
    the Adjustments table comes through into the book it writes (its current inputs)."""
    plan = tmp_path / "plan.yaml"
    plan.write_text("start: 2026-01\n" + template_text(FT), encoding="utf-8")
    book = generate_workbook(plan, tmp_path / "book.xlsx")
    wb = openpyxl.load_workbook(book)
    row = int(wb.defined_names["adj_1_label"].attr_text.split("$")[-1])
    for col, value in ((1, "FX hedge"), (2, A), (5, -2500)):
        wb["Adjustments"].cell(row, col, value)
    wb.save(tmp_path / "typed.xlsx")
    bills = tmp_path / "bills.csv"
    bills.write_text(f"date,market,item,amount\n2026-01-15,{A},adjustments,-1200\n2026-01-15,{A},compute,5000\n",
                     encoding="utf-8")
    code, _, err = run(capsys, "actuals", tmp_path / "typed.xlsx", bills, "-o", tmp_path / "billed.xlsx")
    assert code == 0, err
    code, out, err = run(capsys, "variance", tmp_path / "billed.xlsx", "--format", "json")
    lines = {(r["market"], r["item"]): r for r in json.loads(out)["lines"]}
    assert lines[(A, "adjustments")]["actual"] == pytest.approx(-1200)
    assert lines[(A, "adjustments")]["plan"] == pytest.approx(-2500)
    code, report = check_json(capsys, tmp_path / "billed.xlsx")
    assert code == 0, report["findings"]
    assert {f["name"]: f["value"] for f in report["figures"]}[f"adjustments_{A}"] == pytest.approx(-2500)
