"""Hostile workbooks are refused with one line naming the file, fast, and are never modified."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import hostile
import openpyxl
import pytest

from budgetbook.errors import WorkbookError
from budgetbook.xlsx.safety import Limits, inspect_xlsx, load_xlsx, open_workbook

BOMB_SIZE = 2_000_000_000


def digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def refused(path: Path, *, match: str, **kwargs) -> WorkbookError:
    """open_workbook refuses with a one-line message naming the file; the input is unchanged."""
    before = digest(path)
    with pytest.raises(WorkbookError) as caught:
        open_workbook(path, **kwargs)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    assert match in message, message
    assert digest(path) == before
    return caught.value


@pytest.fixture(scope="session")
def bomb(tmp_path_factory) -> Path:
    """2 GB of sheet XML in about 6 MB; built in ~0.3 s by repeating one flushed deflate block."""
    return hostile.zip_bomb(tmp_path_factory.mktemp("bomb") / "bomb.xlsx", BOMB_SIZE)


# ---------------------------------------------------------------- not a workbook at all

def test_missing_path(tmp_path):
    with pytest.raises(WorkbookError, match="no such file") as caught:
        open_workbook(tmp_path / "nope.xlsx")
    assert str(tmp_path / "nope.xlsx") in str(caught.value)


def test_directory(tmp_path):
    with pytest.raises(WorkbookError, match="is a directory") as caught:
        open_workbook(tmp_path)
    assert str(caught.value).startswith(f"{tmp_path}: ")


def test_fifo_is_not_read(tmp_path):
    fifo = tmp_path / "pipe.xlsx"
    os.mkfifo(fifo)
    with pytest.raises(WorkbookError, match="not a regular file"):
        open_workbook(fifo)  # would block forever if opened


def test_empty_file(tmp_path):
    path = tmp_path / "empty.xlsx"
    path.write_bytes(b"")
    refused(path, match="is empty")


def test_oversized_file(tmp_path):
    path = tmp_path / "big.xlsx"
    path.write_bytes(hostile.xlsx_bytes())
    with pytest.raises(WorkbookError, match="over the .* limit"):
        load_xlsx(path, limits=Limits(max_file_bytes=1000))


def test_ole_container_is_encrypted_or_xls(tmp_path):
    refused(hostile.ole_container(tmp_path / "locked.xlsx"),
            match="encrypted or password-protected workbook, or an old binary .xls")


def test_ods_renamed(tmp_path):
    refused(hostile.ods_file(tmp_path / "calc.xlsx"), match="(.ods): not a readable .xlsx; save it as .xlsx")


@pytest.mark.parametrize("text", ["gpu,hours,price\nH100,30000,2.5\nA100,1000,1.8\n",
                                  "gpu;hours\nH100;30000\n", "a\tb\n1\t2\n"])
def test_csv_renamed(tmp_path, text):
    path = tmp_path / "export.xlsx"
    path.write_text(text)
    refused(path, match="a CSV file renamed .xlsx")


@pytest.mark.parametrize("text, match", [
    ("<html><body><table><tr><td>1</td></tr></table></body></html>", "an HTML page"),
    ('<?xml version="1.0"?><Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"/>',
     "XML Spreadsheet 2003"),
    ("just some notes about the budget", "a text file"),
])
def test_other_text_renamed(tmp_path, text, match):
    path = tmp_path / "thing.xlsx"
    path.write_text(text)
    refused(path, match=match)


def test_binary_junk(tmp_path):
    path = tmp_path / "junk.xlsx"
    path.write_bytes(bytes(range(256)) * 4)
    refused(path, match="not a zip archive")


def test_truncated_zip(tmp_path):
    path = tmp_path / "cut.xlsx"
    data = hostile.xlsx_bytes()
    path.write_bytes(data[: len(data) // 2])
    refused(path, match="truncated or corrupt zip")


def test_corrupt_member(tmp_path):
    path = hostile.write_members(tmp_path / "rot.xlsx", hostile.members_of(hostile.xlsx_bytes()))
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(hostile.SHEET)
    name_len = len(info.filename.encode())
    start = info.header_offset + 30 + name_len + len(info.extra)
    for i in range(start + 5, start + 25):
        data[i] ^= 0x5A  # bit rot inside the deflate stream
    path.write_bytes(bytes(data))
    refused(path, match="sheet1.xml")


def test_zip_without_content_types(tmp_path):
    refused(hostile.xlsx_with(tmp_path / "a.xlsx", drop=("[Content_Types].xml",)),
            match="without `[Content_Types].xml`")


def test_zip_without_workbook(tmp_path):
    refused(hostile.xlsx_with(tmp_path / "a.xlsx", drop=("xl/workbook.xml",)),
            match="without `xl/workbook.xml`")


def test_plain_zip(tmp_path):
    path = hostile.write_members(tmp_path / "photos.xlsx", {"a.txt": b"hello"})
    refused(path, match="without `[Content_Types].xml`")


def test_xlsb(tmp_path):
    refused(hostile.xlsb_zip(tmp_path / "b.xlsx"), match=".xlsb workbook")


def test_duplicate_member(tmp_path):
    refused(hostile.duplicate_member_zip(tmp_path / "twice.xlsx"), match="twice")


# ---------------------------------------------------------------- zip bombs

def test_two_gigabyte_bomb_refused_fast(bomb):
    start = time.perf_counter()
    error = refused(bomb, match="zip bomb")
    assert time.perf_counter() - start < 1.0
    assert "2.0 GB" in str(error)


def test_two_gigabyte_bomb_memory_in_a_fresh_process(bomb):
    # a fresh interpreter so that peak RSS belongs to this refusal alone
    script = textwrap.dedent(f"""
        import json, resource, sys, time, tracemalloc
        from budgetbook.xlsx.safety import open_workbook
        from budgetbook.errors import WorkbookError
        tracemalloc.start()
        start = time.perf_counter()
        try:
            open_workbook({str(bomb)!r})
        except WorkbookError as exc:
            message = str(exc)
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        # VmHWM, not ru_maxrss: Linux carries ru_maxrss across fork+exec, so a large
        # pytest parent would be counted against this child
        rss = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status")
                   if line.startswith("VmHWM:"))
        print(json.dumps({{"seconds": seconds, "traced": peak, "rss": rss, "message": message}}))
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=60, check=True)
    measured = json.loads(result.stdout)
    assert "zip bomb" in measured["message"]
    assert measured["seconds"] < 1.0
    assert measured["traced"] < 50_000_000
    assert measured["rss"] < 200_000_000


def test_lying_header_is_caught_while_streaming(tmp_path):
    # headers claim 10 KB; the stream holds 2 GB: the declared-size checks all pass
    path = hostile.zip_bomb(tmp_path / "liar.xlsx", BOMB_SIZE, declared=10_000)
    start = time.perf_counter()
    refused(path, match="inflates beyond its declared 10,000 bytes")
    assert time.perf_counter() - start < 1.0


def test_ratio_limit_on_a_large_member(tmp_path):
    # 20 MB is within the total limit, but nothing real deflates 300x
    refused(hostile.zip_bomb(tmp_path / "dense.xlsx", 20_000_000), match="inflates")


def test_configurable_total_limit(tmp_path):
    path = hostile.xlsx_with(tmp_path / "ok.xlsx")
    refused(path, match="would inflate to over", max_uncompressed=5_000)


def test_too_many_members(tmp_path):
    members = hostile.members_of(hostile.xlsx_bytes())
    members.update({f"xl/media/image{i}.png": b"" for i in range(60)})
    path = hostile.write_members(tmp_path / "many.xlsx", members)
    with pytest.raises(WorkbookError, match="members, over the limit of 50"):
        load_xlsx(path, limits=Limits(max_members=50))


def test_merge_bomb(tmp_path):
    start = time.perf_counter()
    refused(hostile.merge_bomb_xlsx(tmp_path / "merge.xlsx"), match="merges 17,179,869,184 cells")
    assert time.perf_counter() - start < 1.0


def test_cell_limit(tmp_path):
    with pytest.raises(WorkbookError, match="cells"):
        load_xlsx(hostile.xlsx_with(tmp_path / "cells.xlsx"), limits=Limits(max_cells=3))


def _named(count: int) -> dict[str, bytes]:
    """The small workbook with `count` defined names and a shared-string table of five strings."""
    from openpyxl.workbook.defined_name import DefinedName

    wb = hostile.small_workbook()
    for i in range(count):
        wb.defined_names[f"n{i}"] = DefinedName(f"n{i}", attr_text="Inputs!$B$2")
    members = hostile.members_of(hostile.xlsx_bytes(wb))
    strings = "".join(f"<si><t>s{i}</t></si>" for i in range(5))
    members["xl/sharedStrings.xml"] = hostile.XML_DECL + f'<sst xmlns="{hostile.MAIN_NS}">{strings}</sst>'.encode()
    return members


@pytest.mark.parametrize(("limits", "message"), [
    (Limits(max_rows=2), "holds over 2 rows, more than a budget workbook needs (limit reached in sheet `Inputs`)"),
    (Limits(max_shared_strings=3), "holds over 3 shared strings, more than a budget workbook needs "
                                   "(limit reached in `xl/sharedStrings.xml`)"),
    (Limits(max_defined_names=30), "holds over 30 defined names, more than a budget workbook needs "
                                   "(limit reached in `xl/workbook.xml`)"),
    (Limits(max_objects=2), "holds over 2 relationships, more than a budget workbook needs "
                            "(limit reached in `xl/_rels/workbook.xml.rels`)"),
    (Limits(max_used_range=8), "sheet `Inputs` reaches cell F3: its used range A1:F3 is 18 cells, over the "
                               "limit of 8; delete the far-away rows and columns (Ctrl+End shows the last "
                               "cell) and save again"),
])
def test_each_kind_of_object_has_a_limit(tmp_path, limits, message):
    path = hostile.write_members(tmp_path / "named.xlsx", _named(40))
    with pytest.raises(WorkbookError) as caught:
        load_xlsx(path, limits=limits)
    assert str(caught.value) == f"{path}: {message}"
    load_xlsx(path)  # the same workbook is fine within the default limits


@pytest.mark.parametrize(("craft", "message"), [
    (hostile.far_away_cell, "sheet `Inputs` reaches cell XFD1048576: its used range A1:XFD1048576 is "
                            "17,179,869,184 cells"),
    (hostile.hyperlink_over_the_grid, "sheet `Inputs` has hyperlinks over 17,179,869,184 cells (limit 1,000,000)"),
])
def test_a_few_bytes_asking_for_the_whole_grid_are_refused_fast(tmp_path, craft, message):
    path = hostile.with_sheet_xml(tmp_path / "grid.xlsx", hostile.xlsx_bytes(), "Inputs", craft)
    start = time.perf_counter()
    refused(path, match=message)
    assert time.perf_counter() - start < 1.0


# ---------------------------------------------------------------- hostile XML

def test_defusedxml_is_active():
    assert openpyxl.DEFUSEDXML


def test_billion_laughs_refused_not_expanded(tmp_path):
    path = hostile.billion_laughs_xlsx(tmp_path / "lol.xlsx")
    start = time.perf_counter()
    refused(path, match="declares a DTD")
    assert time.perf_counter() - start < 1.0


def test_xxe_refused(tmp_path):
    error = refused(hostile.xxe_xlsx(tmp_path / "xxe.xlsx"), match="declares a DTD")
    assert "root:" not in str(error)


@pytest.mark.parametrize("craft", [hostile.billion_laughs_xlsx, hostile.xxe_xlsx])
def test_openpyxl_alone_refuses_too(tmp_path, craft):
    # the second line of defence: even without our scan, openpyxl parses through defusedxml
    from defusedxml import DefusedXmlException

    path = craft(tmp_path / "x.xlsx")
    with pytest.raises(ValueError) as caught:  # openpyxl wraps it in a ValueError of its own
        openpyxl.load_workbook(path)
    assert isinstance(caught.value.__cause__, DefusedXmlException)


@pytest.mark.parametrize("stored", [False, True])
def test_dtd_in_a_part_with_a_binary_name(tmp_path, stored):
    # stored, the first 1 MB the scanner sees is only whitespace: still scanned
    padded = b" " * 1_500_000 + hostile.sheet_with_prolog(hostile.BILLION_LAUGHS)[len(hostile.XML_DECL):]
    path = hostile.disguised_sheet_xlsx(tmp_path / "d.xlsx", padded, stored=stored)
    refused(path, match="sheet1.bin` declares a DTD", max_ratio=10_000)


def test_disguised_sheet_still_loads(tmp_path):
    sheet = hostile.members_of(hostile.xlsx_bytes())[hostile.SHEET]
    path = hostile.disguised_sheet_xlsx(tmp_path / "d.xlsx", sheet)
    assert open_workbook(path)["Inputs"]["B2"].value == 30000


def test_malformed_xml(tmp_path):
    path = hostile.xlsx_with(tmp_path / "bad.xlsx", replace={hostile.SHEET: b"<worksheet><sheetData>"})
    refused(path, match="not well-formed XML")


# ---------------------------------------------------------------- reported, not refused

def test_clean_workbook_loads_and_is_detached(tmp_path):
    path = tmp_path / "ok.xlsx"
    path.write_bytes(hostile.xlsx_bytes())
    before = digest(path)
    loaded = load_xlsx(path)
    assert loaded.workbook["Inputs"]["C2"].value == "=B2*B3"
    assert loaded.info.kind == "xlsx" and loaded.info.notes() == []
    assert loaded.info.sha256 == before
    # the workbook holds no handle on the file: it can go, and a save goes elsewhere
    path.unlink()
    loaded.workbook.save(tmp_path / "copy.xlsx")
    assert open_workbook(tmp_path / "copy.xlsx", data_only=True)["Inputs"]["B2"].value == 30000


def test_macros_reported(tmp_path):
    path = hostile.macro_xlsx(tmp_path / "m.xlsx")
    before = digest(path)
    info = load_xlsx(path).info
    assert info.kind == "xlsm" and info.has_macros
    assert info.macros == ("xl/vbaProject.bin",)
    assert [kind for kind, _ in info.notes()] == ["macros"]
    assert "never runs them" in info.notes()[0][1]
    assert digest(path) == before


def test_external_links_reported(tmp_path):
    info = inspect_xlsx(hostile.external_link_xlsx(tmp_path / "l.xlsx"))
    assert info.external_links == ("xl/externalLinks/externalLink1.xml",)
    assert info.notes()[0][0] == "external_links"


def test_tables_reported(tmp_path):
    path = tmp_path / "t.xlsx"
    path.write_bytes(hostile.xlsx_bytes(hostile.small_workbook(table=True)))
    info = inspect_xlsx(path)
    assert info.tables == ("xl/tables/table1.xml",)
    assert "tables" in dict(info.notes())
