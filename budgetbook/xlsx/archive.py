"""A workbook's zip archive: bounded before zipfile reads it, each member inflated once against its declared size.

The checks that need no decompression (member count from the end record,
declared sizes and ratios) come first, so a 2 GB zip bomb is refused from its
central directory in milliseconds. A member is then inflated in bounded chunks,
and a stream that overshoots the size it declared is refused as soon as it does.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Iterable, Iterator

from .limits import Limits, Refused, human_size, one_line

CHUNK = 1 << 16
INFLATE_STEP = 1 << 20

# 400 bytes per entry is generous (46 fixed + name + extra) yet bounds zipfile's work
_CENTRAL_ENTRY_BYTES = 400
_END_RECORD_SPAN = 65_557  # the end record (22 bytes) plus the longest zip comment


def open_archive(data: bytes, limits: Limits) -> zipfile.ZipFile:
    """A ZipFile over `data`, refused first if its end record declares too many members."""
    _bound_central_directory(data, limits)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, struct.error, EOFError,
            OSError, NotImplementedError, UnicodeDecodeError) as exc:
        raise Refused(f"a truncated or corrupt zip archive ({one_line(exc)}): not a readable .xlsx") from None
    if len(archive.infolist()) > limits.max_members:
        raise _too_many_members(len(archive.infolist()), limits)
    return archive


def _too_many_members(entries: int, limits: Limits) -> Refused:
    return Refused(f"a zip of {entries:,} members, over the limit of {limits.max_members:,} (a zip bomb?)")


def _bound_central_directory(data: bytes, limits: Limits) -> None:
    """Refuse too many members from the end record, before zipfile builds an object per entry."""
    eocd = data.rfind(b"PK\x05\x06", max(0, len(data) - _END_RECORD_SPAN))
    if eocd < 0 or eocd + 22 > len(data):
        raise Refused("a truncated or corrupt zip archive (no end of central directory): "
                      "not a readable .xlsx")
    entries, cd_size = struct.unpack_from("<HI", data, eocd + 10)
    if entries == 0xFFFF or cd_size == 0xFFFFFFFF:
        entries, cd_size = _zip64_directory(data, eocd, entries, cd_size)
    if entries > limits.max_members or cd_size > limits.max_members * _CENTRAL_ENTRY_BYTES:
        raise _too_many_members(entries, limits)


def _zip64_directory(data: bytes, eocd: int, entries: int, cd_size: int) -> tuple[int, int]:
    """(entries, central directory size) from the zip64 end record, or the given ones if there is none."""
    locator = eocd - 20
    if locator >= 0 and data[locator:locator + 4] == b"PK\x06\x07":
        (z64,) = struct.unpack_from("<Q", data, locator + 8)
        if 0 <= z64 and z64 + 56 <= len(data) and data[z64:z64 + 4] == b"PK\x06\x06":
            entries, cd_size = struct.unpack_from("<QQ", data, z64 + 32)
    return entries, cd_size


def check_declared(infos: list[zipfile.ZipInfo], limits: Limits) -> int:
    """Refuse what the central directory alone gives away; return the declared uncompressed total."""
    seen: set[str] = set()
    total = 0
    for info in infos:
        if info.filename in seen:
            # two parsers may pick different copies: a classic smuggling trick
            raise Refused(f"the zip holds `{info.filename}` twice: not a workbook Excel writes")
        seen.add(info.filename)
        if info.flag_bits & 0x1:
            raise Refused(f"zip member `{info.filename}` is encrypted: save the workbook "
                          "without a password")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise Refused(f"zip member `{info.filename}` uses compression method "
                          f"{info.compress_type}, which Excel never writes")
        total += info.file_size
        if total > limits.max_uncompressed:
            raise Refused(f"would inflate to over {human_size(total)} (limit {human_size(limits.max_uncompressed)}): "
                          "a zip bomb, or far larger than any budget workbook")
        _check_ratio(info, limits)
    return total


def _check_ratio(info: zipfile.ZipInfo, limits: Limits) -> None:
    if info.file_size < limits.ratio_min_bytes:
        return
    ratio = info.file_size / max(info.compress_size, 1)
    if ratio > limits.max_ratio:
        raise Refused(f"zip member `{info.filename}` inflates {ratio:,.0f}x "
                      f"({human_size(info.compress_size)} to {human_size(info.file_size)}; limit "
                      f"{limits.max_ratio:,.0f}x): a zip bomb?")


def inflate(data: bytes, info: zipfile.ZipInfo, cap: int) -> Iterator[bytes]:
    """Yield a member's bytes, refusing as soon as it overshoots its declared size or `cap`.

    zipfile trusts the central directory; this reads the local header itself so
    that a stream that inflates past what it declared is named for what it is.
    """
    raw = _compressed_bytes(data, info)
    guard = _SizeGuard(info, cap)
    if info.compress_type == zipfile.ZIP_STORED:
        pieces: Iterable[bytes] = (bytes(raw[i:i + INFLATE_STEP]) for i in range(0, len(raw), INFLATE_STEP))
    else:
        pieces = _deflated_pieces(raw, info.filename)
    for piece in pieces:
        yield guard.count(piece)
    guard.check_complete()


def _compressed_bytes(data: bytes, info: zipfile.ZipInfo) -> memoryview:
    """The member's compressed stream, found from its local header rather than the central directory."""
    offset = info.header_offset
    if offset < 0 or data[offset:offset + 4] != b"PK\x03\x04":
        raise Refused(f"zip member `{info.filename}` has no local header: a corrupt zip archive")
    name_len, extra_len = struct.unpack_from("<HH", data, offset + 26)
    start = offset + 30 + name_len + extra_len
    raw = memoryview(data)[start:start + info.compress_size]
    if len(raw) < info.compress_size:
        raise Refused(f"zip member `{info.filename}` is cut short: a truncated zip archive")
    return raw


def _deflated_pieces(raw: memoryview, name: str) -> Iterator[bytes]:
    """Inflate at most INFLATE_STEP bytes at a time, so an overshoot is seen before it is all in memory."""
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    try:
        for i in range(0, len(raw), CHUNK):
            pending: bytes | memoryview = raw[i:i + CHUNK]
            while pending and not inflater.eof:
                piece = inflater.decompress(pending, INFLATE_STEP)
                pending = inflater.unconsumed_tail
                if piece:
                    yield piece
            if inflater.eof:
                break
    except zlib.error as exc:
        raise Refused(f"zip member `{name}` is corrupt ({exc})") from None
    if not inflater.eof:
        raise Refused(f"zip member `{name}` ends early: a truncated or corrupt zip archive")


class _SizeGuard:
    """Counts a member's inflated bytes against its declared size and a cap, and keeps its CRC."""

    def __init__(self, info: zipfile.ZipInfo, cap: int):
        self.info = info
        self.cap = cap
        self.produced = 0
        self.crc = 0

    def count(self, piece: bytes) -> bytes:
        self.produced += len(piece)
        name, declared = self.info.filename, self.info.file_size
        if self.produced > declared:
            raise Refused(f"zip member `{name}` inflates beyond its declared {declared:,} bytes "
                          "(a lying header: a zip bomb?)")
        if self.produced > self.cap:
            raise Refused(f"zip member `{name}` inflates past {human_size(self.cap)}: a zip bomb?")
        self.crc = zlib.crc32(piece, self.crc)
        return piece

    def check_complete(self) -> None:
        if self.produced != self.info.file_size or self.crc != self.info.CRC:
            raise Refused(f"zip member `{self.info.filename}` does not match its checksum: a corrupt zip archive")
