"""Evaluate every named cell of a workbook with the `formulas` package (a real Excel engine in Python).

`formulas` returns results keyed by `'[file]SHEET'!A1` (upper-cased sheet) and,
for workbook-scoped defined names, by `'[file]'!NAME`. Sheet-scoped names
evaluate to #REF! there, which is one reason the builder never writes them.
"""

from __future__ import annotations

import io
import logging
import os
import tempfile
import threading
import types
import warnings
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..atomic import temp_folder_error
from ..errors import WorkbookError
from .tokenizer import Tokenizer
from .values import plain


class _QuietBar:
    """Stands in for tqdm: `formulas` draws a progress bar on stderr, which would litter `check`'s output."""

    total = 0

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, *args, **kwargs):
        return None

    def refresh(self):
        return None


def _quiet_formulas_log() -> None:
    """`formulas` logs a warning per cell on a deleted sheet ("Error in loading ..."), which Python's
    last-resort handler prints to stderr; `check` reports the deleted sheet itself, in one place."""
    logging.getLogger("formulas").setLevel(logging.ERROR)


_QUIET = types.SimpleNamespace(tqdm=_QuietBar)
_LOCK = threading.Lock()


@contextmanager
def _quiet_formulas():
    from formulas import excel

    with _LOCK:
        loud, excel.tqdm = excel.tqdm, _QUIET
        try:
            yield
        finally:
            excel.tqdm = loud


def evaluate_workbook(source: str | os.PathLike | bytes, workbook: Any = None,
                      cells: Mapping[str, tuple[str, str]] | None = None) -> dict[str, Any]:
    """{defined name: evaluated value} for every workbook-scoped name; Excel errors as text ('#REF!');
    and the value of each of `cells` ({name: (sheet title, "C7")}: cells found without a defined name).

    Tries `fasteval.evaluate_fast` (same engine, one compilation per formula shape) and falls back to
    `formulas.ExcelModel` for whatever it does not handle (see fasteval's module docstring).
    `workbook`, the openpyxl workbook of `source` when the caller has loaded it already, spares a
    second load (formulas kept, not read-only).
    """
    return evaluate_later(source, workbook)(cells)


def evaluate_later(source: str | os.PathLike | bytes, workbook: Any = None
                   ) -> Callable[[Mapping[str, tuple[str, str]] | None], dict[str, Any]]:
    """`evaluate_workbook(source, workbook, cells)` in two steps: every formula computed now, the names and
    `cells` read from the results when the function returned is called (given `cells`).

    `check` works out the `cells` (found by anchors) from the embedded plan's layout, its largest holding:
    computed first, the formula plans and schedule (~100 MB at 260,000 formula cells) are gone before the
    layout is made, and only the results and cells wait for it. Where the fast path gives up, now or then,
    ExcelModel evaluates the whole book when called, as `evaluate_workbook` does.
    """
    from .fasteval import computed  # on first use, not at import: loads numpy, openpyxl, schedula

    _quiet_formulas_log()
    try:
        named = computed(source if workbook is None else workbook)
    except Exception:  # noqa: BLE001  fasteval.Unsupported, or anything unforeseen: the reference path decides
        named = None

    def values(cells: Mapping[str, tuple[str, str]] | None) -> dict[str, Any]:
        if named is not None:
            try:
                return named(cells)
            except Exception:  # noqa: BLE001  as computing: the reference path decides
                pass
        _bound_model_work(source, workbook)
        return evaluate_with_model(source, cells)

    return values


def _bound_model_work(source: str | os.PathLike | bytes, workbook: Any) -> None:
    """Refuse, before it starts, an ExcelModel evaluation that would build millions of cells (`model_cost`)."""
    from .fasteval import Unsupported, load_workbook_of  # on first use, not at import: loads numpy, openpyxl, schedula
    from .model_cost import refuse_costly_model  # on first use, not at import: loads numpy, openpyxl, schedula

    if workbook is None:
        try:
            workbook = load_workbook_of(source)
        except Unsupported:
            return  # openpyxl cannot read it: ExcelModel gives its own reason
    refuse_costly_model(workbook)


def evaluate_with_model(source: str | os.PathLike | bytes,
                        cells: Mapping[str, tuple[str, str]] | None = None) -> dict[str, Any]:
    """`evaluate_workbook` through `formulas.ExcelModel` (every cell and name compiled on its own)."""
    if isinstance(source, (bytes, bytearray)):
        try:  # a failure here is the temporary folder's, not the workbook's
            scratch = tempfile.TemporaryDirectory(prefix="budgetbook-eval-")
        except OSError as exc:
            raise temp_folder_error(exc) from None
        with scratch:
            path = Path(scratch.name) / "book.xlsx"
            try:
                path.write_bytes(bytes(source))
            except OSError as exc:
                raise temp_folder_error(exc) from None
            try:
                return evaluate_with_model(path, cells)
            except WorkbookError as exc:
                exc.source = None  # the temporary copy means nothing to the user: the caller names the file
                raise
    path = Path(source)
    if not path.is_file():
        raise WorkbookError("no such workbook", source=str(path))
    by_key = _model_solution(path)
    results = {}
    for key, value in by_key.items():
        book, _, ref = key.rpartition("!")
        if book.endswith("]'") and "]" in book and book.rstrip("'").endswith("]"):
            results[ref] = value
    names = {}
    for name, defined in _defined_names(path).items():
        value = results.get(name.upper())
        if value is None:
            value = _cell_value(by_key, defined.attr_text, path.name)
        names[name] = plain(value)
    for name, (sheet, cell) in (cells or {}).items():
        names[name] = plain(_cell_value(by_key, f"'{sheet}'!{cell}", path.name))
    return names


def _model_solution(path: Path) -> dict[str, Any]:
    """ExcelModel's every result, keyed by its upper-cased `'[file]SHEET'!A1` or `'[file]'!NAME`."""
    import formulas

    try:
        with warnings.catch_warnings(), _quiet_formulas():
            warnings.simplefilter("ignore")
            model = formulas.ExcelModel().loads(str(path)).finish()
            solution = model.calculate()
    except Exception as exc:  # noqa: BLE001  formulas raises many kinds on a damaged or foreign file
        bad = _first_bad_formula(path) if type(exc).__module__.startswith("formulas") else None
        if bad:
            raise WorkbookError(f"cannot evaluate the workbook: {bad}", source=str(path)) from None
        detail = " ".join(str(exc).split())  # FormulaError's text holds a newline: one line only
        raise WorkbookError(f"cannot evaluate the workbook ({type(exc).__name__}: {detail:.200})",
                            source=str(path)) from None
    return {str(key).upper(): value for key, value in solution.items()}


def _defined_names(path: Path) -> Any:
    from openpyxl import load_workbook

    try:
        wb = load_workbook(io.BytesIO(path.read_bytes()), read_only=False)
    except Exception as exc:  # noqa: BLE001  ExcelModel read it, so this is unexpected: say so in one line
        raise WorkbookError(f"cannot read the workbook's names ({type(exc).__name__})", source=str(path)) from None
    return wb.defined_names


def _first_bad_formula(path: Path) -> str | None:
    """Where `formulas` gave up: the first formula its parser rejects (its error does not say which)."""
    import formulas
    from openpyxl import load_workbook

    try:
        wb = load_workbook(io.BytesIO(path.read_bytes()))
    except Exception:  # noqa: BLE001  only a better message is at stake; the caller has one already
        return None
    parser = formulas.Parser()
    for ws in wb.worksheets:
        # the cells that exist, in order: iter_rows would create every cell of the used range
        for _, cell in sorted(ws._cells.items()):
            text = getattr(cell.value, "text", cell.value)
            if isinstance(text, str) and text.startswith("=") and len(text) > 1:
                try:
                    parser.ast(text)
                except Exception:  # noqa: BLE001  any failure to parse is the answer sought
                    shown = text if len(text) <= 60 else text[:57] + "..."
                    where = f"the formula in {ws.title}!{cell.coordinate} (`{' '.join(shown.split())}`)"
                    if _parses_with_signed_exponents(parser, text):  # Excel reads `1E308`; formulas does not
                        return f"{where} writes a number as `1E308`, which the evaluator reads only as `1E+308`"
                    return f"{where} is not one Excel accepts; fix or clear it"
    return None


def _parses_with_signed_exponents(parser: Any, text: str) -> bool:
    from .shapes import signed_exponent  # on first use, not at import: loads numpy, openpyxl, schedula

    try:
        tokens = Tokenizer(text).items
        parser.ast("=" + "".join(signed_exponent(t.value) if t.subtype == "NUMBER" else t.value for t in tokens))
    except Exception:  # noqa: BLE001  not the reason, then
        return False
    return True


def _cell_value(by_key: dict, attr_text: str, filename: str) -> Any:
    """A name `formulas` did not report (an input no formula uses): read its cell's result."""
    sheet, _, cell = attr_text.rpartition("!")
    sheet = sheet.strip("'").replace("''", "'")
    key = f"'[{filename}]{sheet}'!{cell.replace('$', '')}".upper()
    return by_key.get(key)
