"""A plain formula split into the tokens `shapes` reads, by one regex: openpyxl's tokenizer, minus its cost.

openpyxl's tokenizer reads a character at a time (~35 us a formula, most of planning a big
book). Formulas of cells, names, numbers, operators, parentheses and function calls are split
here instead; anything else is left to openpyxl (`shapes._tokens`).
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Quick(NamedTuple):
    """A token as `shape_of` reads one (openpyxl's `Token` has the same three fields)."""

    type: str
    subtype: str
    value: str


_CELL_TEXT = r"\$?[A-Za-z]{1,3}\$?[0-9]+(?::\$?[A-Za-z]{1,3}\$?[0-9]+)?"
_QUICK_RE = re.compile(rf"""
    (?P<range>'(?:[^']|'')+'!{_CELL_TEXT}          # 'Storage & egress'!C5
      | [A-Za-z_][A-Za-z0-9_.]*!{_CELL_TEXT}         # Inputs!$D$4:$D$9
      | \$?[A-Za-z]{{1,3}}\$?[0-9]+(?::\$?[A-Za-z]{{1,3}}\$?[0-9]+)?(?![A-Za-z0-9_.(!])  # C8, $C$8, C5:C9
      | [A-Za-z_][A-Za-z0-9_.]*(?![A-Za-z0-9_.(!:]))   # wl_mfu (a defined name), TRUE
    | (?P<func>[A-Za-z_][A-Za-z0-9_.]*\()
    | (?P<number>(?:[1-9](?:\.[0-9]+)?E[+-][0-9]+|[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?![A-Za-z0-9_.$'(:]))
                                                     # openpyxl's scientific form only: `12E+3` it splits
    | (?P<op><=|>=|<>|[-+*/^&=<>%])
    | (?P<open>\() | (?P<close>\)) | (?P<comma>,)
""", re.VERBOSE)


def quick_tokens(formula: str) -> list[Quick] | None:
    """The tokens `shape_of` needs of a plain formula, by one regex; None for anything else.

    openpyxl's tokenizer reads a character at a time (~35 us a formula, most of planning a big
    book). Formulas of cells, names, numbers, operators, parentheses and function calls are
    split here instead; text, errors, arrays, spaces, whole columns, unions and anything unusual
    return None and go through openpyxl (tests/review/test_check_at_scale.py holds the two equal).
    """
    tokens: list[Quick] = []
    parens: list[str] = []
    pos, text = 1, formula
    want_operand = True  # after an operator, `(`, `,` or the start; else an operator, `)` or `,` must follow
    while pos < len(text):
        match = _QUICK_RE.match(text, pos)
        if match is None:
            return None
        kind, value = match.lastgroup, match.group()
        pos = match.end()
        if kind in ("range", "number", "func", "open") and not want_operand:
            return None  # two operands side by side: openpyxl reads them otherwise, or not at all
        if kind in ("close", "comma") and want_operand:
            return None  # an empty argument or call
        if kind == "range":
            logical = value in ("TRUE", "FALSE")  # as openpyxl: `true` is a name
            tokens.append(Quick("OPERAND", "LOGICAL" if logical else "RANGE", value))
        elif kind == "number":
            tokens.append(Quick("OPERAND", "NUMBER", value))
        elif kind == "func":
            parens.append("func")
            tokens.append(Quick("FUNC", "OPEN", value))
        elif kind == "open":
            parens.append("paren")
            tokens.append(Quick("PAREN", "OPEN", value))
        elif kind == "close":
            if not parens:
                return None
            tokens.append(Quick("FUNC" if parens.pop() == "func" else "PAREN", "CLOSE", value))
        elif kind == "comma":
            if not parens or parens[-1] != "func":
                return None  # outside a call a comma is Excel's union operator
            tokens.append(Quick("SEP", "ARG", value))
        else:
            if want_operand and value not in "+-":
                return None  # only a sign may start an operand
            tokens.append(Quick("OPERATOR", "", value))  # prefix, infix or postfix: `shape_of` keeps it as written
            want_operand = value != "%" or want_operand
            continue
        want_operand = kind in ("func", "open", "comma")
    if want_operand:
        return None
    return None if parens else tokens
