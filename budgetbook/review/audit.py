"""The formula audit and the hidden-cell scan: what `check` (and `generate`'s edit guard) find in the cells.

Every generated formula cell is held against the formula budgetbook would
write, both put in name form (`C12` becomes the defined name it holds), so
inserted rows and moved sheets are not edits; its value is judged separately
(an Excel error, a circular reference, no value at all).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

from ..sheetkit.embed import SHEET as EMBED_SHEET
from ..sheetkit.grid import CellSpec
from ..xlsx.a1 import column_index_from_string, coordinate_from_string
from ..xlsx.formula_text import CellNames, is_constant, normalize, references, to_names
from .cycles import cells_in, cells_read
from .findings import Finding, clipped, jsonable
from .readback import OpenedWorkbook, formula_of, is_error_value

CellKey = tuple[str, str]  # (upper-case sheet title, "C7")


class _Names:
    """Where budgetbook wrote each name and where each points now, as canonical maps (`CellNames`), built on
    first need: a book whose names are where they were written reads every formula by its text alone."""

    def __init__(self, layout: Sequence[CellSpec], located: Mapping[str, tuple[str, str]]):
        """`layout`: the cells budgetbook wrote; `located`: {lower-case name: (sheet, cell)} of every name now."""
        self._layout, self._located = layout, located
        # every generated name still where it was written, and no other name pointing at a cell: told from
        # the layout and the names as read where spelling them canonically (upper case, no `$`) cannot join
        # two cells, without a map of either (two of ~260,000 cells each were ~50 MB at check's peak)
        self.unmoved = _in_place(layout, located) or self.generated == self.current

    @cached_property
    def generated(self) -> CellNames:
        return CellNames.of({(s.sheet, s.cell): s.name for s in self._layout})

    @cached_property
    def current(self) -> CellNames:
        return CellNames.of({(sheet, cell): name for name, (sheet, cell) in self._located.items()})

    def same_reading(self, spec, sheet: str, cell: str, text: str) -> bool:
        """The formula reads what the generated one reads, told without parsing it: same text, same place."""
        return self.unmoved and text == spec.formula and sheet == spec.sheet and cell == spec.cell.replace("$", "")


def _in_place(layout: Sequence[CellSpec], located: Mapping[str, tuple[str, str]]) -> bool:
    """Whether the map of the cells budgetbook named (`{(sheet, cell): name}` from the layout) is the map of
    the names found now (`located`) and is canonical already: every name of the layout found at its cell
    and no other name, cells upper case without `$` (`C7`, as the layout writes them), sheet titles apart
    in upper case too (then `CellNames.of` keeps their keys apart, and equal maps make equal canonical maps)."""
    if len(located) != len(layout):
        return False
    titles: set[str] = set()
    for spec in layout:
        cell = spec.cell
        if located.get(spec.name) != (spec.sheet, cell) or "$" in cell or not cell.isupper():
            return False
        titles.add(spec.sheet)
    return len({title.upper() for title in titles}) == len(titles)


def _names(book: OpenedWorkbook) -> _Names:
    """Both maps, read once per audit (each formula's rewrite into names reads them)."""
    return _Names(book.layout, book.located)


def formula_edits(book: OpenedWorkbook) -> list[Finding]:
    """How the generated formula cells were edited (`missing`, `hardcoded`, `formula_changed`), values unread."""
    names = _names(book)
    return [edit for spec in book.layout if spec.formula is not None
            and (edit := _formula_edit(book, spec, names, book.locate(spec.name))) is not None]


def audit_formulas(book: OpenedWorkbook, evaluated: dict[str, Any]) -> list[Finding]:
    """Every generated formula cell against the formula budgetbook would write, and what it evaluates to."""
    names = _names(book)
    circular = _circular(book, evaluated, names)
    findings: list[Finding] = []
    uncomputed: list[tuple[str, str, str]] = []
    for spec in book.layout:
        if spec.formula is None:
            continue
        where = book.locate(spec.name)
        edit = _formula_edit(book, spec, names, where)
        if edit is not None:
            edit = _constant_formula(edit, evaluated.get(spec.name.lower()))
            findings.append(edit)
            if edit.kind != "formula_changed":
                continue  # gone, emptied or typed over: there is no formula value to judge
        assert where is not None  # a formula cell unedited or `formula_changed` is where its name points
        sheet, cell = where
        value = evaluated.get(spec.name.lower())
        problem = _value_problem(spec.name, sheet, cell, value, circular.get(spec.name.lower()))
        if problem is not None:
            findings.append(problem)
        elif value is None:
            uncomputed.append((sheet, cell, spec.name))
    if uncomputed:
        findings.append(_not_computed(uncomputed))
    return findings


def _formula_edit(book: OpenedWorkbook, spec, names: _Names, where: tuple[str, str] | None) -> Finding | None:
    """The edit made to one generated formula cell (`where` its name points: `book.locate`), or None when it
    still holds that formula."""
    if where is None:
        return Finding("missing", f"`{spec.name}` is gone: its defined name or sheet ({spec.sheet}) was deleted",
                       spec.sheet, None, spec.name)
    sheet, cell = where
    actual = book.value_at(sheet, cell)
    actual_text = formula_of(actual)
    if actual is None:
        return Finding("missing", "the formula cell is empty", sheet, cell, spec.name, spec.formula, None)
    if actual_text is None:
        return Finding("hardcoded", "formula replaced by a typed value", sheet, cell, spec.name,
                       spec.formula, jsonable(actual))
    if names.same_reading(spec, sheet, cell, actual_text):
        return None
    want = normalize(to_names(spec.formula, spec.sheet, names.generated))
    have = normalize(to_names(actual_text, sheet, names.current))
    if want == have:
        return None
    extra = _unnamed_refs(actual_text, sheet, names.current)
    added = f"; it now also reads {', '.join(extra)}" if extra else ""
    return Finding("formula_changed", f"formula differs from the one generated{added}",
                   sheet, cell, spec.name, spec.formula, actual_text)


def _constant_formula(edit: Finding, value: Any) -> Finding:
    """`=144000` typed over a calculation: a typed number in formula clothing is `hardcoded`, not a new formula."""
    text = edit.actual
    if edit.kind != "formula_changed" or not isinstance(value, (int, float)) or isinstance(value, bool) \
            or not isinstance(text, str) or not is_constant(text) or not references(edit.expected or "="):
        return edit
    return Finding("hardcoded", f"formula replaced by a constant typed as a formula (`{clipped(text, quote=False)}`)",
                   edit.sheet, edit.cell, edit.name, edit.expected, value)


def _value_problem(name: str, sheet: str, cell: str, value: Any, cycle: list[str] | None) -> Finding | None:
    if is_error_value(value):  # evaluate_workbook gives Excel errors as text
        return Finding("error_value", f"evaluates to {value}", sheet, cell, name, None, str(value))
    if value is None and cycle is not None:
        through = f" through {' -> '.join(cycle)}" if len(cycle) > 2 else ""
        return Finding("error_value", f"circular reference: its formula reads itself{through}, so it has no value",
                       sheet, cell, name, None, "circular reference")
    return None


def _not_computed(uncomputed: list[tuple[str, str, str]]) -> Finding:
    sheet, cell, name = uncomputed[0]
    shown = _first_five([n for _, _, n in uncomputed])
    return Finding("not_computed", f"{len(uncomputed)} formula cell(s) have no value because they read a "
                   f"circular reference or a cell the evaluator cannot compute: {shown}", sheet, cell, name)


def _first_five(shown: list[str]) -> str:
    """'a, b, c, d, e and 3 more'."""
    more = f" and {len(shown) - 5} more" if len(shown) > 5 else ""
    return ", ".join(shown[:5]) + more


def _circular(book: OpenedWorkbook, evaluated: dict[str, Any], names: _Names) -> dict[str, list[str]]:
    """Named formula cells on a cycle of named cells, each with the cycle it is on.

    The `formulas` engine leaves every cell of a cycle (and all that read one)
    without a value; Excel shows 0 and a warning. Only cells left without a
    value can be on a cycle, so only those are followed.
    """
    pending = {s.name.lower() for s in book.layout if s.formula and evaluated.get(s.name.lower()) is None
               and book.locate(s.name)}
    if not pending:
        return {}
    sheets = {ws.title.upper(): ws for ws in book.wb.worksheets}
    current = names.current
    edges = {name: [n for n in _names_read(book, name, current, sheets) if n in pending] for name in pending}
    return _cycles(edges)


def _names_read(book: OpenedWorkbook, name: str, current: dict[CellKey, str], sheets: dict[str, Any]) -> list[str]:
    """The defined names of the cells the formula in `name`'s cell reads (`cycles.cells_read`, the one
    walk step both cycle searches take)."""
    sheet, cell = book.where(name)
    node = (sheet.upper(), cell.replace("$", "").upper())
    return [current[read].lower() for read in cells_read(book, node, sheets) if read in current]


def _cycles(edges: dict[str, list[str]]) -> dict[str, list[str]]:
    """For each node that can reach itself, one path from it back to it (depth-first)."""
    cycles: dict[str, list[str]] = {}
    for start in edges:
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in edges.get(node, ()):
                if nxt == start:
                    cycles[start] = path + [start]
                    stack = []
                    break
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    return cycles


def _unnamed_refs(formula: str, sheet: str, current: dict[CellKey, str]) -> list[str]:
    """Cells a formula reads that budgetbook did not write: a row a user added, say."""
    found = []
    for ref in references(formula):
        if ref.name or not ref.cell:
            continue
        ref_sheet = ref.sheet or sheet
        area = ref.cell.replace("$", "")
        cells = cells_in(area, 1024) if ref.is_range else [area]
        found += [f"{ref_sheet}!{c}" for c in (cells or [area]) if (ref_sheet.upper(), c) not in current]
    return found



def hidden_cells(book: OpenedWorkbook) -> list[Finding]:
    """Inputs and figures a reader cannot see: on a hidden sheet, in a hidden row or column.

    Hiding is how a changed number escapes review, so each hidden place is a
    warning (one per sheet, row or column, naming the cells in it). The sheet
    holding the embedded plan is hidden by design and holds no inputs or figures.
    """
    places: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for spec in book.layout:
        where = book.locate(spec.name) if spec.kind in ("input", "figure") else None
        if where is None or where[0] == EMBED_SHEET:
            continue
        place = _hidden_place(book, *where)
        if place is not None:
            places.setdefault((where[0], place), []).append((where[1], spec.name))
    findings = []
    for (sheet, place), cells in places.items():
        shown = _first_five([f"{name} ({cell})" for cell, name in cells])
        findings.append(Finding("hidden", f"{place}: it holds {shown}; a reviewer will not see them",
                                sheet, cells[0][0], cells[0][1]))
    return findings


def _hidden_place(book: OpenedWorkbook, sheet: str, cell: str) -> str | None:
    """Why the cell cannot be seen ("row 16 of Compute is hidden"), or None when it can."""
    ws = book.wb[sheet]
    try:
        letter, row = coordinate_from_string(cell)
    except ValueError:  # a name pointing at a range: not one of ours
        return None
    column = column_index_from_string(letter)
    if ws.sheet_state != "visible":
        return f"sheet {sheet} is {ws.sheet_state}"
    if row in ws.row_dimensions and ws.row_dimensions[row].hidden:
        return f"row {row} of {sheet} is hidden"
    if any(d.hidden and (d.min or 0) <= column <= (d.max or 0) for d in ws.column_dimensions.values()):
        return f"column {letter} of {sheet} is hidden"
    return None
