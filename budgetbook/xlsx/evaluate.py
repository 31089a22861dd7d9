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
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import WorkbookError


def _plain(value: Any) -> Any:
    """A Python value from a `formulas` result: a 1x1 range, a numpy scalar, or an Excel error."""
    while hasattr(value, "value") and not isinstance(value, (str, bytes)):
        value = value.value
    try:
        import numpy as np

        if isinstance(value, np.ndarray):
            value = value.ravel()[0] if value.size else None
        if isinstance(value, np.generic):
            value = value.item()
    except ImportError:  # pragma: no cover
        pass
    if type(value).__name__ == "XlError":
        return str(value)
    if type(value).__name__ == "Token" and str(value) == "empty":  # schedula's blank cell, not the text
        return None
    return value


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
    import formulas.excel as excel

    with _LOCK:
        loud, excel.tqdm = excel.tqdm, _QUIET
        try:
            yield
        finally:
            excel.tqdm = loud


def evaluate_workbook(source: str | os.PathLike | bytes) -> dict[str, Any]:
    """{defined name: evaluated value} for every workbook-scoped name; Excel errors as text ('#REF!').

    Tries `fasteval.evaluate_fast` (same engine, one compilation per formula shape) and falls back to
    `formulas.ExcelModel` for whatever it does not handle (see fasteval's module docstring).
    """
    from .fasteval import evaluate_fast

    _quiet_formulas_log()
    try:
        return evaluate_fast(source)
    except Exception:  # fasteval.Unsupported, or anything unforeseen: the reference path decides
        return evaluate_with_model(source)


def evaluate_with_model(source: str | os.PathLike | bytes) -> dict[str, Any]:
    """`evaluate_workbook` through `formulas.ExcelModel` (every cell and name compiled on its own)."""
    import formulas

    if isinstance(source, (bytes, bytearray)):
        with tempfile.TemporaryDirectory(prefix="budgetbook-eval-") as tmp:
            path = Path(tmp) / "book.xlsx"
            path.write_bytes(bytes(source))
            return evaluate_with_model(path)
    path = Path(source)
    if not path.is_file():
        raise WorkbookError(f"{path}: no such workbook")
    try:
        with warnings.catch_warnings(), _quiet_formulas():
            warnings.simplefilter("ignore")
            model = formulas.ExcelModel().loads(str(path)).finish()
            solution = model.calculate()
    except Exception as exc:  # formulas raises many kinds on a damaged or foreign file
        bad = _first_bad_formula(path) if type(exc).__module__.startswith("formulas") else None
        if bad:
            raise WorkbookError(f"{path}: cannot evaluate the workbook: {bad}") from None
        detail = " ".join(str(exc).split())  # FormulaError's text holds a newline: one line only
        raise WorkbookError(f"{path}: cannot evaluate the workbook ({type(exc).__name__}: {detail:.200})") from None
    by_key = {str(key).upper(): value for key, value in solution.items()}
    results = {}
    for key, value in by_key.items():
        book, _, ref = key.rpartition("!")
        if book.endswith("]'") and "]" in book and book.rstrip("'").endswith("]"):
            results[ref] = value
    names = {}
    from openpyxl import load_workbook

    try:
        wb = load_workbook(io.BytesIO(path.read_bytes()), read_only=False)
    except Exception as exc:
        raise WorkbookError(f"{path}: cannot read the workbook's names ({type(exc).__name__})") from None
    for name, defined in wb.defined_names.items():
        value = results.get(name.upper())
        if value is None:
            value = _cell_value(by_key, defined.attr_text, path.name)
        names[name] = _plain(value)
    return names


def _first_bad_formula(path: Path) -> str | None:
    """Where `formulas` gave up: the first formula its parser rejects (its error does not say which)."""
    import formulas
    from openpyxl import load_workbook

    try:
        wb = load_workbook(io.BytesIO(path.read_bytes()))
    except Exception:
        return None
    parser = formulas.Parser()
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                text = getattr(cell.value, "text", cell.value)
                if isinstance(text, str) and text.startswith("=") and len(text) > 1:
                    try:
                        parser.ast(text)
                    except Exception:
                        shown = text if len(text) <= 60 else text[:57] + "..."
                        return (f"the formula in {ws.title}!{cell.coordinate} (`{' '.join(shown.split())}`) is "
                                "not one Excel accepts; fix or clear it")
    return None


def _cell_value(by_key: dict, attr_text: str, filename: str) -> Any:
    """A name `formulas` did not report (an input no formula uses): read its cell's result."""
    sheet, _, cell = attr_text.rpartition("!")
    sheet = sheet.strip("'").replace("''", "'")
    key = f"'[{filename}]{sheet}'!{cell.replace('$', '')}".upper()
    return by_key.get(key)
