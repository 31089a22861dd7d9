"""`generate` writes the blueprint's cells straight into the package (`workbook/streamed.py`): the package is
the one openpyxl writes for the book rendered whole (`build_workbook` + `saved_with_values`), part by part,
byte for byte (only the creation and modification times of docProps/core.xml differ: the two are saved at
different moments)."""

from __future__ import annotations

import datetime as dt
import io
import os
import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from strategies import plans

from budgetbook.ledger.embed import read_embedded_actuals
from budgetbook.ledger.model import Actuals
from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.sheetkit.embed import read_embedded_plan
from budgetbook.sheetkit.grid import Cell
from budgetbook.workbook.build import build_book, build_streamed, build_workbook
from budgetbook.workbook.cached import saved_with_values, streamed_with_values
from budgetbook.workbook.streamed import StreamedBook
from budgetbook.workbook.write import save_workbook_saying, write_workbook_saying

DAY = dt.date(2026, 1, 1)
_TIMES = re.compile(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*<")


def _parts(package: bytes) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        return [(info.filename, _TIMES.sub(rb"\1<", archive.read(info)) if info.filename == "docProps/core.xml"
                 else archive.read(info)) for info in archive.infolist()]


def _both_ways(text: str, source: str = "plan.yaml", actuals: Actuals | None = None
               ) -> tuple[list, list, dict | None, dict | None]:
    plan = plan_from_text(text, source)
    old, old_values = saved_with_values(build_workbook(plan, text, DAY, actuals=actuals))
    book = build_streamed(plan, text, DAY, actuals=actuals)
    assert isinstance(book, StreamedBook)
    new, new_values = streamed_with_values(book)
    return _parts(old), _parts(new), old_values, new_values


def _assert_same(text: str, source: str = "plan.yaml", actuals: Actuals | None = None) -> None:
    old, new, old_values, new_values = _both_ways(text, source, actuals)
    assert [name for name, _ in new] == [name for name, _ in old]
    for (name, was), (_, now) in zip(old, new, strict=True):
        assert now == was, f"{name} differs"
    assert new_values == old_values


# the most sheets and the owned cluster; random plans reach the rest, `test_samples` compares every one by value
@pytest.mark.parametrize("template", ["pretrain-7b", "own-vs-rent"])
def test_a_template_s_package_is_the_one_openpyxl_writes(template):
    assert template in template_names()
    source, text = resolve(template)
    _assert_same(text, source)


def test_a_book_with_actuals_is_the_one_openpyxl_writes():
    """The Actuals and Variance sheets too (`budgetbook actuals` and `reforecast` write through `streamed`)."""
    sample = Path(__file__).resolve().parents[2] / "samples" / "pretrain-7b-actuals.xlsx"
    wb = openpyxl.load_workbook(sample)
    actuals = read_embedded_actuals(wb, sample.read_bytes())
    assert actuals is not None and actuals.charges
    _assert_same(read_embedded_plan(wb)[1], "pretrain-7b-actuals.xlsx", actuals)


def _hostile() -> str:
    """Plan text at every edge of a cell: spaces either end, markup, an escape, control characters, an error
    code, a formula-like label, and a comment (an input's note) past a cell's 32,767 characters."""
    source, text = resolve("finetune-13b-lora")
    text = text.replace("label: LoRA fine-tune, 13B on 2B tokens",
                        'label: "  =1+1 & <b> _x000A_ \\x01 tab\\there \\r\\n end  "')
    text = text.replace('H100_SXM: 3.00              # seed 000: "48,000 hrs x $3.00"',
                        "H100_SXM: 3.00  # " + "note _x0041_ <&> " * 2500)
    text = re.sub(r"(?m)^description: .*$", 'description: "' + "long _x0041_ " * 150 + '"', text)
    return "# =cmd|' /C calc'!A0\n" + text.replace("- role: ML engineer", "- role: '#N/A'")


def test_plan_text_at_every_edge_of_a_cell_is_written_as_openpyxl_writes_it():
    text = _hostile()
    blueprint = build_book(plan_from_text(text, "hostile.yaml"), DAY, plan_text=text)
    texts = [cell.value for sheet in blueprint.sheets for cell in sheet.cells.values() if isinstance(cell.value, str)]
    assert max(map(len, texts)) > 32_767 and any("\x01" in t and t.startswith(" ") for t in texts)
    _assert_same(text, "hostile.yaml")


@settings(max_examples=20 if os.environ.get("CI", "").lower() == "true" else 3, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(plans())
def test_any_plan_s_package_is_the_one_openpyxl_writes(case):
    plan, text = case
    _assert_same(text)


def test_generate_says_what_the_old_way_says(tmp_path):
    source, text = resolve("pretrain-7b")
    plan = plan_from_text(text, source)
    old = save_workbook_saying(build_workbook(plan, text, DAY), tmp_path / "old.xlsx")
    new = write_workbook_saying(plan, text, tmp_path / "new.xlsx", DAY)
    assert (new.sheets, new.formula_cells, new.checks_ok) == (old.sheets, old.formula_cells, old.checks_ok)
    assert new.formula_cells > 100 and new.checks_ok is True


def test_a_value_only_openpyxl_writes_builds_the_book_its_way(tmp_path):
    source, text = resolve("finetune-13b-lora")
    plan = plan_from_text(text, source)
    blueprint = build_book(plan, DAY, plan_text=text)
    blueprint.get("About").put(60, 1, dt.date(2026, 2, 3))  # a date: openpyxl writes it as its own type
    book = build_streamed(plan, text, DAY, blueprint=blueprint)
    assert not isinstance(book, StreamedBook) and book["About"].cell(60, 1).data_type == "d"


def test_a_sheet_openpyxl_renames_keeps_its_cells():
    """Two sheets of one title (whatever the case): openpyxl renames the second, and its cells go with it."""
    source, text = resolve("finetune-13b-lora")
    plan = plan_from_text(text, source)
    books = []
    for _ in range(2):
        blueprint = build_book(plan, DAY, plan_text=text)
        extra = blueprint.sheet("ABOUT", "about")
        extra.put(1, 1, "second about")
        extra.cells[(2, 1)] = Cell("=1+1", "calc")  # a formula (`put` writes text)
        books.append(blueprint)
    old, old_values = saved_with_values(build_workbook(plan, text, DAY, blueprint=books[0]))
    new, new_values = streamed_with_values(build_streamed(plan, text, DAY, blueprint=books[1]))
    assert _parts(new) == _parts(old) and new_values == old_values
    assert new_values[("ABOUT1", 2, 1)] == 2


@pytest.mark.parametrize("print_titles", [True, False])
def test_names_written_into_the_package_are_openpyxl_s(print_titles):
    """`with_names` writes the workbook-scoped names as openpyxl's writer does: first in `<definedNames>`
    beside a sheet's print titles, or in one of their own before `<calcPr>` where the book has none."""
    from openpyxl.workbook.defined_name import DefinedName

    from budgetbook.workbook.cached import with_names

    names = {"price_m0": "'Storage & egress'!$D$4", "total_m0": "'Summary'!$C$7", "w<1>": "'A'!$B$2"}

    def workbook_xml(named: bool) -> bytes:
        wb = openpyxl.Workbook()
        wb.active.title = "Storage & egress"
        if print_titles:
            wb.active.print_title_rows = "4:4"
        if named:
            for name, ref in names.items():
                wb.defined_names[name] = DefinedName(name, attr_text=ref)
        buffer = io.BytesIO()
        wb.save(buffer)
        return zipfile.ZipFile(buffer).read("xl/workbook.xml")

    assert (b"<definedNames>" in workbook_xml(False)) is print_titles
    assert with_names(workbook_xml(False), names) == workbook_xml(True)
    assert with_names(workbook_xml(False), {}) == workbook_xml(False)


def test_check_cells_share_one_range_list():
    """`merged_cells`: a column's consecutive rows one range, any order and repeats; a range as it is."""
    from budgetbook.workbook.openpyxl_book import merged_cells

    assert merged_cells(["D3", "D7", "D6", "D8", "D6", "C5", "D10", "A1:B2"]) == "A1:B2 D3 D6:D8 D10 C5"
    assert merged_cells(["D3"]) == "D3"
    assert merged_cells([]) == ""
