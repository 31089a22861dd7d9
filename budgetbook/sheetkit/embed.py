"""The plan a workbook was generated from, kept inside it on a hidden sheet.

Split into cells of at most 32,000 UTF-16 code units (Excel's limit is 32,767
per cell, counted in UTF-16), written as text so a line starting with `=` never
becomes a formula. Newlines are stored as `\\n`: XML readers turn a stored
`\\r\\n` into `\\n` anyway. Each part is stored OOXML-escaped (`xlsx.xstring`), so
plan text holding `_x000A_` is not turned into a newline by Excel or LibreOffice,
and read back from the package as stored, since openpyxl's decoding is lossy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import WorkbookError
from ..xlsx.xstring import escape, unescape

if TYPE_CHECKING:  # the registry reads SHEET: `show` and `--help` must not pay for openpyxl
    from openpyxl import Workbook

SHEET = "_budgetbook"
MARKER = "budgetbook embedded plan"
FORMAT_VERSION = 1
CHUNK_UNITS = 32_000
FIRST_CHUNK_ROW = 4


def split_text(text: str, limit: int = CHUNK_UNITS) -> list[str]:
    chunks: list[str] = []
    current: list[str] = []
    units = 0
    for char in text:
        size = 2 if ord(char) > 0xFFFF else 1
        if units + size > limit:
            chunks.append("".join(current))
            current, units = [], 0
        current.append(char)
        units += size
    if current or not chunks:
        chunks.append("".join(current))
    return chunks


def embed_plan(wb: Workbook, plan_text: str) -> None:
    embed_text(wb, SHEET, (MARKER, "do not edit: `budgetbook check` and `extract` read the plan from here"),
               FORMAT_VERSION, "chunks", "plan part", plan_text.replace("\r\n", "\n").replace("\r", "\n"))


def embed_text(wb: Any, sheet: str, marker: tuple[str, str], version: int, count_label: str, part_label: str,
               text: str) -> None:
    """A hidden sheet holding `text` in parts: row 1 the marker, row 2 the format version, row 3 the number of
    parts, then one part a row in column B (each within Excel's cell limit), all written as text."""
    ws = wb.create_sheet(sheet)
    ws.sheet_state = "hidden"
    chunks = split_text(text)
    rows = [marker, ("format", version), (count_label, len(chunks))]
    # split first, escape each part: Excel's limit counts the text shown, and each cell is decoded alone
    rows += [(f"{part_label} {i + 1}", escape(chunk)) for i, chunk in enumerate(chunks)]
    for r, (key, value) in enumerate(rows, 1):
        for c, v in enumerate((key, value), 1):
            cell = ws.cell(r, c, v)
            if isinstance(v, str):
                cell.data_type = "s"


def read_embedded_plan(wb: Workbook, stored: dict[str, str] | None = None) -> tuple[int, str] | None:
    """(format version, plan YAML text), or None when the workbook carries no plan.

    `stored`: the sheet's text cells as stored in the package (`xlsx.xstring.stored_texts`), exact
    whoever saved the file. Without it the plan parts are openpyxl's values, which are exact for
    the inline strings budgetbook writes, not always for the shared strings of Excel and LibreOffice.
    """
    if SHEET not in wb.sheetnames:
        return None
    ws = wb[SHEET]
    if ws.cell(1, 1).value != MARKER:
        raise WorkbookError(f"sheet `{SHEET}` cell A1 is not the budgetbook marker")
    try:
        version, count = int(ws.cell(2, 2).value), int(ws.cell(3, 2).value)
    except (TypeError, ValueError):
        raise WorkbookError(f"sheet `{SHEET}` cells B2:B3 must hold the format version and "
                            "the number of plan parts") from None
    if not 0 < count <= 10_000:
        raise WorkbookError(f"sheet `{SHEET}` cell B3: {count} plan parts is not plausible")
    parts = []
    for row in range(FIRST_CHUNK_ROW, FIRST_CHUNK_ROW + count):
        value = ws.cell(row, 2).value
        if value is not None and not isinstance(value, str):
            raise WorkbookError(f"sheet `{SHEET}` cell B{row}: expected plan text, got {type(value).__name__}")
        exact = stored.get(f"B{row}") if stored is not None else None
        parts.append(exact if exact is not None else unescape(value or ""))
    return version, "".join(parts)
