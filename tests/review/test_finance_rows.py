"""Finance's own rows, edited in LibreOffice as a user types them (issue 31's Done-when).

One LibreOffice session serves every test here (each edit is about a second); the books are
the default template's.

- a scratch sheet whose formulas read Summary, and a helper cell on Summary: `check` exit 0
  with `user_content` info; `generate` refuses to replace the book without `--force`.
"""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from cli_run import run
from libreoffice import needs_uno, uno_session

from budgetbook.api import generate_workbook

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
        {"op": "type", "sheet": "Summary", "cell": "C40", "text": "=C16*-0.05"}])
    wb = openpyxl.load_workbook(book)
    assert wb["Summary"]["C40"].value == "=C16*-0.05" and wb["My notes"]["B1"].value.startswith("=")
    code, report = check_json(capsys, book)
    assert code == 0 and report["ok"], report["findings"]
    own = sorted((f["severity"], f["sheet"], f["cell"]) for f in report["findings"] if f["kind"] == "user_content")
    assert own == [("info", "My notes", None), ("info", "Summary", "C40")], report["findings"]
    assert all(f["severity"] == "info" for f in report["findings"])
    code, out, err = run(capsys, "generate", FT, "-o", book)
    assert code == 2 and "was edited since it was generated" in err and "My notes" in err
    code, out, err = run(capsys, "diff", pristine, book, "--format", "json")
    assert code == 0, err
    assert {(a["kind"], a["sheet"]) for a in json.loads(out)["audit"]} == {("user_content", "My notes"),
                                                                         ("user_content", "Summary")}
