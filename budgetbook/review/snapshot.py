"""A normalized dump of a workbook, and of the workbook budgetbook would write for a book's embedded plan.

What the overwrite guard compares (`edits.py`): sheet titles, order and
visibility, hidden rows and columns; every non-empty cell's value or formula
(as written: formulas are not parsed here), number format and comment; every
defined name and its target. Spellings that differ only in how a tool saves
them are folded: numbers to the 15 significant digits LibreOffice saves, ints as floats,
number formats' literals (LibreOffice respells `"$"#,##0` as `\\$#,##0`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .. import __version__
from ..sheetkit.embed import SHEET as EMBED_SHEET
from ..sheetkit.embed import embed_plan, read_embedded_plan
from ..workbook.build import build_book
from ..workbook.computed import value_of
from ..workbook.stamp import parse_date, read_stamp, write_stamp
from ..xlsx.a1 import ILLEGAL_CHARACTERS_RE, get_column_letter
from .readback import OpenedWorkbook, single_cell

Content = tuple  # ("f", formula) | ("n", float) | ("s", text) | ("b", bool) | ("o", repr)


@dataclass(frozen=True)
class Cell:
    content: Content
    number_format: str
    comment: str | None


@dataclass
class Dump:
    sheets: list[tuple[str, str]]                  # (title, state) in tab order
    cells: dict[str, dict[tuple[int, int], Cell]]  # sheet title -> (row, column) -> non-empty cell
    names: dict[str, str]                          # defined name -> target (`Sheet!C5` or its text)
    hidden: dict[str, str] = field(default_factory=dict)  # sheet title -> its hidden rows and columns

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dump) and (self.sheets, self.names, self.hidden, self.cells) == \
            (other.sheets, other.names, other.hidden, other.cells)


# ---------------------------------------------------------------- dumping a workbook

def dump(wb: Any) -> Dump:
    sheets, cells, hidden = [], {}, {}
    for ws in wb._sheets:  # worksheets and chartsheets, in tab order
        sheets.append((ws.title, ws.sheet_state))
        cells[ws.title] = {key: dumped for key, cell in getattr(ws, "_cells", {}).items()
                           if (dumped := _cell(cell)) is not None}
        if (rows_and_columns := _hidden(ws)):
            hidden[ws.title] = rows_and_columns
    names = {name: _target(definition.attr_text) for name, definition in wb.defined_names.items()
             if not name.startswith("_xlnm.")}
    for ws in wb.worksheets:
        for name, definition in (getattr(ws, "defined_names", {}) or {}).items():
            names[f"{ws.title}!{name}"] = _target(definition.attr_text)
    return Dump(sheets, cells, names, hidden)


def _hidden(ws: Any) -> str:
    """`rows 3, 7; columns C:D` of a sheet (budgetbook hides none), or ''."""
    rows = [str(r) for r, d in sorted(getattr(ws, "row_dimensions", {}).items()) if d.hidden]
    columns = [f"{get_column_letter(d.min)}:{get_column_letter(d.max)}" if d.min and d.max else str(key)
               for key, d in sorted(getattr(ws, "column_dimensions", {}).items()) if d.hidden]
    return "; ".join(part for part in (f"rows {', '.join(rows)}" if rows else "",
                                       f"columns {', '.join(columns)}" if columns else "") if part)


def _cell(cell: Any) -> Cell | None:
    value = cell.value
    comment = cell.comment.text if cell.comment is not None else None
    if (value is None or value == "") and comment is None:
        return None
    return Cell(_content(cell), number_format(cell.number_format or "General"), comment)


_SELF_LITERAL = frozenset("$-+/():!^&'~{}<>= ")  # shown as themselves, quoted or not


@lru_cache(maxsize=1024)
def number_format(text: str) -> str:
    """A number format with every literal spelled one way (`\\c`): LibreOffice respells them.

    It saves `"$"#,##0;-"$"#,##0` as `\\$#,##0;"-$"#,##0` and `0.00"x"` as `0.00\\x`: the same format.
    Codes (`#`, `0`, `,`, `E+`), sections and `[...]` conditions are kept as written.
    """
    out, i = [], 0
    while i < len(text):
        char = text[i]
        if char == '"':
            end = text.find('"', i + 1)
            end = len(text) if end < 0 else end
            out += ["\\" + c for c in text[i + 1:end]]
            i = end + 1
        elif char == "\\" and i + 1 < len(text):
            out.append("\\" + text[i + 1])
            i += 2
        elif char == "[":
            end = text.find("]", i)
            end = len(text) - 1 if end < 0 else end
            out.append(text[i:end + 1])
            i = end + 1
        elif char in "_*" and i + 1 < len(text):  # a space as wide as, or a fill of, the next character
            out.append(text[i:i + 2])
            i += 2
        else:
            out.append("\\" + char if char in _SELF_LITERAL else char)
            i += 1
    return "".join(out)


def _content(cell: Any) -> Content:
    value = cell.value
    if cell.data_type == "f":
        return ("f", str(getattr(value, "text", value)))
    return _value(value)


def _value(value: Any) -> Content:
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, (int, float)):
        # as saved: openpyxl writes 16 significant digits, LibreOffice rounds what it read to 15 (and
        # Excel shows 15); a float (3.0 is read back as 3). Rounding twice can still end one unit
        # apart in the 15th digit: `edits.same_number` allows that much.
        return ("n", float(f"{float(f'{value:.16g}'):.15g}"))
    if isinstance(value, str):
        return ("s", value)
    if value is None:
        return ("s", "")
    return ("o", value.isoformat() if isinstance(value, (dt.date, dt.time)) else repr(value))


def _target(text: str | None) -> str:
    where = single_cell(text or "")
    return f"{where[0]}!{where[1]}" if where is not None else (text or "").strip()


# ---------------------------------------------------------------- the rebuilt workbook

def generation_facts(book: OpenedWorkbook) -> tuple[dt.date | None, str, bool]:
    """(date, version, stamped) the workbook was generated with: from its stamp, else from About."""
    stamp = read_stamp(book.wb, EMBED_SHEET)
    if stamp is not None:
        return stamp.date, stamp.version, True
    about = _about_rows(book.wb)
    return parse_date(about.get("Generated")), str(about.get("budgetbook version") or __version__), False


def _about_rows(wb: Any) -> dict[str, Any]:
    if "About" not in wb.sheetnames:
        return {}
    ws = wb["About"]
    return {a: b for a, b in ws.iter_rows(min_row=1, max_row=min(ws.max_row, 40), max_col=2, values_only=True)
            if isinstance(a, str)}


def rebuilt_dump(book: OpenedWorkbook) -> Dump:
    """The dump of the workbook `build_workbook` writes for the book's plan, date and version.

    Made from the `Blueprint` (plain data) rather than from an openpyxl workbook: rendering 15,000
    styled cells into openpyxl costs twice what the rest of the guard does. `_blueprint_cell` mirrors
    what `openpyxl_book.to_openpyxl` writes; tests/review/test_overwrite_guard.py holds the two equal over random plans.
    """
    from openpyxl import Workbook

    today, version, stamped = generation_facts(book)
    today = today or dt.date.today()
    blueprint = build_book(book.plan, today, version, book.plan_text)
    sheets = [(sheet.title, "visible") for sheet in blueprint.sheets]
    cells = {sheet.title: {key: dumped for key, cell in sheet.cells.items()
                           if (dumped := _blueprint_cell(cell)) is not None} for sheet in blueprint.sheets}
    hidden = Workbook()  # the embedded plan is written straight into openpyxl: write it the same way
    hidden.remove(hidden.active)
    embed_plan(hidden, book.plan_text)
    if stamped:
        embedded = read_embedded_plan(hidden)
        assert embedded is not None  # just written
        write_stamp(hidden, EMBED_SHEET, embedded[1], today, version)
    plan_sheet = dump(hidden)
    names = {name: f"{spec.sheet}!{spec.cell}" for name, spec in blueprint.specs.items() if spec.named}
    return Dump(sheets + plan_sheet.sheets, cells | plan_sheet.cells, names)


def _blueprint_cell(cell: Any) -> Cell | None:
    """A Blueprint cell as `to_openpyxl` writes it: plan text as text (illegal characters as `?`)."""
    value = value_of(cell.value)
    if value is None or value == "":
        return None
    if isinstance(value, str):
        text = ILLEGAL_CHARACTERS_RE.sub("?", value) if cell.is_text else value
        content: Content = ("s", text) if cell.is_text or not value.startswith("=") else ("f", value)
    else:
        content = _value(value)
    return Cell(content, number_format(value_of(cell.number_format) or "General"), None)
