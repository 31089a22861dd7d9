"""Open an untrusted .xlsx safely: sniff, bound and verify the zip before any XML is parsed.

Edited workbooks come back from anywhere, so every one is treated as hostile
until proven otherwise. The whole file is read once into memory, its size
bounded (`file_bytes`), and everything after works on those bytes.

Order matters: the cheap checks that need no decompression (magic bytes,
member count, declared sizes, ratios: `archive`) run first, so a 2 GB zip bomb
is refused from its central directory in milliseconds. Then every member is
inflated once, in bounded chunks, against its declared size, and every XML
part is streamed through expat with DTDs refused and its cells counted
(`xml_scan`). Last, the package's content types say what it is and holds
(`package`); only then does openpyxl load it, from the verified bytes, and
each sheet's used range is bounded before anything walks it.

The checks raise `limits.Refused` with a reason; this module is the boundary
that turns it into a `WorkbookError` naming the file.
"""

from __future__ import annotations

import hashlib
import io
import os
import warnings
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from defusedxml import DefusedXmlException

from ..errors import WorkbookError
from .a1 import get_column_letter
from .archive import check_declared, open_archive
from .collector import paused
from .file_bytes import ZIP_MAGICS, not_a_zip_reason, read_file_bytes
from .lean import LeanReader
from .limits import DEFAULT_LIMITS, Limits, Refused, one_line
from .package import describe_package, refuse_opendocument
from .xml_scan import scan_members

if TYPE_CHECKING:  # loaded where a workbook is loaded by openpyxl: the lean reader needs none of it (~0.15 s)
    import openpyxl

__all__ = ["DEFAULT_LIMITS", "Limits", "LoadedWorkbook", "XlsxInfo", "inspect_xlsx", "load_xlsx", "open_workbook",
           "read_xlsx"]


@dataclass(frozen=True)
class XlsxInfo:
    """What a workbook holds that callers may report or refuse; its bytes are verified."""

    path: str
    size: int
    sha256: str
    kind: str                       # xlsx, xlsm, xltx, xltm, xlam
    members: int
    uncompressed: int
    cells: int
    macros: tuple[str, ...] = ()    # VBA projects, Excel 4 macro sheets, ActiveX parts
    external_links: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    connections: tuple[str, ...] = ()
    data: bytes = field(default=b"", repr=False, compare=False)

    @property
    def has_macros(self) -> bool:
        return bool(self.macros) or self.kind in ("xlsm", "xltm", "xlam")

    def notes(self) -> list[tuple[str, str]]:
        """(kind, sentence) pairs for content that `check` must mention but never runs."""
        out = []
        if self.has_macros:
            where = ", ".join(self.macros) or f"a macro-enabled .{self.kind}"
            out.append(("macros", f"contains macros ({where}); budgetbook never runs them"))
        if self.external_links:
            out.append(("external_links", "links to other workbooks ("
                        + ", ".join(self.external_links) + "); their values are not fetched"))
        if self.connections:
            out.append(("connections", "holds external data connections ("
                        + ", ".join(self.connections) + "); they are never refreshed"))
        if self.tables:
            out.append(("tables", "contains Excel tables (" + ", ".join(self.tables)
                        + "), which the formula evaluator cannot load"))
        return out


@dataclass(frozen=True)
class LoadedWorkbook:
    workbook: openpyxl.Workbook
    info: XlsxInfo


def _inspect_bytes(data: bytes, source: str, limits: Limits, reader: LeanReader | None = None) -> XlsxInfo:
    if not data.startswith(ZIP_MAGICS):
        raise Refused(not_a_zip_reason(data))
    archive = open_archive(data, limits)
    infos = archive.infolist()
    refuse_opendocument(archive, data)
    uncompressed = check_declared(infos, limits)
    cells, content_types = scan_members(archive, data, limits, reader)
    package = describe_package([info.filename for info in infos], content_types)
    if reader is not None:
        assert content_types is not None  # describe_package refuses a package without them
        reader.assemble([info.filename for info in infos], content_types)
    return XlsxInfo(path=source, size=len(data), sha256=hashlib.sha256(data).hexdigest(),
                    members=len(infos), uncompressed=uncompressed, cells=cells, data=data, **asdict(package))


def inspect_xlsx(path: str | os.PathLike, limits: Limits = DEFAULT_LIMITS) -> XlsxInfo:
    """Verify a workbook file without loading it; raise a one-line WorkbookError naming the file."""
    source = str(path)
    try:
        return _inspect_bytes(read_file_bytes(Path(path), limits), source, limits)
    except Refused as exc:
        raise WorkbookError(str(exc), source=source) from None


def load_xlsx(path: str | os.PathLike, *, limits: Limits = DEFAULT_LIMITS,
              data_only: bool = False) -> LoadedWorkbook:
    """Verify, then load with openpyxl from the verified bytes: the workbook and what it holds."""
    source = str(path)
    _refuse_undefused(source)
    info = inspect_xlsx(path, limits)
    try:
        workbook = _load_verified(info.data, data_only)
        bound_used_ranges(workbook, limits)
    except Refused as exc:
        raise WorkbookError(str(exc), source=source) from None
    return LoadedWorkbook(workbook=workbook, info=info)


def _refuse_undefused(source: str) -> None:
    """Refuse to let openpyxl parse an untrusted workbook without defusedxml."""
    import openpyxl  # here, not at import: the lean reader (`read_xlsx`) needs none of it (~0.15 s)

    if not openpyxl.DEFUSEDXML:
        raise WorkbookError("openpyxl is not using defusedxml (is OPENPYXL_DEFUSEDXML=False set?); "
                            "refusing to parse an untrusted workbook", source=source)


def read_xlsx(path: str | os.PathLike, *, limits: Limits = DEFAULT_LIMITS) -> LoadedWorkbook:
    """Verify and read in one pass over the package (`lean`): cells, formulas, names, hidden flags, no styles.

    The workbook is a `lean_book.LeanWorkbook`, or, for the rare package the lean reader does not read as
    openpyxl would (`lean.LeanUnsupported`), openpyxl's, loaded from the same verified bytes.
    """
    source = str(path)
    reader = LeanReader()
    try:
        with paused():  # ~70,000 cells at 45,000 formula cells: no cycle among them for the collector to find
            info = _inspect_bytes(read_file_bytes(Path(path), limits), source, limits, reader)
        if reader.workbook is not None:
            workbook = reader.workbook
        else:
            _refuse_undefused(source)  # a package the lean reader does not read, only
            workbook = _load_verified(info.data, False)
        bound_used_ranges(workbook, limits)
    except Refused as exc:
        raise WorkbookError(str(exc), source=source) from None
    return LoadedWorkbook(workbook=workbook, info=info)


def bound_used_ranges(workbook: openpyxl.Workbook, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse a sheet whose used range (A1 to its last row and column) is over the limit, naming the sheet.

    Loading one cell at XFD1048576 costs nothing; walking the used range does, cell by cell (ExcelModel,
    openpyxl's iter_rows): 17 billion of them. So it is judged here, from the cells loaded, before any walk.
    """
    for ws in workbook.worksheets:
        cells = getattr(ws, "_cells", None)
        if not cells:
            continue
        rows, cols = max(row for row, _ in cells), max(col for _, col in cells)
        if rows * cols > limits.max_used_range:
            last = f"{get_column_letter(cols)}{rows}"
            raise Refused(f"sheet `{ws.title}` reaches cell {last}: its used range A1:{last} is {rows * cols:,} "
                          f"cells, over the limit of {limits.max_used_range:,}; delete the far-away rows and "
                          "columns (Ctrl+End shows the last cell) and save again")


def _load_verified(data: bytes, data_only: bool) -> openpyxl.Workbook:
    """openpyxl's workbook from verified bytes; whatever it raises becomes one refusal."""
    import openpyxl  # here, not at import: the lean reader needs none of it (~0.15 s)

    try:
        with warnings.catch_warnings():
            # openpyxl warns about every extension it drops (data validation, slicers...):
            # noise for a reader that only needs cells and names
            warnings.simplefilter("ignore")
            return openpyxl.load_workbook(io.BytesIO(data), data_only=data_only,
                                          keep_vba=False, keep_links=True, rich_text=False)
    except MemoryError:
        raise Refused("too large to load into memory") from None
    except Exception as exc:  # noqa: BLE001  openpyxl raises anything from KeyError to TypeError on odd parts
        hostile = _defused_cause(exc)
        if hostile is not None:
            raise Refused(f"hostile XML refused ({type(hostile).__name__}: {one_line(hostile)})") from None
        raise Refused(f"openpyxl cannot read it: {type(exc).__name__}: {one_line(exc)}") from None


def _defused_cause(exc: BaseException | None) -> DefusedXmlException | None:
    # openpyxl wraps parse errors in a ValueError of its own
    while exc is not None:
        if isinstance(exc, DefusedXmlException):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


def open_workbook(path: str | os.PathLike, *, max_uncompressed: int | None = None,
                  max_ratio: float | None = None, data_only: bool = False,
                  limits: Limits | None = None) -> openpyxl.Workbook:
    """The one call `check` and `extract` need: a verified, fully loaded openpyxl workbook."""
    limits = limits or DEFAULT_LIMITS
    if max_uncompressed is not None:
        limits = replace(limits, max_uncompressed=max_uncompressed)
    if max_ratio is not None:
        limits = replace(limits, max_ratio=max_ratio)
    return load_xlsx(path, limits=limits, data_only=data_only).workbook
