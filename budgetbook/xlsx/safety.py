"""Open an untrusted .xlsx safely: sniff, bound and verify the zip before any XML is parsed.

Edited workbooks come back from anywhere, so every one is treated as hostile
until proven otherwise. The whole file is read once into memory (its size
bounded) and everything after works on those bytes: the input file is never
held open, never written, and cannot change between the checks and the load.

Order matters: the cheap checks that need no decompression (magic bytes,
member count, declared sizes, ratios) run first, so a 2 GB zip bomb is refused
from its central directory in milliseconds. Then every member is inflated
once, in bounded chunks, against its declared size (a lying header is caught
as soon as it overshoots) and every XML part is streamed through expat with
DTDs refused, which stops entity expansion and external entities before
openpyxl (itself on defusedxml) ever sees the part. The same pass counts the
cells and merged areas openpyxl would materialize: a 100-byte
`<mergeCell ref="A1:XFD1048576"/>` would otherwise make it create 17 billion
cell objects.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import struct
import warnings
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from xml.parsers import expat

import openpyxl
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring as defused_fromstring
from openpyxl.utils.cell import range_boundaries

from ..errors import WorkbookError

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
CHUNK = 1 << 16
INFLATE_STEP = 1 << 20

_MAIN_TYPES = {
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml": "xlsx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml": "xltx",
    "application/vnd.ms-excel.sheet.macroEnabled.main+xml": "xlsm",
    "application/vnd.ms-excel.template.macroEnabled.main+xml": "xltm",
    "application/vnd.ms-excel.addin.macroEnabled.main+xml": "xlam",
}
_XLSB_TYPE = "application/vnd.ms-excel.sheet.binary.macroEnabled.main"
_VBA_TYPE = "application/vnd.ms-office.vbaProject"
_XML_SUFFIXES = (".xml", ".rels", ".vml")


@dataclass(frozen=True)
class Limits:
    """What an acceptable workbook may cost; every limit is a refusal, never a truncation."""

    max_file_bytes: int = 100_000_000
    max_uncompressed: int = 300_000_000
    max_ratio: float = 200.0          # typical sheet XML deflates 5-50x; a bomb ~1000x
    ratio_min_bytes: int = 1_000_000  # tiny members compress absurdly well and harmlessly
    max_members: int = 5_000
    max_cells: int = 2_000_000        # openpyxl keeps ~200 bytes per cell in memory
    max_merged_cells: int = 1_000_000
    max_content_types_bytes: int = 5_000_000


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class XlsxInfo:
    """What a workbook holds that callers may report or refuse; its bytes are verified."""

    path: str
    size: int
    sha256: str
    kind: str                       # xlsx, xlsm, xltx, xltm, xlam
    members: int
    uncompressed: int
    cells: int
    macros: tuple[str, ...] = ()    # VBA projects, Excel 4 macro sheets, ActiveX parts
    external_links: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    connections: tuple[str, ...] = ()
    data: bytes = field(default=b"", repr=False, compare=False)

    @property
    def has_macros(self) -> bool:
        return bool(self.macros) or self.kind in ("xlsm", "xltm", "xlam")

    def notes(self) -> list[tuple[str, str]]:
        """(kind, sentence) pairs for content that `check` must mention but never runs."""
        out = []
        if self.has_macros:
            where = ", ".join(self.macros) or f"a macro-enabled .{self.kind}"
            out.append(("macros", f"contains macros ({where}); budgetbook never runs them"))
        if self.external_links:
            out.append(("external_links", "links to other workbooks ("
                        + ", ".join(self.external_links) + "); their values are not fetched"))
        if self.connections:
            out.append(("connections", "holds external data connections ("
                        + ", ".join(self.connections) + "); they are never refreshed"))
        if self.tables:
            out.append(("tables", "contains Excel tables (" + ", ".join(self.tables)
                        + "), which the formula evaluator cannot load"))
        return out


@dataclass(frozen=True)
class LoadedWorkbook:
    workbook: openpyxl.Workbook
    info: XlsxInfo


class _Refused(Exception):
    """Internal: a reason, turned into a WorkbookError naming the file at the boundary."""


def _mb(n: int) -> str:
    if n >= 1_000_000_000:
        return f"{n / 1e9:,.1f} GB"
    if n >= 1_000_000:
        return f"{n / 1e6:,.0f} MB" if n >= 10_000_000 else f"{n / 1e6:,.1f} MB"
    return f"{n / 1e3:,.0f} KB"


# ---------------------------------------------------------------- reading the file

def _read_input(path: Path, limits: Limits) -> bytes:
    try:
        st = path.stat()
    except FileNotFoundError:
        raise _Refused("no such file") from None
    except OSError as exc:
        raise _Refused(f"cannot read: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise _Refused("is a directory, not a workbook")
    if not stat.S_ISREG(st.st_mode):
        # a FIFO or a device would block or never end
        raise _Refused("is not a regular file")
    if st.st_size == 0:
        raise _Refused("is empty (0 bytes), not a workbook")
    if st.st_size > limits.max_file_bytes:
        raise _Refused(f"is {_mb(st.st_size)}, over the {_mb(limits.max_file_bytes)} limit for a workbook")
    try:
        with open(path, "rb") as handle:
            # read(n) allocates n bytes up front: ask for the size stat saw, plus one to spot growth
            data = handle.read(st.st_size + 1)
    except OSError as exc:
        raise _Refused(f"cannot read: {exc.strerror}") from None
    if len(data) > st.st_size:
        raise _Refused("changed while being read; try again once it is saved")
    if not data:
        raise _Refused("is empty (0 bytes), not a workbook")
    return data


def _sniff_not_zip(data: bytes) -> str:
    """Why bytes that are not a zip are not an .xlsx, in words a user can act on."""
    if data.startswith(OLE_MAGIC):
        return ("an encrypted or password-protected workbook, or an old binary .xls: not a readable "
                ".xlsx; save it as .xlsx without a password")
    head = data[:8192]
    if b"\x00" in head:
        return "not an .xlsx (not a zip archive, and not text)"
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    lower = text[:2048].lower()
    if lower.startswith("<"):
        if "urn:schemas-microsoft-com:office:spreadsheet" in lower:
            return "an XML Spreadsheet 2003 file renamed .xlsx: open it in Excel and save as .xlsx"
        if "<html" in lower or "<!doctype html" in lower or "<table" in lower:
            return "an HTML page renamed .xlsx (as some web exports do): open it and save as .xlsx"
        return "an XML file, not an .xlsx (which is a zip archive)"
    lines = [line for line in text.splitlines()[:20] if line.strip()]
    if len(data) > len(head):
        lines = lines[:-1]  # the last line may be cut at the sniff boundary
    for sep in (",", ";", "\t", "|"):
        counts = [line.count(sep) for line in lines]
        if counts and counts[0] > 0 and sum(c > 0 for c in counts) >= max(1, len(counts) * 0.8):
            return "a CSV file renamed .xlsx: not a readable .xlsx; open it in Excel and save as .xlsx"
    return "a text file, not an .xlsx (which is a zip archive)"


# ---------------------------------------------------------------- the zip, undecompressed

def _central_directory_bound(data: bytes, limits: Limits) -> None:
    """Refuse too many members from the end record, before zipfile builds an object per entry."""
    eocd = data.rfind(b"PK\x05\x06", max(0, len(data) - 65_557))
    if eocd < 0 or eocd + 22 > len(data):
        raise _Refused("a truncated or corrupt zip archive (no end of central directory): "
                       "not a readable .xlsx")
    entries, cd_size = struct.unpack_from("<HI", data, eocd + 10)
    if entries == 0xFFFF or cd_size == 0xFFFFFFFF:
        locator = eocd - 20
        if locator >= 0 and data[locator:locator + 4] == b"PK\x06\x07":
            (z64,) = struct.unpack_from("<Q", data, locator + 8)
            if 0 <= z64 and z64 + 56 <= len(data) and data[z64:z64 + 4] == b"PK\x06\x06":
                entries, cd_size = struct.unpack_from("<QQ", data, z64 + 32)
    # 400 bytes per entry is generous (46 fixed + name + extra) yet bounds zipfile's work
    if entries > limits.max_members or cd_size > limits.max_members * 400:
        raise _Refused(f"a zip of {entries:,} members, over the limit of {limits.max_members:,} "
                       "(a zip bomb?)")


def _open_zip(data: bytes, limits: Limits) -> zipfile.ZipFile:
    _central_directory_bound(data, limits)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, struct.error, EOFError,
            OSError, NotImplementedError, UnicodeDecodeError) as exc:
        raise _Refused(f"a truncated or corrupt zip archive ({_one_line(exc)}): not a readable .xlsx") from None
    if len(archive.infolist()) > limits.max_members:
        raise _Refused(f"a zip of {len(archive.infolist()):,} members, over the limit of "
                       f"{limits.max_members:,} (a zip bomb?)")
    return archive


def _check_declared(infos: list[zipfile.ZipInfo], limits: Limits) -> int:
    seen: set[str] = set()
    total = 0
    for info in infos:
        if info.filename in seen:
            # two parsers may pick different copies: a classic smuggling trick
            raise _Refused(f"the zip holds `{info.filename}` twice: not a workbook Excel writes")
        seen.add(info.filename)
        if info.flag_bits & 0x1:
            raise _Refused(f"zip member `{info.filename}` is encrypted: save the workbook "
                           "without a password")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise _Refused(f"zip member `{info.filename}` uses compression method "
                           f"{info.compress_type}, which Excel never writes")
        total += info.file_size
        if total > limits.max_uncompressed:
            raise _Refused(f"would inflate to over {_mb(total)} (limit {_mb(limits.max_uncompressed)}): "
                           "a zip bomb, or far larger than any budget workbook")
        if info.file_size >= limits.ratio_min_bytes:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > limits.max_ratio:
                raise _Refused(f"zip member `{info.filename}` inflates {ratio:,.0f}x "
                               f"({_mb(info.compress_size)} to {_mb(info.file_size)}; limit "
                               f"{limits.max_ratio:,.0f}x): a zip bomb?")
    return total


def _sniff_opendocument(archive: zipfile.ZipFile, data: bytes) -> None:
    try:
        info = archive.getinfo("mimetype")
    except KeyError:
        return
    if info.file_size > 200 or info.compress_size > 400:
        return
    mimetype = b"".join(_inflate(data, info, cap=200)).strip()
    if mimetype.startswith(b"application/vnd.oasis.opendocument.spreadsheet"):
        raise _Refused("an OpenDocument spreadsheet (.ods): not a readable .xlsx; save it as .xlsx")
    if mimetype.startswith(b"application/vnd.oasis.opendocument"):
        raise _Refused("an OpenDocument file, not an .xlsx workbook")


# ---------------------------------------------------------------- the zip, inflated

def _inflate(data: bytes, info: zipfile.ZipInfo, cap: int) -> Iterator[bytes]:
    """Yield a member's bytes, refusing as soon as it overshoots its declared size or `cap`.

    zipfile trusts the central directory; this reads the local header itself so
    that a stream that inflates past what it declared is named for what it is.
    """
    name = info.filename
    offset = info.header_offset
    if offset < 0 or data[offset:offset + 4] != b"PK\x03\x04":
        raise _Refused(f"zip member `{name}` has no local header: a corrupt zip archive")
    name_len, extra_len = struct.unpack_from("<HH", data, offset + 26)
    start = offset + 30 + name_len + extra_len
    raw = memoryview(data)[start:start + info.compress_size]
    if len(raw) < info.compress_size:
        raise _Refused(f"zip member `{name}` is cut short: a truncated zip archive")
    declared = info.file_size
    crc = 0
    produced = 0

    def account(piece: bytes) -> bytes:
        nonlocal crc, produced
        produced += len(piece)
        if produced > declared:
            raise _Refused(f"zip member `{name}` inflates beyond its declared {declared:,} bytes "
                           "(a lying header: a zip bomb?)")
        if produced > cap:
            raise _Refused(f"zip member `{name}` inflates past {_mb(cap)}: a zip bomb?")
        crc = zlib.crc32(piece, crc)
        return piece

    if info.compress_type == zipfile.ZIP_STORED:
        for i in range(0, len(raw), INFLATE_STEP):
            yield account(bytes(raw[i:i + INFLATE_STEP]))
    else:
        inflater = zlib.decompressobj(-zlib.MAX_WBITS)
        try:
            for i in range(0, len(raw), CHUNK):
                pending = raw[i:i + CHUNK]
                while pending and not inflater.eof:
                    piece = inflater.decompress(pending, INFLATE_STEP)
                    pending = inflater.unconsumed_tail
                    if piece:
                        yield account(piece)
                if inflater.eof:
                    break
        except zlib.error as exc:
            raise _Refused(f"zip member `{name}` is corrupt ({exc})") from None
        if not inflater.eof:
            raise _Refused(f"zip member `{name}` ends early: a truncated or corrupt zip archive")
    if produced != declared or crc != info.CRC:
        raise _Refused(f"zip member `{name}` does not match its checksum: a corrupt zip archive")


class _XmlScan:
    """Stream one XML part through expat: refuse DTDs, count what openpyxl would build."""

    def __init__(self, name: str, limits: Limits, totals: dict[str, int]):
        self.name = name
        self.limits = limits
        self.totals = totals
        parser = expat.ParserCreate(namespace_separator="}")
        parser.StartDoctypeDeclHandler = self._doctype
        parser.EntityDeclHandler = self._entity
        parser.ExternalEntityRefHandler = self._entity
        parser.StartElementHandler = self._start
        self.parser = parser

    def _doctype(self, *args) -> None:
        raise _Refused(f"`{self.name}` declares a DTD (<!DOCTYPE>): entity expansion and external "
                       "entities are refused, and Excel never writes them")

    def _entity(self, *args) -> None:
        raise _Refused(f"`{self.name}` declares or references an XML entity: refused")

    def _start(self, tag: str, attrs: dict) -> None:
        local = tag.rpartition("}")[2]
        if local == "c":
            self.totals["cells"] += 1
            if self.totals["cells"] > self.limits.max_cells:
                raise _Refused(f"holds over {self.limits.max_cells:,} cells, more than a budget "
                               f"workbook needs (limit reached in `{self.name}`)")
        elif local == "mergeCell":
            try:
                min_col, min_row, max_col, max_row = range_boundaries(attrs.get("ref", ""))
                area = (max_col - min_col + 1) * (max_row - min_row + 1)
            except (ValueError, TypeError):
                return  # openpyxl will reject it with its own message
            self.totals["merged"] += area
            if self.totals["merged"] > self.limits.max_merged_cells:
                raise _Refused(f"`{self.name}` merges {self.totals['merged']:,} cells (limit "
                               f"{self.limits.max_merged_cells:,}): loading would exhaust memory")

    def feed(self, piece: bytes, final: bool = False) -> None:
        try:
            self.parser.Parse(piece, final)
        except expat.ExpatError as exc:
            raise _Refused(f"`{self.name}` is not well-formed XML ({expat.ErrorString(exc.code)}, "
                           f"line {exc.lineno})") from None


def _looks_like_xml(head: bytes) -> bool:
    if head.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"<\x00", b"\x00<")):
        return True
    # all whitespace so far: undecided, so scan (a DTD may follow the padding)
    return head.lstrip(b" \t\r\n")[:1] in (b"", b"<")


def _verify_members(archive: zipfile.ZipFile, data: bytes, limits: Limits) -> tuple[int, dict[str, bytes]]:
    """Inflate every member once; return the cell count and the small parts we read ourselves."""
    totals = {"cells": 0, "merged": 0}
    kept: dict[str, bytes] = {}
    budget = limits.max_uncompressed
    for info in archive.infolist():
        if info.is_dir():
            continue
        keep = info.filename == "[Content_Types].xml"
        scan = None
        pieces = []
        produced = 0
        for piece in _inflate(data, info, cap=budget):
            if produced == 0 and (info.filename.lower().endswith(_XML_SUFFIXES) or _looks_like_xml(piece)):
                # by content too: a relationship can point openpyxl at any part name
                scan = _XmlScan(info.filename, limits, totals)
            produced += len(piece)
            if scan:
                scan.feed(piece)
            if keep:
                if produced > limits.max_content_types_bytes:
                    raise _Refused(f"`{info.filename}` is over {_mb(limits.max_content_types_bytes)}")
                pieces.append(piece)
        if scan:
            scan.feed(b"", final=True)
        if keep:
            kept[info.filename] = b"".join(pieces)
        budget -= produced
    return totals["cells"], kept


# ---------------------------------------------------------------- what the package holds

def _content_types(raw: bytes) -> tuple[dict[str, str], dict[str, str]]:
    try:
        root = defused_fromstring(raw)
    except (DefusedXmlException, SyntaxError) as exc:
        raise _Refused(f"`[Content_Types].xml` is unreadable ({_one_line(exc)})") from None
    defaults, overrides = {}, {}
    for element in root:
        local = element.tag.rpartition("}")[2]
        if local == "Default":
            defaults[element.get("Extension", "").lower()] = element.get("ContentType", "")
        elif local == "Override":
            overrides[element.get("PartName", "").lstrip("/")] = element.get("ContentType", "")
    return defaults, overrides


def _describe_package(names: list[str], kept: dict[str, bytes]) -> dict:
    if "[Content_Types].xml" not in kept:
        raise _Refused("a zip without `[Content_Types].xml`: not an Office Open XML workbook")
    defaults, overrides = _content_types(kept["[Content_Types].xml"])
    lowered = {name.lower(): name for name in names}

    def type_of(name: str) -> str:
        return overrides.get(name) or defaults.get(name.rpartition(".")[2].lower(), "")

    if any(type_of(name).startswith(_XLSB_TYPE) for name in names) or "xl/workbook.bin" in lowered:
        raise _Refused("a binary .xlsb workbook: not a readable .xlsx; save it as .xlsx")
    kinds = {_MAIN_TYPES[type_of(name)] for name in names if type_of(name) in _MAIN_TYPES}
    if "xl/workbook.xml" not in names and not kinds:
        if "word/document.xml" in lowered:
            raise _Refused("a Word document, not an .xlsx workbook")
        if "ppt/presentation.xml" in lowered:
            raise _Refused("a PowerPoint presentation, not an .xlsx workbook")
        raise _Refused("a zip without `xl/workbook.xml`: not an .xlsx workbook")
    kind = next(iter(sorted(kinds)), "xlsx")
    macros = tuple(name for name in names
                   if type_of(name) == _VBA_TYPE or name.lower().endswith("vbaproject.bin")
                   or name.lower().startswith(("xl/macrosheets/", "xl/activex/")))
    return {
        "kind": kind,
        "macros": macros,
        "external_links": tuple(n for n in names if n.lower().startswith("xl/externallinks/")
                                and not n.lower().startswith("xl/externallinks/_rels/")),
        "tables": tuple(n for n in names if n.lower().startswith("xl/tables/")
                        and not n.lower().startswith("xl/tables/_rels/")),
        "connections": tuple(n for n in names if n.lower() == "xl/connections.xml"),
    }


def _defused_cause(exc: BaseException | None) -> DefusedXmlException | None:
    # openpyxl wraps parse errors in a ValueError of its own
    while exc is not None:
        if isinstance(exc, DefusedXmlException):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."


# ---------------------------------------------------------------- public API

def _inspect_bytes(data: bytes, source: str, limits: Limits) -> XlsxInfo:
    if not data.startswith(ZIP_MAGICS):
        raise _Refused(_sniff_not_zip(data))
    archive = _open_zip(data, limits)
    infos = archive.infolist()
    _sniff_opendocument(archive, data)
    uncompressed = _check_declared(infos, limits)
    cells, kept = _verify_members(archive, data, limits)
    package = _describe_package([info.filename for info in infos], kept)
    return XlsxInfo(path=source, size=len(data), sha256=hashlib.sha256(data).hexdigest(),
                    members=len(infos), uncompressed=uncompressed, cells=cells, data=data, **package)


def inspect_xlsx(path: str | os.PathLike, limits: Limits = DEFAULT_LIMITS) -> XlsxInfo:
    """Verify a workbook file without loading it; raise a one-line WorkbookError naming the file."""
    source = str(path)
    try:
        return _inspect_bytes(_read_input(Path(path), limits), source, limits)
    except _Refused as exc:
        raise WorkbookError(str(exc), source=source) from None


def load_xlsx(path: str | os.PathLike, *, limits: Limits = DEFAULT_LIMITS,
              data_only: bool = False) -> LoadedWorkbook:
    """Verify, then load with openpyxl from the verified bytes: the workbook and what it holds."""
    source = str(path)
    if not openpyxl.DEFUSEDXML:
        raise WorkbookError("openpyxl is not using defusedxml (is OPENPYXL_DEFUSEDXML=False set?); "
                            "refusing to parse an untrusted workbook", source=source)
    info = inspect_xlsx(path, limits)
    try:
        with warnings.catch_warnings():
            # openpyxl warns about every extension it drops (data validation, slicers...):
            # noise for a reader that only needs cells and names
            warnings.simplefilter("ignore")
            workbook = openpyxl.load_workbook(io.BytesIO(info.data), data_only=data_only,
                                              keep_vba=False, keep_links=True, rich_text=False)
    except MemoryError:
        raise WorkbookError("too large to load into memory", source=source) from None
    except Exception as exc:  # openpyxl raises anything from KeyError to TypeError on odd parts
        hostile = _defused_cause(exc)
        if hostile is not None:
            raise WorkbookError(f"hostile XML refused ({type(hostile).__name__}: {_one_line(hostile)})",
                                source=source) from None
        raise WorkbookError(f"openpyxl cannot read it: {type(exc).__name__}: {_one_line(exc)}",
                            source=source) from None
    return LoadedWorkbook(workbook=workbook, info=info)


def open_workbook(path: str | os.PathLike, *, max_uncompressed: int | None = None,
                  max_ratio: float | None = None, data_only: bool = False,
                  limits: Limits | None = None) -> openpyxl.Workbook:
    """The one call `check` and `extract` need: a verified, fully loaded openpyxl workbook."""
    limits = limits or DEFAULT_LIMITS
    overrides = {key: value for key, value in
                 (("max_uncompressed", max_uncompressed), ("max_ratio", max_ratio)) if value is not None}
    if overrides:
        limits = replace(limits, **overrides)
    return load_xlsx(path, limits=limits, data_only=data_only).workbook
