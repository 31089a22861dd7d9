"""Stream every XML part through expat before openpyxl sees it: refuse DTDs, count what loading would build.

Refusing any DTD stops entity expansion and external entities before openpyxl
(itself on defusedxml) ever parses the part. The same pass counts what loading
(and evaluating) would build from a few bytes of XML, each against a limit of
`Limits`:

- cells, and the cells covered by merged areas and hyperlink ranges: a 100-byte
  `<mergeCell ref="A1:XFD1048576"/>` or `<hyperlink ref="A1:XFD1048576"/>`
  would make openpyxl create 17 billion cell objects;
- rows, shared strings, and the other objects openpyxl makes one of per
  element (defined names, cell formats, column ranges, hyperlinks,
  validations, conditional formats, comments, relationships).

A sheet's used range (A1 to its last cell) is bounded once openpyxl has
loaded the cells (`safety`): one cell at XFD1048576 costs nothing to load,
only to walk. The declared `<dimension ref=...>` is trusted for nothing:
openpyxl, in the mode budgetbook loads, ignores it.

A part up to `xml_replay.FAST_PART_BYTES` is inflated whole before it is
parsed: plain XML is checked by expat with no handler, then its elements
are handed to the same handlers from its text (`xml_replay`), the cells in
runs; anything else, and a larger part, goes through expat's handlers. Each
part is parsed once either way, and refused for the same reason.
"""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass, field
from typing import Any, NoReturn
from xml.parsers import expat

from .a1 import range_boundaries
from .archive import inflate
from .limits import Limits, Refused, human_size
from .xml_replay import FAST_PART_BYTES, Replay, plain_start

CONTENT_TYPES = "[Content_Types].xml"
_XML_SUFFIXES = (".xml", ".rels", ".vml")


_REL_ID = "http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_RELS = "http://schemas.openxmlformats.org/package/2006/relationships}"

# element (namespace}name, as openpyxl looks for it) -> (Limits field, what it is): openpyxl builds one
# object per element. Counted in every part, whatever its root: openpyxl parses any part a relationship
# points it at as that kind of part. (A theme's drawingml `a:font`, or a drawing's `xdr:row`, are not these.)
_COUNTED = {
    _MAIN + "row": ("max_rows", "rows"),
    _MAIN + "col": ("max_objects", "column ranges"),
    _MAIN + "hyperlink": ("max_objects", "hyperlinks"),
    _MAIN + "dataValidation": ("max_objects", "data validations"),
    _MAIN + "cfRule": ("max_objects", "conditional formats"),
    _MAIN + "si": ("max_shared_strings", "shared strings"),
    _MAIN + "definedName": ("max_defined_names", "defined names"),
    _MAIN + "comment": ("max_objects", "comments"),
    _RELS + "Relationship": ("max_objects", "relationships"),
    **{_MAIN + tag: ("max_objects", "style records")
       for tag in ("xf", "font", "fill", "border", "numFmt", "dxf", "cellStyle")},
}


@dataclass
class _Tally:
    """Counts across all parts: the limits are per workbook, not per sheet."""

    cells: int = 0
    merged: int = 0
    linked: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    sheets: list[tuple[str, str]] = field(default_factory=list)        # (title, relationship id) in workbook order
    workbook_part: str = ""
    relationships: dict[str, dict[str, str]] = field(default_factory=dict)  # rels part -> {id: target}


class _XmlScan:
    """Stream one XML part through expat: refuse DTDs, count what openpyxl would build."""

    def __init__(self, name: str, limits: Limits, tally: _Tally, reader: Any = None):
        self.name = name
        self.limits = limits
        self.tally = tally
        self.reader = reader  # `lean.LeanReader`: collects what `check` reads, in this same pass
        self.collector: Any = None
        self.root = ""
        parser = expat.ParserCreate(namespace_separator="}")
        parser.buffer_text = True
        parser.StartDoctypeDeclHandler = self._doctype
        parser.EntityDeclHandler = self._entity
        parser.ExternalEntityRefHandler = self._entity
        parser.StartElementHandler = self._first
        self.parser = parser

    def _doctype(self, *args: Any) -> NoReturn:
        raise Refused(f"`{self.name}` declares a DTD (<!DOCTYPE>): entity expansion and external "
                      "entities are refused, and Excel never writes them")

    def _entity(self, *args: Any) -> NoReturn:
        raise Refused(f"`{self.name}` declares or references an XML entity: refused")

    def _first(self, tag: str, attrs: dict[str, str]) -> None:
        """The root element: what kind of part this is. Every later element goes to `_start`."""
        self.root = tag.rpartition("}")[2]
        if self.root == "workbook" and not self.tally.workbook_part:
            self.tally.workbook_part = self.name
        self.parser.StartElementHandler = self._start
        if self.reader is not None:
            self.collector = self.reader.part(self.name, self.root)
            if self.collector is not None:
                self.collector.detach = self._detach
                self.parser.StartElementHandler = self._start_collected
                self.parser.EndElementHandler = self.collector.end
                self.parser.CharacterDataHandler = self.collector.text
                self._start_collected(tag, attrs)
                return
        self._start(tag, attrs)

    def _detach(self) -> None:
        """The collector gave up on this part (it says why in its `problem`): scan on without it."""
        self.parser.StartElementHandler = self._start
        self.parser.EndElementHandler = self.parser.CharacterDataHandler = None
        self.collector = None

    def _start_collected(self, tag: str, attrs: dict[str, str]) -> None:
        self._start(tag, attrs)
        if self.collector is not None:  # detached by a handler of this very element
            self.collector.start(tag, attrs)

    def _start(self, tag: str, attrs: dict[str, str]) -> None:
        # called for every element of up to 300 MB of XML: the common ones (<c>, <v>, <f>) leave first
        if tag.endswith("}c") or tag == "c":
            self._cell()
            return
        counted = _COUNTED.get(tag)
        if counted is not None:
            self._count(*counted)
        local = tag.rpartition("}")[2]
        if local == "mergeCell":
            self._merge(attrs.get("ref", ""))
        elif local == "hyperlink":
            self._link(attrs.get("ref", ""))
        elif local == "sheet" and self.root == "workbook":
            self.tally.sheets.append((attrs.get("name", ""), attrs.get(_REL_ID, "")))
        elif local == "Relationship" and self.name.endswith("workbook.xml.rels"):
            self.tally.relationships.setdefault(self.name, {})[attrs.get("Id", "")] = attrs.get("Target", "")

    def _count(self, limit_field: str, what: str, many: int = 1) -> None:
        counts = self.tally.counts
        counts[what] = counts.get(what, 0) + many
        limit = getattr(self.limits, limit_field)
        if counts[what] > limit:
            raise Refused(f"holds over {limit:,} {what}, more than a budget workbook needs "
                          f"(limit reached in {self.where()})")

    def count(self, tag: str, many: int) -> None:
        """`many` elements `tag` in a row, nothing else between them (`xml_replay`): as many `_start`s."""
        if many:
            self._count(*_COUNTED[tag], many)

    def room(self, cells: int, rows: int) -> bool:
        """Whether `cells` more cells and `rows` more rows stay within the limits (`xml_replay` takes a run
        that would cross one element by element, for the refusal streaming gives)."""
        return self.tally.cells + cells <= self.limits.max_cells and \
            self.tally.counts.get("rows", 0) + rows <= self.limits.max_rows

    def counted(self, tag: str) -> bool:
        """Whether elements `tag` are counted against a limit."""
        return tag in _COUNTED

    def room_for(self, many: dict[str, int]) -> bool:
        """Whether so many more of each counted element stay within the limits (`xml_replay`, as `room`)."""
        counts = self.tally.counts
        added: dict[str, int] = {}
        for tag, n in many.items():
            limit_field, what = _COUNTED[tag]
            added[what] = added.get(what, 0) + n
            if counts.get(what, 0) + added[what] > getattr(self.limits, limit_field):
                return False
        return True

    def count_cells(self, many: int) -> None:
        """`many` cells in a row, nothing else between them (`xml_replay`): as many `_start`s."""
        if many:
            self._cell(many)

    def _cell(self, many: int = 1) -> None:
        self.tally.cells += many
        if self.tally.cells > self.limits.max_cells:
            raise Refused(f"holds over {self.limits.max_cells:,} cells, more than a budget "
                          f"workbook needs (limit reached in {self.where()})")

    def _merge(self, ref: str) -> None:
        self.tally.merged += _area(ref)
        if self.tally.merged > self.limits.max_merged_cells:
            raise Refused(f"{self.where()} merges {self.tally.merged:,} cells (limit "
                          f"{self.limits.max_merged_cells:,}): loading would exhaust memory")

    def _link(self, ref: str) -> None:
        self.tally.linked += _area(ref)
        if self.tally.linked > self.limits.max_linked_cells:
            raise Refused(f"{self.where()} has hyperlinks over {self.tally.linked:,} cells (limit "
                          f"{self.limits.max_linked_cells:,}): loading would copy the link into each")

    def close(self) -> None:
        """Let go of the parser and the collector once the part is scanned: each holds the scan's bound methods,
        so the cycles kept a reader's every scan, and the names and cells its collectors had gathered on the
        way (~50,000 tuples and dicts in a 45,000-cell book), until the cyclic collector ran; freed now."""
        self.parser = None  # type: ignore[assignment]
        if self.collector is not None:
            self.collector.detach = None

    def where(self) -> str:
        """`sheet `Inputs`` for a worksheet part whose title is known, else the part's name in backticks."""
        title = _sheet_title(self.tally, self.name)
        return f"sheet `{title}`" if title is not None else f"`{self.name}`"

    def feed(self, piece: bytes, final: bool = False) -> None:
        try:
            self.parser.Parse(piece, final)
        except expat.ExpatError as exc:
            raise Refused(f"`{self.name}` is not well-formed XML ({expat.ErrorString(exc.code)}, "
                          f"line {exc.lineno})") from None

    def whole(self, data: bytes) -> None:
        """The part, inflated whole: checked well-formed by expat with no handler, then its elements handed to
        the handlers from its text (`xml_replay`) when it is plain XML; else fed through them. The handlers
        see the same elements either way (and a part that is not well-formed is fed through them, for the
        refusal streaming gives: a limit crossed before the fault is the one named)."""
        start = plain_start(data)
        if start is not None and _well_formed(data):
            Replay(self, data.decode("utf-8")).run(start)
        else:
            self.feed(data, final=True)


def _well_formed(data: bytes) -> bool:
    """Whether expat, namespaces on, reads `data` to its end (`plain_start` has ruled out any DTD)."""
    try:
        expat.ParserCreate(namespace_separator="}").Parse(data, True)
    except expat.ExpatError:
        return False
    return True


def _looks_like_xml(head: bytes) -> bool:
    if head.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"<\x00", b"\x00<")):
        return True
    # all whitespace so far: undecided, so scan (a DTD may follow the padding)
    return head.lstrip(b" \t\r\n")[:1] in (b"", b"<")


def scan_members(archive: zipfile.ZipFile, data: bytes, limits: Limits,
                 reader: Any = None) -> tuple[int, bytes | None]:
    """Inflate every member once; return the cell count and the bytes of `[Content_Types].xml` (None if absent).

    `reader` (a `lean.LeanReader`) is handed each XML part as it is parsed, to collect the workbook."""
    tally = _Tally()
    content_types = None
    budget = limits.max_uncompressed
    for info in _scan_order(archive.infolist()):
        if info.is_dir():
            continue
        keep = info.filename == CONTENT_TYPES
        produced, kept = _scan_member(data, info, limits, tally, budget, keep, reader)
        if keep:
            content_types = kept
        budget -= produced
    return tally.cells, content_types


def _scan_member(data: bytes, info: zipfile.ZipInfo, limits: Limits, tally: _Tally, budget: int,
                 keep: bool, reader: Any = None) -> tuple[int, bytes]:
    """(bytes inflated, the member's bytes if `keep` else b"") for one member, scanned if it is XML.

    An XML part up to FAST_PART_BYTES is inflated whole, then scanned (`_XmlScan.whole`); a larger one is
    fed to expat piece by piece as it inflates. Should inflating fail part way, what was inflated is fed
    first: a refusal streaming would have given before the failure is the one raised."""
    scan = None
    whole = info.file_size <= FAST_PART_BYTES  # the declared size: `inflate` refuses a member past it
    pieces: list[bytes] = []
    produced = 0
    try:
        for piece in inflate(data, info, cap=budget):
            if produced == 0 and (info.filename.lower().endswith(_XML_SUFFIXES) or _looks_like_xml(piece)):
                # by content too: a relationship can point openpyxl at any part name
                scan = _XmlScan(info.filename, limits, tally, reader)
            produced += len(piece)
            if scan is not None and not whole:
                scan.feed(piece)
            if keep or (scan is not None and whole):
                pieces.append(piece)
            if keep and produced > limits.max_content_types_bytes:
                raise Refused(f"`{info.filename}` is over {human_size(limits.max_content_types_bytes)}")
    except Refused:
        if scan is not None and whole:
            scan.feed(b"".join(pieces))
        raise
    body = b"".join(pieces)
    del pieces
    if scan is not None:
        if whole:
            scan.whole(body)
        else:
            scan.feed(b"", final=True)
        scan.close()
    return produced, body if keep else b""


def _area(ref: str) -> int:
    """Cells in an A1 range (`A1:XFD1048576`) or cell; 0 for what openpyxl will reject itself."""
    try:
        min_col, min_row, max_col, max_row = range_boundaries(ref)
    except ValueError:
        return 0
    if min_col is None or min_row is None or max_col is None or max_row is None:  # whole columns or rows
        return 0
    return (max_col - min_col + 1) * (max_row - min_row + 1)


def _sheet_title(tally: _Tally, part: str) -> str | None:
    """The title of the sheet stored in `part`, through the workbook's relationships (read first: `_scan_order`)."""
    workbook = tally.workbook_part
    folder = posixpath.dirname(workbook)
    rels = tally.relationships.get(posixpath.join(folder, "_rels", posixpath.basename(workbook) + ".rels"), {})
    for title, rel_id in tally.sheets:
        target = rels.get(rel_id, "")
        resolved = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        if resolved == part:
            return title
    return None


def _scan_order(infos: list[zipfile.ZipInfo]) -> list[zipfile.ZipInfo]:
    """The workbook part and its relationships first (openpyxl writes them last), so refusals name sheets."""
    return sorted(infos, key=lambda info: not info.filename.endswith(("workbook.xml", "workbook.xml.rels")))
