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
from typing import Any, NamedTuple

import schedula as sh
from openpyxl.formula import Tokenizer
from openpyxl.formula.tokenizer import Token

from .cell_grid import Area, CellGrid, CellKey, Unsupported, col_letters, parse_lines, parse_ref
from .numeric import compile_numeric

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


class StepFailed(Exception):
    """A step raised or gave no value: the dispatcher (`Compiled.func`) decides what that means."""


class Steps:
    """A compiled shape's functions, called one after another in the order the parser built them.

    schedula's dispatcher costs ~0.2 ms a call, most of a simple formula's time; these are the
    very function objects it would call, on the same values, so results are the same. Anything
    the dispatcher does beyond calling them in order (input domains, sub-dispatchers, a step that
    raises or returns no value) is left to it: `of` returns None, or a call raises `StepFailed`.
    """

    _FUNCTION_KEYS = frozenset({"type", "function", "inputs", "outputs", "wait_inputs", "index"})
    _DATA_KEYS = frozenset({"type", "wait_inputs", "index", "filters"})

    def __init__(self, inputs: list[str], constants: dict[str, Any], calls: list[tuple[Any, list[str], str]],
                 output: str, filters: tuple):
        self.inputs, self.constants, self.calls, self.output, self.filters = inputs, constants, calls, output, filters

    @classmethod
    def of(cls, func: Any) -> Steps | None:
        nodes = func.dsp.nodes
        calls = []
        for node in sorted(nodes.values(), key=lambda node: node.get("index", ())):
            kind = node.get("type")
            if kind == "function" and set(node) <= cls._FUNCTION_KEYS and len(node["outputs"]) == 1:
                calls.append((node["function"], list(node["inputs"]), node["outputs"][0]))
            elif kind != "data" or not set(node) <= cls._DATA_KEYS:
                return None
        if len(func.outputs) != 1:
            return None
        constants = {k: v["value"] for k, v in func.dsp.default_values.items()}
        output = func.outputs[0]
        return cls(list(func.inputs), constants, calls, output, tuple(nodes[output].get("filters", ())))

    def __call__(self, *args: Any) -> Any:
        values = dict(self.constants)
        values.update(zip(self.inputs, args, strict=True))
        try:
            for function, inputs, output in self.calls:
                got = function(*[values[i] for i in inputs])
                if got is sh.NONE:
                    raise StepFailed
                values[output] = got
            out = values[self.output]
            for keep in self.filters:
                out = keep(out)
        except StepFailed:
            raise
        except Exception as exc:  # noqa: BLE001  what a raising step means is the dispatcher's to say
            raise StepFailed from exc
        return out


class FormulaPlan(NamedTuple):
    """How to compute one formula cell: its shape's function, fed `targets[i]` for each `i` of `shape.order`."""

    shape: Shape
    targets: list[Area]


def plan_formulas(grid: CellGrid) -> dict[CellKey, FormulaPlan]:
    """A plan for every formula cell of `grid`, compiling each distinct shape once."""
    shapes: dict[str, Shape] = {}
    plans = {}
    memo = ShapeMemo()
    for cell, formula in grid.formulas.items():
        text, targets = shape_of(formula, cell[0], grid, memo)
        if text not in shapes:
            shapes[text] = Shape(text)
        plans[cell] = FormulaPlan(shapes[text], targets)
    return plans


class ShapeMemo:
    """What `shape_of` learns once for a grid: a template per formula skeleton (`_templated`; None where the
    quick tokenizer does not take it) and the area and slot key of each reference text on a sheet."""

    def __init__(self) -> None:
        self.templates: dict[str, list[tuple[int, list[str], int]] | None] = {}
        self.refs: dict[tuple[str, str, bool], tuple[Area, Hashable]] = {}


_DIGITS = re.compile(r"[0-9]+")
_EXPONENT_NEAR = re.compile(r"[0-9.][Ee]")
_LITERAL, _NUMBER, _RANGE, _BLIND_RANGE = 0, 1, 2, 3


def shape_of(formula: str, sheet: str, grid: CellGrid, memo: ShapeMemo | None = None) -> tuple[str, list[Area]]:
    """(placeholder formula, the area each placeholder stands for) of one formula cell on `sheet`."""
    if memo is not None and formula.startswith("=") and not _EXPONENT_NEAR.search(formula):
        got = _templated(formula, sheet, grid, memo)
        if got is not None:
            return got
    parts: list[str] = []
    targets: list[Area] = []
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
    return "=" + "".join(parts), targets


def _templated(formula: str, sheet: str, grid: CellGrid, memo: ShapeMemo) -> tuple[str, list[Area]] | None:
    """`shape_of` by the memo's template of `formula`'s skeleton (its digit runs as `1`); None if it has none.

    The quick tokenizer reads every digit alike but the first of a scientific number (`[1-9]`), which the
    caller leaves out (`_EXPONENT_NEAR`): so a formula splits where its skeleton does, each `1` of the
    skeleton one digit run of the formula, and the tokens' kinds, the refusals and which ranges are a
    blank-blind argument are the skeleton's. tests/xlsx/test_shape_memo.py holds both ways equal.
    """
    runs = _DIGITS.findall(formula)
    skeleton = _DIGITS.sub("1", formula) if runs else formula
    template = memo.templates.get(skeleton, ())
    if template == ():
        template = memo.templates[skeleton] = _template(skeleton)
    if template is None:
        return None
    parts: list[str] = []
    targets: list[Area] = []
    slots: dict[Hashable, int] = {}
    at = 0
    for kind, pieces, n in template:
        value = pieces[0]
        for j in range(n):
            value += runs[at + j] + pieces[j + 1]
        at += n
        if kind >= _RANGE:
            parts.append(_memo_placeholder(value, sheet, grid, targets, slots, kind == _BLIND_RANGE, memo))
        else:
            parts.append(signed_exponent(value) if kind == _NUMBER else value)
    return "=" + "".join(parts), targets


def _template(skeleton: str) -> list[tuple[int, list[str], int]] | None:
    """Each token of `skeleton`: (kind, its text split at each `1`, how many `1`s); None if not quick."""
    tokens = _quick_tokens(skeleton)
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


def _memo_placeholder(value: str, sheet: str, grid: CellGrid, targets: list[Area], slots: dict[Hashable, int],
                      blank_blind: bool, memo: ShapeMemo) -> str:
    """`_placeholder`, resolving each reference text on a sheet once (`memo.refs`)."""
    found = memo.refs.get((value, sheet, blank_blind))
    if found is None:
        found = memo.refs[(value, sheet, blank_blind)] = _resolve(value, sheet, grid, blank_blind)
    target, key = found
    return _slot(target, key, targets, slots)


class _Quick(NamedTuple):
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


def _quick_tokens(formula: str) -> list[_Quick] | None:
    """The tokens `shape_of` needs of a plain formula, by one regex; None for anything else.

    openpyxl's tokenizer reads a character at a time (~35 us a formula, most of planning a big
    book). Formulas of cells, names, numbers, operators, parentheses and function calls are
    split here instead; text, errors, arrays, spaces, whole columns, unions and anything unusual
    return None and go through openpyxl (tests/review/test_check_at_scale.py holds the two equal).
    """
    tokens: list[_Quick] = []
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
            tokens.append(_Quick("OPERAND", "LOGICAL" if logical else "RANGE", value))
        elif kind == "number":
            tokens.append(_Quick("OPERAND", "NUMBER", value))
        elif kind == "func":
            parens.append("func")
            tokens.append(_Quick("FUNC", "OPEN", value))
        elif kind == "open":
            parens.append("paren")
            tokens.append(_Quick("PAREN", "OPEN", value))
        elif kind == "close":
            if not parens:
                return None
            tokens.append(_Quick("FUNC" if parens.pop() == "func" else "PAREN", "CLOSE", value))
        elif kind == "comma":
            if not parens or parens[-1] != "func":
                return None  # outside a call a comma is Excel's union operator
            tokens.append(_Quick("SEP", "ARG", value))
        else:
            if want_operand and value not in "+-":
                return None  # only a sign may start an operand
            tokens.append(_Quick("OPERATOR", "", value))  # prefix, infix or postfix: `shape_of` keeps it as written
            want_operand = value != "%" or want_operand
            continue
        want_operand = kind in ("func", "open", "comma")
    if want_operand:
        return None
    return None if parens else tokens


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


def _tokens(formula: str) -> list[Token] | list[_Quick]:
    quick = _quick_tokens(formula) if formula.startswith("=") else None
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


def _placeholder(value: str, sheet: str, grid: CellGrid, targets: list[Area], slots: dict[Hashable, int],
                 blank_blind: bool = False) -> str:
    """The placeholder reference for `value`, adding its area to `targets` the first time it appears.

    Whole columns or rows are cut to the used range where `blank_blind` says blanks do not count.
    """
    target, key = _resolve(value, sheet, grid, blank_blind)
    return _slot(target, key, targets, slots)


def _slot(target: Area, key: Hashable, targets: list[Area], slots: dict[Hashable, int]) -> str:
    """The placeholder text of `target`, a new slot the first time its `key` appears in a formula."""
    if key not in slots:
        slots[key] = len(targets)
        targets.append(target)
    i = slots[key]
    _, r1, c1, r2, c2 = target
    h, w = r2 - r1 + 1, c2 - c1 + 1
    return f"PH{i}!A1" if h == w == 1 else f"PH{i}!A1:{col_letters(w)}{h}"


def _resolve(value: str, sheet: str, grid: CellGrid, blank_blind: bool) -> tuple[Area, Hashable]:
    """The area a reference text on `sheet` stands for, and the key two uses of it share a slot by."""
    target: Area | None
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
        target, key = ref, ref
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
