"""The lean reader gives what openpyxl gives, read in the safety scan's one pass over the package."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from budgetbook.planfile.loader import plan_from_text, resolve
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx import xml_scan
from budgetbook.xlsx.lean_book import LeanWorkbook
from budgetbook.xlsx.safety import load_xlsx, read_xlsx
from budgetbook.xlsx.xstring import stored_texts


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    source, text = resolve("finetune-13b-lora")
    return write_workbook(plan_from_text(text, source), text, tmp_path_factory.mktemp("lean") / "book.xlsx")


def test_cells_names_and_flags_as_openpyxl_reads_them(book: Path):
    lean, full = read_xlsx(book), load_xlsx(book)
    a, b = lean.workbook, full.workbook
    assert isinstance(a, LeanWorkbook)
    assert a.sheetnames == b.sheetnames
    assert {n: d.attr_text for n, d in a.defined_names.items()} == {n: d.attr_text for n, d in b.defined_names.items()}
    for mine, theirs in zip(a.worksheets, b.worksheets, strict=True):
        assert (mine.title, mine.sheet_state) == (theirs.title, theirs.sheet_state)
        assert {k: (c.value, c.data_type) for k, c in mine._cells.items()} == \
            {k: (c.value, c.data_type) for k, c in theirs._cells.items()}
        assert {r for r, d in mine.row_dimensions.items() if d.hidden} == \
            {r for r, d in theirs.row_dimensions.items() if d.hidden}
        assert a.stored_texts(mine.title) == stored_texts(full.info.data, mine.title)


def test_reading_leaves_no_cycles_for_the_collector(book: Path):
    """Each scan lets go of its parser and collector when its part is read (`_XmlScan.close`): the reader's
    work (a tuple per name, per styled number, per text) is freed as it goes, not when the collector runs,
    which `check` holds off while reading."""
    gc.collect()
    gc.disable()
    try:
        loaded = read_xlsx(book)
        assert gc.collect() == 0
    finally:
        gc.enable()
    assert len(loaded.workbook.defined_names) > 100


def test_one_pass_over_each_part(book: Path, monkeypatch):
    """Each XML part is parsed once: the safety scan and the lean reader share the pass."""
    parsed: list[str] = []
    real = xml_scan._XmlScan.__init__

    def counting(self, name, *args, **kwargs):
        parsed.append(name)
        real(self, name, *args, **kwargs)

    monkeypatch.setattr(xml_scan._XmlScan, "__init__", counting)
    read_xlsx(book)
    assert parsed and len(parsed) == len(set(parsed))


@pytest.mark.parametrize("command", [["check", "{book}"], ["extract", "{book}"], ["diff", "{plan}", "{book}"],
                                     ["show", "{book}", "--format", "json"]])
def test_a_command_reads_the_book_once_and_lays_its_plan_out_once(book: Path, command, capsys, monkeypatch):
    """`check`, `extract`, `diff PLAN BOOK` and `show BOOK`: each XML part parsed once, and the plan laid out
    once, though `extract` loads the text it extracted and `diff` the plan file beside the book's own plan
    (`workbook.memo`: a layout per plan content, ~2 s on a 100-workload portfolio)."""
    from cli_run import run

    from budgetbook.planfile.loader import resolve
    from budgetbook.workbook import build

    plan = book.with_name("plan.yaml")
    plan.write_text(resolve("finetune-13b-lora")[1])
    parsed: list[str] = []
    builds: list[int] = []
    real_scan, real_build = xml_scan._XmlScan.__init__, build.build_book

    def counting_scan(self, name, *args, **kwargs):
        parsed.append(name)
        real_scan(self, name, *args, **kwargs)

    def counting_build(*args, **kwargs):
        builds.append(1)
        return real_build(*args, **kwargs)

    monkeypatch.setattr(xml_scan._XmlScan, "__init__", counting_scan)
    monkeypatch.setattr(build, "build_book", counting_build)
    code, _, err = run(capsys, *[part.format(book=book, plan=plan) for part in command])
    assert code == 0, err
    assert parsed and len(parsed) == len(set(parsed))
    assert len(builds) <= 1


def test_odd_cells_held_compactly_read_as_openpyxl_reads_them(tmp_path: Path):
    """A sheet's cells are held as a key and a value each (`lean_book.CellStore`), the data type kept apart only
    where the value does not tell it: text that starts with `=`, an error, a blank styled cell, a boolean, a
    cell written twice (openpyxl keeps the later, in the earlier's place). Each reads as openpyxl reads it,
    and reading the book makes no cell object."""
    import re

    import openpyxl
    from hostile import members_of, write_members
    from openpyxl.styles import Font

    from budgetbook.xlsx.lean_book import LeanCell

    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["B1"], ws["C1"], ws["D1"] = "=not a formula", "#N/A", True, 2.5
    ws["A1"].data_type = "s"
    ws["A2"], ws["B2"], ws["C2"] = "=D1*2", "plain text", 7
    ws["E3"].font = Font(bold=True)  # a blank cell with a style
    ws["B700"] = "far down"
    ws["C3"], ws["D3"] = "shared, then a number", "text, then a formula"
    wb.save(tmp_path / "odd.xlsx")
    members = members_of((tmp_path / "odd.xlsx").read_bytes())
    sheet = members["xl/worksheets/sheet1.xml"].decode()
    # C3 and D3 written again later in the row: the later cell is the one openpyxl keeps
    sheet = re.sub(r'(<c r="D3"[^>]*>.*?</c>)', r'\1<c r="C3"><v>41</v></c><c r="D3"><f>A2+1</f><v>15</v></c>', sheet)
    members["xl/worksheets/sheet1.xml"] = sheet.encode()
    path = tmp_path / "twice.xlsx"
    write_members(path, members)

    gc.collect()
    before = sum(isinstance(o, LeanCell) for o in gc.get_objects())
    lean = read_xlsx(path).workbook
    assert sum(isinstance(o, LeanCell) for o in gc.get_objects()) == before  # none made by reading
    full = load_xlsx(path).workbook
    assert isinstance(lean, LeanWorkbook)
    mine, theirs = lean.worksheets[0], full.worksheets[0]
    assert [(k, c.value, c.data_type) for k, c in mine._cells.items()] == \
        [(k, c.value, c.data_type) for k, c in theirs._cells.items()]
    assert [(c.row, c.column, c.value, c.data_type) for c in mine._cells.values()] == \
        [(c.row, c.column, c.value, c.data_type) for c in theirs._cells.values()]
    assert (mine["C3"].value, mine["D3"].value, mine["D3"].data_type) == (41, "=A2+1", "f")
    assert (mine.max_row, mine.max_column) == (theirs.max_row, theirs.max_column) == (700, 5)
    assert list(mine._cells) == list(theirs._cells) and len(mine._cells) == len(theirs._cells)
    assert (3, 5) in mine._cells and (4, 5) not in mine._cells and mine._cells.get((4, 5)) is None
    assert (mine.cell(4, 5).value, mine.cell(4, 5).data_type) == (None, "n")
    # a cell's value read without a cell object (`value`, what the audits read) is the cell's, blank or not
    for ref in ("A1", "B1", "C1", "D1", "A2", "C3", "D3", "E3", "B700", "E4", "$D$3", "XFD1048576"):
        assert mine.value(ref) == mine[ref].value == theirs[ref].value, ref
    with pytest.raises(ValueError):
        mine.value("A1:B2")
