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


def count_records(path: Path) -> Records:
    """One pass over the file's bytes; `BillError` naming the line on a NUL byte, non-UTF-8 bytes or a line over
    `MAX_LINE_BYTES`."""
    out = Records()
    decoder = codecs.getincrementaldecoder("utf-8")()
    in_quote, header_done = False, False
    line, start_line, record_bytes, blank = 1, 1, 0, True
    carry = b""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(CHUNK)
            final = not chunk
            data = carry + chunk
            if final and not data:
                break
            _check_bytes(chunk, decoder, final, line, carry)
            if final:
                pieces = _BREAK.split(data)
                if pieces[-1] == b"":
                    pieces.pop()  # the file ends with a line break: no row after it
            else:  # the last piece is a line still open; a trailing \r may be half of a \r\n
                cut = len(data) - 1 if data.endswith(b"\r") else len(data)
                pieces = _BREAK.split(data[:cut])
                carry = pieces.pop() + data[cut:]
            for piece in pieces:
                record_bytes += len(piece) + 1
                if record_bytes > MAX_LINE_BYTES:
                    _too_long(start_line)
                if piece:
                    blank = False
                if piece.count(b'"') & 1:
                    in_quote = not in_quote
                if not in_quote:
                    if not (blank and start_line == line):  # a blank line is no row (DuckDB skips it)
                        if header_done:
                            _row(out, start_line)
                        header_done = True
                    record_bytes, start_line, blank = 0, line + 1, True
                line += 1
            if final:
                break
            if record_bytes + len(carry) > MAX_LINE_BYTES:  # the line still open is already too long
                _too_long(start_line)
    if in_quote:
        raise BillError(f"line {start_line}: a quoted field is never closed (a `\"` without its pair)")
    return out


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
