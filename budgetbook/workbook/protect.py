"""Sheet protection: every sheet protected, its input cells unlocked (`generate --protect`).

A protected sheet keeps a reader from typing over a formula by accident; the inputs (blue on pale
yellow) stay unlocked, so every legitimate edit is still one click. Rows and columns may still be
inserted, deleted and formatted, and cells formatted: `check` finds cells by name, so a moved row
is no finding, and a reader who must change a formula can unprotect the sheet (no password unless
one is given: protection here is a guard rail, not security; Excel's sheet password is a weak hash).
`check`, `extract` and `show BOOK.xlsx` read a protected workbook as any other.
"""

from __future__ import annotations

from typing import Any


def protect_sheets(wb: Any, password: str | None = None) -> None:
    """Protect every sheet of the openpyxl workbook `wb`; `password`, if given, to unprotect."""
    for ws in wb.worksheets:
        guard = ws.protection
        guard.sheet = True
        # in OOXML an attribute set to true *forbids* the action: these stay allowed
        guard.insertRows = guard.deleteRows = guard.insertColumns = guard.deleteColumns = False
        guard.formatCells = guard.formatRows = guard.formatColumns = False
        guard.selectLockedCells = guard.selectUnlockedCells = False
        if password:
            guard.password = password
