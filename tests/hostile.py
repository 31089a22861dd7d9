"""Craft real hostile files: zip bombs, lying headers, OLE containers, DTD-laden sheets.

Everything here writes genuine bytes a parser would meet in the wild; nothing
is mocked. The zip writer is hand-rolled so that headers can lie, which
zipfile refuses to do.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from pathlib import Path

import openpyxl

MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
SHEET = "xl/worksheets/sheet1.xml"
XML_DECL = b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
MACRO_MAIN = "application/vnd.ms-excel.sheet.macroEnabled.main+xml"
XLSX_MAIN = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"


def small_workbook(*, table: bool = False) -> openpyxl.Workbook:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Inputs"
    ws.append(["item", "value"])
    ws.append(["gpu_hours", 30000])
    ws.append(["price", 2.5])
    ws["C2"] = "=B2*B3"
    ws.merge_cells("E1:F2")
    if table:
        from openpyxl.worksheet.table import Table

        ws.add_table(Table(displayName="Assumptions", ref="A1:B3"))
    return wb


def xlsx_bytes(wb: openpyxl.Workbook | None = None) -> bytes:
    out = io.BytesIO()
    (wb or small_workbook()).save(out)
    return out.getvalue()


def members_of(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def write_members(path: Path, members: dict[str, bytes], *, stored_first: str | None = None,
                  stored: tuple[str, ...] = ()) -> Path:
    """An honest zip; `stored_first` puts one member first, uncompressed (as ODF's mimetype)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        if stored_first:
            archive.writestr(stored_first, members[stored_first], compress_type=zipfile.ZIP_STORED)
        for name, payload in members.items():
            if name != stored_first:
                archive.writestr(name, payload, compress_type=zipfile.ZIP_STORED if name in stored else None)
    return path


def xlsx_with(path: Path, *, replace: dict[str, bytes] | None = None,
              drop: tuple[str, ...] = (), base: bytes | None = None) -> Path:
    members = members_of(base or xlsx_bytes())
    members.update(replace or {})
    for name in drop:
        members.pop(name, None)
    return write_members(path, members)


# ---------------------------------------------------------------- deflate and raw zips

def deflate_segments(segments: list[tuple[bytes, int]]) -> tuple[bytes, int, int]:
    """Raw deflate of `piece * times` for each segment, without ever holding the inflated data.

    Each piece is compressed once and ends in a full flush, so its blocks refer
    only to themselves and can be repeated verbatim: 2 GB of output costs one
    compression of a megabyte and a CRC pass.
    """
    parts, crc, size = [], 0, 0
    for piece, times in segments:
        compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
        block = compressor.compress(piece) + compressor.flush(zlib.Z_FULL_FLUSH)
        parts.append(block * times)
        for _ in range(times):
            crc = zlib.crc32(piece, crc)
        size += len(piece) * times
    parts.append(b"\x03\x00")  # an empty final fixed-Huffman block ends the stream
    return b"".join(parts), crc, size


def write_raw_zip(path: Path, entries: list[dict]) -> Path:
    """Each entry: name, data (already compressed), crc, size, method; optional declared_size.

    Sizes go into both local and central headers exactly as given, so a test can lie.
    """
    body = io.BytesIO()
    central = []
    for entry in entries:
        name = entry["name"].encode()
        offset = body.tell()
        size = entry.get("declared_size", entry["size"])
        fields = (20, 0, entry["method"], 0, 0x21, entry["crc"] & 0xFFFFFFFF,
                  len(entry["data"]), size, len(name), 0)
        body.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, *fields) + name)
        body.write(entry["data"])
        central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, *fields, 0, 0, 0, 0, offset)
                       + name)
    start = body.tell()
    directory = b"".join(central)
    body.write(directory)
    body.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries),
                           len(directory), start, 0))
    path.write_bytes(body.getvalue())
    return path


def _entry(name: str, payload: bytes) -> dict:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    data = compressor.compress(payload) + compressor.flush()
    return {"name": name, "data": data, "crc": zlib.crc32(payload), "size": len(payload),
            "method": zipfile.ZIP_DEFLATED}


def bomb_sheet_segments(uncompressed: int, *, padding: int = 0) -> list[tuple[bytes, int]]:
    """A well-formed sheet of about `uncompressed` bytes: rows without `r`, which openpyxl numbers itself.

    `padding` bytes of whitespace per row make the sheet cheaper per byte for a
    parser that does get that far (a benchmark baseline can then finish).
    """
    head = XML_DECL + f'<worksheet xmlns="{MAIN_NS}"><sheetData>'.encode()
    row = b"<row><c><v>1</v></c><c><v>2</v></c></row>" + b" " * padding
    chunk = row * max(1, (1 << 20) // len(row))
    tail = b"</sheetData></worksheet>"
    times = max(1, (uncompressed - len(head) - len(tail)) // len(chunk))
    return [(head, 1), (chunk, times), (tail, 1)]


def zip_bomb(path: Path, uncompressed: int = 2_000_000_000, *, declared: int | None = None,
             padding: int = 0) -> Path:
    """A real .xlsx whose first sheet inflates to `uncompressed` bytes of valid XML.

    `declared` writes a smaller size into the headers than the stream really
    holds: the lying-header bomb that a reader trusting headers would inflate.
    """
    entries = []
    for name, payload in members_of(xlsx_bytes()).items():
        if name == SHEET:
            data, crc, size = deflate_segments(bomb_sheet_segments(uncompressed, padding=padding))
            entry = {"name": name, "data": data, "crc": crc, "size": size,
                     "method": zipfile.ZIP_DEFLATED}
            if declared is not None:
                entry["declared_size"] = declared
            entries.append(entry)
        else:
            entries.append(_entry(name, payload))
    return write_raw_zip(path, entries)


def duplicate_member_zip(path: Path) -> Path:
    members = members_of(xlsx_bytes())
    entries = [_entry(name, payload) for name, payload in members.items()]
    entries.append(_entry(SHEET, XML_DECL + f'<worksheet xmlns="{MAIN_NS}"/>'.encode()))
    return write_raw_zip(path, entries)


# ---------------------------------------------------------------- other hostile shapes

def ole_bytes() -> bytes:
    """A Compound File Binary header, as an encrypted .xlsx, a legacy .xls or a VBA project starts."""
    header = bytearray(b"\xff" * 512)
    struct.pack_into("<8s16sHHHHH6sIIIIIIIIII", header, 0,
                     b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", b"\0" * 16, 0x3E, 3, 0xFFFE, 9, 6,
                     b"\0" * 6, 0, 1, 1, 0, 0x1000, 0xFFFFFFFE, 0, 0xFFFFFFFE, 0, 0)
    sector = b"EncryptionInfo".ljust(512, b"\0")
    return bytes(header) + sector * 3


def ole_container(path: Path) -> Path:
    path.write_bytes(ole_bytes())
    return path


def ods_file(path: Path) -> Path:
    return write_members(path, {
        "mimetype": b"application/vnd.oasis.opendocument.spreadsheet",
        "META-INF/manifest.xml": XML_DECL + b'<manifest:manifest xmlns:manifest='
        b'"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"/>',
        "content.xml": XML_DECL + b'<office:document-content xmlns:office='
        b'"urn:oasis:names:tc:opendocument:xmlns:office:1.0"/>',
    }, stored_first="mimetype")


def sheet_with_prolog(prolog: bytes, body: bytes = b"<c r=\"A1\" t=\"inlineStr\"><is><t>&lol9;</t></is></c>") -> bytes:
    return (XML_DECL + prolog + f'<worksheet xmlns="{MAIN_NS}"><sheetData><row r="1">'.encode()
            + body + b"</row></sheetData></worksheet>")


BILLION_LAUGHS = b"""<!DOCTYPE worksheet [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
"""

XXE = b"""<!DOCTYPE worksheet [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
"""
XXE_BODY = b'<c r="A1" t="inlineStr"><is><t>&xxe;</t></is></c>'


def billion_laughs_xlsx(path: Path) -> Path:
    return xlsx_with(path, replace={SHEET: sheet_with_prolog(BILLION_LAUGHS)})


def xxe_xlsx(path: Path) -> Path:
    return xlsx_with(path, replace={SHEET: sheet_with_prolog(XXE, XXE_BODY)})


def merge_bomb_xlsx(path: Path) -> Path:
    """100 bytes of XML asking openpyxl to create a MergedCell for all 17 billion cells."""
    sheet = (XML_DECL + f'<worksheet xmlns="{MAIN_NS}"><sheetData/><mergeCells count="1">'.encode()
             + b'<mergeCell ref="A1:XFD1048576"/></mergeCells></worksheet>')
    return xlsx_with(path, replace={SHEET: sheet})


def macro_xlsx(path: Path) -> Path:
    """An .xlsm: a VBA project part, its content type, and a macro-enabled workbook type."""
    base = members_of(xlsx_bytes())
    types = base["[Content_Types].xml"].decode().replace(XLSX_MAIN, MACRO_MAIN).replace(
        "<Default ", '<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/><Default ', 1)
    return xlsx_with(path, replace={"[Content_Types].xml": types.encode(),
                                    "xl/vbaProject.bin": ole_bytes()})


def external_link_xlsx(path: Path) -> Path:
    link = XML_DECL + (f'<externalLink xmlns="{MAIN_NS}"><externalBook xmlns:r="http://schemas.'
                       'openxmlformats.org/officeDocument/2006/relationships" r:id="rId1"/>'
                       '</externalLink>').encode()
    rels = (XML_DECL + b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            b'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
            b'officeDocument/2006/relationships/externalLinkPath" Target="file:///C:/secret/'
            b'other.xlsx" TargetMode="External"/></Relationships>')
    return xlsx_with(path, replace={"xl/externalLinks/externalLink1.xml": link,
                                    "xl/externalLinks/_rels/externalLink1.xml.rels": rels})


def xlsb_zip(path: Path) -> Path:
    types = (XML_DECL + b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
             b'<Override PartName="/xl/workbook.bin" ContentType="application/vnd.ms-excel.sheet.'
             b'binary.macroEnabled.main"/></Types>')
    return write_members(path, {"[Content_Types].xml": types, "xl/workbook.bin": b"\x83\x01\x00"})


def disguised_sheet_xlsx(path: Path, sheet: bytes, *, stored: bool = False) -> Path:
    """The sheet stored under a binary-looking name, which the relationships still point at."""
    members = members_of(xlsx_bytes())
    members.pop(SHEET)
    members["xl/worksheets/sheet1.bin"] = sheet
    for name in ("xl/_rels/workbook.xml.rels", "[Content_Types].xml"):
        members[name] = members[name].replace(b"sheet1.xml", b"sheet1.bin")
    return write_members(path, members, stored=("xl/worksheets/sheet1.bin",) if stored else ())


# ---------------------------------------------------------------- small files that ask for unbounded work

LAST_ROW, LAST_COLUMN = 1_048_576, "XFD"


def sheet_part(data: bytes, title: str) -> str:
    """The zip member holding the sheet titled `title`, through the workbook's relationships."""
    import xml.etree.ElementTree as ET  # trusted: a workbook the test itself generated

    members = members_of(data)
    rel_ns = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
    rels = {r.get("Id"): r.get("Target") for r in ET.fromstring(members["xl/_rels/workbook.xml.rels"])}
    for sheet in ET.fromstring(members["xl/workbook.xml"]).iter(f"{{{MAIN_NS}}}sheet"):
        if sheet.get("name") == title:
            target = rels[sheet.get(rel_ns)]
            return target.lstrip("/") if target.startswith("/") else "xl/" + target
    raise KeyError(title)


def with_sheet_xml(path: Path, base: bytes, title: str, edit) -> Path:
    """A copy of the workbook `base` whose sheet `title` has its XML passed through `edit(bytes) -> bytes`."""
    part = sheet_part(base, title)
    members = members_of(base)
    members[part] = edit(members[part])
    return write_members(path, members)


def _before(xml: bytes, marker: bytes, insert: bytes) -> bytes:
    at = xml.index(marker)
    return xml[:at] + insert + xml[at:]


def empty_rows_to_the_end(xml: bytes, attrs: bytes = b' ht="15" customHeight="1"') -> bytes:
    """Every row after the sheet's last one, down to row 1,048,576, present and empty (formatted only).

    What a tool writes when a whole sheet's rows are given a height: 35 MB of XML, under 3 MB zipped.
    """
    last = max(int(r) for r in re.findall(rb'<row r="(\d+)"', xml))
    rows = b"".join(b'<row r="%d"%s/>' % (r, attrs) for r in range(last + 1, LAST_ROW + 1))
    return _before(xml, b"</sheetData>", rows)


def far_away_cell(xml: bytes) -> bytes:
    """`#N/A` typed into the sheet's very last cell, XFD1048576.

    An error cell is one the fast evaluator leaves to ExcelModel, which walks the used range cell by cell.
    """
    cell = f'<c r="{LAST_COLUMN}{LAST_ROW}" t="e"><v>#N/A</v></c>'
    return _before(xml, b"</sheetData>", f'<row r="{LAST_ROW}">{cell}</row>'.encode())


def huge_dimension(xml: bytes) -> bytes:
    """The sheet declares that it spans the whole grid (its cells stay where they are)."""
    return re.sub(rb'<dimension ref="[^"]*"/>', f'<dimension ref="A1:{LAST_COLUMN}{LAST_ROW}"/>'.encode(), xml)


def hyperlink_over_the_grid(xml: bytes) -> bytes:
    """A 90-byte hyperlink over every cell: openpyxl copies the link into each of 17 billion cells."""
    link = f'<hyperlinks><hyperlink ref="A1:{LAST_COLUMN}{LAST_ROW}" location="About!A1"/></hyperlinks>'.encode()
    marker = b"<pageMargins" if b"<pageMargins" in xml else b"</worksheet>"
    return _before(xml, marker, link)
