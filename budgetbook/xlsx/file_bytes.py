"""Read a workbook file into memory once, bounded; say in words what a file that is not a zip is.

Everything after this works on the bytes read here: the input file is never
held open, never written, and cannot change between the checks and the load.
"""

from __future__ import annotations

import stat
from pathlib import Path

from .limits import Limits, Refused, human_size

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")


def read_file_bytes(path: Path, limits: Limits) -> bytes:
    """The whole file, refused before reading when it is not a regular, non-empty file within the size limit."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise Refused("no such file") from None
    except OSError as exc:
        raise Refused(f"cannot read: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise Refused("is a directory, not a workbook")
    if not stat.S_ISREG(st.st_mode):
        # a FIFO or a device would block or never end
        raise Refused("is not a regular file")
    if st.st_size == 0:
        raise Refused("is empty (0 bytes), not a workbook")
    if st.st_size > limits.max_file_bytes:
        raise Refused(f"is {human_size(st.st_size)}, over the {human_size(limits.max_file_bytes)} limit for a workbook")
    try:
        with open(path, "rb") as handle:
            # read(n) allocates n bytes up front: ask for the size stat saw, plus one to spot growth
            data = handle.read(st.st_size + 1)
    except OSError as exc:
        raise Refused(f"cannot read: {exc.strerror}") from None
    if len(data) > st.st_size:
        raise Refused("changed while being read; try again once it is saved")
    if not data:
        raise Refused("is empty (0 bytes), not a workbook")
    return data


def not_a_zip_reason(data: bytes) -> str:
    """Why bytes that are not a zip are not an .xlsx, in words a user can act on."""
    if data.startswith(OLE_MAGIC):
        return ("an encrypted or password-protected workbook, or an old binary .xls: not a readable "
                ".xlsx; save it as .xlsx without a password")
    head = data[:8192]
    if b"\x00" in head:
        return "not an .xlsx (not a zip archive, and not text)"
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    lower = text[:2048].lower()
    if lower.startswith("<"):
        if "urn:schemas-microsoft-com:office:spreadsheet" in lower:
            return "an XML Spreadsheet 2003 file renamed .xlsx: open it in Excel and save as .xlsx"
        if "<html" in lower or "<!doctype html" in lower or "<table" in lower:
            return "an HTML page renamed .xlsx (as some web exports do): open it and save as .xlsx"
        return "an XML file, not an .xlsx (which is a zip archive)"
    if _looks_like_csv(text, cut_short=len(data) > len(head)):
        return "a CSV file renamed .xlsx: not a readable .xlsx; open it in Excel and save as .xlsx"
    return "a text file, not an .xlsx (which is a zip archive)"


def _looks_like_csv(text: str, *, cut_short: bool) -> bool:
    """Most of the first lines hold one separator, the first line included."""
    lines = [line for line in text.splitlines()[:20] if line.strip()]
    if cut_short:
        lines = lines[:-1]  # the last line may be cut at the sniff boundary
    for sep in (",", ";", "\t", "|"):
        counts = [line.count(sep) for line in lines]
        if counts and counts[0] > 0 and sum(c > 0 for c in counts) >= max(1, len(counts) * 0.8):
            return True
    return False
