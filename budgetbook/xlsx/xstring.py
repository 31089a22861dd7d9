"""Cell text the way Excel and LibreOffice store it: OOXML's `_xHHHH_` escapes (ST_Xstring), both ways.

Excel and LibreOffice read `_x000A_` in a stored string as one newline and
`_x0041_` as `A`; a literal `_x000A_` is stored with its underscore escaped,
`_x005F_x000A_`. openpyxl does neither on write (a label `gpu_x1024_` would be
shown as something else) and, on read, keeps inline strings raw but deletes
every `x005F_` from shared strings: no rule anyone else applies. So budgetbook
escapes every text it writes (`escape`), and reads the text it needs back
exactly, the embedded plan, from the package as stored (`stored_texts`),
decoded by the rule Excel and LibreOffice apply (`unescape`).
"""

from __future__ import annotations

import io
import re
import zipfile
from posixpath import dirname, join, normpath

# the underscore that starts `_xHHHH_`; a lookahead, so in `_x005F_x0041_` both underscores count
_ESCAPABLE = re.compile(r"_(?=x[0-9A-Fa-f]{4}_)")
_ESCAPED = re.compile(r"_x([0-9A-Fa-f]{4})_")

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_DOC_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_OFFICE_DOCUMENT = "/officeDocument"
_SHARED_STRINGS = "/sharedStrings"


def escape(text: str) -> str:
    """`text` as stored so that Excel and LibreOffice read `text` back: `_xHHHH_` -> `_x005F_xHHHH_`."""
    return _ESCAPABLE.sub("_x005F_", text) if "_x" in text else text


def _char(match: re.Match) -> str:
    code = int(match.group(1), 16)
    # a lone surrogate is no character (Excel writes astral characters raw); keep such text as it is
    return match.group() if 0xD800 <= code <= 0xDFFF else chr(code)


def unescape(text: str) -> str:
    """Stored text as Excel and LibreOffice read it: every `_xHHHH_`, left to right, one character."""
    return _ESCAPED.sub(_char, text) if "_x" in text else text


def _part_text(node) -> str:
    """The text of an `<si>` or `<is>`: its `<t>`, or its runs' `<t>`s; phonetic guides (`<rPh>`) left out."""
    parts = []
    for child in node:
        if child.tag == f"{_MAIN}t":
            parts.append(child.text or "")
        elif child.tag == f"{_MAIN}r":
            parts.extend(t.text or "" for t in child.iter(f"{_MAIN}t"))
    return "".join(parts)


def _relations(archive: zipfile.ZipFile, part: str) -> list[tuple[str, str, str]]:
    """(id, type, member name) of a part's relationships."""
    rels = join(dirname(part), "_rels", part.rsplit("/", 1)[-1] + ".rels")
    if rels not in archive.namelist():
        return []
    from defusedxml.ElementTree import fromstring  # here: `show` imports this module (via the embed sheet's name)

    out = []
    for rel in fromstring(archive.read(rels)).iter(f"{_PKG_REL}Relationship"):
        target = rel.get("Target", "")
        name = target.lstrip("/") if target.startswith("/") else normpath(join(dirname(part), target))
        out.append((rel.get("Id", ""), rel.get("Type", ""), name))
    return out


def stored_texts(data: bytes, title: str) -> dict[str, str] | None:
    """{`B4`: text} of every text cell on sheet `title`, decoded exactly; None where the package is not
    laid out as a workbook this reader knows (the caller then trusts openpyxl)."""
    archive = zipfile.ZipFile(io.BytesIO(data))  # verified bytes: sizes and XML already checked by `safety`
    book = next((name for _, kind, name in _relations(archive, "") if kind.endswith(_OFFICE_DOCUMENT)), None)
    if book is None or book not in archive.namelist():
        return None
    from defusedxml.ElementTree import fromstring

    rels = _relations(archive, book)
    sheet_id = next((s.get(f"{_DOC_REL}id") for s in fromstring(archive.read(book)).iter(f"{_MAIN}sheet")
                     if unescape(s.get("name", "")) == title), None)
    sheet = next((name for rid, _, name in rels if rid == sheet_id), None)
    if sheet is None or sheet not in archive.namelist():
        return None
    shared_part = next((name for _, kind, name in rels if kind.endswith(_SHARED_STRINGS)), None)
    shared = [] if shared_part is None or shared_part not in archive.namelist() else \
        [_part_text(si) for si in fromstring(archive.read(shared_part)).iter(f"{_MAIN}si")]
    out = {}
    for cell in fromstring(archive.read(sheet)).iter(f"{_MAIN}c"):
        kind, ref = cell.get("t"), cell.get("r")
        if ref is None:  # `r` is optional in OOXML; Excel and LibreOffice write it, and so does openpyxl
            return None
        if kind == "inlineStr" and (inline := cell.find(f"{_MAIN}is")) is not None:
            out[ref] = unescape(_part_text(inline))
        elif kind == "s" and (value := cell.findtext(f"{_MAIN}v")) is not None and value.strip().isdigit() \
                and int(value) < len(shared):
            out[ref] = unescape(shared[int(value)])
    return out
