"""The tree of a formula shape `numeric` computes: precedence climbing over openpyxl's tokens, `formulas`' precedences.

A shape is `=PH0!A1*PH1!A1`-style text (`shapes`); the tree is the program `numeric._Run` evaluates
over columns of values. Whatever is not in `numeric`'s sliver of Excel raises `NotNumeric`.
"""

from __future__ import annotations

from typing import Any

from .tokenizer import Token

NUM, BOOL, OTHER, BLANK, TEXT = 0, 1, 2, 3, 4

_BINARY = {  # Excel's precedence, as `formulas` has it: comparisons 1, + - 3, * / 4
    "=": 1, "<>": 1, "<": 1, ">": 1, "<=": 1, ">=": 1, "&": 2, "+": 3, "-": 3, "*": 4, "/": 4,
}
_PERCENT, _PREFIX = 6, 7
_FUNCTIONS = {"SUM", "AND", "OR", "ISNUMBER", "ABS", "IF", "MAX", "MIN", "CHOOSE", "ROUND", "INT", "MOD", "SUMIF",
              "SUMIFS"}


class NotNumeric(Exception):
    """The shape uses what `numeric` does not compute: `formulas` takes it whole."""


Node = tuple  # ("in", i) | ("const", value, kind) | ("neg", n) | ("pct", n) | ("op", sym, a, b) | ("call", F, args)


class Parser:
    """Precedence climbing over openpyxl's tokens, with the precedences `formulas` uses."""

    def __init__(self, tokens: list[Token]):
        self.tokens, self.pos = tokens, 0
        self.ranges: set[int] = set()

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def expression(self, floor: int) -> Node:
        node = self.unary()
        while (token := self.peek()) is not None:
            if token.type == Token.OP_POST and token.value == "%" and _PERCENT >= floor:
                self.take()
                if node[0] == "pct":
                    raise NotNumeric  # `5%%`: Excel's, but not a formula `formulas` parses
                node = ("pct", node)
            elif token.type == Token.OP_IN and token.value in _BINARY and _BINARY[token.value] >= floor:
                self.take()
                node = ("op", token.value, node, self.expression(_BINARY[token.value] + 1))
            else:
                break
        return node

    def unary(self) -> Node:
        token = self.take()
        if token.type == Token.OP_PRE and token.value in "+-":
            following = self.peek()
            if following is not None and following.type == Token.OP_PRE:
                raise NotNumeric  # formulas folds runs of signs (`-+-x` is `+x`, its value unconverted)
            operand = self.expression(_PREFIX)
            return ("neg", operand) if token.value == "-" else ("plus", operand)
        if token.type == Token.PAREN and token.subtype == Token.OPEN:
            node = self.expression(0)
            if self.take().value != ")":
                raise NotNumeric
            return node
        if token.type == Token.FUNC and token.subtype == Token.OPEN:
            return self.call(token.value[:-1].upper())
        if token.type == Token.OPERAND:
            return self.operand(token)
        raise NotNumeric

    def call(self, name: str) -> Node:
        if name not in _FUNCTIONS:
            raise NotNumeric
        args: list[Node] = []
        following = self.peek()
        if following is not None and following.type == Token.FUNC and following.subtype == Token.CLOSE:
            raise NotNumeric  # no arguments: Excel says what that means
        while True:
            args.append(self.expression(0))
            token = self.take()
            if token.type == Token.FUNC and token.subtype == Token.CLOSE:
                break
            if not (token.type == Token.SEP and token.subtype == Token.ARG):
                raise NotNumeric
        if name in ("ISNUMBER", "ABS", "INT") and len(args) != 1 or name == "IF" and len(args) not in (2, 3) \
                or name == "CHOOSE" and len(args) < 2 or name == "MOD" and len(args) != 2:
            raise NotNumeric
        if name in ("SUMIF", "SUMIFS"):
            self._sumif(name, args)
            return ("call", name, args)
        if name == "ROUND" and (len(args) != 2 or not (args[1][0] == "const" and type(args[1][1]) is int
                                                      or args[1][0] == "in" and args[1][1] not in self.ranges)):
            raise NotNumeric  # digits: an integer literal or one cell (holding a whole number, `_round`)
        for arg in args:  # a range only where its cells are the arguments (SUM(A1:A9), AND(C2:C40))
            if arg[0] == "in" and arg[1] in self.ranges and name not in ("SUM", "AND", "OR", "MAX", "MIN"):
                raise NotNumeric
        return ("call", name, args)

    def _sumif(self, name: str, args: list[Node]) -> None:
        """SUMIF(range, criterion, sum range), SUMIFS(sum range, range, criterion, ...): each range a
        range reference, each criterion one cell (the Adjustments table's, `lineitems/adjustments.py`)."""
        if name == "SUMIF" and len(args) != 3 or name == "SUMIFS" and (len(args) < 3 or len(args) % 2 == 0):
            raise NotNumeric
        ranges = [args[0], args[2]] if name == "SUMIF" else [args[0], *args[1::2]]
        criteria = [args[1]] if name == "SUMIF" else args[2::2]
        if not all(a[0] == "in" and a[1] in self.ranges for a in ranges) or \
                not all(c[0] == "in" and c[1] not in self.ranges for c in criteria):
            raise NotNumeric

    def operand(self, token: Token) -> Node:
        text = token.value
        if token.subtype == Token.RANGE and text.startswith("PH") and "!" in text:
            index, _, address = text[2:].partition("!")
            if ":" in address:
                self.ranges.add(int(index))
            return ("in", int(index))
        if token.subtype == Token.NUMBER:
            # as `formulas` reads a literal: eval of its text (`5` an int, `0.5` and `1E+12` floats)
            number: Any = int(text) if text.isdigit() else float(text)
            return ("const", number, NUM)
        if token.subtype == Token.LOGICAL:
            return ("const", text.upper() == "TRUE", BOOL)
        if token.subtype == Token.TEXT:  # `"say ""hi"""`: quotes doubled inside; `""` the empty text
            return ("const", text[1:-1].replace('""', '"'), TEXT)
        raise NotNumeric
