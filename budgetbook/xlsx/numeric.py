"""Formula shapes computed with numpy over columns of numbers, where that gives exactly what `formulas` gives.

`formulas` is a full Excel engine, and it costs: its function table imports scipy (~0.6 s a process), each shape
compiles in ~10 ms, and each call goes through numpy.vectorize. A budgetbook workbook needs a sliver of it: the four
arithmetic operators, comparisons, `%`, unary minus, and SUM, AND, OR, ISNUMBER, ABS, IF, MAX, MIN and CHOOSE, over
numbers and the booleans checks produce; SUMIF and SUMIFS by an id or a number (the Adjustments table's sums, by
market and month); and, for the live market labels (`sheetkit/price_text.py`), text: a reference to text, text
literals and whole numbers joined with `&`, IF choosing text, ROUND to whole digits, INT and MOD. This module
evaluates exactly that sliver on plain numbers, a whole column of cells of one shape per call, and refuses
everything else, cell by cell, so `fasteval` hands those cells to `formulas`:

- an operand that is not a number (text, a blank, an error, a boolean where a
  number is expected), or a boolean compared with anything;
- a division by zero, or a result that is not finite (`formulas` turns those
  into #DIV/0! and #NUM!: its answer is the reference);
- any other function, `&` of anything but texts and whole numbers below 1e15, `^` (0^0 and
  negative bases have Excel rules of their own), and references used as anything but a value;
- text anywhere but a reference's value, a literal, `&` and IF's branches (text in arithmetic,
  comparisons, CHOOSE, AND, ...), and the empty text anywhere but a literal (a cell's result "");
- ROUND, INT or MOD of a number not below 1e15 in size, ROUND with digits that are not an integer
  literal or one cell holding a whole number (the named `k_price_digits`), MOD by zero;
- SUMIF or SUMIFS by a criterion that is not an id or a number (wildcards, operators, `TRUE`),
  ranges of other sizes, an error or "" in them, text or a boolean under a number's criterion, or a
  matched cell that is not a number or blank.

What is computed is computed as `formulas` computes it: arithmetic on the operands converted with float() (IEEE
doubles, so the same bits), comparisons of numbers as Python compares them, AND/OR as numpy's logical reduce, SUM as
numpy.sum over the float values in order, SUMIF and SUMIFS as numpy.sum over the matched numbers in order (an id
matches a text ignoring case, a number a number), MAX and MIN as Python's max and min over the values themselves (a
blank cell, referred to alone or in a range, skipped), IF and CHOOSE choosing the branch value itself (an integer
literal stays an integer), a plain reference passing its value on unchanged, `&` as Python's `+` of two strings (a
whole number as its digits, formulas' `_str`), ROUND as formulas' `xround` (half up, in Decimal), INT as
`math.floor` (an int), MOD as `numpy.mod` of the floats. tests/xlsx/test_numeric.py holds this against `formulas` on
random formulas and values, and tests/xlsx/test_fasteval.py on every workbook we make.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np
import schedula as sh

from .numeric_tree import BLANK, BOOL, NUM, OTHER, TEXT, Node, NotNumeric, Parser
from .tokenizer import Token, Tokenizer, TokenizerError

# a SUMIF/SUMIFS text criterion computed here: an id as budgetbook writes them (a market's), no wildcard,
# operator, number, boolean or error in it (those `formulas` reads as such: its rules, not ours)
_ID_CRITERION = re.compile(r"[a-z][a-z0-9_]*")
BIG = 1e15  # ROUND, INT, MOD and `&` leave numbers this big to formulas (Decimal's and int's digits run out)
_COMPARE: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "=": np.equal, "<>": np.not_equal, "<": np.less, ">": np.greater, "<=": np.less_equal, ">=": np.greater_equal,
}


class NumericShape:
    """A shape this module can compute; `elementwise` when one call can serve a whole column of cells."""

    def __init__(self, tree: Node, ranges: frozenset[int]):
        self.tree = tree
        self.ranges = ranges  # placeholders that stand for a range, not one cell
        self.elementwise = not ranges and not _has_call(tree, "SUM")

    def run(self, columns: dict[int, list[Any]], count: int) -> tuple[list[Any], np.ndarray]:
        """(values, ok) for `count` cells; `columns[i]` holds placeholder i's value for each cell.

        A cell whose `ok` is False got no value here and must be computed by `formulas`.
        """
        bad = np.zeros(count, bool)
        values, kinds = _Run(columns, count, bad).eval(self.tree)
        bad |= (kinds == OTHER) | (kinds == BLANK)
        text = kinds == TEXT
        if text.any():  # the empty text is formulas' to give (an empty text's kind is OTHER; `&` makes TEXT)
            bad[text] |= np.array([v == "" for v in values[text]], bool)
        return list(values), ~bad


def compile_numeric(shape_text: str) -> NumericShape | None:
    """The numeric program of a shape (`=PH0!A1*PH1!A1`), or None when `formulas` must compute it."""
    try:
        tokens = [t for t in Tokenizer(shape_text).items if t.type != Token.WSPACE]
        parser = Parser(tokens)
        tree = parser.expression(0)
        if parser.pos != len(tokens):
            raise NotNumeric
    except (NotNumeric, TokenizerError, IndexError, ValueError):
        return None
    return NumericShape(tree, frozenset(parser.ranges))


def _has_call(node: Node, name: str) -> bool:
    if node[0] == "call":
        return node[1] == name or any(_has_call(a, name) for a in node[2])
    return any(_has_call(child, name) for child in node[1:] if isinstance(child, tuple))


def _kinds(column: list[Any]) -> np.ndarray:
    """`_kind` of each value: at once where every one is a Python float or int (most columns)."""
    if set(map(type, column)) <= _FLOAT_OR_INT:
        try:
            numbers = np.array(column, float)
        except OverflowError:
            pass  # an int past a float's range: `_kind` says what it is
        else:
            return np.where(np.isfinite(numbers), NUM, OTHER).astype(np.int8)
    return np.fromiter(map(_kind, column), np.int8, len(column))


_FLOAT_OR_INT = frozenset({float, int})


def _kind(value: Any) -> int:
    if value is sh.EMPTY:
        return BLANK
    if isinstance(value, (bool, np.bool_)):
        return BOOL
    if isinstance(value, (int, float)) and not isinstance(value, np.generic) or isinstance(value, np.floating):
        return NUM if math.isfinite(value) else OTHER
    if isinstance(value, str) and value:  # the empty text: formulas' rules, not ours
        return TEXT
    return OTHER


class _Run:
    """One evaluation of a tree over `count` cells; marks in `bad` the cells it cannot answer."""

    def __init__(self, columns: dict[int, list[Any]], count: int, bad: np.ndarray):
        self.columns, self.count, self.bad = columns, count, bad

    def eval(self, node: Node) -> tuple[np.ndarray, np.ndarray]:
        kind = node[0]
        if kind == "in":
            column = self.columns[node[1]] if self.count else []
            values = np.empty(self.count, object)
            values[:] = column
            return values, _kinds(column)
        if kind == "const":
            values = np.empty(self.count, object)
            values[:] = [node[1]] * self.count
            return values, np.full(self.count, node[2], np.int8)
        if kind in ("neg", "pct", "plus"):
            values, kinds = self.eval(node[1])
            self._need(kinds, NUM)
            numbers = self._floats(values, kinds)
            if kind == "plus":
                return values, kinds
            return self._numbers(-numbers if kind == "neg" else numbers / 100.0)
        if kind == "op":
            return self._binary(node[1], self.eval(node[2]), self.eval(node[3]))
        return self._call(node[1], node[2])

    def _need(self, kinds: np.ndarray, *allowed: int) -> None:
        ok = kinds == allowed[0]  # np.isin, without its setup (~30 us a call)
        for kind in allowed[1:]:
            ok |= kinds == kind
        self.bad |= ~ok

    def _floats(self, values: np.ndarray, kinds: np.ndarray) -> np.ndarray:
        out = np.zeros(self.count)
        usable = kinds == NUM
        out[usable] = values[usable].astype(float)  # float() of each, in C
        return out

    def _numbers(self, numbers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.bad |= ~np.isfinite(numbers)
        return numbers.astype(object), np.full(self.count, NUM, np.int8)

    def _binary(self, op: str, left, right) -> tuple[np.ndarray, np.ndarray]:
        (a_values, a_kinds), (b_values, b_kinds) = left, right
        if op == "&":  # texts and whole numbers joined; any other number or a boolean: formulas'
            a_values, b_values = self._text(a_values, a_kinds), self._text(b_values, b_kinds)
            joined = np.array([str(a) + str(b) for a, b in zip(a_values, b_values, strict=True)] or [], object)
            return joined, np.full(self.count, TEXT, np.int8)
        self._need(a_kinds, NUM)
        self._need(b_kinds, NUM)
        a, b = self._floats(a_values, a_kinds), self._floats(b_values, b_kinds)
        if op in _COMPARE:
            return _COMPARE[op](a, b).astype(object), np.full(self.count, BOOL, np.int8)
        with np.errstate(all="ignore"):
            if op == "+":
                return self._numbers(a + b)
            if op == "-":
                return self._numbers(a - b)
            if op == "*":
                return self._numbers(a * b)
            self.bad |= b == 0
            return self._numbers(a / np.where(b == 0, 1.0, b))

    def _text(self, values: np.ndarray, kinds: np.ndarray) -> np.ndarray:
        """`&`'s operand as text: a text itself, a whole number below 1e15 as its digits (`2.0` is "2")."""
        out = values.copy()
        for i, (value, kind) in enumerate(zip(values, kinds, strict=True)):
            whole = kind == NUM and float(value).is_integer() and abs(value) < BIG
            self.bad[i] |= not (kind == TEXT or whole)
            out[i] = str(int(value)) if whole else value
        return out

    def _call(self, name: str, args: list[Node]) -> tuple[np.ndarray, np.ndarray]:
        if name == "IF":
            return self._if(args)
        if name == "CHOOSE":
            return self._choose(args)
        if name in ("ROUND", "INT", "MOD"):
            values, kinds = self.eval(args[0])
            self._need(kinds, NUM)
            xs = self._floats(values, kinds)
            self.bad |= ~(np.abs(xs) < BIG)
            if name == "INT":  # formulas: math.floor, an int
                out = np.empty(self.count, object)
                out[:] = [math.floor(x) if ok else 0 for x, ok in zip(xs, ~self.bad, strict=True)]
                return out, np.full(self.count, NUM, np.int8)
            if name == "MOD":
                by_values, by_kinds = self.eval(args[1])
                self._need(by_kinds, NUM)
                by = self._floats(by_values, by_kinds)
                self.bad |= (by == 0) | ~(np.abs(by) < BIG)
                return self._numbers(np.mod(xs, np.where(by == 0, 1.0, by)))
            digits = self._whole(args[1], -299, 299)
            return self._numbers(np.array([round_half_up(x, d) if ok else 0.0
                                           for x, d, ok in zip(xs, digits, ~self.bad, strict=True)]))
        if name in ("SUMIF", "SUMIFS"):
            return self._sumif(name, args)
        if name in ("ISNUMBER", "ABS"):
            values, kinds = self.eval(args[0])
            if name == "ISNUMBER":
                self._need(kinds, NUM, BOOL)  # a boolean is not a number; text and blanks are left to formulas
                return (kinds == NUM).astype(object), np.full(self.count, BOOL, np.int8)
            self._need(kinds, NUM)
            return self._numbers(np.abs(self._floats(values, kinds)))
        # per argument: (cells x values, cells x kinds); MAX and MIN skip a blank cell, as in a range
        parts = [self._cells(arg, blank_skips=name in ("MAX", "MIN")) for arg in args]
        values = np.concatenate([p[0] for p in parts], axis=1)
        kinds = np.concatenate([p[1] for p in parts], axis=1)
        kept = kinds != BLANK  # a blank cell inside a range is skipped (`_cells` marks single blanks OTHER)
        if name in ("MAX", "MIN"):
            # formulas: Python's max()/min() over the numbers themselves (an int stays an int; of equal
            # values the first), 0 when there are none
            self.bad |= (kept & (kinds != NUM)).any(axis=1)
            pick = max if name == "MAX" else min
            out = np.empty(self.count, object)
            for i in range(self.count):
                numbers = [v for v, k in zip(values[i], kept[i], strict=True) if k]
                out[i] = pick(numbers) if numbers and not self.bad[i] else 0
            return out, np.full(self.count, NUM, np.int8)
        if name == "SUM":
            self.bad |= (kept & (kinds != NUM)).any(axis=1)
            out = np.zeros(self.count)
            for i in range(self.count):  # numpy.sum over one cell's values, in order: formulas' own sum
                if not self.bad[i]:
                    out[i] = np.sum(np.array([float(v) for v, k in zip(values[i], kept[i], strict=True) if k]))
            return self._numbers(out)
        self.bad |= (np.isin(kinds, (OTHER, TEXT)) | ~kept.any(axis=1, keepdims=True)).any(axis=1)
        usable = np.where(kept & (kinds != OTHER), values, True if name == "AND" else False).astype(bool)
        reduce = np.logical_and.reduce if name == "AND" else np.logical_or.reduce
        return reduce(usable, axis=1).astype(object), np.full(self.count, BOOL, np.int8)

    def _cells(self, arg: Node, blank_skips: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """An argument's values as cells x values: one column, or a range's cells in row-major order;
        `blank_skips`: a reference to one blank cell is a blank (MAX and MIN skip it, as `formulas` does)."""
        if arg[0] == "in" and self.columns and isinstance(self._first(arg[1]), np.ndarray):
            blocks = [np.asarray(v, object).ravel() for v in self.columns[arg[1]]]
            values = np.array(blocks, object).reshape(self.count, -1)
            kinds = np.vectorize(_kind, otypes=[np.int8])(values) if values.size else np.zeros(values.shape, np.int8)
            return values, kinds
        values, kinds = self.eval(arg)
        if not (blank_skips and arg[0] == "in"):  # a single blank elsewhere: formulas' rules, not ours
            kinds = np.where(kinds == BLANK, OTHER, kinds).astype(np.int8)
        return values.reshape(-1, 1), kinds.reshape(-1, 1)

    def _sumif(self, name: str, args: list[Node]) -> tuple[np.ndarray, np.ndarray]:
        """The sum of the sum range's numbers where every range's cell meets its criterion, as `formulas`
        sums them (numpy.sum of the floats, in order). A criterion is an id (`_ID_CRITERION`: a text cell
        equal ignoring case; a number, boolean or blank cell is not) or a number (a number cell equal; a
        blank is not); any other criterion, a text cell under a number's, a boolean under a number's, an
        error anywhere, or a matched cell that is not a number or blank is left to `formulas`."""
        sums = self._cells(args[0 if name == "SUMIFS" else 2])
        tests = [self._cells(a) for a in ([args[0]] if name == "SUMIF" else args[1::2])]
        criteria = [self.eval(c) for c in ([args[1]] if name == "SUMIF" else args[2::2])]
        out = np.zeros(self.count)
        for i in range(self.count):
            size = sums[0].shape[1]
            match = np.ones(size, bool)
            ok = all(t[0].shape[1] == size for t in tests) and not (sums[1][i] == OTHER).any()
            for (values, kinds), (wanted, wanted_kinds) in zip(tests, criteria, strict=True):
                if not ok:
                    break
                value, kind, row, row_kinds = wanted[i], wanted_kinds[i], values[i], kinds[i]
                if kind == TEXT and _ID_CRITERION.fullmatch(value) and value not in ("true", "false", "inf", "nan",
                                                                                      "infinity"):
                    ok = not np.isin(row_kinds, (OTHER,)).any()
                    match &= np.array([k == TEXT and v.casefold() == value for v, k in zip(row, row_kinds,
                                                                                            strict=True)], bool)
                elif kind == NUM:
                    ok = not np.isin(row_kinds, (OTHER, TEXT, BOOL)).any()
                    match &= np.array([k == NUM and v == value for v, k in zip(row, row_kinds, strict=True)], bool)
                else:
                    ok = False
            picked = sums[1][i][match] if ok else np.array([OTHER])
            if not ok or not np.isin(picked, (NUM, BLANK)).all():
                self.bad[i] = True
                continue
            out[i] = np.sum(np.array([float(v) for v, k in zip(sums[0][i][match], picked, strict=True) if k == NUM],
                                     float))
        return self._numbers(out)

    def _first(self, index: int) -> Any:
        column = self.columns.get(index) or [None]
        return column[0]

    def _whole(self, arg: Node, low: int, high: int) -> list[int]:
        """`arg` per cell as a whole number from `low` to `high`; any other cell is left to `formulas`
        (it takes int() of a fraction; CHOOSE past its last value is its #VALUE!)."""
        values, kinds = self.eval(arg)
        self._need(kinds, NUM)
        out = []
        for i, (value, kind) in enumerate(zip(values, kinds, strict=True)):
            whole = kind == NUM and float(value).is_integer() and low <= value <= high
            self.bad[i] |= not whole
            out.append(int(value) if whole else low)
        return out

    def _choose(self, args: list[Node]) -> tuple[np.ndarray, np.ndarray]:
        """CHOOSE(i, v1, v2, ...): the i-th value itself."""
        picks = [i - 1 for i in self._whole(args[0], 1, len(args) - 1)]
        choices = [self.eval(arg) for arg in args[1:]]
        values = np.empty(self.count, object)
        kinds = np.zeros(self.count, np.int8)
        for i, pick in enumerate(picks):
            values[i], kinds[i] = choices[pick][0][i], choices[pick][1][i]
        self.bad |= kinds == TEXT  # CHOOSE choosing text: formulas', as for IF
        return values, kinds

    def _if(self, args: list[Node]) -> tuple[np.ndarray, np.ndarray]:
        cond_values, cond_kinds = self.eval(args[0])
        self._need(cond_kinds, NUM, BOOL)
        yes = self.eval(args[1])
        no = self.eval(args[2]) if len(args) == 3 else (np.full(self.count, False, object),
                                                        np.full(self.count, BOOL, np.int8))
        chosen = np.array([bool(v) if k != OTHER else False for v, k in zip(cond_values, cond_kinds, strict=True)])
        values = np.where(chosen, yes[0], no[0])
        kinds = np.where(chosen, yes[1], no[1]).astype(np.int8)
        return values, kinds


def round_half_up(x: float, digits: int) -> float:
    """ROUND as formulas' `xround`: half away from zero, in Decimal, on the scaled magnitude."""
    scale = 10 ** digits
    v = float(Decimal(abs(x * scale)).quantize(0, rounding=ROUND_HALF_UP)) / scale
    return -v if x < 0 else v
