"""Every formula cell written with its computed value, so a reader that does not recalculate sees figures.

openpyxl writes a formula cell as `<c r="C7" s="3"><f>...</f><v/></c>`: no cached value, so
`pandas.read_excel`, mail and chat previews, Quick Look and any viewer that shows the stored values
show blanks. The Blueprint and the openpyxl renderer stay the one way a workbook is made (every sheet
and chart goes through them); this module takes the saved package and fills each formula cell's
`<v>` with the value our own evaluator (`xlsx.fasteval`, the `formulas` package's Excel functions)
computes over the same workbook, with the `t=` the value needs: none for a number, `b` for a
boolean, `str` for text, `e` for an Excel error. `check` evaluates the formulas and never reads
these values.

Recalculation on open (issue 25): a book whose every formula cell carries its value does not ask for
one. With `fullCalcOnLoad` (and openpyxl's Excel 2007 `calcId`, which makes any later Excel
recalculate too) Excel recomputes on every open and asks "Save changes?" on every close, though
nothing changed; people learn to click "Don't save", and one day lose real edits that way. The cached
values are what Excel computes (the random-plan and engine-agreement tests hold them to `formulas`,
LibreOffice, Gnumeric and HyperFormula), so the book is marked as calculated by a current Excel
(`calcId` 191029, Microsoft 365) and opens clean; calculation stays automatic, so the first edit
recalculates what it touches. A book with any cell left without a value (the evaluator declined it)
keeps `fullCalcOnLoad`, so no reader shows a blank as a figure.

Values come from evaluating the workbook, not from the reference model: the reference is the
independent second implementation `check` compares against, and a cached value must be what the
formula itself gives. A workbook the fast evaluator does not handle is written without values
(as before), never refused.

`generate` never has openpyxl hold the blueprint's cells (`streamed`): `streamed_with_values` evaluates
them as taken, and writes them, values in, into the parts openpyxl writes without them (`xlsx.sheet_xml`),
the same bytes as `saved_with_values` gives for the book rendered whole (`tests/workbook/test_streamed.py`).
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree
from xml.sax.saxutils import escape

from ..atomic import scratch_files, temp_folder_error
from ..xlsx.cell_grid import Unsupported
from ..xlsx.drawing_prefix import is_drawing_part, prefix_drawings, prefixed
from ..xlsx.sheet_xml import cached_value, rows_xml, splice

if TYPE_CHECKING:  # the old way needs no streaming, and the streamed way loads openpyxl anyway
    from .streamed import SheetCells, StreamedBook

__all__ = ["cached_value", "inject_values", "save_with_values", "saved_with_values", "streamed_with_values"]

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG = "{http://schemas.openxmlformats.org/package/2006/relationships}"
# a formula cell as openpyxl writes it (no `t=`, a plain `<f>`, an empty `<v>`)
_FORMULA_CELL = re.compile(rb'<c r="([A-Z]{1,3})([0-9]{1,7})"([^>]*)><f>([^<]*)</f><v ?/></c>')
_CALC = re.compile(rb'<calcPr calcId="124519" fullCalcOnLoad="1" ?/>')  # as openpyxl writes it
CALCULATED = b'<calcPr calcId="191029" />'  # calculated by a current Excel: nothing to redo on open


def _column(letters: bytes) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ch - 64
    return n


def _sheet_parts(archive: zipfile.ZipFile) -> dict[str, str]:
    """{SHEET TITLE (upper case): part name} from the workbook part and its relationships."""
    book = ElementTree.fromstring(archive.read("xl/workbook.xml"))
    rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    targets = {rel.get("Id"): str(rel.get("Target")) for rel in rels.iter(f"{_PKG}Relationship")}
    parts = {}
    for sheet in book.iter(f"{_MAIN}sheet"):
        target = targets.get(sheet.get(f"{_REL}id"), "")
        parts[str(sheet.get("name")).upper()] = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
    return parts


def inject_values(package: bytes, values: dict[tuple[str, int, int], Any]) -> bytes:
    """The saved workbook `package` with every formula cell found in `values` carrying its value, and its
    drawing and chart parts prefixed (`drawing_prefix`) in the same pass: one rewrite of the package, not two
    (each re-deflates every part; the bytes are the same as `prefix_drawings` after it)."""
    source = zipfile.ZipFile(io.BytesIO(package))
    parts = {part: sheet for sheet, part in _sheet_parts(source).items()}
    filled = {part: _fill_sheet(source.read(part), sheet, values) for part, sheet in parts.items()
              if part in source.namelist()}
    complete = not any(_FORMULA_CELL.search(data) for data in filled.values())
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = filled.get(info.filename) or source.read(info)
            if info.filename == "xl/workbook.xml" and complete:
                data = _CALC.sub(CALCULATED, data)
            elif is_drawing_part(info.filename):
                data = prefixed(data)
            target.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def _fill_sheet(xml: bytes, sheet: str, values: dict[tuple[str, int, int], Any]) -> bytes:
    def fill(match: re.Match) -> bytes:
        letters, row, attrs, formula = match.groups()
        key = (sheet, int(row), _column(letters))
        if key not in values or (cached := cached_value(values[key])) is None:
            return match.group()
        kind, text = cached
        typed = f' t="{kind}"'.encode() if kind else b""
        return b'<c r="%s%s"%s%s><f>%s</f><v>%s</v></c>' % (letters, row, attrs, typed, formula,
                                                            text.encode("utf-8"))

    return _FORMULA_CELL.sub(fill, xml)


def save_with_values(wb: Any) -> bytes:
    """The openpyxl workbook `wb` saved, with every formula cell's computed value cached."""
    return saved_with_values(wb)[0]


def saved_with_values(wb: Any) -> tuple[bytes, dict[tuple[str, int, int], Any] | None]:
    """`save_with_values`, and the values cached: {(SHEET, row, col): value} (None where none could be)."""
    from ..xlsx.fasteval import evaluate_cells  # on first use, not at import: loads numpy, openpyxl, schedula

    saved = _saved(wb)
    try:
        values = evaluate_cells(wb)
    except Unsupported:
        return prefix_drawings(saved), None
    return inject_values(saved, values), values


def _saved(wb: Any) -> bytes:
    buffer = io.BytesIO()
    before = scratch_files()
    try:
        wb.save(buffer)
    except OSError as exc:  # into memory: only openpyxl's scratch files (one per sheet, in TMPDIR) can fail
        raise temp_folder_error(exc, before) from None
    return buffer.getvalue()


def streamed_with_values(book: StreamedBook) -> tuple[bytes, dict[tuple[str, int, int], Any] | None]:
    """`saved_with_values` of a book whose blueprint cells openpyxl never held (`streamed`): its values computed
    from those cells, the package openpyxl writes without them, and each sheet's cells written into its part
    (`xlsx.sheet_xml`) with their values; the same bytes `saved_with_values` gives for the book rendered whole."""
    from ..xlsx.fasteval import evaluate_cells  # on first use, not at import: loads numpy, schedula

    try:
        values = evaluate_cells(book.wb, book.plain_cells(), book.names)
    except Unsupported:
        values = None
    shell = zipfile.ZipFile(io.BytesIO(_saved(book.wb)))
    parts = {part: title for title, part in _sheet_parts(shell).items()}
    streamed = {sheet.title.upper(): sheet for sheet in book.sheets}
    complete = values is not None
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in shell.infolist():
            data = shell.read(info)
            title = parts.get(info.filename)
            if title is not None and "xl/workbook.xml" in target.NameToInfo:
                raise AssertionError("a sheet part after the workbook part: its values not known complete")
            if title in streamed:
                complete &= _write_sheet(target, info, data, book, streamed.pop(title), values)
                continue
            if title is not None and values is not None:
                data = _fill_sheet(data, title, values)
                complete &= not _FORMULA_CELL.search(data)
            elif info.filename == "xl/workbook.xml":
                data = with_names(data, book.names)
                if complete:
                    data = _CALC.sub(CALCULATED, data)
            elif is_drawing_part(info.filename):
                data = prefixed(data)
            target.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
    if streamed:
        raise AssertionError(f"no part found for the cells of {', '.join(streamed)}")  # never left out unsaid
    return out.getvalue(), values


def with_names(xml: bytes, names: dict[str, str]) -> bytes:
    """openpyxl's `workbook.xml` with the workbook-scoped `names` ({name: reference}) written in as its own
    writer writes them: first in `<definedNames>`, before the sheet-scoped print titles (openpyxl writes the
    element empty, `<definedNames />`, where a book has none); `tests/workbook/test_streamed.py` holds the
    bytes equal."""
    if not names:
        return xml
    written = "".join([f'<definedName name="{escape(name, _ATTRIBUTE)}">{escape(ref)}</definedName>'
                       for name, ref in names.items()]).encode("utf-8")
    if b"<definedNames>" in xml:
        return xml.replace(b"<definedNames>", b"<definedNames>" + written, 1)
    if b"<definedNames />" not in xml:
        raise AssertionError("no <definedNames> in the workbook part openpyxl wrote")  # never left out unsaid
    return xml.replace(b"<definedNames />", b"<definedNames>" + written + b"</definedNames>", 1)


_ATTRIBUTE = {'"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#09;"}  # ElementTree's, beyond & < >


def _write_sheet(target: zipfile.ZipFile, info: zipfile.ZipInfo, shell_part: bytes, book: StreamedBook,
                 sheet: SheetCells, values: dict[tuple[str, int, int], Any] | None) -> bool:
    """The sheet's part: openpyxl's without cells, its rows written in (a megabyte at a time, so the part
    is never whole in memory); whether every formula cell has its value."""
    title = sheet.title.upper()
    missing = 0

    def cached(row: int, col: int) -> tuple[str, str] | None:
        nonlocal missing
        key = (title, row, col)
        found = cached_value(values[key]) if values is not None and key in values else None
        if found is None:
            missing += 1
        return found

    head, tail = splice(shell_part, sheet.dimension)
    with target.open(info, "w") as stream:
        stream.write(head)
        chunk: list[str] = []
        size = 0
        for row in rows_xml(sheet.stored(), book.row_attributes(sheet.title), cached):
            chunk.append(row)
            size += len(row)
            if size > 1 << 20:
                stream.write("".join(chunk).encode("utf-8"))
                chunk, size = [], 0
        stream.write("".join(chunk).encode("utf-8"))
        stream.write(tail)
    return missing == 0
