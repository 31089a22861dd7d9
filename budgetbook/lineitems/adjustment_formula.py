"""A formula adjustment (`=-0.05*compute_hyperscaler_commit`): its text, read and evaluated by the reference.

The workbook holds the formula itself in the adjustment's Amount cell, and Excel (or `formulas`)
evaluates it there; the reference reads the same text here, on its own: numbers, the defined names
of budgetbook's figures, `+ - * /` (dividing by a typed number, not 0, so every formula has a
finite value), a postfix `%` (of the operand just before it, as in Excel) and parentheses; no `^`,
which Excel binds more loosely than a leading minus and Python more tightly. Anything else (a cell
address, a function, a name that is not one of our figures) is refused with what it read, so the
two implementations never evaluate different things.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from typing import Any

_OPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_INFIX = {"+", "-", "*", "/"}  # no `^`: Excel binds a leading minus and `%` tighter than it, Python not


class FormulaProblem(ValueError):
    """A formula adjustment the reference cannot read: the message says what it met."""


def names_read(text: str) -> list[str]:
    """The defined names the formula reads, lower-cased, in order (refusing what is not a name or number,
    and a division whose right side is not a typed number: every formula has a finite value)."""
    tokens = _tokens(text)
    for (kind, value), after in zip(tokens, tokens[1:] + [("end", "")], strict=True):
        if kind == "op" and value == "/" and not (after[0] == "number" and float(after[1])):
            raise FormulaProblem(f"the formula `{text}` divides by something other than a typed number "
                                 "(not 0): divide by a number, or multiply by a share")
    return [value.lower() for kind, value in tokens if kind == "name"]


def _tokens(text: str) -> list[tuple[str, str]]:
    if not text.startswith("="):
        raise FormulaProblem(f"expected a number or a formula starting with `=`, got `{text}`")
    # a plan with a formula adjustment only: openpyxl costs every command ~0.3 s to load
    from openpyxl.formula.tokenizer import Token, Tokenizer, TokenizerError

    try:
        items = Tokenizer(text).items
    except TokenizerError as exc:
        raise FormulaProblem(f"cannot read `{text}`: {exc}") from None
    out: list[tuple[str, str]] = []
    for token in items:
        if token.type == Token.WSPACE:
            continue
        if token.type == Token.OPERAND and token.subtype == Token.NUMBER:
            out.append(("number", token.value))
        elif token.type == Token.OPERAND and token.subtype == Token.RANGE:
            if "!" in token.value or ":" in token.value or _is_cell(token.value):
                raise FormulaProblem(f"the formula reads the cell `{token.value}`: an adjustment reads our "
                                     "figures by name")
            out.append(("name", token.value))
        elif token.type in (Token.OP_IN, Token.OP_PRE) and token.value in _INFIX:
            out.append(("op", token.value))
        elif token.type == Token.OP_POST and token.value == "%":
            out.append(("op", "%"))
        elif token.type == Token.PAREN:
            out.append(("op", token.value))
        else:
            raise FormulaProblem(f"the formula holds `{token.value}`: an adjustment's formula has numbers, figure "
                                 "names, + - * / % and parentheses only")
    return out


def _is_cell(value: str) -> bool:
    letters = value.replace("$", "").rstrip("0123456789")
    return letters != value.replace("$", "") and letters.isalpha() and len(letters) <= 3


def evaluate(text: str, figures: Mapping[str, Any]) -> Any:
    """The formula's value, its names read from `figures` (lower-cased defined names); a figure may be a
    float or a numpy array (the ranges engine runs every rule over many input vectors at once)."""
    names_read(text)  # what the plan's rule refuses, the reference refuses too
    parts: list[str] = []
    env: dict[str, Any] = {}
    for kind, value in _tokens(text):
        if kind == "name":
            if value.lower() not in figures:
                raise FormulaProblem(f"the formula reads `{value}`, not a figure this adjustment may read")
            env[f"v{len(env)}"] = figures[value.lower()]
            parts.append(f"v{len(env) - 1}")
        elif kind == "number":
            parts.append(value)
        elif value == "%":  # Excel's postfix percent takes the operand just before it: `x/5%` is x/0.05
            start = _group_start(parts) if parts and parts[-1] == ")" else len(parts) - 1
            parts[start:] = ["(", *parts[start:], "/100", ")"]
        else:
            parts.append(value)
    try:
        tree = ast.parse(" ".join(parts), mode="eval")
    except SyntaxError:
        raise FormulaProblem(f"cannot read `{text}`") from None
    try:
        return _value(tree.body, env)
    except (ZeroDivisionError, OverflowError):
        raise FormulaProblem(f"the formula `{text}` has no finite value") from None


def _group_start(parts: list[str]) -> int:
    """The index of the `(` matching the `)` that ends `parts`."""
    depth = 0
    for i in range(len(parts) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(parts[i], 0)
        if depth == 0:
            return i
    raise FormulaProblem("unbalanced parentheses")


def _value(node: ast.AST, env: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return float(node.value)
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _value(node.operand, env)
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_value(node.left, env), _value(node.right, env))
    raise FormulaProblem("not arithmetic")
