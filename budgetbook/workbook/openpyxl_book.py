"""A `Blueprint` (plain data) into an openpyxl workbook: values, styles, names, validation, charts, print setup."""

from __future__ import annotations

import re
from collections.abc import Callable
from copy import copy
from typing import Any

from openpyxl import Workbook
from openpyxl.cell.cell import ERROR_CODES, ILLEGAL_CHARACTERS_RE
from openpyxl.cell.cell import Cell as XlCell
from openpyxl.chart import BarChart, LineChart, Reference, Series
from openpyxl.chart.data_source import StrRef
from openpyxl.chart.legend import Legend
from openpyxl.chart.series import SeriesLabel
from openpyxl.chart.shapes import GraphicalProperties
from openpyxl.chart.text import RichText
from openpyxl.drawing.text import CharacterProperties, Paragraph, ParagraphProperties, RichTextProperties
from openpyxl.formatting.rule import CellIsRule, FormulaRule
from openpyxl.styles import PatternFill, Protection
from openpyxl.styles.cell_style import StyleArray
from openpyxl.utils import absolute_coordinate, quote_sheetname
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.pagebreak import Break
from openpyxl.worksheet.properties import PageSetupProperties

from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint, LinkedText, Sheet
from ..xlsx.a1 import coordinate_from_string
from ..xlsx.xstring import escape
from .chart_categories import text_categories
from .computed import value_of
from .sensitivity import tornado_chart

RED = PatternFill("solid", fgColor="FFC7CE")
GREEN = PatternFill("solid", fgColor="C6EFCE")
_UNLOCKED = Protection(locked=False)
CELL_TEXT = 32_767  # characters a cell holds (openpyxl clips longer text; the quick way leaves it to openpyxl)


def to_openpyxl(book: Blueprint, cells: Callable[[Any, Sheet], None] | None = None, *,
                names: bool = True) -> Workbook:
    """The workbook; `cells(ws, sheet)`, given, renders each sheet's cells in place of openpyxl's Cell objects
    (`streamed`: they are written into the package straight from the blueprint); `names=False` leaves the
    workbook-scoped names out (`streamed` writes them into the package too: `defined_names`)."""
    wb = Workbook()
    wb.remove(wb.active)
    for sheet in book.sheets:
        _render_sheet(wb, sheet, book.plan_name, cells or _render_cells)
    if names:
        for name, ref in defined_names(book).items():
            wb.defined_names[name] = _defined_name(name, ref)
    wb.calculation.fullCalcOnLoad = True
    return wb


def defined_names(book: Blueprint) -> dict[str, str]:
    """{name: reference (`'Inputs'!$D$4`)} of the workbook-scoped names, in the order they are written; a cell
    not named is found by its row's and column's anchors (`sheetkit.anchors`)."""
    return {name: f"{quote_sheetname(spec.sheet)}!{absolute_coordinate(spec.cell)}"
            for name, spec in book.specs.items() if spec.named}


_NAME_TEMPLATE = DefinedName("template", attr_text="Sheet!$A$1")


def _defined_name(name: str, ref: str) -> DefinedName:
    """`DefinedName(name, attr_text=ref)` without its sixteen descriptor-checked assignments: a copy of one
    built the checked way, with the name and reference set. openpyxl's descriptors keep each value in the
    instance's `__dict__` and `name` only checks that it is text (the plan layer refuses an id that makes a
    bad name before); a big portfolio has 18,000-230,000 names, ~20 us each the checked way."""
    made = DefinedName.__new__(DefinedName)
    made.__dict__.update(_NAME_TEMPLATE.__dict__)
    made.__dict__["name"] = str(name)
    made.__dict__["attr_text"] = ref
    return made


def stored_text(value: str) -> str:
    """Plan text as stored so that Excel and LibreOffice show it as written: `_x000A_` stays six characters
    (openpyxl writes text raw, and both decode `_xHHHH_` on load), and a control character XML cannot
    hold is `?` (raw, it would make the whole file unreadable)."""
    return escape(ILLEGAL_CHARACTERS_RE.sub("?", value))


def _chart_text(value: str) -> str:
    """Plan text in a chart part: a control character XML cannot hold is `?`, as in a cell (raw, it made the
    chart part, and so the whole file, unreadable)."""
    return ILLEGAL_CHARACTERS_RE.sub("?", value)


def _render_sheet(wb: Workbook, sheet: Sheet, plan_name: str, cells: Callable[[Any, Sheet], None]) -> None:
    ws = wb.create_sheet(sheet.title)
    ws.sheet_properties.tabColor = st.TAB_COLOURS[sheet.role]
    cells(ws, sheet)
    for col, width in sheet.widths.items():
        ws.column_dimensions[_letter(col)].width = width
    if sheet.freeze:
        ws.freeze_panes = sheet.freeze
    for row, height in sheet.heights.items():
        ws.row_dimensions[row].height = height
    ws.sheet_view.showGridLines = sheet.gridlines
    _validations(ws, sheet)
    if sheet.red_when_false:
        ref = merged_cells(sheet.red_when_false)
        ws.conditional_formatting.add(ref, CellIsRule(operator="notEqual", formula=["TRUE"], fill=RED,
                                                      font=st.font(bold=True, color="9C0006")))
        ws.conditional_formatting.add(ref, CellIsRule(operator="equal", formula=["TRUE"], fill=GREEN))
    for ref in sheet.lowest_in_row:
        first, _ = ref.split(":")
        whole = ":".join(absolute_coordinate(part) for part in ref.split(":"))
        ws.conditional_formatting.add(ref, FormulaRule(formula=[f"{first}=MIN({whole})"], fill=GREEN,
                                                       font=st.font(bold=True, color="006100")))
    if sheet.chart and sheet.chart.get("kind") == "line":
        _line_chart(ws, sheet.chart)
    elif sheet.chart and sheet.chart.get("kind") == "tornado":
        tornado_chart(ws, sheet.chart)
    elif sheet.chart:
        _chart(ws, sheet)
    for spec in sheet.more_charts:
        _row_chart(ws, spec)
    _print_setup(ws, sheet, plan_name)


def merged_cells(refs: list[str]) -> str:
    """The cells `refs` as one range list (`D3 D6:D40`): a column's consecutive rows one range, anything but
    one cell as it is. The check cells share one pair of rules over them all, not a pair each: the same look,
    where ~1,400 rules were built and written at 16,000 formula cells (~8 % of `generate`)."""
    rows: dict[str, list[int]] = {}
    out = []
    for ref in refs:
        try:
            column, row = coordinate_from_string(ref)
        except ValueError:  # a range: as it is
            out.append(ref)
        else:
            rows.setdefault(column.upper(), []).append(row)
    for column, found in rows.items():
        present = set(found)
        ordered = sorted(present)
        starts = [row for row in ordered if row - 1 not in present]
        ends = [row for row in ordered if row + 1 not in present]
        out += [f"{column}{a}" if a == b else f"{column}{a}:{column}{b}" for a, b in zip(starts, ends, strict=True)]
    return " ".join(out)


def _render_cells(ws: Any, sheet: Sheet) -> None:
    """The sheet's cells as openpyxl's Cell objects."""
    # Setting font, fill, border... one by one hashes each into the workbook's style tables: most of
    # `generate`'s time on a big book. Cells of one look share the index array openpyxl keeps per cell.
    looks: dict[tuple[str, str | None], StyleArray] = {}
    for (row, col), cell in sorted(sheet.cells.items()):
        value = value_of(cell.value)  # a number computed by budgetbook is worked out now (computed.py)
        text = cell.is_text and isinstance(value, str)
        fmt = value_of(cell.number_format)  # a format by the Sensitivity ranking is worked out now too
        look = (cell.style, fmt)
        if look in looks and (target := _quick_cell(ws, row, col, stored_text(value) if text else value, text)):
            target._style = copy(looks[look])
            continue
        target = ws.cell(row, col)
        if text:
            target.value = stored_text(value)
            target.data_type = "s"  # plan text starting with "=" stays text, never a formula
        else:
            target.value = value
        if look in looks:
            target._style = copy(looks[look])
            continue
        style_cell(target, cell.style, fmt)
        looks[look] = copy(target._style)


def style_cell(target: XlCell, style: str, fmt: str | None) -> None:
    """Give `target` the look of a blueprint cell of `style` and number format `fmt` (each part of it hashed
    into the workbook's style tables on first use)."""
    for attr, value in st.cell_styles()[style].items():
        setattr(target, attr, value)
    if fmt:
        target.number_format = fmt
    if style == "input":
        target.protection = _UNLOCKED


def _quick_cell(ws: Any, row: int, col: int, value: Any, text: bool) -> XlCell | None:
    """`ws.cell(row, col)` holding `value`, made without openpyxl's per-cell checks, for the values whose data
    type is plain (a number, a blank, plan text, a formula); None for any other (the caller takes openpyxl's
    way). The same cell as `ws.cell(row, col).value = value` makes (plan text: data type "s" whatever it
    starts with): `tests/workbook/test_quick_cells.py`. A portfolio's book has 17,000-250,000 of them."""
    if value is None or type(value) in (int, float):
        kind = "n"
    elif type(value) is str and len(value) <= CELL_TEXT and value not in ERROR_CODES \
            and not ILLEGAL_CHARACTERS_RE.search(value):
        kind = "f" if not text and len(value) > 1 and value[0] == "=" else "s"
    else:
        return None
    made = XlCell.__new__(XlCell)
    made.parent, made.row, made.column, made._value, made.data_type = ws, row, col, value, kind
    made._hyperlink = made._comment = None
    ws._cells[(row, col)] = made
    return made


def _letter(col: int) -> str:
    from openpyxl.utils import get_column_letter

    return get_column_letter(col)


def _validations(ws, sheet: Sheet) -> None:
    for ref, rule in sheet.validations:
        dv = DataValidation(type=rule["type"], operator=rule.get("operator"), formula1=rule["formula1"],
                            formula2=rule.get("formula2"), allow_blank=False, showErrorMessage=True,
                            errorTitle="Outside the allowed range", error=stored_text(rule["message"][:255]))
        if rule.get("prompt"):  # Excel shows at most 32 characters of title and 255 of message
            dv.showInputMessage = True
            dv.promptTitle = stored_text(_clip(rule["prompt_title"], 32))
            dv.prompt = stored_text(_clip(rule["prompt"], 255))
        dv.add(ref)
        ws.add_data_validation(dv)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def _chart(ws, sheet: Sheet) -> None:
    spec = sheet.chart
    assert spec is not None  # called only for a sheet that has a chart
    chart = BarChart()
    chart.type = "bar"
    chart.grouping = "clustered"
    chart.title = spec["title"]  # DrawingML text (`a:t`): not ST_Xstring, never decoded, so not escaped
    chart.y_axis.title = spec["currency"]
    chart.y_axis.numFmt = spec.get("axis_format", st.axis_money(spec["currency"]))
    chart.y_axis.scaling.min = 0  # bars from zero: a bar's length is its amount
    chart.y_axis.majorGridlines = None
    chart.y_axis.delete = False
    chart.x_axis.delete = False
    chart.x_axis.scaling.orientation = "maxMin"  # first line item on top, as in the table
    for col, title in spec["series"]:
        values = Reference(ws, min_col=col, min_row=spec["first_row"], max_row=spec["last_row"])
        chart.series.append(_titled(Series(values), title, stored_text))
    text_categories(chart, Reference(ws, min_col=1, min_row=spec["first_row"], max_row=spec["last_row"]))
    chart.x_axis.tickLblSkip = 1  # every line item labelled, not every other one
    small = CharacterProperties(sz=800)
    chart.x_axis.txPr = RichText(p=[Paragraph(pPr=ParagraphProperties(defRPr=small), endParaRPr=small)])
    # room for every category's label: LibreOffice drops labels that would touch
    chart.height = max(7.0, spec.get("row_height", 1.1) * (spec["last_row"] - spec["first_row"] + 1) + 3)
    chart.width = 20
    ws.add_chart(chart, spec["anchor"])


def _row_chart(ws, spec: dict) -> None:
    """Columns of one row's cells (a total per market), labelled by another row (the market headers)."""
    chart = BarChart()
    chart.type = "col"
    chart.title = spec["title"]
    chart.y_axis.title = spec["currency"]
    chart.y_axis.numFmt = spec["axis_format"]
    chart.y_axis.scaling.min = 0  # columns from zero: a total's height is its amount, never a difference
    chart.y_axis.delete = False
    chart.x_axis.delete = False
    chart.legend = None  # one series: the axis labels say it all
    values = Reference(ws, min_col=spec["first_col"], max_col=spec["last_col"], min_row=spec["row"],
                       max_row=spec["row"])
    chart.series.append(Series(values, title=stored_text(spec["series"])))
    text_categories(chart, Reference(ws, min_col=spec["first_col"], max_col=spec["last_col"],
                                   min_row=spec["labels_row"], max_row=spec["labels_row"]))
    chart.x_axis.tickLblSkip = 1
    small = CharacterProperties(sz=800)
    # labels level, wrapped in their column's width: rotated, long market labels crushed the plot
    chart.x_axis.txPr = RichText(bodyPr=RichTextProperties(rot=0, vert="horz"),
                                 p=[Paragraph(pPr=ParagraphProperties(defRPr=small), endParaRPr=small)])
    chart.height, chart.width = spec["height"], spec["width"]
    if spec.get("markers"):
        chart.legend = Legend(legendPos="b")  # the total, P10 and P90 told apart
        chart += _markers(ws, spec)
    ws.add_chart(chart, spec["anchor"])


def _markers(ws, spec: dict) -> LineChart:
    """Rows drawn as marks on the columns, no line between them (the P10 and P90 of each market's total)."""
    marks = LineChart()
    # low end a green triangle, high end a red diamond: told apart without colour too
    for (row, title), (symbol, colour) in zip(spec["markers"], (("triangle", "2E7D32"), ("diamond", "C62828")),
                                              strict=False):
        values = Reference(ws, min_col=spec["first_col"], max_col=spec["last_col"], min_row=row, max_row=row)
        series = Series(values, title=stored_text(title))
        series.marker.symbol, series.marker.size = symbol, 9
        series.marker.graphicalProperties = GraphicalProperties(solidFill=colour)
        series.marker.graphicalProperties.line.solidFill = colour
        series.graphicalProperties.line.noFill = True  # marks only: a line between markets means nothing
        series.smooth = False
        marks.series.append(series)
    return marks


def _line_chart(ws, spec: dict) -> None:
    """One line per row (cumulative spend of a market), months along the x axis."""
    chart = LineChart()
    chart.title = spec["title"]
    chart.y_axis.title = spec["currency"]
    chart.y_axis.numFmt = st.axis_money(spec["currency"])
    chart.y_axis.scaling.min = 0  # cumulative spend starts at nothing
    chart.y_axis.delete = False
    chart.x_axis.delete = False
    ends = spec.get("ends", {})  # row -> its own last column (a line that stops early: actuals to the last bill)
    for row, title in zip(spec["rows"], spec["series"], strict=True):
        values = Reference(ws, min_col=spec["first_col"], max_col=ends.get(row, spec["last_col"]), min_row=row,
                           max_row=row)
        series = _titled(Series(values), title, _chart_text)
        series.smooth = False  # straight lines: a smoothed cumulative curve dips after its peak month
        chart.series.append(series)
    text_categories(chart, Reference(ws, min_col=spec["first_col"], max_col=spec["last_col"],
                                   min_row=spec["labels_row"], max_row=spec["labels_row"]))
    chart.height, chart.width = 9.0, 22.0
    ws.add_chart(chart, spec["anchor"])


def _titled(series, title: str | LinkedText, as_text) -> Any:
    """`series` titled by text, or by a cell (`LinkedText`: a live market label, so the legend follows it)."""
    if isinstance(title, LinkedText):
        series.tx = SeriesLabel(strRef=StrRef(f=title.ref))
    else:
        series.tx = SeriesLabel(v=as_text(title))
    return series


def _print_setup(ws, sheet: Sheet, plan_name: str) -> None:
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=True)
    ws.page_setup.fitToWidth = 1
    # outputs print as one page each; long input and calculation sheets run on, one page wide
    ws.page_setup.fitToHeight = 1 if sheet.role == "output" and not sheet.runs_on else 0
    if sheet.print_columns:
        last = max((row for row, _ in sheet.cells), default=1)  # `ws.max_row`, the cells held or not
        ws.print_area = f"A1:{_letter(sheet.print_columns)}{last}"
    if sheet.print_title_rows:
        ws.print_title_rows = sheet.print_title_rows
    for row in sheet.page_breaks:
        ws.row_breaks.append(Break(id=row))
    ws.oddHeader.left.text = stored_text(re.sub("&", "&&", plan_name))
    ws.oddHeader.right.text = "&A"
    ws.oddFooter.left.text = "budgetbook"
    ws.oddFooter.right.text = "Page &P of &N"
