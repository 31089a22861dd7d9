"""`--protect` with a non-ASCII password (issue 27 item 3): LibreOffice unlocks the book with it.

The password is stored as OOXML's SHA-512 hash over its UTF-16LE text (`workbook/protect.py`), not the
legacy XOR hash, which Excel computes over the password's bytes in the system code page. LibreOffice is
the oracle: it verifies the hash on `unprotect(password)` and refuses a wrong one; then a formula cell of
the unlocked sheet takes typed text, which a protected sheet refuses. LibreOffice 7.4 does not read a
workbook's structure protection from xlsx at all, so the workbook's own hash is verified the same way:
copied into a sheet's protection (same algorithm, same attributes), where LibreOffice checks it.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from cli_run import run
from libreoffice import LibreOfficeError, needs_uno, uno_session

PLAN = "finetune-13b-lora"
PASSWORDS = ["pässwörd€", "s3cret", "日本語のパスワード"]
FIGURE = ("Summary", "C11")  # a locked formula cell


def generated(capsys, out: Path, password: str) -> Path:
    code, _, err = run(capsys, "generate", PLAN, "-o", out, "--protect", password)
    assert code == 0, err
    return out


def test_the_hash_is_sha512_over_utf16_with_a_salt(tmp_path, capsys):
    wb = openpyxl.load_workbook(generated(capsys, tmp_path / "book.xlsx", PASSWORDS[0]))
    import base64

    from budgetbook.workbook.protect import password_hash  # here: the LibreOffice test runs on the old code too

    for ws in wb.worksheets:
        p = ws.protection
        assert (p.algorithmName, p.spinCount, p.password) == ("SHA-512", 100_000, None)
        assert p.hashValue == password_hash(PASSWORDS[0], base64.b64decode(p.saltValue))
    s = wb.security
    assert (s.workbookAlgorithmName, s.workbookSpinCount, s.workbookPassword) == ("SHA-512", 100_000, None)
    assert s.workbookHashValue == password_hash(PASSWORDS[0], base64.b64decode(s.workbookSaltValue))


@needs_uno
def test_libreoffice_unlocks_sheets_and_the_workbook_hash_with_the_password(tmp_path, capsys):
    books = {pw: generated(capsys, tmp_path / f"book-{i}.xlsx", pw) for i, pw in enumerate(PASSWORDS)}
    # the workbook's hash moved onto a sheet, where LibreOffice verifies it
    wb = openpyxl.load_workbook(books[PASSWORDS[0]])
    s, p = wb.security, wb["Summary"].protection
    p.algorithmName, p.spinCount = s.workbookAlgorithmName, s.workbookSpinCount
    p.saltValue, p.hashValue = s.workbookSaltValue, s.workbookHashValue
    book_hash = tmp_path / "book-hash.xlsx"
    wb.save(book_hash)
    type_figure = {"op": "type", "sheet": FIGURE[0], "cell": FIGURE[1], "text": "1"}
    with uno_session() as office:
        for password, book in [*books.items(), (PASSWORDS[0], book_hash)]:
            locked = office.edit(book, tmp_path / "locked.xlsx", [type_figure])
            assert str(openpyxl.load_workbook(locked)[FIGURE[0]][FIGURE[1]].value).startswith("=")  # refused
            with pytest.raises(LibreOfficeError, match="unprotect"):
                office.edit(book, tmp_path / "never.xlsx",
                            [{"op": "unprotect", "sheet": FIGURE[0], "password": password[:-1]}])
            opened = office.edit(book, tmp_path / "open.xlsx",
                                 [{"op": "unprotect", "sheet": FIGURE[0], "password": password}, type_figure])
            assert openpyxl.load_workbook(opened)[FIGURE[0]][FIGURE[1]].value == 1, password  # unlocked
