"""The independent count of a CSV bill's rows: one pass over its bytes, apart from DuckDB's reader.

DuckDB's parallel CSV reader has skipped a bill's last row without a word: after a
line of about 32 MB or more, or NUL padding of 40 MB after the last row (DuckDB
2.0, 2 threads), and the validation counted the rows from that same scan. This
pass reads the file as a CSV record splitter would (a quoted field may hold a line
break; `""` is an escaped quote; blank lines are no rows, as DuckDB has them) and
refuses, naming the line:

- a line (or quoted record) over `MAX_LINE_BYTES`: a FOCUS row is ~330 bytes, a wide
  one with tags a few KB, and DuckDB's own ceiling is 2,097,152;
- a NUL byte anywhere (padding, a binary file), which no text bill holds;
- bytes that are not UTF-8 (a latin-1 or Windows-1252 export), with the fix.

The reader's row count is then held to `Records.count`, and a row it did not turn
into a charge is named by its line (`line_of`).
"""

from __future__ import annotations

import codecs
import re
from array import array
from dataclasses import dataclass, field
from pathlib import Path

from .kit import BillError

MAX_LINE_BYTES = 1_000_000
CHUNK = 1 << 20
MAX_SHIFTS = 1_000_000   # records not on the line their index gives (after a quoted line break or a blank line)
_BREAK = re.compile(rb"\r\n|\n|\r")


@dataclass
class Records:
    """The data rows (the header and blank lines not counted) and where each starts."""

    count: int = 0
    # (row index, its first line) where a row does not start on line index + 2; None past MAX_SHIFTS
    shift_rows: array | None = field(default_factory=lambda: array("q"))
    shift_lines: array = field(default_factory=lambda: array("q"))

    def line_of(self, row: int) -> int | None:
        """The line (1-based, the header is line 1) that data row `row` (0-based) starts on."""
        if self.shift_rows is None:
            return None
        import bisect

        at = bisect.bisect_right(self.shift_rows, row) - 1
        if at < 0:
            return row + 2
        return self.shift_lines[at] + (row - self.shift_rows[at])


@dataclass
class _State:
    line: int = 1            # the line the next byte is on
    start_line: int = 1      # the line the open record started on
    record_bytes: int = 0    # the open record's bytes so far
    blank: bool = True       # the open record is empty so far
    in_quote: bool = False
    header_done: bool = False


def count_records(path: Path) -> Records:
    """One pass over the file's bytes; `BillError` naming the line on a NUL byte, non-UTF-8 bytes or a line over
    `MAX_LINE_BYTES`."""
    out, st = Records(), _State()
    decoder = codecs.getincrementaldecoder("utf-8")()
    carry = b""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(CHUNK)
            final = not chunk
            _check_bytes(chunk, decoder, final, st.line, carry)
            data = carry + chunk
            if final:
                body, carry = data, b""
            else:  # up to the last line break, a \r at the very end held back (it may be half of a \r\n)
                cut = max(data.rfind(b"\n"), data.rfind(b"\r", 0, len(data) - 1)) + 1
                body, carry = data[:cut], data[cut:]
            if body and (st.in_quote or not _fast(body, out, st)):
                _slow(body, out, st, final)
            if final:
                break
            if st.record_bytes + len(carry) > MAX_LINE_BYTES:  # the line still open is already too long
                _too_long(st.start_line)
    if st.in_quote:
        raise BillError(f"line {st.start_line}: a quoted field is never closed (a `\"` without its pair)")
    return out


def _lines(body: bytes) -> list[bytes]:
    """The lines of `body` (split at `\n`, `\r\n` or a lone `\r`, as DuckDB reads them); bytes methods where
    the file keeps to one kind of line break (a regular expression is ten times slower)."""
    if b"\r" not in body:
        return body.split(b"\n")
    crlf = body.count(b"\r\n")
    if crlf == body.count(b"\r") == body.count(b"\n"):
        return body.split(b"\r\n")
    return _BREAK.split(body)


def _fast(body: bytes, out: Records, st: _State) -> bool:
    """Lines that are each one record (no quoted line break, no blank line, none too long): counted in bulk.
    False, and nothing done, where the body needs the line-by-line reading."""
    lines = _lines(body)
    if lines[-1] != b"":
        return False  # the file's last line has no line break: read it line by line
    lines.pop()
    if b"" in lines or max(map(len, lines)) >= MAX_LINE_BYTES:
        return False
    if b'"' in body and any(line.count(b'"') & 1 for line in lines):
        return False  # a quoted field runs over a line break
    first = 0
    if not st.header_done:
        st.header_done, first = True, 1
    if first < len(lines):
        _row(out, st.line + first)
        out.count += len(lines) - first - 1
    st.line += len(lines)
    st.start_line = st.line
    return True


def _slow(body: bytes, out: Records, st: _State, final: bool) -> None:
    pieces = _lines(body)
    if pieces[-1] == b"":
        pieces.pop()  # the body ends with a line break: no line after it
    for piece in pieces:
        st.record_bytes += len(piece) + 1
        if st.record_bytes > MAX_LINE_BYTES:
            _too_long(st.start_line)
        if piece:
            st.blank = False
        if piece.count(b'"') & 1:
            st.in_quote = not st.in_quote
        if not st.in_quote:
            if not (st.blank and st.start_line == st.line):  # a blank line is no row (DuckDB skips it)
                if st.header_done:
                    _row(out, st.start_line)
                st.header_done = True
            st.record_bytes, st.start_line, st.blank = 0, st.line + 1, True
        st.line += 1


def _row(out: Records, start_line: int) -> None:
    index = out.count
    if out.shift_rows is not None and out.line_of(index) != start_line:
        if len(out.shift_rows) >= MAX_SHIFTS:
            out.shift_rows = None
        else:
            out.shift_rows.append(index)
            out.shift_lines.append(start_line)
    out.count += 1


def _too_long(line: int) -> None:
    raise BillError(f"line {line} is over {MAX_LINE_BYTES:,} bytes long; a bill's line may be at most that "
                    "(a FOCUS row is a few hundred bytes): the file is damaged or not a bill")


def _check_bytes(chunk: bytes, decoder, final: bool, line: int, carry: bytes) -> None:
    """NUL bytes and non-UTF-8 bytes refused, named by line (`line` is where `carry` + `chunk` begin)."""
    nul = chunk.find(b"\0")
    if nul >= 0:
        at = line + len(_BREAK.findall(carry + chunk[:nul]))
        raise BillError(f"line {at} holds a NUL byte (zero padding or a binary file); a bill is text: cut the "
                        "file after its last row")
    try:
        decoder.decode(chunk, final)
    except UnicodeDecodeError as exc:
        seen = exc.object[: exc.start]  # the decoder's held bytes of the last chunk, then this chunk
        at = line + len(_BREAK.findall(carry + seen[max(0, len(seen) - len(chunk)):]))
        byte = exc.object[exc.start:exc.start + 1].hex() or "end"
        raise BillError(f"line {at} is not UTF-8 (byte 0x{byte}): the bill looks latin-1 or Windows-1252; save it "
                        "as UTF-8 (e.g. `iconv -f latin1 -t utf-8 bill.csv > bill-utf8.csv`)") from None
