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
from budgetbook.planfile.loader import template_text

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


A, B = "hyperscaler_on_demand", "decentralized_market"


@needs_uno
def test_adjustments_typed_in_libreoffice_flow_into_the_totals(capsys, office, tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text(template_text(FT) + "adjustments: []\n", encoding="utf-8")
    book = generate_workbook(plan, tmp_path / "book.xlsx")
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
    plan = tmp_path / "plan.yaml"
    plan.write_text(template_text(FT) + "adjustments: []\n", encoding="utf-8")
    book = generate_workbook(plan, tmp_path / "book.xlsx")
    wb = openpyxl.load_workbook(book)
    ws = wb["Adjustments"]
    row = int(wb.defined_names["adj_1_label"].attr_text.split("$")[-1])
    for offset, (market, amount) in enumerate([("nowhere", 7), (A, "lots"), (A, f"=0.1*total_{A}")]):
        ws.cell(row + offset, 1, f"bad {offset}")
        ws.cell(row + offset, 2, market)
        ws.cell(row + offset, 5, amount)
    wb.save(tmp_path / "bad.xlsx")
    code, report = check_json(capsys, tmp_path / "bad.xlsx")
    bad = [(f["cell"], f["name"]) for f in report["findings"] if f["kind"] == "invalid_input"]
    assert code == 1 and bad == [(f"B{row}", "adj_1_market"), (f"E{row + 1}", "adj_2_amount"),
                                 (f"E{row + 2}", "adj_3_amount")], report["findings"]
    figures = {f["name"]: f for f in report["figures"]}
    assert figures[f"compute_{A}"]["value"] == pytest.approx(figures[f"compute_{A}"]["reference"])


def test_diff_shows_each_adjustment_as_its_own_change(capsys, tmp_path):
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(template_text(FT) + "adjustments: []\n", encoding="utf-8")
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
