"""`budgetbook generate` over an existing file: never lose a user's edits.

An untouched workbook (even one LibreOffice has saved) is replaced; an edited
one is refused with a pointer to `extract` and `--force`; a file budgetbook did
not make is refused unless `--force`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import openpyxl
import pytest
from cli_run import run, sha
from libreoffice import needs_libreoffice, needs_uno, recalculate, uno_session

from budgetbook.api import generate_workbook
from budgetbook.planfile.loader import template_text
from budgetbook.sheetkit.embed import read_embedded_plan

FT = "finetune-13b-lora"


def embedded(path: Path) -> str:
    return read_embedded_plan(openpyxl.load_workbook(path))[1]


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("generate")


@pytest.fixture(scope="module")
def pristine(work) -> Path:
    return generate_workbook(FT, work / "pristine.xlsx")


@pytest.fixture
def copy(pristine, tmp_path):
    def make(edit=None, name="book.xlsx") -> Path:
        out = tmp_path / name
        if edit is None:
            shutil.copyfile(pristine, out)
        else:
            wb = openpyxl.load_workbook(pristine)
            edit(wb)
            wb.save(out)
        return out
    return make


def assert_refused_as_edited(capsys, book: Path, *, what: str) -> None:
    before = sha(book)
    code, out, err = run(capsys, "generate", "pretrain-7b", "-o", book)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith(f"Error: {book}: was edited since it was generated (")
    assert what in err
    assert f"run `budgetbook extract {book} -o plan.yaml` first to keep the edits" in err
    assert "--force" in err
    assert sha(book) == before


def assert_replaced(capsys, book: Path, *force) -> None:
    code, out, err = run(capsys, "generate", "pretrain-7b", "-o", book, *force)
    assert (code, err) == (0, "") and out.startswith(f"Wrote {book}: ")
    assert embedded(book) == template_text("pretrain-7b")
    code, out, err = run(capsys, "check", book, "--format", "json")
    assert code == 0 and '"findings": []' in out


def test_new_file_is_written(capsys, tmp_path):
    out = tmp_path / "new.xlsx"
    assert_replaced(capsys, out)


def test_untouched_workbook_is_replaced(capsys, copy):
    assert_replaced(capsys, copy())


@needs_libreoffice
def test_untouched_workbook_saved_by_libreoffice_is_replaced(capsys, pristine, work):
    saved = recalculate(pristine, work / "lo")
    assert_replaced(capsys, saved)


@needs_uno
def test_rows_inserted_in_libreoffice_input_typed_is_refused(capsys, pristine, work):
    with uno_session() as session:
        book = session.edit(pristine, work / "uno" / "typed.xlsx", [
            {"op": "insert_rows", "sheet": "Inputs", "index": 3, "count": 1},
            {"op": "set_value", "sheet": "Inputs", "cell": "C6", "value": 2.5}])
    assert_refused_as_edited(capsys, book, what="Inputs!C6 (mkt_hyperscaler_on_demand_price_h100_sxm): "
                                                "Hyperscaler (on-demand) price per GPU-hour, H100_SXM: 3 -> 2.5)")


def test_input_edited_is_refused_then_force_replaces(capsys, copy):
    book = copy(lambda wb: wb["Inputs"].__setitem__("C5", 2.5))
    assert_refused_as_edited(capsys, book, what="Inputs!C5 (mkt_hyperscaler_on_demand_price_h100_sxm): "
                                                "Hyperscaler (on-demand) price per GPU-hour, H100_SXM: 3 -> 2.5")
    assert_replaced(capsys, book, "--force")


def test_formula_edited_is_refused(capsys, copy):
    book = copy(lambda wb: wb["Compute"].__setitem__("C16", "=SUM(C12)*1.1"))
    assert_refused_as_edited(capsys, book, what="Compute!C16 (compute_hyperscaler_on_demand): "
                                                "formula differs from the one generated")


def test_figure_typed_over_is_refused(capsys, copy):
    book = copy(lambda wb: wb["Summary"].__setitem__("C21", 250000))  # under the decision rows
    assert_refused_as_edited(capsys, book, what="Summary!C21 (total_hyperscaler_on_demand)")


def test_deleted_sheet_is_refused(capsys, copy):
    book = copy(lambda wb: wb.remove(wb["People"]))
    assert_refused_as_edited(capsys, book, what="is gone")


def test_several_edits_are_counted(capsys, copy):
    def edit(wb):
        wb["Inputs"]["C5"] = 2.5
        wb["Inputs"]["C23"] = 3
        wb["Compute"]["C16"] = 1
    book = copy(edit)
    # the first three are named (issue 16: "report the first few differences"), the rest counted
    assert_refused_as_edited(capsys, book, what="3 -> 2.5; Inputs!C23")
    assert_refused_as_edited(capsys, book, what="; Compute!C16 (compute_hyperscaler_on_demand): formula `=SUM(C12)` "
                                                "replaced by 1); run")


@pytest.mark.parametrize("kind", ["text", "plain-xlsx"])
def test_foreign_file_is_refused_without_force(capsys, tmp_path, kind):
    book = tmp_path / "foreign.xlsx"
    if kind == "text":
        book.write_text("my notes, not a workbook\n")
    else:
        wb = openpyxl.Workbook()
        wb.active["A1"] = "my own spreadsheet"
        wb.save(book)
    before = sha(book)
    code, out, err = run(capsys, "generate", FT, "-o", book)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith(f"Error: {book}: exists and is not a budgetbook workbook we can read (")
    assert err.endswith("move it away or pass --force to replace it\n")
    assert sha(book) == before
    code, out, err = run(capsys, "generate", FT, "-o", book, "--force")
    assert (code, err) == (0, "") and out.startswith(f"Wrote {book}: ")
    assert embedded(book) == template_text(FT)


def test_directory_is_refused(capsys, tmp_path):
    target = tmp_path / "adir.xlsx"
    target.mkdir()
    code, out, err = run(capsys, "generate", FT, "-o", target)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and str(target) in err and "directory" in err
    assert target.is_dir()
