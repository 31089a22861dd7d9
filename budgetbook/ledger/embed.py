"""The imported actuals kept inside the workbook, on the hidden sheet `_actuals`, as JSON text.

Like the embedded plan (`sheetkit/embed.py`): split into cells of at most 32,000
UTF-16 units, each stored OOXML-escaped and written as text, read back from the
package as stored. `check` holds the Actuals sheet's values and the Variance
sheet's formulas against these facts; a re-import merges into them.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import WorkbookError
from ..sheetkit.embed import embed_text
from ..xlsx.lean_book import stored_texts_of
from ..xlsx.xstring import unescape
from .model import UNMAPPED, Actuals
from .sheets import line_ids, plan_months

SHEET = "_actuals"
MARKER = "budgetbook embedded actuals"
FORMAT_VERSION = 1
FIRST_ROW = 4
MAX_PARTS = 10_000


def embed_actuals(wb: Any, actuals: Actuals) -> None:
    embed_text(wb, SHEET, (MARKER, "do not edit: `budgetbook check`, `variance` and `actuals` read the bills from "
                               "here"), FORMAT_VERSION, "parts", "part",
               json.dumps(actuals.as_json(), ensure_ascii=False, separators=(",", ":")))


def read_embedded_actuals(wb: Any, data: bytes = b"", plan: Any = None) -> Actuals | None:
    """The workbook's actuals, or None when it carries none; `WorkbookError` (no file named) when damaged, or
    when they name a market, line item or month that `plan` (the workbook's own) does not have."""
    if SHEET not in wb.sheetnames:
        return None
    ws = wb[SHEET]
    if ws.cell(1, 1).value != MARKER:
        raise WorkbookError(f"sheet `{SHEET}` cell A1 is not the budgetbook actuals marker")
    try:
        count = int(ws.cell(3, 2).value)
    except (TypeError, ValueError):
        raise WorkbookError(f"sheet `{SHEET}` cell B3 must hold the number of parts") from None
    if not 0 < count <= MAX_PARTS:
        raise WorkbookError(f"sheet `{SHEET}` cell B3: {count} parts is not plausible")
    stored = stored_texts_of(wb, data, SHEET)
    parts = []
    for row in range(FIRST_ROW, FIRST_ROW + count):
        exact = stored.get(f"B{row}") if stored is not None else None
        value = ws.cell(row, 2).value
        parts.append(exact if exact is not None else unescape(value if isinstance(value, str) else ""))
    try:
        actuals = Actuals.from_json(json.loads("".join(parts)))
    except (ValueError, KeyError, TypeError, ArithmeticError) as exc:
        raise WorkbookError(f"sheet `{SHEET}`: the embedded actuals are damaged ({type(exc).__name__})") from None
    if plan is not None:
        _refuse_foreign(actuals, plan)
    return actuals


def _refuse_foreign(actuals: Actuals, plan: Any) -> None:

    markets, items, months = {m.id for m in plan.markets}, {i for i, _ in line_ids(plan)[:-1]}, set(plan_months(plan))
    for c in actuals.charges:
        if c.item == UNMAPPED:
            known = c.market == ""
        else:
            known = c.market in markets and c.item in items
        if not known or c.month not in months:
            raise WorkbookError(f"sheet `{SHEET}`: the embedded actuals hold a charge of market `{c.market}`, item "
                                f"`{c.item}`, month {c.month}, which its plan does not have")
