"""A formula in R1C1 notation: what Excel means by "the same formula" across a row.

FAST's rule (one consistent formula per row) is a statement about R1C1 text: `=C8*C9` in column C
and `=D8*D9` in column D are both `=R[-2]C*R[-1]C`. The calculation sheets hold each row to it
(`sheetkit.rows`), and the tests hold every generated workbook to it. References keep their `$`
(`$C$5` is `R5C3` wherever it is written), sheet prefixes and defined names stay as written,
string literals are never touched (openpyxl's tokenizer finds the references).
"""

from __future__ import annotations

import re

from .a1 import column_index_from_string
from .tokenizer import Token, Tokenizer

_CELL = re.compile(r"(\$?)([A-Za-z]{1,3})(\$?)([0-9]+)")


def _cell(text: str, row: int, col: int) -> str | None:
    match = _CELL.fullmatch(text)
    if match is None:
        return None
    fixed_col, letters, fixed_row, number = match.groups()
    r, c = int(number), column_index_from_string(letters.upper())
    rows = f"R{r}" if fixed_row else (f"R[{r - row}]" if r != row else "R")
    cols = f"C{c}" if fixed_col else (f"C[{c - col}]" if c != col else "C")
    return rows + cols


def _reference(operand: str, row: int, col: int) -> str:
    sheet, bang, address = operand.rpartition("!")
    parts = [_cell(part, row, col) for part in address.split(":")]
    if any(part is None for part in parts):
        return operand  # a defined name, a whole column, #REF!: the same text in every column
    return f"{sheet}{bang}" + ":".join(part for part in parts if part is not None)


def r1c1(formula: str, row: int, col: int) -> str:
    """`formula` (A1 notation, written in `row`, `col`) in R1C1 notation."""
    out = []
    for token in Tokenizer(formula).items:
        if token.type == Token.OPERAND and token.subtype == Token.RANGE:
            out.append(_reference(token.value, row, col))
        else:
            out.append(token.value)
    return "=" + "".join(out)
