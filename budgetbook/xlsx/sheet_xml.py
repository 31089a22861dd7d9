"""A worksheet's `<sheetData>` written from plain cells, byte for byte as openpyxl writes it, values cached.

openpyxl makes a dozen-attribute `Cell` per cell and serialises each through ElementTree (`et_xmlfile`):
on a big portfolio most of the memory `generate` peaks at and a third of its time. `workbook.streamed`
has openpyxl write every part but the cells, and the cells are written here, straight from the
blueprint, into the sheet part openpyxl wrote without them (`splice`): the same elements, attributes
and escaping openpyxl's `etree_write_cell` gives (`<c r= s= t=>`, inline strings, `%.16g` numbers,
`<v />` for none), each formula cell with its value cached as `workbook.cached` fills it in (`cached_value`:
the `t=` the value needs). `tests/workbook/test_streamed.py` holds the package to openpyxl's, part by part.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from .cell_grid import col_letters
from .values import plain
from .xstring import escape

StoredCell = tuple[int, int, Any, str, int]  # (row, col, value as stored, openpyxl's data type, cell style index)
_EMPTY_DIMENSION = b'<dimension ref="A1:A1" />'  # what openpyxl writes for a sheet that holds no cell
_OPEN, _CLOSE = b"<sheetData>", b"</sheetData>"


def cached_value(value: Any) -> tuple[str, str] | None:
    """(`t=` attribute or "", `<v>` text) for an evaluated value; None where no value can be cached."""
    if type(value).__name__ == "XlError":
        return "e", str(value)
    value = plain(value)
    if value is None:
        return None
    if isinstance(value, bool):
        return "b", "1" if value else "0"
    if isinstance(value, str):
        text = escape(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return "str", text
    if isinstance(value, (int, float)):
        number = float(value)
        return ("", repr(number)) if math.isfinite(number) else ("e", "#NUM!")
    return None


def _text(text: str) -> str:
    """Element text escaped as ElementTree escapes it (`&`, `<`, `>`; nothing else)."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def _attribute(text: str) -> str:
    """An attribute value escaped as ElementTree escapes it."""
    text = _text(text)
    for raw, entity in (('"', "&quot;"), ("\r", "&#13;"), ("\n", "&#10;"), ("\t", "&#09;")):
        if raw in text:
            text = text.replace(raw, entity)
    return text


def _number(value: Any) -> str:
    """openpyxl's `safe_string` of a number or boolean: `%.16g`, nothing for NaN and infinities."""
    return "" if math.isnan(value) or math.isinf(value) else "%.16g" % value  # noqa: UP031  openpyxl's very words


def cell_xml(ref: str, style: int, value: Any, kind: str, cached: tuple[str, str] | None) -> str:
    """One `<c>` as openpyxl writes the cell (`kind`: its data type), a formula's value `cached` as
    `workbook.cached` fills it in (None: `<v />`, none)."""
    styled = f' s="{style}"' if style else ""
    if kind == "f":
        formula = _text(value[1:])
        if cached is None:
            return f'<c r="{ref}"{styled}><f>{formula}</f><v /></c>'
        typed = f' t="{cached[0]}"' if cached[0] else ""
        return f'<c r="{ref}"{styled}{typed}><f>{formula}</f><v>{cached[1]}</v></c>'
    if value is None or value == "":
        return f'<c r="{ref}"{styled} t="{"inlineStr" if kind == "s" else kind}" />'
    if kind == "s":
        stripped = value.strip()
        space = ' xml:space="preserve"' if stripped and stripped != value else ""
        return f'<c r="{ref}"{styled} t="inlineStr"><is><t{space}>{_text(value)}</t></is></c>'
    text = _number(value) if kind in ("n", "b") else _text(str(value))
    if not text:
        return f'<c r="{ref}"{styled} t="{kind}"><v /></c>'
    return f'<c r="{ref}"{styled} t="{kind}"><v>{text}</v></c>'


def _row_start(row: int, attributes: Mapping[int, Iterable[tuple[str, str]]]) -> str:
    """`<row r=...>` with the attributes openpyxl writes from the row's dimension (height...)."""
    extra = attributes.get(row)
    if extra is None:
        return f'<row r="{row}">'
    return f'<row r="{row}"' + "".join(f' {key}="{_attribute(value)}"' for key, value in extra) + ">"


def rows_xml(cells: Iterable[StoredCell], attributes: Mapping[int, Iterable[tuple[str, str]]],
             cached: Callable[[int, int], tuple[str, str] | None]) -> Iterator[str]:
    """The `<row>`s of a sheet, a row at a time: `cells` in row and column order, `attributes` the rows'
    dimensions as openpyxl writes them (a row without cells but with a height is written too), `cached`
    a formula cell's value (`cached_value`) by row and column."""
    extra_rows = sorted(attributes)
    pending = 0  # index of the next row of `extra_rows` to write
    parts: list[str] = []
    current = 0
    for row, col, value, kind, style in cells:
        if row != current:
            if current:
                parts.append("</row>")
                yield "".join(parts)
                parts = []
            while pending < len(extra_rows) and extra_rows[pending] <= row:
                if extra_rows[pending] != row:
                    yield _row_start(extra_rows[pending], attributes) + "</row>"
                pending += 1
            parts.append(_row_start(row, attributes))
            current = row
        if value is None and not style:
            continue  # openpyxl writes no cell without a value or a style (its row, yes)
        ref = f"{col_letters(col)}{row}"
        parts.append(cell_xml(ref, style, value, kind, cached(row, col) if kind == "f" else None))
    if current:
        parts.append("</row>")
        yield "".join(parts)
    for row in extra_rows[pending:]:
        yield _row_start(row, attributes) + "</row>"


def splice(part: bytes, dimension: str | None) -> tuple[bytes, bytes]:
    """A sheet part openpyxl wrote without cells, cut around its `<sheetData>` content: (everything before it,
    the `<dimension>` set to `dimension`; everything after it). The rows go between."""
    start, end = part.index(_OPEN) + len(_OPEN), part.index(_CLOSE)
    head, tail = part[:start], part[end:]
    if dimension is not None:
        if _EMPTY_DIMENSION not in head:
            raise ValueError("a sheet part without the dimension of an empty sheet")
        head = head.replace(_EMPTY_DIMENSION, b'<dimension ref="%s" />' % dimension.encode("ascii"), 1)
    return head, tail


def dimension(keys: Iterable[tuple[int, int]]) -> str | None:
    """The `A1:F20` openpyxl writes for cells at `keys` ((row, column)); None for none (`A1:A1` stays)."""
    rows: set[int] = set()
    cols: set[int] = set()
    for row, col in keys:
        rows.add(row)
        cols.add(col)
    if not rows:
        return None
    return f"{col_letters(min(cols))}{min(rows)}:{col_letters(max(cols))}{max(rows)}"
