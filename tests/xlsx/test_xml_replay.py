"""The replay (`xml_replay`) reads a part as streaming it through expat does: the same workbook, counts and refusals.

`read_xlsx` is run twice on each real book: as it runs (a plain part inflated whole, checked by expat, its
elements replayed from its text, runs of plain cells and names in one step) and with every part streamed
through expat's handlers as before (`FAST_PART_BYTES` below any part), and what each gives is compared.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from xml.parsers import expat

import hostile
import openpyxl
import pytest

from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx import xml_scan
from budgetbook.xlsx.lean_book import LeanWorkbook
from budgetbook.xlsx.limits import DEFAULT_LIMITS, Limits
from budgetbook.xlsx.safety import read_xlsx
from budgetbook.xlsx.xml_replay import Replay, plain_start

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "review"))
from test_check_at_scale import portfolio_book  # noqa: E402

X14AC = "http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"


def snapshot(path: Path, limits: Limits = DEFAULT_LIMITS) -> object:
    """What `read_xlsx` gives, as plain data: the workbook, every cell, name and flag, the counts; or its refusal."""
    try:
        loaded = read_xlsx(path, limits=limits)
    except Exception as exc:  # noqa: BLE001 - the refusal is what is compared
        return f"{type(exc).__name__}: {exc}"
    wb, info = loaded.workbook, loaded.info
    sheets = []
    for ws in wb.worksheets:
        sheets.append((ws.title, ws.sheet_state, {k: (c.value, c.data_type) for k, c in ws._cells.items()},
                       {r: d.hidden for r, d in ws.row_dimensions.items()},
                       {k: (d.hidden, d.min, d.max) for k, d in ws.column_dimensions.items()},
                       {n: (d.attr_text, d.localSheetId) for n, d in ws.defined_names.items()},
                       dict(getattr(ws, "_texts", {})), getattr(ws, "_all_refs", None)))
    return (type(wb).__name__, wb.sheetnames, sheets,
            {n: (d.attr_text, d.localSheetId) for n, d in wb.defined_names.items()},
            {k: v for k, v in vars(info).items() if k != "data"})


def both_ways(path: Path, monkeypatch, limits: Limits = DEFAULT_LIMITS) -> tuple[object, object]:
    replayed = snapshot(path, limits)
    with monkeypatch.context() as patch:
        patch.setattr(xml_scan, "FAST_PART_BYTES", -1)  # every part streamed through expat's handlers
        streamed = snapshot(path, limits)
    return replayed, streamed


@pytest.fixture(scope="module")
def books(tmp_path_factory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("replay")
    out = {"portfolio": portfolio_book(work, 8, 3)}
    resaved = openpyxl.load_workbook(out["portfolio"])  # saved again by openpyxl: its texts as shared strings
    resaved.save(work / "resaved.xlsx")
    out["resaved"] = work / "resaved.xlsx"
    for name in template_names()[:3]:
        source, text = resolve(name)
        out[name] = write_workbook(plan_from_text(text, source), text, work / f"{name}.xlsx")
    return out


def test_a_generated_book_reads_the_same_replayed_as_streamed(books, monkeypatch):
    for name, path in books.items():
        replayed, streamed = both_ways(path, monkeypatch)
        assert replayed == streamed, name
        assert replayed[0] == LeanWorkbook.__name__, name


@pytest.mark.skipif(shutil.which("ssconvert") is None, reason="needs Gnumeric's ssconvert")
@pytest.mark.parametrize("compact", [False, True])
def test_a_book_gnumeric_wrote_reads_the_same_replayed_as_streamed(books, compact, tmp_path, monkeypatch):
    """Another writer's whole package: a declaration, shared strings, its own namespace, indented XML (or the
    same without the indent, so its cells, rows and shared strings come in runs)."""
    path = tmp_path / "gnumeric.xlsx"
    subprocess.run(["ssconvert", str(books["portfolio"]), str(path)], check=True, capture_output=True, timeout=300)
    members = hostile.members_of(path.read_bytes())
    assert "xl/sharedStrings.xml" in members
    if compact:
        hostile.write_members(path, {name: re.sub(rb">[ \t\r\n]+<", b"><", data) if name.endswith(".xml") else data
                                     for name, data in members.items()})
    replayed, streamed = both_ways(path, monkeypatch)
    assert replayed == streamed
    assert replayed[0] == LeanWorkbook.__name__


def excel_like(xml: bytes) -> bytes:
    """A sheet as another writer might store it: a declaration and CRLFs, namespaces declared in the root and
    inside, attributes in another order and quoting, row attributes of another namespace, text that needs
    decoding, shared formulas, an empty <v/>, a rich inline string."""
    text = xml.decode()
    text = text.replace("<worksheet ", f'<worksheet xmlns:mc="{MC}" xmlns:x14ac="{X14AC}" mc:Ignorable="x14ac" ', 1)
    text = re.sub(r'<row r="(\d+)"', lambda m: f'<row r="{m.group(1)}" x14ac:dyDescent="0.25"', text)
    count = 0

    def cell(m: re.Match) -> str:
        nonlocal count
        count += 1
        ref, style = m.group(1), m.group(2)
        if count % 5 == 0:
            return f"<c s='{style}' r='{ref}'"
        if count % 7 == 0:
            return f'<c\r\n r="{ref}"  s="{style}"'
        return m.group(0)

    text = re.sub(r'<c r="([A-Z]+[0-9]+)" s="([0-9]+)"', cell, text)
    text = text.replace("<t>", '<t xml:space="preserve">', 3)
    text = text.replace("</sheetData>", '<row r="900"><c r="A900" t="inlineStr"><is><r><t>a&#13;&#10;b\r\n'
                        ' &amp;lt; &#38;lt; &quot;</t></r><rPh sb="0" eb="1"><t>x</t></rPh><r><t>c</t></r></is></c>'
                        '<c r="B900"><f t="shared" ref="B900:D900" si="7">A900&amp;"x"</f><v></v></c>'
                        '<c r="C900"><f t="shared" si="7"/></c><c r="D900" t="str"><f t="shared" si="7"/>'
                        '<v>y</v></c><c r="E900"><v/></c><c r="F900" t="b"><v>1</v></c>'
                        '<c r="G900" t="e"><v>#REF!</v></c></row></sheetData>', 1)
    text = text.replace("</worksheet>", '<extLst><ext uri="{x}" xmlns:x14="http://schemas.microsoft.com/office/'
                        'spreadsheetml/2009/9/main"><x14:dataValidations count="0"/></ext></extLst></worksheet>')
    return b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n' + text.replace("\n", "\r\n").encode()


def prefixed(xml: bytes) -> bytes:
    """The sheet with the main namespace under a prefix (`x:c`): no default namespace to take a plain cell in."""
    text = xml.decode()
    text = re.sub(r"<(/?)([A-Za-z]+)([ />])", r"<\1x:\2\3", text)
    return text.replace('x:worksheet xmlns="', 'x:worksheet xmlns:x="', 1).encode()


@pytest.mark.parametrize("edit", [excel_like, prefixed])
def test_a_book_another_writer_stored_reads_the_same_replayed_as_streamed(books, edit, tmp_path, monkeypatch):
    base = books["portfolio"].read_bytes()
    path = tmp_path / "edited.xlsx"
    members = hostile.members_of(base)
    for title in ("Inputs", "Compute", "Cash flow"):
        members[hostile.sheet_part(base, title)] = edit(members[hostile.sheet_part(base, title)])
    hostile.write_members(path, members)
    replayed, streamed = both_ways(path, monkeypatch)
    assert replayed == streamed
    assert not isinstance(replayed, str), replayed


def test_each_limit_refuses_at_the_same_element_replayed_as_streamed(books, monkeypatch):
    path = books["portfolio"]
    cells = read_xlsx(path).info.cells
    names = len(read_xlsx(path).workbook.defined_names)
    for field, values in (("max_cells", (0, 1, 40, cells // 2, cells - 1, cells)),
                          ("max_defined_names", (0, 3, names // 2, names + 20)),
                          ("max_rows", (0, 10, 500)), ("max_objects", (0, 50, 5000))):
        for value in values:
            replayed, streamed = both_ways(path, monkeypatch, replace(DEFAULT_LIMITS, **{field: value}))
            assert replayed == streamed, (field, value)


def test_a_part_cut_short_after_a_limit_is_refused_for_the_limit_either_way(books, tmp_path, monkeypatch):
    base = books["portfolio"].read_bytes()
    path = hostile.with_sheet_xml(tmp_path / "cut.xlsx", base, "Compute", lambda xml: xml[:len(xml) * 3 // 4])
    for limits in (DEFAULT_LIMITS, replace(DEFAULT_LIMITS, max_cells=100)):
        replayed, streamed = both_ways(path, monkeypatch, limits)
        assert replayed == streamed
        assert "Refused" in str(replayed) or "WorkbookError" in str(replayed)


class Recorder:
    """A real expat parser whose handlers note every event: what the replay is held to, element by element."""

    def __init__(self) -> None:
        self.events: list[tuple] = []
        self.collector = None
        self.parser = expat.ParserCreate(namespace_separator="}")
        self.parser.buffer_text = True
        self.parser.StartElementHandler = lambda tag, attrs: self.events.append(("start", tag, attrs))
        self.parser.EndElementHandler = lambda tag: self.events.append(("end", tag))
        self.parser.CharacterDataHandler = self._text

    def _text(self, data: str) -> None:
        if self.events and self.events[-1][0] == "text":  # expat may hand one run of text in pieces
            self.events[-1] = ("text", self.events[-1][1] + data)
        else:
            self.events.append(("text", data))

    def _start(self, tag, attrs) -> None:
        raise AssertionError("not the scan's handler")

    _start_collected = _start


ODD = [
    b'<a xmlns="urn:m" xmlns:r="urn:r" r:id="5" x="a\tb\r\nc&#10;d&#9;" y=\'q"&gt;/\'><b xml:space="preserve"'
    b' xmlns="">t\r\n&amp;&#13;x&#x41;&apos;</b><r:c/><c  r="A1"\n/><d xmlns="urn:d"><e/></d>  </a>\r\n',
    b'<?xml version="1.0" encoding="utf-8"?>\n<x:w xmlns:x="urn:main"><x:c r="A1"><x:v>1</x:v></x:c>'
    b"<x:c r='B1' ><x:f>A1&amp;&quot;&lt;&quot;</x:f></x:c>&amp;lt;&#38;lt;</x:w>",
    "<root>caf\u00e9 \u2264 <p a='\u00e9'/>\r</root>".encode(),
]


@pytest.mark.parametrize("doc", ODD)
def test_the_replay_makes_the_calls_expat_makes(doc):
    expected = Recorder()
    expected.parser.Parse(doc, True)
    got = Recorder()
    start = plain_start(doc)
    assert start is not None
    Replay(got, doc.decode()).run(start)
    assert got.events == expected.events


@pytest.mark.parametrize("doc", [b"<!DOCTYPE a><a/>", b"<a><!-- x --></a>", b"<a><![CDATA[x]]></a>",
                                 b"<a><?pi x?></a>", b'<?xml version="1.0" encoding="ISO-8859-1"?><a/>',
                                 "<a/>".encode("utf-16")])
def test_a_part_that_is_not_plain_xml_streams_through_expat(doc):
    assert plain_start(doc) is None


def test_names_written_plainly_are_located_as_single_cell_locates_them(books):
    from budgetbook.review.readback import _PLAIN_CELL, single_cell, workbook_names

    wb = read_xlsx(books["portfolio"]).workbook
    names, _ = workbook_names(wb)
    expected = {n.lower(): single_cell(d.attr_text or "") for n, d in wb.defined_names.items()}
    assert names == {name: where for name, where in expected.items() if where is not None}
    for text in ("'Inputs'!$D$4", "'It''s'!$D$4", "Inputs!$d$4", " 'Inputs'!$D$4 ", "'A!B'!$XFD$1048576",
                 "'Inputs'!$D$4:$E$5", "'Inputs'!$D4"):
        match = _PLAIN_CELL.fullmatch(text)
        assert match is None or (match.group(1), match.group(2) + match.group(3)) == single_cell(text), text


def tally(path: Path) -> tuple:
    """Everything the scan counts in a package (`xml_scan._Tally`), the lean reader collecting as it does."""
    from budgetbook.xlsx.archive import open_archive
    from budgetbook.xlsx.lean import LeanReader

    data = path.read_bytes()
    archive = open_archive(data, DEFAULT_LIMITS)
    counted = xml_scan._Tally()
    reader = LeanReader()
    for info in xml_scan._scan_order(archive.infolist()):
        if not info.is_dir():
            xml_scan._scan_member(data, info, DEFAULT_LIMITS, counted, DEFAULT_LIMITS.max_uncompressed, False, reader)
    return (counted.cells, counted.merged, counted.linked, counted.counts, counted.sheets, counted.workbook_part,
            counted.relationships)


def test_every_count_is_the_same_replayed_as_streamed(books, tmp_path, monkeypatch):
    base = books["portfolio"].read_bytes()
    members = hostile.members_of(base)
    members[hostile.sheet_part(base, "Compute")] = excel_like(members[hostile.sheet_part(base, "Compute")])
    edited = hostile.write_members(tmp_path / "edited.xlsx", members)
    for path in (*books.values(), edited):
        replayed = tally(path)
        with monkeypatch.context() as patch:
            patch.setattr(xml_scan, "FAST_PART_BYTES", -1)
            assert tally(path) == replayed
        assert replayed[3]["data validations"] and replayed[3]["conditional formats"] and replayed[3]["rows"]
