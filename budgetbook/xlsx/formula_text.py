"""Formula text compared by meaning of its spelling, not by bytes.

`check` holds a workbook's formulas against the ones budgetbook generated. The
same formula comes back from Excel or LibreOffice spelled differently; what
LibreOffice 7.4 actually rewrites on an xlsx round trip (tests/xlsx/test_formula_text.py
pins each case) is: `TRUE` -> `TRUE()`, `1.0` -> `1`, `1E+12` -> `1000000000000`,
`1E-05` -> `0.00001`, `'Inputs'!D4` -> `Inputs!D4`, `sum(c5:c7)` -> `SUM(C5:C7)`,
`= C5` -> `=C5` (inner spaces kept). Excel adds `_xlfn.` prefixes and `$`s as
users copy cells about. `normalize` folds all of those into one canonical text.

After a user inserts rows, `C7` may now be `C8`: `to_names` rewrites every
reference to a named cell into its defined name, so the comparison is by what
a formula reads, not where it sits.

Tokenisation is openpyxl's Excel formula tokenizer, so string literals,
quoted sheet names and operators are never mangled by a regex over the text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, cast

from ..errors import WorkbookError
from .a1 import column_index_from_string, get_column_letter
from .cell_grid import MAX_COL, MAX_ROW
from .tokenizer import Token, Tokenizer, TokenizerError

_CELL = re.compile(r"\$?([A-Za-z]{1,3})\$?(\d+)")
_COLS = re.compile(r"\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}")
_ROWS = re.compile(r"\$?\d+:\$?\d+")
_PLAIN_SHEET = re.compile(r"[A-Z_\\][A-Z0-9_.]*")
_LOOKS_LIKE_REF = re.compile(r"[A-Z]{1,3}\d+|R\d*C\d*|R|C|TRUE|FALSE")
_FN_PREFIXES = ("_XLFN.", "_XLWS.")
_MAX_CELLS = 1024  # a range bigger than this is not spelled out as names


class FormulaTextError(WorkbookError):
    """A formula the Excel tokenizer cannot read."""


@dataclass(frozen=True)
class Ref:
    """One reference in a formula: a cell or range (`cell`) or a defined name (`name`).

    `sheet` is the sheet as written, unquoted, or None when unqualified;
    `cell` is upper case without `$` (`C5`, `C5:C7`, `C:C`, `#REF!`).
    """

    sheet: str | None
    cell: str | None = None
    name: str | None = None

    @property
    def is_range(self) -> bool:
        return self.cell is not None and ":" in self.cell


def _tokens(formula: str) -> list[Token]:
    text = formula if formula.startswith("=") else "=" + formula
    try:
        return Tokenizer(text).items
    except TokenizerError as exc:
        raise FormulaTextError(f"cannot read formula {formula!r}: {exc}") from None


def _split_sheet(operand: str) -> tuple[str | None, str]:
    # The address part never holds `!`; a quoted sheet name may.
    if "!" not in operand:
        return None, operand
    if operand.upper().endswith("!#REF!"):  # a reference LibreOffice or Excel lost
        sheet, address = operand[:-6], operand[-5:]
    else:
        sheet, address = operand.rsplit("!", 1)
    if len(sheet) >= 2 and sheet[0] == sheet[-1] == "'":
        sheet = sheet[1:-1].replace("''", "'")
    return sheet, address


def _is_cell(text: str) -> bool:
    match = _CELL.fullmatch(text)
    return match is not None and _in_grid(match.group(1), match.group(2))


def _in_grid(column: str, row: str) -> bool:
    return column_index_from_string(column.upper()) <= MAX_COL and 1 <= int(row) <= MAX_ROW


def _is_address(text: str) -> bool:
    if text.upper() == "#REF!":
        return True
    if ":" in text:
        first, _, last = text.partition(":")
        return (_is_cell(first) and _is_cell(last)) or bool(
            _COLS.fullmatch(text) or _ROWS.fullmatch(text)
        )
    return _is_cell(text)


def _parse_operand(operand: str) -> Ref:
    sheet, address = _split_sheet(operand)
    if _is_address(address):
        return Ref(sheet, cell=address.replace("$", "").upper())
    return Ref(sheet, name=address)


def references(formula: str) -> list[Ref]:
    """Every cell, range and defined-name reference, in order of appearance."""
    return [
        _parse_operand(t.value)
        for t in _tokens(formula)
        if t.type == Token.OPERAND and t.subtype == Token.RANGE
    ]


_CONSTANT_TOKENS = {(Token.OPERAND, Token.NUMBER), (Token.OPERAND, Token.LOGICAL), (Token.OPERAND, Token.TEXT),
                    (Token.OP_PRE, ""), (Token.OP_IN, ""), (Token.OP_POST, ""), (Token.PAREN, Token.OPEN),
                    (Token.PAREN, Token.CLOSE), (Token.WSPACE, "")}


def is_constant(formula: str) -> bool:
    """A constant in formula clothing: `=144000`, `=100000+44000`, `=(2*3)%`; no reference, no function."""
    try:
        tokens = _tokens(formula)
    except FormulaTextError:
        return False
    return bool(tokens) and all((t.type, t.subtype) in _CONSTANT_TOKENS for t in tokens)


# --- canonical spelling -------------------------------------------------------


def canonical_sheet(sheet: str) -> str:
    """Upper case; quoted only where Excel needs quotes."""
    upper = sheet.upper()
    if _PLAIN_SHEET.fullmatch(upper) and not _LOOKS_LIKE_REF.fullmatch(upper):
        return upper
    return "'" + upper.replace("'", "''") + "'"


def _canonical_number(text: str, percent: bool = False) -> str:
    try:
        number = Decimal(text)
    except InvalidOperation:
        return text.upper()
    if percent:
        number /= 100
    if number == 0:
        return "0"
    return format(number.normalize(), "f")


def _canonical_ref(ref: Ref, sheet: str | None) -> str:
    where = ref.sheet if ref.sheet is not None else sheet
    target = ref.cell if ref.cell is not None else cast(str, ref.name).upper()  # a Ref is a cell or a name
    if where is None or ref.name is not None and ref.sheet is None:
        return target
    return canonical_sheet(where) + "!" + target


_OPERAND_END = {(Token.OPERAND, None), (Token.FUNC, Token.CLOSE), (Token.PAREN, Token.CLOSE)}
_OPERAND_START = {(Token.OPERAND, None), (Token.FUNC, Token.OPEN), (Token.PAREN, Token.OPEN)}


def _kind(token: Token | None) -> tuple[str, str | None] | None:
    if token is None or token.value == ":":  # the tokenizer's range operator, spaced out
        return None
    return (token.type, None if token.type == Token.OPERAND else token.subtype)


def _render(tokens: list[Token], sheet: str | None, rewrite_ref) -> str:
    out: list[str] = []
    solid = [t for t in tokens if t.type != Token.WSPACE]
    # A space between two operands is Excel's intersection operator: keep one.
    keep_space = set()
    for i, token in enumerate(tokens):
        if token.type == Token.WSPACE:
            before = next((t for t in reversed(tokens[:i]) if t.type != Token.WSPACE), None)
            after = next((t for t in tokens[i + 1:] if t.type != Token.WSPACE), None)
            if _kind(before) in _OPERAND_END and _kind(after) in _OPERAND_START:
                keep_space.add(id(after))
    for i, token in enumerate(solid):
        nxt = solid[i + 1] if i + 1 < len(solid) else None
        prev = solid[i - 1] if i else None
        if id(token) in keep_space:
            out.append(" ")
        if token.type == Token.OPERAND:
            if token.subtype == Token.NUMBER:
                percent = nxt is not None and nxt.type == Token.OP_POST and nxt.value == "%"
                out.append(_canonical_number(token.value, percent))
            elif token.subtype == Token.TEXT:
                out.append(token.value)
            elif token.subtype == Token.RANGE:
                out.append(rewrite_ref(_parse_operand(token.value), sheet))
            else:  # LOGICAL, ERROR
                out.append(token.value.upper())
        elif token.type == Token.OP_POST and token.value == "%" and prev is not None \
                and prev.type == Token.OPERAND and prev.subtype == Token.NUMBER:
            continue  # folded into the number
        elif token.type == Token.FUNC and token.subtype == Token.OPEN:
            name = token.value[:-1].upper()
            for prefix in _FN_PREFIXES:
                while name.startswith(prefix):
                    name = name[len(prefix):]
            if name in ("TRUE", "FALSE") and nxt is not None and nxt.type == Token.FUNC \
                    and nxt.subtype == Token.CLOSE:
                out.append(name)
                solid[i + 1] = Token("", Token.WSPACE)  # swallow the `)`
            else:
                out.append(name + "(")
        elif token.type == Token.WSPACE:
            continue
        else:
            out.append(token.value.upper() if token.type == Token.LITERAL else token.value)
    return "".join(out)


def normalize(formula: str, sheet: str | None = None) -> str:
    """Canonical text of a formula, for equality tests between spellings.

    With `sheet`, unqualified cell references are qualified with it, so `C5`
    and `Compute!C5` on sheet Compute compare equal.
    """
    return _render(_tokens(formula), sheet, _canonical_ref)


# --- references to names ------------------------------------------------------


def _range_cells(cell_range: str) -> list[str] | None:
    first, _, last = cell_range.partition(":")
    a, b = _CELL.fullmatch(first), _CELL.fullmatch(last)
    if not (a and b):
        return None  # whole columns or rows
    c1, c2 = sorted((column_index_from_string(a.group(1)), column_index_from_string(b.group(1))))
    r1, r2 = sorted((int(a.group(2)), int(b.group(2))))
    if (c2 - c1 + 1) * (r2 - r1 + 1) > _MAX_CELLS:
        return None
    return [f"{get_column_letter(c)}{r}" for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]


class CellNames(dict[tuple[str, str], str]):
    """(SHEET, `C7`) -> DEFINED_NAME, spelled canonically (upper case, no `$`).

    Built once per workbook and shared by every `to_names` call: building it
    per formula made the formula audit quadratic in the workbook's size.
    """

    @classmethod
    def of(cls, mapping: Mapping[tuple[str, str], str]) -> CellNames:
        if isinstance(mapping, CellNames):
            return mapping
        return cls({(s.upper(), c.replace("$", "").upper()): n.upper() for (s, c), n in mapping.items()})


def to_names(formula: str, sheet: str, cell_names: Mapping[tuple[str, str], str]) -> str:
    """Canonical formula text with every reference to a named cell replaced by its name.

    `cell_names` maps (sheet, cell like `C7`) to a defined name; pass a
    `CellNames` when converting many formulas against one workbook.
    A range whose cells are all named becomes the tuple of their names in
    row-major order; anything else stays as a sheet-qualified A1 reference, so
    a cell the user added (`C20` on Compute) reads `COMPUTE!C20`.
    """
    names = CellNames.of(cell_names)

    def rewrite(ref: Ref, current: str) -> str:
        if ref.cell is not None:
            where = (ref.sheet if ref.sheet is not None else current).upper()
            cells = _range_cells(ref.cell) if ref.is_range else [ref.cell]
            found = [names.get((where, c)) for c in cells] if cells else [None]
            named = [n for n in found if n]
            if len(named) == len(found):
                joined = ",".join(named)
                return f"({joined})" if ref.is_range else joined
        return _canonical_ref(ref, current)

    return "=" + _render(_tokens(formula), sheet, rewrite)


def formula_of(value: Any) -> str | None:
    """The formula a cell holds (openpyxl gives array formulas as objects with `.text`), else None."""
    text = getattr(value, "text", value)
    return text if isinstance(text, str) and text.startswith("=") else None
