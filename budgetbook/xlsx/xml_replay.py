"""Hand a verified XML part's elements to the scan's expat handlers from its text, plain cells without a call each.

The safety scan (`xml_scan`) streams every part through expat, and expat calls
Python for each element's start and end and each run of text: eight calls for
a cell holding a formula and its value, ~70 % of opening a 45,000-cell book.
For a part that is plain XML (UTF-8, no DTD, comment, CDATA section or
processing instruction: what Excel, LibreOffice and openpyxl write), expat
first checks it is well-formed with no handler at all, at C speed; then this
module reads the same text with regular expressions and makes the very calls
expat would have made (`Replay`): each element's name and attributes resolved
against the namespaces in scope, attribute values normalised and text with its
line ends and references decoded, as expat does. Where the structure allows
it, it skips the calls: a run of plain cells (`<c r="C8" s="3"><f>..</f><v>..
</v></c>`) goes straight to the lean reader's sheet (`lean_parts._Sheet.put`),
counted as cells in one step, and a run of plain defined names to the
workbook's collector. Anything else (an attribute in another order, a shared
formula, a rich string) takes the element-by-element way. The events are the
ones expat gives, in its order, so every count, limit and refusal is the same
(`tests/xlsx/test_xml_replay.py` holds the two ways equal, on real books and on
odd XML).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .lean_parts import _MAIN, LeanUnsupported, _Collected, _Sheet, _Strings

__all__ = ["FAST_PART_BYTES", "Replay", "plain_start"]

FAST_PART_BYTES = 32 << 20  # larger parts stream through expat as they inflate: never held whole
XML_NS = "http://www.w3.org/XML/1998/namespace"
_WS = "[ \t\r\n]"
_DECL = re.compile(rb"<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(?:\"1\.0\"|'1\.0')"
                   rb"(?:[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(?:\"[Uu][Tt][Ff]-8\"|'[Uu][Tt][Ff]-8'))?"
                   rb"(?:[ \t\r\n]+standalone[ \t\r\n]*=[ \t\r\n]*(?:\"(?:yes|no)\"|'(?:yes|no)'))?[ \t\r\n]*\?>")
# a start tag (name, attributes, `/` when empty), an end tag, or text: in a well-formed part with no `<!`
# and no `<?` past the declaration, `<` opens nothing else
_TOKEN = re.compile(rf"<([^ \t\r\n/>]+)((?:{_WS}+[^ \t\r\n=/>]+{_WS}*={_WS}*(?:\"[^\"]*\"|'[^']*'))*){_WS}*(/?)>"
                    r"|</[^>]*>|[^<]+")
_ATTR = re.compile(rf"([^ \t\r\n=]+){_WS}*={_WS}*(?:\"([^\"]*)\"|'([^']*)')")
# a plain cell: r, then s, then t, each double-quoted; empty, or <f> and/or <v> without attributes, or <is><t>.
# A text that is there but empty (`<f></f>`) has a group of its own: `findall` gives "" for a group that
# matched nothing and for one that is not there alike (an empty <v> is no value either way)
_CELL_TEXT = (r'<c r="([A-Z]{1,3})([0-9]{1,7})"(?: s="([0-9]{1,9})")?(?: t="([A-Za-z]{1,9})")?'
              r'(?: ?/>|>(?:<f>([^<]+)</f>|(<f></f>))?(?:<v>([^<]*)</v>)?</c>'
              r'|><is><t>([^<]+)</t></is></c>|>(<is><t></t></is>)</c>)')
_CELL = re.compile(_CELL_TEXT)
# a row with nothing `_Sheet._row` keeps but its number (`spans`, attributes in another namespace: not kept)
_ROW_TEXT = r'<row r="([0-9]{1,7})"(?: spans="[0-9:]{1,15}")?(?: (?!xmlns:)[A-Za-z0-9_]+:[A-Za-z0-9_]+="[^"<&]*")*>'
_ITEM = re.compile(f"{_ROW_TEXT}|{_CELL_TEXT}")
_BARE = _CELL_TEXT.replace("(", "(?:").replace("(?:?:", "(?:")
# a run: cells of the row open, and whole rows of plain cells
# possessive (`++`): nothing follows a run, so it matches what greedy `+` does, without the regex engine keeping a
# way back per element (~270 MB at a sheet of 230,000 cells)
_RUN = re.compile(f"(?:{_BARE}|{_ROW_TEXT.replace('(', '(?:').replace('(?:?', '(?')}(?:{_BARE})*</row>)++")
_NAME_TEXT = r'<definedName name="([^"&\t\n\r]*)">([^<]*)</definedName>'
_NAME = re.compile(_NAME_TEXT)
_NAMES = re.compile(f"(?:{_NAME_TEXT.replace('(', '(?:')})++")
# a plain shared string: one <t>, no runs (`xml:space` is not read: it keeps the text as stored, as expat does)
_STRING_TEXT = r'<si><t(?: xml:space="preserve")?>([^<]*)</t></si>'
_STRING = re.compile(_STRING_TEXT)
_STRINGS = re.compile(f"(?:{_STRING_TEXT.replace('([', '(?:[')})++")
# elements of a sheet the lean reader reads nothing in: counted, their events not made (`Replay._skip`)
_SKIPPED = ("<dataValidations", "<conditionalFormatting")
_TAG = re.compile(r"<([^ \t\r\n/>]+)")
_NOT_SKIPPED = frozenset(("c", "row", "col", "mergeCell", "hyperlink", "sheet", "Relationship"))
_REFERENCE = re.compile(r"&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);")
_COLUMNS: dict[str, int] = {}  # "AB" -> 28, filled as met (at most 18,278: three letters)
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


def plain_start(data: bytes) -> int | None:
    """Where the markup starts (past the XML declaration) when `data` is plain UTF-8 XML the replay reads as
    expat does, else None: no NUL byte (a UTF-16 part), no `<!` (DTD, comment, CDATA), no `<?` but a
    UTF-8 declaration at the very start."""
    if b"\x00" in data or b"<!" in data:
        return None
    pis = data.count(b"<?")
    if pis == 0:
        return 0
    match = _DECL.match(data) if pis == 1 else None
    return match.end() if match is not None else None


def _deref(match: re.Match) -> str:
    name = match.group(1)
    if name[0] != "#":
        return _ENTITIES[name]
    return chr(int(name[2:], 16) if name[1] == "x" else int(name[1:]))


def _decoded(raw: str) -> str:
    """`raw` with its references decoded (`&amp;` last, so `&amp;lt;` is `&lt;`)."""
    if "&#" in raw:
        return _REFERENCE.sub(_deref, raw)
    return raw.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&apos;", "'") \
        .replace("&amp;", "&")


def text_value(raw: str) -> str:
    """Character data as expat gives it: line ends made `\\n`, then references decoded."""
    if "\r" in raw:
        raw = raw.replace("\r\n", "\n").replace("\r", "\n")
    return _decoded(raw) if "&" in raw else raw


def attribute_value(raw: str) -> str:
    """An attribute's value as expat gives it: line ends, tabs and newlines made spaces, then references decoded."""
    if "\r" in raw or "\n" in raw or "\t" in raw:
        raw = raw.replace("\r\n", " ").replace("\r", " ").replace("\n", " ").replace("\t", " ")
    return _decoded(raw) if "&" in raw else raw


def _qualified(name: str, spaces: dict[str, str], attribute: bool) -> str:
    """`uri}local` as expat names an element (its default namespace too) or an attribute (prefixed only)."""
    prefix, colon, local = name.partition(":")
    if colon:
        return spaces[prefix] + "}" + local
    default = "" if attribute else spaces.get("", "")
    return default + "}" + name if default else name


class Replay:
    """Call `scan.parser`'s handlers (read anew at each element: the scan switches them) for `text`'s elements."""

    def __init__(self, scan: Any, text: str):
        self.scan = scan
        self.text = text

    def run(self, pos: int) -> None:
        text, token, parser = self.text, _TOKEN.match, self.scan.parser
        end = len(text)
        spaces = {"xml": XML_NS}
        stack: list[tuple[str, dict[str, str]]] = []  # open elements: (name, the namespaces outside it)
        while pos < end:
            if stack and text[pos] == "<" and spaces.get("") == _MAIN[:-1]:
                if text.startswith("<c ", pos) or text.startswith("<row ", pos):
                    after = self._cells(pos)
                elif text.startswith("<definedName ", pos):
                    after = self._names(pos)
                elif text.startswith("<si>", pos):
                    after = self._strings(pos)
                elif text.startswith(_SKIPPED, pos):
                    after = self._skip(pos)
                else:
                    after = pos
                if after != pos:
                    pos = after
                    continue
            match = token(text, pos)
            if match is None:  # not reached in a part expat found well-formed
                raise AssertionError(f"xml_replay: no token at {pos}")
            pos = match.end()
            name = match.group(1)
            if name is not None:
                outside = spaces
                attrs: dict[str, str] = {}
                if match.group(2):
                    found = []
                    for attr in _ATTR.finditer(match.group(2)):
                        key = attr.group(1)
                        value = attribute_value(attr.group(2) if attr.group(2) is not None else attr.group(3))
                        if key == "xmlns" or key.startswith("xmlns:"):
                            if spaces is outside:
                                spaces = dict(outside)
                            spaces[key[6:]] = value
                        else:
                            found.append((key, value))
                    for key, value in found:
                        attrs[_qualified(key, spaces, True) if ":" in key else key] = value
                tag = _qualified(name, spaces, False)
                handler = parser.StartElementHandler
                if handler is not None:
                    handler(tag, attrs)
                if match.group(3):
                    closing = parser.EndElementHandler
                    if closing is not None:
                        closing(tag)
                    spaces = outside
                else:
                    stack.append((tag, outside))
            elif text[match.start()] == "<":  # an end tag
                tag, spaces = stack.pop()
                closing = parser.EndElementHandler
                if closing is not None:
                    closing(tag)
            elif stack:
                handler = parser.CharacterDataHandler
                if handler is not None:
                    handler(text_value(match.group(0)))

    def _cells(self, pos: int) -> int:
        """A run of plain cells and rows from `pos`: counted, and put on the sheet being collected; the position
        after (`pos` itself where the run would cross a limit: the elements go one by one, to be refused at
        the very one streaming refuses)."""
        scan = self.scan
        parser = scan.parser
        sheet = scan.collector
        if parser.StartElementHandler == scan._start_collected and isinstance(sheet, _Sheet) \
                and not sheet.depth and sheet.capture is None:
            collect = True
        elif parser.StartElementHandler == scan._start:
            collect = False
        else:
            return pos
        text = self.text
        run = _RUN.match(text, pos)
        if run is None:
            return pos
        end = run.end()
        # counted in the text, read in place: no copy of the run, no list of its elements (a cell begins `<c `
        # and a whole row ends `</row>`, and neither is in a value or an attribute a run holds)
        cells, rows = text.count("<c ", pos, end), text.count("</row>", pos, end)
        if not scan.room(cells, rows):
            return pos
        if collect:
            try:  # each row and cell of the run, in order: they follow one another
                self._put(sheet, (item.groups("") for item in _ITEM.finditer(text, pos, end)),
                          text.find("&", pos, end) >= 0 or text.find("\r", pos, end) >= 0)
            except LeanUnsupported as exc:  # as `_Sheet.end` does: the collector gives up on this part
                sheet.fail(exc)
        scan.count_cells(cells)
        scan.count(_MAIN + "row", rows)
        return end

    @staticmethod
    def _put(sheet: _Sheet, found: Iterable[tuple[str, ...]], decode: bool) -> None:
        """The rows and cells `_ITEM` found, kept as `_Sheet._row` and `_Sheet.put` keep them (a plain <f>: its
        text, data type `f`)."""
        put, cells, columns, top = sheet.put, sheet.cells, _COLUMNS, sheet.max_style
        for number_of_row, letters, row, style, kind, f, no_f, v, inline, no_inline in found:
            if number_of_row:
                sheet.row, sheet.col = int(number_of_row), 0
                continue
            column = columns[letters] if letters in columns else columns.setdefault(letters, _column(letters))
            number = int(style) if style else 0
            if number > top:
                top = sheet.max_style = number
            if f or no_f:  # what `put` makes of any cell with a plain <f>, whatever its `t` and <v>
                cells.put(int(row), column, "=" + (text_value(f) if decode else f), "f")
            else:
                if decode:
                    v, inline = text_value(v), text_value(inline)
                put(letters + row, int(row), column, kind or "n", number, v, None, None,
                    inline if inline or no_inline else None)
            sheet.col = column

    def _names(self, pos: int) -> int:
        """A run of plain workbook-scoped defined names from `pos`, counted and collected; the position after."""
        scan = self.scan
        book = scan.collector
        if scan.parser.StartElementHandler == scan._start_collected and isinstance(book, _Collected) \
                and book.root == "workbook" and book.capture is None:
            names = book.names
        elif scan.parser.StartElementHandler == scan._start:
            names = None
        else:
            return pos
        return self._run(pos, _NAMES, _NAME, "definedName", names, lambda found, decode: (
            ({"name": name}, (text_value(value) if decode else value) or None) for name, value in found))

    def _strings(self, pos: int) -> int:
        """A run of plain shared strings from `pos`, counted and collected; the position after."""
        scan = self.scan
        table = scan.collector
        if scan.parser.StartElementHandler == scan._start_collected and isinstance(table, _Strings) \
                and table.depth == 1 and table.capture is None:
            items = table.items
        elif scan.parser.StartElementHandler == scan._start:
            items = None
        else:
            return pos
        return self._run(pos, _STRINGS, _STRING, "si", items,
                         lambda found, decode: map(text_value, found) if decode else found)

    def _run(self, pos: int, whole: re.Pattern, one: re.Pattern, tag: str, held: list | None,
             entries: Any) -> int:
        """A run of `whole` from `pos`, each `one` in it counted as a `tag` element and, where `held` is the
        collector's list, added to it as `entries(found, decode)` gives them (`decode`: the run holds a
        reference or a carriage return, which expat would have decoded); the position after."""
        run = whole.match(self.text, pos)
        if run is None:
            return pos
        chunk = run.group(0)
        found = one.findall(chunk)
        if held is not None:
            held.extend(entries(found, "&" in chunk or "\r" in chunk))
        self.scan.count(_MAIN + tag, len(found))
        return run.end()


    def _skip(self, pos: int) -> int:
        """A `<dataValidations>` or `<conditionalFormatting>` on a sheet from `pos`, its elements counted; the
        position after. Only where its elements are ones nothing reads but the counts: no cell, row, column,
        merge or link in it, no namespace declared, no element inside of its own name, no limit crossed."""
        scan, text = self.scan, self.text
        sheet = scan.collector
        handler = scan.parser.StartElementHandler
        if not (handler == scan._start or (handler == scan._start_collected and isinstance(sheet, _Sheet)
                                           and not sheet.depth and sheet.capture is None)):
            return pos
        name = _TAG.match(text, pos).group(1)  # type: ignore[union-attr]
        close = text.find(f"</{name}>", pos)
        if close < 0:
            return pos  # empty (`<dataValidations/>`): one element, the plain way
        chunk = text[pos:close]
        if "xmlns" in chunk or chunk.count(f"<{name}") != 1:
            return pos
        counts: dict[str, int] = {}
        for tag in _TAG.findall(chunk):
            counts[tag] = counts.get(tag, 0) + 1
        if any(":" in tag or tag in _NOT_SKIPPED for tag in counts):
            return pos
        counted = {_MAIN + tag: many for tag, many in counts.items() if scan.counted(_MAIN + tag)}
        if not scan.room_for(counted):
            return pos
        for tag, many in counted.items():
            scan.count(tag, many)
        return close + len(name) + 3


def _column(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n
