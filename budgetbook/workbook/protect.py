"""Sheet protection: every sheet protected, the input cells (unlocked when rendered) left editable.

Protection guards the formulas against a stray keystroke, not against a reader who
means to change them: with no password (the default) Excel's and LibreOffice's
"Unprotect sheet" needs none. With a password, the workbook's structure is locked
with it too, so the hidden sheet of the embedded plan cannot be shown without it.
Rows and columns may still be inserted, deleted and resized, and cells formatted: `check`
finds cells by name, so a moved row is no finding. The legacy password hash is the one Excel,
LibreOffice and openpyxl all read (a deterrent, not encryption). `check`, `extract` and
`show BOOK.xlsx` read a protected workbook as any other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from openpyxl import Workbook
    from openpyxl.worksheet.worksheet import Worksheet

# Excel's own limit for a sheet password; its legacy hash reads at most the first 15 characters
MAX_PASSWORD = 255


def check_password(password: str | None) -> None:
    """Refuse a password Excel would not take, before anything is written."""
    if password is None:
        return
    if not password:
        raise UsageError("--protect: the password is empty (leave the option out for protection without one)")
    if len(password) > MAX_PASSWORD:
        raise UsageError(f"--protect: the password has {len(password)} characters; Excel takes at most "
                         f"{MAX_PASSWORD}")
    if not password.isprintable() or any(ord(c) > 0xFFFF for c in password):
        raise UsageError("--protect: the password holds a control character or a character outside "
                         "Unicode's basic plane, which Excel's password hash cannot hold")


def protect_workbook(wb: Workbook, password: str | None = None) -> None:
    check_password(password)
    for ws in wb.worksheets:
        _protect(ws, password)
    if password is not None:
        wb.security.lockStructure = True
        wb.security.workbookPassword = password  # openpyxl stores its hash


def _protect(ws: Worksheet, password: str | None) -> None:
    protection = ws.protection
    protection.sheet = True
    # in OOXML an attribute set to true *forbids* the action: formulas and labels stay as generated,
    # while rows and columns may be inserted, deleted and resized, and cells formatted
    protection.insertRows = protection.deleteRows = protection.insertColumns = protection.deleteColumns = False
    protection.formatCells = protection.formatColumns = protection.formatRows = False
    protection.selectLockedCells = protection.selectUnlockedCells = False
    if password is not None:
        protection.password = password  # openpyxl stores its hash
