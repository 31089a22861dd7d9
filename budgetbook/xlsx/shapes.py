"""Formula shapes: a formula with its references replaced by placeholders, so each shape compiles once.

`=C8/wl_mfu` in C9 and `=D8/wl_mfu` in D9 are one shape, `=PH0!A1/PH1!A1`;
a range keeps its height and width (`PH0!A1:B3`) and two references to the
same cell share one placeholder. See `fasteval` for why a placeholder may
stand for any reference, and which formulas cannot be shared.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from functools import cached_property
from itertools import islice
from typing import Any, NamedTuple

import schedula as sh

from .cell_grid import MAX_ROW, Area, CellGrid, CellKey, Unsupported, col_letters, parse_lines, parse_ref
from .numeric import compile_numeric
from .quick_tokens import Quick, quick_tokens
from .steps import Steps
from .tokenizer import Token, Tokenizer

# functions that read a reference's address, the calling cell, or the workbook
_ADDRESS_FUNCTIONS = {
    "ROW", "ROWS", "COLUMN", "COLUMNS", "SINGLE", "_XLFN.SINGLE", "INDIRECT", "OFFSET", "CELL", "ADDRESS",
    "AREAS", "FORMULATEXT", "_XLFN.FORMULATEXT", "ISREF", "INDEX", "SHEET", "SHEETS", "_XLFN.SHEET",
    "_XLFN.SHEETS", "LAMBDA", "_XLFN.LAMBDA", "LET", "_XLFN.LET", "INFO", "RAND", "RANDBETWEEN", "NOW",
    "TODAY", "RANDARRAY", "_XLFN.RANDARRAY",
}
# functions whose value ignores blank cells in a range argument: a whole column given straight to one
# of them may be cut to the sheet's used rows (`CellGrid.clamp`) and gives the value of the full one.
# Not COUNTBLANK or COUNTIF (they count blanks), nor a column inside arithmetic (`SUM(1/A:A)`).
BLANK_BLIND_FUNCTIONS = frozenset({"SUM", "COUNT", "COUNTA", "AVERAGE", "MIN", "MAX", "PRODUCT", "AND", "OR"})
_NAME_RE = re.compile(r"^[A-Za-z_\\][A-Za-z0-9_.\\?]*$")
_PLACEHOLDER_RE = re.compile(r"^PH(\d+)!")


class Compiled(NamedTuple):
    """A shape as `formulas` compiled it: its function and the placeholder index of each input, in call order."""

    func: Callable[..., Any]  # formulas' compiled function (a schedula DispatchPipe)
    order: list[int]
    elementwise: bool  # single-cell inputs, operators only: one call can serve many cells (see `is_elementwise`)
    steps: Steps | None  # the same function's steps, called without the dispatcher, where that is plain


class Shape:
    """One formula shape: computed by `numeric` where it can be, else (and for the cells it refuses) by `formulas`.

    `formulas` compiles a shape only when asked (`compiled`): its function table alone costs ~0.6 s of
    imports, which a workbook `numeric` computes whole never pays.
    """

    def __init__(self, text: str):
        self.text = text
        self.numeric = compile_numeric(text)

    @cached_property
    def compiled(self) -> Compiled:
        return compile_shape(self.text)

    @property
    def batchable(self) -> bool:
        """Whether one call can compute a whole level's cells of this shape."""
        return self.numeric.elementwise if self.numeric is not None else self.compiled.elementwise


Target = Area | CellKey  # what a placeholder reads: one cell as its key (sheet, row, col), else an area


class FormulaPlan(NamedTuple):
    """How to compute one formula cell: its shape's function, fed `targets[i]` for each `i` of `shape.order`.

    A reference to one cell is the cell's key, the grid's own tuple where the grid holds the cell (`ShapeMemo`):
    the plans of 260,000 formulas make no tuple per cell they read, and `schedule` reads them as they are."""

    shape: Shape
    targets: tuple[Target, ...]


def plan_formulas(grid: CellGrid) -> dict[CellKey, FormulaPlan]:
    """A plan for every formula cell of `grid`, compiling each distinct shape once.

    Every formula's skeleton and digit runs come from one regex pass over the formulas joined, `_CHUNK`
    at a time (`\\0` is in no formula a file can hold; a chunk with one that holds it is shaped formula by
    formula), so a cell costs a few dictionary look-ups: its skeleton's template, and each reference text
    on its sheet, once learned. A chunk at a time, not all at once: the digit runs of 260,000 formulas
    (~1.5 million strings) and their skeletons were ~110 MB held at once, at the peak of `check`.
    """
    shapes: dict[str, Shape] = {}
    plans = {}
    memo = ShapeMemo()
    memo.cells = {key: key for key in grid.formulas}
    memo.cells.update({key: key for key in grid.values})
    cells = iter(grid.formulas.items())
    while chunk := list(islice(cells, _CHUNK)):
        joined = "\0".join([formula for _, formula in chunk])
        if joined.count("\0") != len(chunk) - 1:
            for cell, formula in chunk:
                text, targets = shape_of(formula, cell[0], grid, memo)
                plans[cell] = FormulaPlan(shapes.get(text) or shapes.setdefault(text, Shape(text)), targets)
            continue
        runs = _DIGITS.findall(joined)
        at = 0
        for (cell, formula), skeleton in zip(chunk, _DIGITS.sub("1", joined).split("\0"), strict=True):
            template = memo.template(skeleton)
            if template is None:
                text, targets = shape_of(formula, cell[0], grid)
                at += skeleton.count("1")
            else:
                text, targets = memo.fill(template, runs, at, cell[0], grid)
                at += template.runs
            plans[cell] = FormulaPlan(shapes.get(text) or shapes.setdefault(text, Shape(text)), targets)
    return plans


_CHUNK = 4096
_DIGITS = re.compile(r"[0-9]+")
_EXPONENT_NEAR = re.compile(r"[0-9.][Ee]")
_LITERAL, _NUMBER, _RANGE, _BLIND_RANGE = 0, 1, 2, 3


class _Template:
    """A formula skeleton's tokens (kind, text split at each `1`, how many `1`s), learned once (`_template`):
    the references among them, and the other tokens a digit run changes (numbers, `LOG10(`)."""

    __slots__ = ("tokens", "runs", "refs", "literals")

    def __init__(self, tokens: list[tuple[int, list[str], int]]):
        self.tokens = tokens
        # (pieces, runs, first run, blank-blind, (sheet or None, column) of a cell whose row is the run)
        self.refs: list[tuple[list[str], int, int, bool, tuple[str | None, int] | None]] = []
        self.literals: list[tuple[list[str], int, int]] = []  # (pieces, runs, first run)
        at = 0
        for kind, pieces, n in tokens:
            if kind >= _RANGE:
                self.refs.append((pieces, n, at, kind == _BLIND_RANGE, _cell_of(pieces)))
            elif n:
                self.literals.append((pieces, n, at))
            at += n
        self.runs = at


def _cell_of(pieces: list[str]) -> tuple[str | None, int] | None:
    """(sheet title or None for the formula's own, column) of a reference token that is one cell whose row
    is its only digit run (`R1`, `'Compute'!$F$1`), as `parse_ref` reads it; None for any other."""
    if len(pieces) != 2 or pieces[1]:
        return None
    try:
        area = parse_ref(pieces[0] + "1", "")
    except Unsupported:
        return None  # an external reference: the plain resolution refuses it, formula by formula
    if area is None or area[2] != area[4]:
        return None
    return (area[0] or None, area[2])


def _filled(pieces: list[str], n: int, runs: list[str], at: int) -> str:
    """A token's text: its skeleton pieces with the formula's digit runs from `at` between them."""
    if n == 1:
        return pieces[0] + runs[at] + pieces[1]
    value = pieces[0]
    for j in range(n):
        value += runs[at + j] + pieces[j + 1]
    return value


class ShapeMemo:
    """What `shape_of` learns once for a grid: a template per formula skeleton (None where the quick
    tokenizer does not take it), the area, slot key and placeholder size of each reference text on a
    sheet, and the shape text of each (template, digit-bearing literals, placeholders) seen."""

    def __init__(self) -> None:
        self.templates: dict[str, _Template | None] = {}
        self.refs: dict[tuple[str, str, bool], tuple[Target, Hashable, str]] = {}
        self.texts: dict[tuple, str] = {}
        self.cells: dict[CellKey, CellKey] = {}  # each cell read, one key however many formulas read it

    def template(self, skeleton: str) -> _Template | None:
        """The template of a skeleton; None where the plain path must shape the formula.

        The quick tokenizer reads every digit alike but the first of a scientific number (`[1-9]`), left
        out here (`_EXPONENT_NEAR`: a digit before `E` in the formula is a `1` before it in the skeleton):
        so a formula splits where its skeleton does, each `1` of the skeleton one digit run of the formula,
        and the tokens' kinds, the refusals and which ranges are a blank-blind argument are the skeleton's.
        tests/xlsx/test_shape_memo.py holds both ways equal.
        """
        try:
            return self.templates[skeleton]
        except KeyError:
            pass
        quick = skeleton.startswith("=") and not _EXPONENT_NEAR.search(skeleton)
        tokens = _template(skeleton) if quick else None
        template = self.templates[skeleton] = None if tokens is None else _Template(tokens)
        return template

    def fill(self, template: _Template, runs: list[str], at: int, sheet: str,
             grid: CellGrid) -> tuple[str, tuple[Target, ...]]:
        """`shape_of` of the formula of `template` whose digit runs are `runs[at:]`, on `sheet`."""
        refs, cells = self.refs, self.cells
        targets: list[Target] = []
        slots: dict[Hashable, int] = {}
        placed: list[Any] = []  # each reference's slot and placeholder size: with the literals, the shape
        own = sheet.upper()
        for pieces, n, start, blind, cell in template.refs:
            if cell is not None and len(run := runs[at + start]) <= 7 and 1 <= (row := int(run)) <= MAX_ROW:
                read = (cell[0] or own, row, cell[1])  # what `_resolve` gives, sooner
                read = cells.setdefault(read, read)
                i = slots.get(read)
                if i is None:
                    i = slots[read] = len(targets)
                    targets.append(read)
                placed.append(i)
                placed.append("")
                continue
            value = _filled(pieces, n, runs, at + start) if n else pieces[0]
            found = refs.get((value, sheet, blind))
            if found is None:
                target, key = _resolve(value, sheet, grid, blind)
                if len(target) == 3:  # a cell: the grid's key, its slot key too
                    key = target = cells.setdefault(target, target)
                found = refs[(value, sheet, blind)] = (target, key, _size(target))
            target, key, size = found
            i = slots.get(key)
            if i is None:
                i = slots[key] = len(targets)
                targets.append(target)
            placed.append(i)
            placed.append(size)
        literals = tuple([_filled(pieces, n, runs, at + start) for pieces, n, start in template.literals]) \
            if template.literals else ()
        shape = (template, literals, tuple(placed))
        text = self.texts.get(shape)
        if text is None:
            text = self.texts[shape] = _template_text(template, literals, placed)
        return text, tuple(targets)


def _size(target: Target) -> str:
    """A placeholder's text after `!A1`: nothing for one cell, `:B3` for a range of 3 rows, 2 columns."""
    if len(target) == 3:
        return ""
    _, r1, c1, r2, c2 = target
    h, w = r2 - r1 + 1, c2 - c1 + 1
    return "" if h == w == 1 else f":{col_letters(w)}{h}"


def _template_text(template: _Template, literals: tuple[str, ...], placed: list[Any]) -> str:
    """The shape text of a template's formula: its placeholders (slot, size) and digit-bearing literals."""
    parts: list[str] = []
    refs, others = iter(zip(placed[::2], placed[1::2], strict=True)), iter(literals)
    for kind, pieces, n in template.tokens:
        if kind >= _RANGE:
            i, size = next(refs)
            parts.append(f"PH{i}!A1{size}")
        else:
            value = next(others) if n else pieces[0]
            parts.append(signed_exponent(value) if kind == _NUMBER else value)
    return "=" + "".join(parts)


def shape_of(formula: str, sheet: str, grid: CellGrid,
             memo: ShapeMemo | None = None) -> tuple[str, tuple[Target, ...]]:
    """(placeholder formula, the area each placeholder stands for) of one formula cell on `sheet`."""
    if memo is not None:
        runs = _DIGITS.findall(formula)
        template = memo.template(_DIGITS.sub("1", formula) if runs else formula)
        if template is not None:
            return memo.fill(template, runs, 0, sheet, grid)
    parts: list[str] = []
    targets: list[Target] = []
    slots: dict[Hashable, int] = {}
    tokens = _tokens(formula)
    enclosing: list[str] = []  # the function (or "" for a parenthesis) each open bracket belongs to
    for i, tok in enumerate(tokens):
        _refuse_unshareable(tok)
        if tok.type == "OPERAND" and tok.subtype == "RANGE":
            blind = _blank_blind_argument(tokens, i, enclosing)
            parts.append(_placeholder(tok.value, sheet, grid, targets, slots, blind))
        else:
            _track_brackets(tok, enclosing)
            parts.append(signed_exponent(tok.value) if tok.subtype == "NUMBER" else tok.value)
    return "=" + "".join(parts), tuple(targets)


def _template(skeleton: str) -> list[tuple[int, list[str], int]] | None:
    """Each token of `skeleton`: (kind, its text split at each `1`, how many `1`s); None if not quick."""
    tokens = quick_tokens(skeleton)
    if tokens is None:
        return None
    out = []
    enclosing: list[str] = []
    for i, tok in enumerate(tokens):
        try:
            _refuse_unshareable(tok)
        except Unsupported:
            return None  # the plain path raises it, with the formula's own text
        if tok.type == "OPERAND" and tok.subtype == "RANGE":
            kind = _BLIND_RANGE if _blank_blind_argument(tokens, i, enclosing) else _RANGE
        else:
            _track_brackets(tok, enclosing)
            kind = _NUMBER if tok.subtype == "NUMBER" else _LITERAL
        pieces = tok.value.split("1")
        out.append((kind, pieces, len(pieces) - 1))
    return out


_UNSIGNED_EXPONENT = re.compile(r"^([0-9]*\.?[0-9]*[eE])([0-9]+)$")


def signed_exponent(number: str) -> str:
    """`1E308` as `1E+308`: Excel reads both (and saves the second), `formulas`' parser only the second."""
    return _UNSIGNED_EXPONENT.sub(r"\1+\2", number)


def _track_brackets(tok: Token, enclosing: list[str]) -> None:
    if tok.subtype == "OPEN" and tok.type in ("FUNC", "PAREN"):
        enclosing.append(tok.value[:-1].upper().removeprefix("_XLFN.") if tok.type == "FUNC" else "")
    elif tok.subtype == "CLOSE" and tok.type in ("FUNC", "PAREN") and enclosing:
        enclosing.pop()


def _blank_blind_argument(tokens: list[Token], i: int, enclosing: list[str]) -> bool:
    """Whether token `i` is a whole argument of a function that ignores blanks (`SUM(A:A, 2)`, not `SUM(A:A*2)`)."""
    if not enclosing or enclosing[-1] not in BLANK_BLIND_FUNCTIONS or i == 0 or i + 1 >= len(tokens):
        return False
    before, after = tokens[i - 1], tokens[i + 1]
    return ((before.type, before.subtype) in (("FUNC", "OPEN"), ("SEP", "ARG"))
            and (after.type, after.subtype) in (("FUNC", "CLOSE"), ("SEP", "ARG")))


def _tokens(formula: str) -> list[Token] | list[Quick]:
    quick = quick_tokens(formula) if formula.startswith("=") else None
    if quick is not None:
        return quick
    try:
        items = Tokenizer(formula).items
    except Exception as exc:  # noqa: BLE001  whatever the tokenizer trips on, ExcelModel gets the formula
        raise Unsupported(f"tokenizer: {exc}") from None
    if "".join(t.value for t in items) != formula[1:]:
        raise Unsupported("formula does not round-trip through the tokenizer")
    return items


def _refuse_unshareable(tok: Token) -> None:
    """Refuse what reads a reference's address rather than its value, or could: one shape cannot serve it."""
    value = tok.value
    if tok.type == "WHITE-SPACE":
        raise Unsupported("whitespace (possibly the intersection operator)")
    if tok.type == "OPERATOR-INFIX" and value in (":", ",", " "):
        raise Unsupported("reference operator")
    if tok.type == "FUNC" and tok.subtype == "OPEN" and (value[:-1].upper() in _ADDRESS_FUNCTIONS or not value[:-1]):
        raise Unsupported(f"function {value}")


def _placeholder(value: str, sheet: str, grid: CellGrid, targets: list[Target], slots: dict[Hashable, int],
                 blank_blind: bool = False) -> str:
    """The placeholder reference for `value`, adding its area to `targets` the first time it appears.

    Whole columns or rows are cut to the used range where `blank_blind` says blanks do not count.
    """
    target, key = _resolve(value, sheet, grid, blank_blind)
    return _slot(target, key, targets, slots)


def _slot(target: Target, key: Hashable, targets: list[Target], slots: dict[Hashable, int]) -> str:
    """The placeholder text of `target`, a new slot the first time its `key` appears in a formula."""
    if key not in slots:
        slots[key] = len(targets)
        targets.append(target)
    return f"PH{slots[key]}!A1{_size(target)}"


def _resolve(value: str, sheet: str, grid: CellGrid, blank_blind: bool) -> tuple[Target, Hashable]:
    """The area a reference text on `sheet` stands for (one cell: its key), and the key two uses of it share a
    slot by (a cell's: the target itself)."""
    target: Target | None
    ref = parse_ref(value, sheet)
    if ref is None and (lines := parse_lines(value, sheet)) is not None:
        if not blank_blind:
            raise Unsupported(f"whole columns or rows {value} outside a function that ignores blanks")
        ref = grid.clamp(lines)
    if ref is None:
        if not _NAME_RE.match(value) or "!" in value:
            raise Unsupported(f"reference {value}")
        target = grid.names.get(value.upper())
        if target is None:
            raise Unsupported(f"undefined name {value}")
        if value.upper() in grid.whole_line_names and not blank_blind:
            raise Unsupported(f"name {value} of whole columns or rows outside a function that ignores blanks")
        key: Hashable = ("name", value.upper())
    else:
        target = key = ref[:3] if ref[1] == ref[3] and ref[2] == ref[4] else ref
    return target, key


def compile_shape(text: str) -> Compiled:
    """The compiled function of a shape, and the placeholder index of each of its inputs, in order."""
    import formulas
    from formulas.functions import DSP

    try:
        func = formulas.Parser().ast(text)[1].compile()
    except Exception as exc:  # noqa: BLE001  whatever formulas cannot compile, ExcelModel reports
        raise Unsupported(f"compile: {type(exc).__name__}") from None
    order = []
    for key, rng in func.inputs.items():
        if key is DSP or rng is sh.NONE or not isinstance(key, str):
            raise Unsupported("formula reads the workbook")
        m = _PLACEHOLDER_RE.match(key)
        if not m or rng is None:
            raise Unsupported(f"unexpected input {key}")
        order.append(int(m.group(1)))
    return Compiled(func, order, is_elementwise(func), Steps.of(func))


def _elementwise_functions() -> frozenset[int]:
    from formulas.functions.operators import OPERATORS

    return frozenset(id(OPERATORS[op]) for op in _ELEMENTWISE_OPERATORS)


# Operators `formulas` implements as numpy.vectorize over one Excel-semantics scalar function: fed
# columns of values, each row of the result is what that row's cell alone would give.
_ELEMENTWISE_OPERATORS = ("+", "-", "U-", "U+", "*", "/", "^", "%", "&", ">=", "<=", "<>", "<", ">", "=")


def is_elementwise(func: Any) -> bool:
    """Whether one call with columns of inputs computes a whole run of cells of this shape.

    True when every input is a single cell and every step is an elementwise operator. Functions
    (SUM, AND, ...) are not: fed a column they would fold it into one value.
    """
    if any(":" in str(key) for key in func.inputs):
        return False
    allowed = _elementwise_functions()
    return all(node.get("type") == "data" or node.get("type") == "function" and id(node.get("function")) in allowed
               for node in func.dsp.nodes.values())
