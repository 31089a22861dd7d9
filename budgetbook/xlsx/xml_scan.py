"""Stream every XML part through expat before openpyxl sees it: refuse DTDs, count what loading would build.

Refusing any DTD stops entity expansion and external entities before openpyxl
(itself on defusedxml) ever parses the part. The same pass counts the cells
and merged areas openpyxl would materialize: a 100-byte
`<mergeCell ref="A1:XFD1048576"/>` would otherwise make it create 17 billion
cell objects.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from typing import Any, NoReturn
from xml.parsers import expat

from openpyxl.utils.cell import range_boundaries

from .archive import inflate
from .limits import Limits, Refused, human_size

CONTENT_TYPES = "[Content_Types].xml"
_XML_SUFFIXES = (".xml", ".rels", ".vml")


@dataclass
class _Tally:
    """Counts across all parts: the limits are per workbook, not per sheet."""

    cells: int = 0
    merged: int = 0


class _XmlScan:
    """Stream one XML part through expat: refuse DTDs, count what openpyxl would build."""

    def __init__(self, name: str, limits: Limits, tally: _Tally):
        self.name = name
        self.limits = limits
        self.tally = tally
        parser = expat.ParserCreate(namespace_separator="}")
        parser.StartDoctypeDeclHandler = self._doctype
        parser.EntityDeclHandler = self._entity
        parser.ExternalEntityRefHandler = self._entity
        parser.StartElementHandler = self._start
        self.parser = parser

    def _doctype(self, *args: Any) -> NoReturn:
        raise Refused(f"`{self.name}` declares a DTD (<!DOCTYPE>): entity expansion and external "
                      "entities are refused, and Excel never writes them")

    def _entity(self, *args: Any) -> NoReturn:
        raise Refused(f"`{self.name}` declares or references an XML entity: refused")

    def _start(self, tag: str, attrs: dict[str, str]) -> None:
        local = tag.rpartition("}")[2]
        if local == "c":
            self.tally.cells += 1
            if self.tally.cells > self.limits.max_cells:
                raise Refused(f"holds over {self.limits.max_cells:,} cells, more than a budget "
                              f"workbook needs (limit reached in `{self.name}`)")
        elif local == "mergeCell":
            self._merge(attrs.get("ref", ""))

    def _merge(self, ref: str) -> None:
        try:
            min_col, min_row, max_col, max_row = range_boundaries(ref)
            area = (max_col - min_col + 1) * (max_row - min_row + 1)
        except (ValueError, TypeError):
            return  # openpyxl will reject it with its own message
        self.tally.merged += area
        if self.tally.merged > self.limits.max_merged_cells:
            raise Refused(f"`{self.name}` merges {self.tally.merged:,} cells (limit "
                          f"{self.limits.max_merged_cells:,}): loading would exhaust memory")

    def feed(self, piece: bytes, final: bool = False) -> None:
        try:
            self.parser.Parse(piece, final)
        except expat.ExpatError as exc:
            raise Refused(f"`{self.name}` is not well-formed XML ({expat.ErrorString(exc.code)}, "
                          f"line {exc.lineno})") from None


def _looks_like_xml(head: bytes) -> bool:
    if head.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"<\x00", b"\x00<")):
        return True
    # all whitespace so far: undecided, so scan (a DTD may follow the padding)
    return head.lstrip(b" \t\r\n")[:1] in (b"", b"<")


def scan_members(archive: zipfile.ZipFile, data: bytes, limits: Limits) -> tuple[int, bytes | None]:
    """Inflate every member once; return the cell count and the bytes of `[Content_Types].xml` (None if absent)."""
    tally = _Tally()
    content_types = None
    budget = limits.max_uncompressed
    for info in archive.infolist():
        if info.is_dir():
            continue
        keep = info.filename == CONTENT_TYPES
        produced, kept = _scan_member(data, info, limits, tally, budget, keep)
        if keep:
            content_types = kept
        budget -= produced
    return tally.cells, content_types


def _scan_member(data: bytes, info: zipfile.ZipInfo, limits: Limits, tally: _Tally, budget: int,
                 keep: bool) -> tuple[int, bytes]:
    """(bytes inflated, the member's bytes if `keep` else b"") for one member, scanned if it is XML."""
    scan = None
    pieces = []
    produced = 0
    for piece in inflate(data, info, cap=budget):
        if produced == 0 and (info.filename.lower().endswith(_XML_SUFFIXES) or _looks_like_xml(piece)):
            # by content too: a relationship can point openpyxl at any part name
            scan = _XmlScan(info.filename, limits, tally)
        produced += len(piece)
        if scan is not None:
            scan.feed(piece)
        if keep:
            if produced > limits.max_content_types_bytes:
                raise Refused(f"`{info.filename}` is over {human_size(limits.max_content_types_bytes)}")
            pieces.append(piece)
    if scan is not None:
        scan.feed(b"", final=True)
    return produced, b"".join(pieces)
