"""What a verified zip is as an Office package, and what it holds that `check` must mention.

Its `[Content_Types].xml` says which kind of workbook it is (xlsx, xlsm, a
template or an add-in); other formats that are zips too (OpenDocument, xlsb,
Word, PowerPoint) are refused by name. Macros, links to other workbooks,
tables and data connections are listed, never run or fetched.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring as defused_fromstring

from .archive import inflate
from .limits import Refused, one_line

_MAIN_TYPES = {
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml": "xlsx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml": "xltx",
    "application/vnd.ms-excel.sheet.macroEnabled.main+xml": "xlsm",
    "application/vnd.ms-excel.template.macroEnabled.main+xml": "xltm",
    "application/vnd.ms-excel.addin.macroEnabled.main+xml": "xlam",
}
_XLSB_TYPE = "application/vnd.ms-excel.sheet.binary.macroEnabled.main"
_VBA_TYPE = "application/vnd.ms-office.vbaProject"


@dataclass(frozen=True)
class PackageContents:
    """The workbook's kind and the parts of it that budgetbook reports but never runs."""

    kind: str
    macros: tuple[str, ...]
    external_links: tuple[str, ...]
    tables: tuple[str, ...]
    connections: tuple[str, ...]


def refuse_opendocument(archive: zipfile.ZipFile, data: bytes) -> None:
    """Name an OpenDocument file for what it is, from its `mimetype` member."""
    try:
        info = archive.getinfo("mimetype")
    except KeyError:
        return
    if info.file_size > 200 or info.compress_size > 400:
        return
    mimetype = b"".join(inflate(data, info, cap=200)).strip()
    if mimetype.startswith(b"application/vnd.oasis.opendocument.spreadsheet"):
        raise Refused("an OpenDocument spreadsheet (.ods): not a readable .xlsx; save it as .xlsx")
    if mimetype.startswith(b"application/vnd.oasis.opendocument"):
        raise Refused("an OpenDocument file, not an .xlsx workbook")


def describe_package(names: list[str], content_types: bytes | None) -> PackageContents:
    """What the package is and holds, from its member names and `[Content_Types].xml`."""
    if content_types is None:
        raise Refused("a zip without `[Content_Types].xml`: not an Office Open XML workbook")
    type_of = _type_lookup(content_types)
    lowered = {name.lower(): name for name in names}
    if any(type_of(name).startswith(_XLSB_TYPE) for name in names) or "xl/workbook.bin" in lowered:
        raise Refused("a binary .xlsb workbook: not a readable .xlsx; save it as .xlsx")
    kinds = {_MAIN_TYPES[type_of(name)] for name in names if type_of(name) in _MAIN_TYPES}
    if "xl/workbook.xml" not in names and not kinds:
        _refuse_other_office_file(lowered)
    macros = tuple(name for name in names
                   if type_of(name) == _VBA_TYPE or name.lower().endswith("vbaproject.bin")
                   or name.lower().startswith(("xl/macrosheets/", "xl/activex/")))
    return PackageContents(
        kind=next(iter(sorted(kinds)), "xlsx"),
        macros=macros,
        external_links=_parts_in(names, "xl/externallinks/"),
        tables=_parts_in(names, "xl/tables/"),
        connections=tuple(n for n in names if n.lower() == "xl/connections.xml"),
    )


def _refuse_other_office_file(lowered: dict[str, str]) -> NoReturn:
    if "word/document.xml" in lowered:
        raise Refused("a Word document, not an .xlsx workbook")
    if "ppt/presentation.xml" in lowered:
        raise Refused("a PowerPoint presentation, not an .xlsx workbook")
    raise Refused("a zip without `xl/workbook.xml`: not an .xlsx workbook")


def _parts_in(names: list[str], folder: str) -> tuple[str, ...]:
    """The parts in `folder` (lower case, with its slash), not counting their relationships."""
    rels = folder + "_rels/"
    return tuple(n for n in names if n.lower().startswith(folder) and not n.lower().startswith(rels))


def _type_lookup(content_types: bytes) -> Callable[[str], str]:
    """A part name's content type: its Override, else the Default for its extension, else ""."""
    defaults, overrides = _content_types(content_types)

    def type_of(name: str) -> str:
        return overrides.get(name) or defaults.get(name.rpartition(".")[2].lower(), "")

    return type_of


def overrides(content_types: bytes) -> list[tuple[str, str]]:
    """(part name, content type) of every `Override`, in the order `[Content_Types].xml` lists them."""
    try:
        root = defused_fromstring(content_types)
    except (DefusedXmlException, SyntaxError) as exc:
        raise Refused(f"`[Content_Types].xml` is unreadable ({one_line(exc)})") from None
    return [(element.get("PartName", "").lstrip("/"), element.get("ContentType", ""))
            for element in root if element.tag.rpartition("}")[2] == "Override"]


def _content_types(raw: bytes) -> tuple[dict[str, str], dict[str, str]]:
    try:
        root = defused_fromstring(raw)
    except (DefusedXmlException, SyntaxError) as exc:
        raise Refused(f"`[Content_Types].xml` is unreadable ({one_line(exc)})") from None
    defaults, overrides = {}, {}
    for element in root:
        local = element.tag.rpartition("}")[2]
        if local == "Default":
            defaults[element.get("Extension", "").lower()] = element.get("ContentType", "")
        elif local == "Override":
            overrides[element.get("PartName", "").lstrip("/")] = element.get("ContentType", "")
    return defaults, overrides
