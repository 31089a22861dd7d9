"""`show BOOK.xlsx` (issue 14, item 9; DESIGN.md section 7): the workbook's embedded plan with the
inputs it holds now, not "byte 0x50 is not UTF-8"."""

from __future__ import annotations

import datetime as dt
import json

import openpyxl
from cli_run import run, sha

from budgetbook.planfile.loader import plan_from_text, resolve
from budgetbook.workbook.write import write_workbook


def _book(tmp_path):
    source, text = resolve("finetune-13b-lora")
    return write_workbook(plan_from_text(text, source), text, tmp_path / "book.xlsx", dt.date(2026, 1, 1))


def test_show_of_a_workbook_is_show_of_its_plan_with_its_current_inputs(capsys, tmp_path):
    book = _book(tmp_path)
    code, out, _ = run(capsys, "show", book, "--format", "json")
    _, plan_out, _ = run(capsys, "show", "finetune-13b-lora", "--format", "json")
    assert code == 0
    shown, planned = json.loads(out), json.loads(plan_out)
    assert shown["figures"] == planned["figures"]
    wb = openpyxl.load_workbook(book)
    sheet, ref = next(iter(wb.defined_names["mkt_hyperscaler_on_demand_price_h100_sxm"].destinations))
    wb[sheet][ref.replace("$", "")] = 2.5  # an edited price: 48,000 allocated hours at $2.50
    edited = tmp_path / "edited.xlsx"
    wb.save(edited)
    before = sha(edited)
    code, out, _ = run(capsys, "show", edited, "--format", "json")
    assert code == 0 and sha(edited) == before
    compute = {f["name"]: f["value"] for f in json.loads(out)["figures"]}
    assert compute["compute_hyperscaler_on_demand"] == 48_000 * 2.5
    code, out, _ = run(capsys, "show", edited)  # the table too
    assert code == 0 and "120,000" in out


def test_show_of_a_workbook_without_a_plan_is_one_line(capsys, tmp_path):
    plain = tmp_path / "plain.xlsx"
    openpyxl.Workbook().save(plain)
    code, out, err = run(capsys, "show", plain)
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"Error: {plain}")
