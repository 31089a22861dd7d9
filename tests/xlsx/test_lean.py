"""The lean reader gives what openpyxl gives, read in the safety scan's one pass over the package."""

from __future__ import annotations

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
