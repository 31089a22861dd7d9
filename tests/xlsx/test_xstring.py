"""Text that Excel and LibreOffice would change on load: OOXML's `_xHHHH_` escapes (ST_Xstring).

Both read a stored `_x000A_` as a newline and `_x0041_` as `A`. A plan whose
label or comment holds such text must look the same in the workbook and read
back identical: through `check` and `extract`, and after a LibreOffice save.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from cli_run import run, sha
from hypothesis import given
from hypothesis import strategies as st
from libreoffice import needs_libreoffice, recalculate

from budgetbook.planfile.loader import template_text

LABEL = "h100_x0041_cluster _x000A_ run"
ITEM_LABEL = "Data _x0041_ set"
PLAN = (template_text("finetune-13b-lora")
        .replace("label: LoRA fine-tune, 13B on 2B tokens", f"label: {LABEL}  # shown as written: _x000A_ _x0041_")
        .replace("\nmarkets:", "\n# a comment with _x000A_ and _x0041_ kept as written\nmarkets:")
        # openpyxl deletes `x005F_` from every shared string it reads: the embedded plan is read as stored
        + f"\nitems:\n  - id: data\n    label: {ITEM_LABEL}\n    cost: 1000\n    note: 'x005F_ stays'\n")
# text that already looks escaped: exact through budgetbook; LibreOffice 7.4 itself saves
# `_x005F_x0041_` unescaped (so reads it back as `_x0041_`), which no writer can prevent
LOOKS_ESCAPED = PLAN.replace("\nmarkets:", "\n# and _x005F_x0041_ and _x005f_x000a_\nmarkets:")


def raw_unescaped(book: Path) -> list[str]:
    """`_xHHHH_` sequences that a reader of `book` would decode but were meant literally: written without
    their underscore escaped (`_x005F_`). Of the plan's own escapes, only `_x005F_` may be decoded."""
    found = []
    with zipfile.ZipFile(book) as archive:
        for name in archive.namelist():
            if name.startswith("xl/worksheets/") or name == "xl/sharedStrings.xml":
                xml = archive.read(name).decode("utf-8")
                found += re.findall(r"_x00(?:41|0[Aa])_", re.sub(r"_x005[Ff]_", "\0", xml))
    return found


def generated(work: Path, text: str) -> Path:
    from budgetbook.cli import main

    plan = work / "plan.yaml"
    plan.write_text(text)
    out = work / "plan.xlsx"
    assert main(["generate", str(plan), "-o", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    return generated(tmp_path_factory.mktemp("xstring"), PLAN)


def check_ok_and_extract_same(capsys, book: Path, text: str = PLAN) -> None:
    before = sha(book)
    code, out, err = run(capsys, "check", book, "--format", "json")
    assert (code, err) == (0, ""), err + out
    assert '"ok": true' in out
    code, out, err = run(capsys, "extract", book)
    assert (code, err) == (0, "") and out == text
    assert sha(book) == before


def test_written_escaped_so_excel_shows_the_text(book):
    assert raw_unescaped(book) == []
    titles = openpyxl.load_workbook(book).sheetnames
    assert "Data -x0041_ set" in titles  # a sheet name is decoded too, and formulas would not follow


def test_round_trips_through_check_and_extract(capsys, book, tmp_path):
    check_ok_and_extract_same(capsys, book)
    check_ok_and_extract_same(capsys, generated(tmp_path, LOOKS_ESCAPED), LOOKS_ESCAPED)


@needs_libreoffice
def test_round_trips_through_libreoffice(capsys, book, tmp_path):
    saved = recalculate(book, tmp_path / "lo")
    check_ok_and_extract_same(capsys, saved)
    # and LibreOffice showed the labels as written: it escaped them again on save
    assert raw_unescaped(saved) == []
    wb = openpyxl.load_workbook(saved)
    texts = {c.value for ws in wb for row in ws.iter_rows() for c in row if isinstance(c.value, str)}
    assert any(LABEL in t for t in texts) and any(ITEM_LABEL in t for t in texts)


def test_an_id_that_spells_an_escape_in_a_name_is_refused(capsys, tmp_path):
    # `mkt_x1000_price_h100_sxm` would be read as `mkt` + U+1000 + `price_h100_sxm` by Excel and LibreOffice
    plan = tmp_path / "plan.yaml"
    plan.write_text(template_text("finetune-13b-lora").replace("id: decentralized_market", "id: x1000"))
    for command in (["show", plan], ["generate", plan, "-o", tmp_path / "out.xlsx"]):
        code, out, err = run(capsys, *command)
        assert (code, out) == (2, "") and err.count("\n") == 1, err
        assert err.startswith(f"Error: {plan}: `markets[1].id`: the ids make the workbook name `mkt_x1000_"), err
        assert "`_x1000_` Excel and LibreOffice read as an escaped character" in err
    assert not (tmp_path / "out.xlsx").exists()


@given(st.text(alphabet="_x005FfA1a\n", max_size=40))
def test_unescape_inverts_escape(text):
    from budgetbook.xlsx.xstring import escape, unescape

    assert unescape(escape(text)) == text
