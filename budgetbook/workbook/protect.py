"""Sheet protection: every sheet protected, the input cells (unlocked when rendered) left editable.

Protection guards the formulas against a stray keystroke, not against a reader who
means to change them: with no password (the default) Excel's and LibreOffice's
"Unprotect sheet" needs none. With a password, the workbook's structure is locked
with it too, so the hidden sheet of the embedded plan cannot be shown without it.
Rows and columns may still be inserted, deleted and resized, and cells formatted: `check`
finds cells by name, so a moved row is no finding. `check`, `extract` and `show BOOK.xlsx` read a
protected workbook as any other.

The password is stored as OOXML's modern hash (ECMA-376 Part 1, 18.3.1.85 `sheetProtection` and
18.2.29 `workbookProtection`: `algorithmName` SHA-512 over a random salt and the password in UTF-16LE,
iterated `spinCount` times, what Excel 2013 and later write), which Excel, LibreOffice (7.4 verifies
it on "Unprotect sheet") and openpyxl read. Not the legacy 16-bit XOR hash: Excel computes that over
the password's bytes in the system's ANSI code page, so a non-ASCII password (`pässwörd€`) hashed
over its code points, as openpyxl does, unlocks nowhere, and no code page is right on every machine.
The hash is a deterrent, not encryption.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from openpyxl import Workbook
    from openpyxl.worksheet.worksheet import Worksheet

MAX_PASSWORD = 255  # Excel's own limit for a sheet password
ALGORITHM = "SHA-512"
SPIN_COUNT = 100_000  # what Excel writes; about 0.1 s here, once per workbook
SALT_BYTES = 16


def password_hash(password: str, salt: bytes, spin_count: int = SPIN_COUNT) -> str:
    """OOXML's iterated hash of a password (base64): H(salt + UTF-16LE password), then H(hash + i) for each i."""
    digest = hashlib.sha512(salt + password.encode("utf-16-le")).digest()
    for i in range(spin_count):
        digest = hashlib.sha512(digest + i.to_bytes(4, "little")).digest()
    return base64.b64encode(digest).decode("ascii")


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
    stored = None
    if password is not None:
        salt = secrets.token_bytes(SALT_BYTES)
        stored = (base64.b64encode(salt).decode("ascii"), password_hash(password, salt))
    for ws in wb.worksheets:
        _protect(ws, stored)
    if stored is not None:
        security = wb.security
        security.lockStructure = True
        security.workbookAlgorithmName, security.workbookSpinCount = ALGORITHM, SPIN_COUNT
        security.workbookSaltValue, security.workbookHashValue = stored


def _protect(ws: Worksheet, stored: tuple[str, str] | None) -> None:
    protection = ws.protection
    protection.sheet = True
    # in OOXML an attribute set to true *forbids* the action: formulas and labels stay as generated,
    # while rows and columns may be inserted, deleted and resized, and cells formatted
    protection.insertRows = protection.deleteRows = protection.insertColumns = protection.deleteColumns = False
    protection.formatCells = protection.formatColumns = protection.formatRows = False
    protection.selectLockedCells = protection.selectUnlockedCells = False
    if stored is not None:  # (salt, hash), never the password
        protection.algorithmName, protection.spinCount = ALGORITHM, SPIN_COUNT
        protection.saltValue, protection.hashValue = stored
