"""The overwrite guard counts every edit, not only typed inputs and formulas (issue 16, item 3).

`generate plan.yaml -o book.xlsx` over an existing workbook compares it with
the workbook budgetbook would write for the book's own embedded plan: an added
sheet, notes, a helper cell, a comment, a number format, a name, an input
retyped as a formula of the same value, an edited hidden plan are all edits
the user would lose, so each is refused without `--force`. An untouched
workbook (of any template, or of a budgetbook from before stamps) still
compares equal and is replaced.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import openpyxl
import pytest
from cli_run import run, sha
from hypothesis import HealthCheck, given, settings
from libreoffice import needs_libreoffice, needs_uno, recalculate, uno_session
from openpyxl.comments import Comment
from openpyxl.workbook.defined_name import DefinedName
from strategies import plans

from budgetbook.api import generate_workbook
from budgetbook.planfile.loader import plan_from_text, template_names, template_text
from budgetbook.sheetkit.embed import read_embedded_plan
from budgetbook.workbook.build import build_workbook

FT = "finetune-13b-lora"
PRICE_CELL = "C5"          # mkt_hyperscaler_on_demand_price_h100_sxm, 3.00
COMPUTE_CELL = "C16"       # compute_hyperscaler_on_demand, =SUM(C12)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    return generate_workbook(FT, tmp_path_factory.mktemp("guard") / "pristine.xlsx")


@pytest.fixture
def edited(pristine, tmp_path):
    def make(edit) -> Path:
        wb = openpyxl.load_workbook(pristine)
        edit(wb)
        out = tmp_path / "book.xlsx"
        wb.save(out)
        return out
    return make


def refused(capsys, book: Path, *what: str) -> str:
    """`generate` over `book` exits 2 with one line naming each of `what`, and leaves the file alone."""
    before = sha(book)
    code, out, err = run(capsys, "generate", FT, "-o", book)
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1 and err.startswith(f"Error: {book}: was edited since it was generated ("), err
    for part in what:
        assert part in err, err
    assert "--force" in err and f"budgetbook extract {book}" in err
    assert sha(book) == before
    return err


def replaced(capsys, book: Path, plan: str = FT) -> None:
    code, out, err = run(capsys, "generate", plan, "-o", book)
    assert (code, err) == (0, "") and out.startswith(f"Wrote {book}: "), err
    # what it wrote: sheets, formula cells, the master check as computed, then the decision
    assert re.fullmatch(r"Wrote .*: \d+ sheets, [\d,]+ formula cells; master check TRUE \(every check passes\)\n"
                        r"(Cheapest: .* total development cost.*|One market: .*)\n", out), out


# ---------------------------------------------------------------- edits the old guard did not see

def test_added_sheet_is_an_edit(capsys, edited):
    def add(wb):
        wb.create_sheet("Notes")["A1"] = "questions for finance"
    refused(capsys, edited(add), "sheet `Notes`: added (1 cell(s) filled)")


def test_notes_typed_on_summary_are_an_edit(capsys, edited):
    refused(capsys, edited(lambda wb: wb["Summary"].__setitem__("F3", "ask Dana about the discount")),
            'Summary!F3: "ask Dana about the discount" added where budgetbook wrote nothing')


def test_helper_cell_is_an_edit(capsys, edited):
    refused(capsys, edited(lambda wb: wb["Compute"].__setitem__("H20", "=C16*2")), "Compute!H20: =C16*2 added")


@pytest.mark.parametrize("formula", ["=3", "=1.5*2"])
def test_input_turned_into_a_formula_of_the_same_value_is_an_edit(capsys, edited, formula):
    refused(capsys, edited(lambda wb: wb["Inputs"].__setitem__(PRICE_CELL, formula)),
            f"Inputs!C5 (mkt_hyperscaler_on_demand_price_h100_sxm): Hyperscaler (on-demand) price per GPU-hour, "
            f"H100_SXM: 3 -> {formula}")


def test_comment_is_an_edit(capsys, edited):
    def note(wb):
        wb["Inputs"][PRICE_CELL].comment = Comment("negotiated: ask for 2.80", "Dana")
    refused(capsys, edited(note), "Inputs!C5 (mkt_hyperscaler_on_demand_price_h100_sxm): comment")


def test_number_format_is_an_edit(capsys, edited):
    def fmt(wb):
        wb["Compute"][COMPUTE_CELL].number_format = "0.00"
    refused(capsys, edited(fmt), "Compute!C16 (compute_hyperscaler_on_demand): number format")


def test_defined_name_added_is_an_edit(capsys, edited):
    def name(wb):
        wb.defined_names["my_rate"] = DefinedName("my_rate", attr_text="Inputs!$C$5")
    refused(capsys, edited(name), "name `my_rate`: added (`Inputs!C5`)")


def test_text_on_about_is_an_edit(capsys, edited):
    refused(capsys, edited(lambda wb: wb["About"].__setitem__("B4", "our own description")),
            'About!B4: ', '"our own description"')


def test_hidden_row_is_an_edit(capsys, edited):
    def hide(wb):
        wb["Compute"].row_dimensions[16].hidden = True
    refused(capsys, edited(hide), "sheet `Compute`: rows 16 hidden")


def test_moved_sheet_is_an_edit(capsys, edited):
    refused(capsys, edited(lambda wb: wb.move_sheet("Summary", offset=-3)), "sheets: reordered")


def test_edited_hidden_plan_is_an_edit(capsys, edited):
    def retype(wb):
        ws = wb["_budgetbook"]
        ws["B4"] = ws["B4"].value.replace("# ", "#  ", 1)  # a comment of the YAML, figures untouched
    refused(capsys, edited(retype), "_budgetbook!E1: the hidden plan or its stamp was edited after generate")


def test_several_edits_show_the_first_three_and_count_the_rest(capsys, edited):
    def edit(wb):
        wb["Inputs"][PRICE_CELL] = 2.5
        wb["Inputs"]["C23"] = 3
        wb["Compute"][COMPUTE_CELL] = 1
        wb["Summary"]["F3"] = "note"
    err = refused(capsys, edited(edit), "Inputs!C5 (mkt_hyperscaler_on_demand_price_h100_sxm)", "Inputs!C23",
                  "Compute!C16 (compute_hyperscaler_on_demand): formula `=SUM(C12)` replaced by 1",
                  " and 1 more change(s))")
    assert "Summary!F3" not in err


def test_inserted_row_is_one_difference(capsys, edited):
    err = refused(capsys, edited(lambda wb: wb["About"].insert_rows(5)), "About: row 5 inserted")
    assert "more change" not in err


# ---------------------------------------------------------------- untouched still replaced

@pytest.mark.parametrize("template", template_names())
def test_untouched_workbook_of_every_template_is_replaced(capsys, tmp_path, template):
    book = generate_workbook(template, tmp_path / "book.xlsx")
    replaced(capsys, book, template)
    assert read_embedded_plan(openpyxl.load_workbook(book))[1] == template_text(template)


def test_untouched_workbook_resaved_by_openpyxl_is_replaced(capsys, pristine, tmp_path):
    book = tmp_path / "resaved.xlsx"
    openpyxl.load_workbook(pristine).save(book)
    replaced(capsys, book)


def test_untouched_workbook_made_before_stamps_is_replaced(capsys, tmp_path):
    """A workbook from before the digest on `_budgetbook`: rebuilt without one, it still compares equal."""
    text = template_text(FT)
    book = tmp_path / "old.xlsx"
    build_workbook(plan_from_text(text, FT), text, stamp=False).save(book)
    replaced(capsys, book)


def test_untouched_copy_is_replaced_and_the_guard_is_quick(capsys, pristine, tmp_path):
    from budgetbook.review.guard import edits_since_generated

    book = tmp_path / "copy.xlsx"
    shutil.copyfile(pristine, book)
    start = time.perf_counter()
    assert edits_since_generated(book) == []
    assert time.perf_counter() - start < 10  # about 0.3 s; generous for a shared two-core machine
    replaced(capsys, book)


@settings(max_examples=25 if os.environ.get("CI", "").lower() == "true" else 5, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(plans())
def test_untouched_workbook_of_any_plan_compares_equal_to_its_rebuild(tmp_path_factory, case):
    """Texts starting with `=`, odd currencies, every line item: the rebuild is what was written, cell for cell."""
    from budgetbook.review.guard import edits_since_generated
    from budgetbook.review.readback import open_book
    from budgetbook.review.structure import audit_structure
    from budgetbook.workbook.write import write_workbook

    plan, text = case
    book = write_workbook(plan, text, tmp_path_factory.mktemp("anyplan") / "book.xlsx")
    assert edits_since_generated(book) == []
    assert audit_structure(open_book(book)) == []  # and check's structure audit finds the layout's own


@needs_uno
def test_row_added_above_the_total_in_libreoffice_is_named_as_such(capsys, pristine, tmp_path):
    """The row the user typed and the total they extended over it: not every row below."""
    with uno_session() as session:
        book = session.edit(pristine, tmp_path / "legal.xlsx", [
            {"op": "insert_rows", "sheet": "Summary", "index": 20, "count": 1},  # under the Adjustments line
            {"op": "set_value", "sheet": "Summary", "cell": "A21", "value": "Legal review"},
            {"op": "set_value", "sheet": "Summary", "cell": "C21", "value": 5000},
            {"op": "set_formula", "sheet": "Summary", "cell": "C22", "formula": "=SUM(C16,C17,C18,C19,C20,C21)"}])
    err = refused(capsys, book, 'Summary!A21: "Legal review" added; Summary!C21: 5000 added; '
                                "Summary!C22 (total_hyperscaler_on_demand): formula differs from the one generated "
                                "(`=SUM(C16,C17,C18,C19,C20)` -> `=SUM(C16,C17,C18,C19,C20,C21)`))")
    assert "more change" not in err


def test_workbook_of_another_version_is_rebuilt_as_that_version(capsys, tmp_path):
    """The About sheet says which budgetbook wrote it: untouched compares equal; edited says so."""
    text = template_text(FT)
    book = tmp_path / "older.xlsx"
    build_workbook(plan_from_text(text, FT), text, version="0.0.9").save(book)
    from budgetbook.review.guard import edits_since_generated

    assert edits_since_generated(book) == []
    wb = openpyxl.load_workbook(book)
    wb["Summary"]["F3"] = "note"
    wb.save(book)
    refused(capsys, book, 'Summary!F3: "note" added where budgetbook wrote nothing) (it was made by budgetbook '
                          "0.0.9, this is ")
    replaced(capsys, book.with_name("fresh.xlsx"))


@needs_libreoffice
@settings(max_examples=10 if os.environ.get("CI", "").lower() == "true" else 3, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(plans())
def test_untouched_workbook_of_any_plan_saved_by_libreoffice_is_replaceable(tmp_path_factory, case):
    """LibreOffice respells formulas and number formats and saves 15 significant digits: not edits."""
    from budgetbook.review.guard import edits_since_generated
    from budgetbook.review.readback import open_book
    from budgetbook.review.structure import audit_structure
    from budgetbook.workbook.write import write_workbook

    plan, text = case
    folder = tmp_path_factory.mktemp("anyplan-lo")
    saved = recalculate(write_workbook(plan, text, folder / "book.xlsx"), folder / "lo")
    assert edits_since_generated(saved) == []
    assert audit_structure(open_book(saved)) == []
