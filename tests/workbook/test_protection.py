"""Every sheet protected, inputs unlocked; `generate --protect PASSWORD`; `check` and `extract` on protected books.

The LibreOffice test types as a user does (the UI dispatcher, which honours
protection, not the API, which does not): into an input, which takes the value,
and into a formula cell, which refuses it.
"""

from __future__ import annotations

import base64
import io
import sys
from pathlib import Path

import openpyxl
import pytest
import yaml
from cli_run import run
from libreoffice import LibreOfficeError, needs_uno, uno_session

from budgetbook.planfile.loader import load_plan
from budgetbook.sheetkit.embed import SHEET as EMBED_SHEET
from budgetbook.workbook.build import workbook_layout
from budgetbook.workbook.protect import password_hash

PLAN = "pretrain-7b"
PASSWORD = "s3cret"


def _generate(capsys, out: Path, *extra: str) -> openpyxl.Workbook:
    code, _, err = run(capsys, "generate", PLAN, "-o", out, *extra)
    assert code == 0, err
    return openpyxl.load_workbook(out)


def _addresses(kinds: set[str]) -> list[tuple[str, str]]:
    return [(spec.sheet, spec.cell) for spec in workbook_layout(load_plan(PLAN)) if spec.kind in kinds]


def test_every_sheet_is_protected_inputs_unlocked_formulas_locked(tmp_path, capsys):
    wb = _generate(capsys, tmp_path / "book.xlsx")
    assert [ws.title for ws in wb.worksheets if not ws.protection.sheet] == []
    assert all(ws.protection.password is None for ws in wb.worksheets)  # no password by default
    assert not wb.security.lockStructure
    assert wb[EMBED_SHEET].sheet_state == "hidden"
    inputs = _addresses({"input"})
    assert len(inputs) > 20
    assert [a for a in inputs if wb[a[0]][a[1]].protection.locked] == []
    # every cell with a data validation (the bounds of an input, a drop-down such as a scenario) is editable
    validated = [(ws.title, ws.cell(r, c)) for ws in wb.worksheets for dv in ws.data_validations.dataValidation
                 for ref in dv.sqref.ranges for r in range(ref.min_row, ref.max_row + 1)
                 for c in range(ref.min_col, ref.max_col + 1)]
    # but the Adjustments table's label and amount: free text, and a number or a formula of finance's own
    free = [a for a in inputs if wb[a[0]][a[1]].column in (1, 5) and a[0] == "Adjustments"]
    assert len(free) == 40 and len(validated) >= len(inputs) - len(free)
    assert [(t, c.coordinate) for t, c in validated if c.protection.locked] == []
    formulas = [(ws.title, c.coordinate) for ws in wb.worksheets for row in ws.iter_rows() for c in row
                if c.data_type == "f"]
    assert len(formulas) > 100
    assert [a for a in formulas if not wb[a[0]][a[1]].protection.locked] == []
    # resizing rows and columns stays allowed, editing formulas does not
    inputs_sheet = wb["Inputs"].protection
    assert not inputs_sheet.formatColumns and not inputs_sheet.formatRows
    # rows and columns may be inserted and deleted, cells formatted: check finds cells by name
    assert not (inputs_sheet.insertRows or inputs_sheet.deleteRows or inputs_sheet.formatCells)


def test_protect_sets_a_password_and_locks_the_structure(tmp_path, capsys):
    wb = _generate(capsys, tmp_path / "book.xlsx", "--protect", PASSWORD)
    hashes = {(ws.protection.algorithmName, ws.protection.hashValue) for ws in wb.worksheets}
    assert len(hashes) == 1 and None not in next(iter(hashes)) and PASSWORD not in str(hashes)  # a hash, never the text
    assert {ws.protection.password for ws in wb.worksheets} == {None}  # no legacy hash (tests/test_protect_unicode.py)
    assert wb.security.lockStructure and wb.security.workbookHashValue not in (None, PASSWORD)
    assert wb[EMBED_SHEET].sheet_state == "hidden"


def _locked_with(wb: openpyxl.Workbook, password: str) -> bool:
    p = wb["Inputs"].protection
    return p.hashValue == password_hash(password, base64.b64decode(p.saltValue), int(p.spinCount))


def test_the_password_can_stay_off_the_command_line(tmp_path, capsys, monkeypatch):
    """From BUDGETBOOK_PASSWORD, or `--protect -`: asked for (here: not a terminal, one line of standard input)."""
    monkeypatch.setenv("BUDGETBOOK_PASSWORD", "from the env")
    assert _locked_with(_generate(capsys, tmp_path / "env.xlsx"), "from the env")
    monkeypatch.delenv("BUDGETBOOK_PASSWORD")
    monkeypatch.setattr(sys, "stdin", io.StringIO(PASSWORD + "\n"))
    assert _locked_with(_generate(capsys, tmp_path / "asked.xlsx", "--protect", "-"), PASSWORD)


@pytest.mark.parametrize(("password", "said"), [("", "is empty"), ("x" * 256, "at most 255"),
                                                ("a\tb", "control character")], ids=["empty", "long", "tab"])
def test_a_bad_password_is_one_line_and_nothing_is_written(tmp_path, capsys, password, said):
    out = tmp_path / "book.xlsx"
    code, _, err = run(capsys, "generate", PLAN, "-o", out, "--protect", password)
    assert code == 2 and err.startswith("Error: --protect: ") and said in err and err.count("\n") == 1, err
    assert not out.exists()


@needs_uno
def test_a_protected_book_edited_in_libreoffice_checks_ok(tmp_path, capsys):
    book = tmp_path / "book.xlsx"
    _generate(capsys, book, "--protect", PASSWORD)
    price = next(s for s in workbook_layout(load_plan(PLAN)) if s.name == "mkt_neo_cloud_price_h100_sxm")
    figure = next(s for s in workbook_layout(load_plan(PLAN)) if s.kind == "figure" and s.sheet == "Summary")
    edited = tmp_path / "edited.xlsx"
    with uno_session() as office:
        office.edit(book, edited, [{"op": "type", "sheet": price.sheet, "cell": price.cell, "text": "3.3"},
                                   {"op": "type", "sheet": figure.sheet, "cell": figure.cell, "text": "1"}])
        with pytest.raises(LibreOfficeError, match="unprotect"):
            office.edit(book, tmp_path / "never.xlsx", [{"op": "unprotect", "sheet": "Inputs", "password": "guess"}])
        office.edit(book, tmp_path / "open.xlsx", [{"op": "unprotect", "sheet": "Inputs", "password": PASSWORD}])
    wb = openpyxl.load_workbook(edited)
    assert wb[price.sheet][price.cell].value == 3.3  # the unlocked input took the typed value
    assert wb[figure.sheet][figure.cell].value == figure.formula  # the locked figure refused it
    assert all(ws.protection.sheet for ws in wb.worksheets)  # still protected after LibreOffice saved it
    assert wb[EMBED_SHEET].sheet_state == "hidden"
    code, out, err = run(capsys, "check", edited, "--format", "json")
    assert code == 0, out + err
    code, out, err = run(capsys, "extract", edited)
    assert code == 0, err
    neo = next(m for m in yaml.safe_load(out)["markets"] if m["id"] == "neo_cloud")
    assert neo["gpu_prices"]["H100_SXM"]["base"] == 3.3
