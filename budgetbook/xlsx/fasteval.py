"""Evaluate a workbook's named cells with the `formulas` package, compiling each formula shape once.

`formulas.ExcelModel().loads()` compiles every formula cell and every defined
name into its own schedula dispatcher; on a budgetbook workbook that is ~800
compilations and most of `check`'s time. This module evaluates the same
workbook with the same parser and Excel function implementations, but:

- reads cells with openpyxl and resolves workbook-scoped defined names to
  their cells itself (no compilation per name);
- compiles each distinct formula *shape* once. A shape is the formula's token
  sequence with every reference (A1 cell, A1 range, sheet-qualified or not,
  or a defined name) replaced by a placeholder reference `PHi!A1` (a range
  keeps its height and width, `PHi!A1:B3`); two references to the same cell
  share one placeholder. `=C8/wl_mfu` in C9 and `=D8/wl_mfu` in D9 are one
  shape; so are `=compute_x` and `=compute_y`. A placeholder stands for
  any reference because `formulas` reads a reference's *value* (a
  `formulas.ranges.Ranges`) at call time; the few functions that read a
  reference's *address* or the calling cell (ROW, COLUMN, SINGLE, INDIRECT,
  OFFSET, ...) and the reference operators (`:` between operands,
  intersection, union) are not shared: such a formula raises `Unsupported`;
- evaluates formula cells in dependency order, passing each input as a
  `Ranges` holding the referenced cell(s) values, exactly as ExcelModel's
  `Cell._args` does, and filtering results like ExcelModel (`replace_empty`,
  then `format_output` to the cell's range).

Semantics kept equal to the ExcelModel path (`evaluate.evaluate_workbook`):

- numeric cells are rounded to 15 decimals, as `ExcelModel.compile_cell` does;
- a reference to a sheet that does not exist reads `#REF!`;
- a circular reference: ExcelModel (without `circular=True`) leaves every cell
  of a cycle, and every cell that reads one, without a value; so does this
  module: those names evaluate to None (not an error text), which is what
  `check` reports as a circular reference / "not computed". The dependency
  walk is iterative and marks cycles; it never recurses or hangs;
- a formula whose evaluation raises leaves that cell (and its readers) without
  a value, as ExcelModel's dispatcher does; NotImplementedError gives #NAME?;
- Excel errors come back as text ('#DIV/0!', '#REF!', '#NAME?', '#VALUE!').

Anything else raises `Unsupported`, and `evaluate_workbook` falls back to
ExcelModel: array formulas, data-table formulas, external workbook refs,
whole-column/row refs, table (structured) refs, ranges over 100,000 cells,
names that are not a plain cell/range reference, names a formula uses that
are not defined, error or date cells, strings with `_x` escapes (formulas'
reader decodes those), sheet-scoped names, reference operators and whitespace
inside formulas, reference/address functions, and any formula that `formulas`
cannot parse or compile.
"""

from __future__ import annotations

import io
import os
import re
from typing import Any

__all__ = ["Unsupported", "evaluate_fast"]

MAX_RANGE_CELLS = 100_000

# functions that read a reference's address, the calling cell, or the workbook
_ADDRESS_FUNCTIONS = {
    "ROW", "ROWS", "COLUMN", "COLUMNS", "SINGLE", "_XLFN.SINGLE", "INDIRECT", "OFFSET", "CELL", "ADDRESS",
    "AREAS", "FORMULATEXT", "_XLFN.FORMULATEXT", "ISREF", "INDEX", "SHEET", "SHEETS", "_XLFN.SHEET",
    "_XLFN.SHEETS", "LAMBDA", "_XLFN.LAMBDA", "LET", "_XLFN.LET", "INFO", "RAND", "RANDBETWEEN", "NOW",
    "TODAY", "RANDARRAY", "_XLFN.RANDARRAY",
}

_CELL = r"(\$?)([A-Za-z]{1,3})(\$?)([0-9]{1,7})"
_REF_RE = re.compile(rf"^(?:(?P<sheet>'(?:[^']|'')+'|[A-Za-z_][A-Za-z0-9_.]*)!)?{_CELL}(?::{_CELL})?$")
_NAME_RE = re.compile(r"^[A-Za-z_\\][A-Za-z0-9_.\\?]*$")


class Unsupported(Exception):
    """The fast path does not handle this workbook; evaluate it with ExcelModel instead."""


def _col_index(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


def _col_letters(n: int) -> str:
    out = ""
    while n:
        n, r = divmod(n - 1, 26)
        out = chr(65 + r) + out
    return out


class _Book:
    """Cells and names of an openpyxl workbook, keyed by upper-case sheet title."""

    def __init__(self, wb):
        self.wb = wb
        self.sheets = {}  # SHEET -> worksheet
        for ws in wb.worksheets:
            if ws.title.upper() in self.sheets:
                raise Unsupported("two sheets differ only in case")
            if getattr(ws, "array_formulae", None):
                raise Unsupported("array formulas")
            if getattr(ws, "defined_names", None):
                raise Unsupported("sheet-scoped names")
            self.sheets[ws.title.upper()] = ws
        if getattr(wb, "_external_links", None):
            raise Unsupported("external links")
        self.names = {}  # NAME -> (SHEET, r1, c1, r2, c2)  (SHEET may be missing from self.sheets)
        for name, defined in wb.defined_names.items():
            if defined.localSheetId is not None:
                raise Unsupported("sheet-scoped name")
            ref = _parse_ref(defined.attr_text or "", None)
            if ref is None:
                raise Unsupported(f"name {name} is not a plain reference")
            self.names[name.upper()] = ref
        self.formulas = {}  # (SHEET, row, col) -> formula text
        self.values = {}  # (SHEET, row, col) -> plain value
        for title, ws in self.sheets.items():
            for (row, col), cell in ws._cells.items():
                value = cell.value
                if value is None:
                    continue
                dt = cell.data_type
                if dt == "f":
                    if not isinstance(value, str):
                        raise Unsupported("array or data-table formula")
                    self.formulas[(title, row, col)] = value[1:] if value[:2] == "==" else value
                elif dt == "s":
                    if not isinstance(value, str) or "_x" in value:
                        raise Unsupported("string cell")
                    self.values[(title, row, col)] = value
                elif dt == "n" and isinstance(value, (int, float)) and not isinstance(value, bool):
                    self.values[(title, row, col)] = round(value, 15) if isinstance(value, float) else value
                elif dt == "b" and isinstance(value, bool):
                    self.values[(title, row, col)] = value
                else:
                    raise Unsupported(f"cell of type {dt!r}")


def _parse_ref(text: str, sheet: str | None):
    """(SHEET, r1, c1, r2, c2) of an A1 cell or range, optionally sheet-qualified; None if not one."""
    m = _REF_RE.match(text)
    if not m:
        return None
    quoted = m.group("sheet")
    if quoted is not None:
        if quoted.startswith("'"):
            quoted = quoted[1:-1].replace("''", "'")
        if "[" in quoted or "]" in quoted:
            raise Unsupported("external reference")
        sheet = quoted
    if sheet is None:
        return None
    c1, r1 = _col_index(m.group(3)), int(m.group(5))
    if m.group(7) is not None:
        c2, r2 = _col_index(m.group(7)), int(m.group(9))
    else:
        c2, r2 = c1, r1
    if not (1 <= r1 <= 1048576 and 1 <= r2 <= 1048576 and 1 <= c1 <= 16384 and 1 <= c2 <= 16384):
        return None
    r1, r2 = min(r1, r2), max(r1, r2)
    c1, c2 = min(c1, c2), max(c1, c2)
    if (r2 - r1 + 1) * (c2 - c1 + 1) > MAX_RANGE_CELLS:
        raise Unsupported("range too large")
    return (sheet.upper(), r1, c1, r2, c2)


def _shape(formula: str, sheet: str, book: _Book):
    """(shape key, placeholder formula, [target per placeholder]) of one formula cell."""
    from openpyxl.formula import Tokenizer

    try:
        items = Tokenizer(formula).items
    except Exception as exc:
        raise Unsupported(f"tokenizer: {exc}") from None
    if "".join(t.value for t in items) != formula[1:]:
        raise Unsupported("formula does not round-trip through the tokenizer")
    parts, targets, slots = [], [], {}
    for tok in items:
        value = tok.value
        if tok.type == "WHITE-SPACE":
            raise Unsupported("whitespace (possibly the intersection operator)")
        if tok.type == "OPERATOR-INFIX" and value in (":", ",", " "):
            raise Unsupported("reference operator")
        if tok.type == "FUNC" and tok.subtype == "OPEN":
            if value[:-1].upper() in _ADDRESS_FUNCTIONS or not value[:-1]:
                raise Unsupported(f"function {value}")
        if tok.type == "OPERAND" and tok.subtype == "RANGE":
            ref = _parse_ref(value, sheet)
            if ref is None:
                if not _NAME_RE.match(value) or "!" in value:
                    raise Unsupported(f"reference {value}")
                target = book.names.get(value.upper())
                if target is None:
                    raise Unsupported(f"undefined name {value}")
                key = ("name", value.upper())
            else:
                target, key = ref, ref
            if key not in slots:
                slots[key] = len(targets)
                targets.append(target)
            i = slots[key]
            _, r1, c1, r2, c2 = target
            h, w = r2 - r1 + 1, c2 - c1 + 1
            value = f"PH{i}!A1" if h == w == 1 else f"PH{i}!A1:{_col_letters(w)}{h}"
        parts.append(value)
    text = "=" + "".join(parts)
    return text, targets


def _compile(text: str):
    import formulas
    import schedula as sh
    from formulas.functions import DSP

    try:
        func = formulas.Parser().ast(text)[1].compile()
    except Exception as exc:
        raise Unsupported(f"compile: {type(exc).__name__}") from None
    order = []
    for key, rng in func.inputs.items():
        if key is DSP or rng is sh.NONE or not isinstance(key, str):
            raise Unsupported("formula reads the workbook")
        m = re.match(r"^PH(\d+)!", key)
        if not m or rng is None:
            raise Unsupported(f"unexpected input {key}")
        order.append(int(m.group(1)))
    return func, order


def _load(source):
    from openpyxl import Workbook, load_workbook

    if isinstance(source, Workbook):
        return source
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
    else:
        try:
            with open(os.fspath(source), "rb") as fh:
                data = fh.read()
        except (OSError, TypeError, ValueError) as exc:
            raise Unsupported(f"cannot read: {type(exc).__name__}") from None
    try:
        return load_workbook(io.BytesIO(data), read_only=False)
    except Exception as exc:
        raise Unsupported(f"openpyxl: {type(exc).__name__}") from None


def evaluate_fast(source) -> dict[str, Any]:
    """{defined name: value} for every workbook-scoped name; Excel errors as text; see the module doc."""
    import numpy as np
    import schedula as sh
    from formulas.cell import format_output
    from formulas.functions import replace_empty
    from formulas.ranges import Ranges
    from formulas.tokens.operand import Error

    from .evaluate import _plain

    wb = _load(source)
    book = _Book(wb)
    ref_error = Error.errors["#REF!"]
    name_error = Error.errors["#NAME?"]

    def rng_of(target):
        sheet, r1, c1, r2, c2 = target
        a = f"{_col_letters(c1)}{r1}"
        ref = a if (r1, c1) == (r2, c2) else f"{a}:{_col_letters(c2)}{r2}"
        quoted = "'" + sheet.replace("'", "''") + "'"
        return Ranges.get_range(f"{quoted}!{ref}")

    # compile shapes
    shapes: dict[str, tuple] = {}
    plans = {}  # cell -> (func, order, targets, text)
    for cell, formula in book.formulas.items():
        text, targets = _shape(formula, cell[0], book)
        if text not in shapes:
            shapes[text] = _compile(text)
        func, order = shapes[text]
        plans[cell] = (func, order, targets)

    # dependencies among formula cells
    def formula_cells_in(target):
        sheet, r1, c1, r2, c2 = target
        if (r1, c1) == (r2, c2):
            return [(sheet, r1, c1)] if (sheet, r1, c1) in book.formulas else []
        if (r2 - r1 + 1) * (c2 - c1 + 1) <= len(book.formulas):
            return [(sheet, r, c) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)
                    if (sheet, r, c) in book.formulas]
        return [k for k in book.formulas if k[0] == sheet and r1 <= k[1] <= r2 and c1 <= k[2] <= c2]

    deps = {cell: sorted({d for t in plan[2] for d in formula_cells_in(t)}) for cell, plan in plans.items()}

    # iterative post-order DFS; cells on a cycle (or reading one) get no value
    order_, state, missing = [], {}, set()
    for root in deps:
        if root in state:
            continue
        stack = [(root, iter(deps[root]))]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            for nxt in it:
                st = state.get(nxt)
                if st is None:
                    state[nxt] = 1
                    stack.append((nxt, iter(deps[nxt])))
                    break
                if st == 1:  # back edge: every cell on the stack from nxt on is on a cycle
                    idx = next(i for i, (n, _) in enumerate(stack) if n == nxt)
                    missing.update(n for n, _ in stack[idx:])
            else:
                stack.pop()
                state[node] = 2
                order_.append(node)

    results: dict[tuple, Any] = {}  # formula cell -> Ranges (absent: no value)

    def value_of(target):
        """A Ranges for a reference, or None when a formula cell it covers has no value."""
        sheet, r1, c1, r2, c2 = target
        rng = rng_of(target)
        if sheet not in book.sheets:
            return format_output(rng, replace_empty(ref_error))
        if (r1, c1) == (r2, c2):
            key = (sheet, r1, c1)
            if key in book.formulas:
                got = results.get(key)
                return None if got is None else got
            return format_output(rng, book.values[key] if key in book.values else [[sh.EMPTY]])
        out = np.empty((r2 - r1 + 1, c2 - c1 + 1), object)
        out[:] = sh.EMPTY
        for r in range(r1, r2 + 1):
            for c in range(c1, c2 + 1):
                key = (sheet, r, c)
                if key in book.formulas:
                    got = results.get(key)
                    if got is None:
                        return None
                    out[r - r1, c - c1] = got.value[0, 0] if got.value.shape == (1, 1) else got.value
                elif key in book.values:
                    out[r - r1, c - c1] = book.values[key]
        return format_output(rng, out)

    for cell in order_:
        if cell in missing:
            continue
        func, order, targets = plans[cell]
        args = []
        for i in order:
            v = value_of(targets[i])
            if v is None:
                break
            args.append(v)
        else:
            try:
                out = func(*args)
            except sh.DispatcherError as ex:
                if not isinstance(ex.ex, NotImplementedError):
                    continue
                out = name_error
            except Exception:
                continue
            sheet, row, col = cell
            results[cell] = format_output(rng_of((sheet, row, col, row, col)), replace_empty(out))

    names = {}
    for name, defined in wb.defined_names.items():
        target = book.names[name.upper()]
        value = value_of(target)
        names[name] = None if value is None else _plain(value)
    return names
