"""`check`: hold an edited workbook against the reference model recomputed from its own inputs."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openpyxl.utils.cell import get_column_letter, range_boundaries

from ..errors import BudgetbookError, WorkbookError
from .findings import ERROR, SEVERITY_ORDER, Finding
from ..xlsx.formula_text import normalize, references, to_names
from ..plan.inputs import input_cells, with_values
from ..plan.loader import plan_from_data, plan_from_text, resolve
from .readback import Book, evaluate_formula_inputs, formula_of, is_error_value, open_book, plan_data, read_inputs
from ..reference import compute_breakdown

DEFAULT_REL_TOL = 1e-9
DEFAULT_ABS_TOL = 0.005  # half a cent


@dataclass
class CheckReport:
    workbook: str
    findings: list[Finding] = field(default_factory=list)
    figures: list[dict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)

    def sorted_findings(self) -> list[Finding]:
        return sorted(self.findings, key=lambda f: SEVERITY_ORDER[f.severity])

    def as_json(self) -> dict:
        return {"ok": self.ok, "workbook": self.workbook,
                "findings": [f.as_dict() for f in self.sorted_findings()], "figures": self.figures}


def close_enough(a: float, b: float, rel_tol: float, abs_tol: float) -> bool:
    return abs(a - b) <= rel_tol * max(abs(a), abs(b)) + abs_tol


def check_workbook(path: Path, plan_spec: str | None = None, *, rel_tol: float = DEFAULT_REL_TOL,
                   abs_tol: float = DEFAULT_ABS_TOL) -> CheckReport:
    from ..xlsx.evaluate import evaluate_workbook

    book = open_book(path)
    report = CheckReport(str(path), list(book.findings))
    if plan_spec is None:
        baseline_text, baseline = book.plan_text, book.plan
    else:
        source, baseline_text = resolve(plan_spec)
        baseline = plan_from_text(baseline_text, source)
    try:
        evaluated = {k.lower(): v for k, v in evaluate_workbook(book.data or path).items()}
    except BudgetbookError as exc:
        raise WorkbookError(str(exc).split(": ", 1)[-1], source=str(path)) from None
    except Exception as exc:  # the formulas package gives up on what it cannot parse
        raise WorkbookError(f"its formulas cannot be evaluated ({type(exc).__name__}: {exc})",
                            source=str(path)) from None

    cells = input_cells(book.plan)
    baseline_values = {c.name: c.num for c in input_cells(baseline)}
    values, input_findings = read_inputs(book, cells, evaluated, baseline_values)
    report.findings += input_findings
    report.findings += audit_formulas(book, evaluated)
    report.findings += hidden_cells(book)

    reference = None
    if not any(f.kind in ("invalid_input", "missing") for f in input_findings):
        # the workbook's own plan gives the shape (its formulas were built from it); --plan only the old values
        data = with_values(plan_data(book.plan_text), values)
        reference = compute_breakdown(plan_from_data(data, f"{path} (inputs)"))
    report.figures, figure_findings = compare_figures(book, evaluated, reference, book.plan, rel_tol, abs_tol)
    report.findings += figure_findings
    return report


def compare_figures(book: Book, evaluated: dict[str, Any], reference, baseline, rel_tol, abs_tol):
    figures, findings = [], []
    expected = reference.figures if reference is not None else compute_breakdown(baseline).figures
    for figure in expected:
        value = evaluated.get(figure.name.lower())
        where = book.locate(figure.name)
        sheet, cell = where if where else (None, None)
        row = {"name": figure.name, "item": figure.item, "market": figure.market,
               "value": value if isinstance(value, (int, float)) and not isinstance(value, bool) else None,
               "reference": figure.value if reference is not None else None}
        figures.append(row)
        if where is None or reference is None or is_error_value(value):
            continue  # reported as missing, invalid input or error value already
        if value is None:
            continue  # no value at all: audit_formulas says why (a circular reference, mostly)
        if row["value"] is None:
            findings.append(Finding("mismatch", f"{figure.label} ({figure.market}) is {value!r}, not a number",
                                    sheet, cell, figure.name, figure.value, _plain(value)))
        elif not close_enough(row["value"], figure.value, rel_tol, abs_tol):
            row["difference"] = row["value"] - figure.value
            findings.append(Finding("mismatch", f"{figure.label} ({figure.market}) is {row['value']:,.2f}; "
                                    f"the reference model gives {figure.value:,.2f}",
                                    sheet, cell, figure.name, figure.value, row["value"]))
        else:
            row["difference"] = row["value"] - figure.value
    return figures, findings


def audit_formulas(book: Book, evaluated: dict[str, Any]) -> list[Finding]:
    """Every generated formula cell against the formula budgetbook would write, both in name form."""
    layout = book.layout
    generated_names = {(s.sheet.upper(), s.cell.replace("$", "")): s.name for s in layout}
    current_names = {(sheet.upper(), cell): name for name, (sheet, cell) in book.names.items()}
    findings = []
    circular = _circular(book, layout, evaluated, current_names)
    uncomputed: list[tuple[str, str, str]] = []
    for spec in layout:
        if spec.formula is None:
            continue
        where = book.locate(spec.name)
        if where is None:
            findings.append(Finding("missing", f"`{spec.name}` is gone: its defined name or sheet "
                                    f"({spec.sheet}) was deleted", spec.sheet, None, spec.name))
            continue
        sheet, cell = where
        actual = book.wb[sheet][cell].value
        actual_text = formula_of(actual)
        if actual is None:
            findings.append(Finding("missing", "the formula cell is empty", sheet, cell, spec.name,
                                    spec.formula, None))
            continue
        if actual_text is None:
            findings.append(Finding("hardcoded", "formula replaced by a typed value", sheet, cell, spec.name,
                                    spec.formula, _plain(actual)))
            continue
        want = normalize(to_names(spec.formula, spec.sheet, generated_names))
        have = normalize(to_names(actual_text, sheet, current_names))
        if want != have:
            extra = [r for r in _unnamed_refs(actual_text, sheet, current_names)]
            added = f"; it now also reads {', '.join(extra)}" if extra else ""
            findings.append(Finding("formula_changed", f"formula differs from the one generated{added}",
                                    sheet, cell, spec.name, spec.formula, actual_text))
        value = evaluated.get(spec.name.lower())
        if is_error_value(value):  # evaluate_workbook gives Excel errors as text
            findings.append(Finding("error_value", f"evaluates to {value}", sheet, cell, spec.name,
                                    None, str(value)))
        elif value is None and spec.name.lower() in circular:
            cycle = circular[spec.name.lower()]
            through = f" through {' -> '.join(cycle)}" if len(cycle) > 2 else ""
            findings.append(Finding("error_value", f"circular reference: its formula reads itself{through}, "
                                    "so it has no value", sheet, cell, spec.name, None, "circular reference"))
        elif value is None:
            uncomputed.append((sheet, cell, spec.name))
    if uncomputed:
        sheet, cell, name = uncomputed[0]
        shown = ", ".join(n for _, _, n in uncomputed[:5]) + (f" and {len(uncomputed) - 5} more"
                                                            if len(uncomputed) > 5 else "")
        findings.append(Finding("not_computed", f"{len(uncomputed)} formula cell(s) have no value because "
                                f"they read a circular reference or a cell the evaluator cannot compute: "
                                f"{shown}", sheet, cell, name))
    return findings


def _circular(book: Book, layout, evaluated: dict[str, Any], current_names: dict) -> dict[str, list[str]]:
    """Named formula cells on a cycle of named cells, each with the cycle it is on.

    The `formulas` engine leaves every cell of a cycle (and all that read one)
    without a value; Excel shows 0 and a warning. Only cells left without a
    value can be on a cycle, so only those are followed.
    """
    pending = {s.name.lower() for s in layout if s.formula and evaluated.get(s.name.lower()) is None
               and book.locate(s.name)}
    edges: dict[str, list[str]] = {}
    for name in pending:
        sheet, cell = book.locate(name)
        text = formula_of(book.wb[sheet][cell].value)
        if text is None:
            continue
        try:
            refs = references(text)
        except WorkbookError:
            continue
        found = []
        for ref in refs:
            if ref.name:
                found.append(ref.name.lower())
                continue
            area = (ref.cell or "").replace("$", "")
            cells = (_cells_in(area, 4096) or []) if ref.is_range else [area]
            found += [current_names[key] for c in cells
                      if (key := ((ref.sheet or sheet).upper(), c)) in current_names]
        edges[name] = [n for n in found if n in pending]
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


def hidden_cells(book: Book) -> list[Finding]:
    """Inputs and figures a reader cannot see: on a hidden sheet, in a hidden row or column.

    Hiding is how a changed number escapes review, so each hidden place is a
    warning (one per sheet, row or column, naming the cells in it). The sheet
    holding the embedded plan is hidden by design and holds no inputs or figures.
    """
    from openpyxl.utils.cell import coordinate_from_string, column_index_from_string

    from ..workbook import EMBED_SHEET

    places: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for spec in book.layout:
        if spec.kind not in ("input", "figure"):
            continue
        where = book.locate(spec.name)
        if where is None or where[0] == EMBED_SHEET:
            continue
        sheet, cell = where
        ws = book.wb[sheet]
        try:
            letter, row = coordinate_from_string(cell)
        except ValueError:  # a name pointing at a range: not one of ours
            continue
        column = column_index_from_string(letter)
        if ws.sheet_state != "visible":
            place = f"sheet {sheet} is {ws.sheet_state}"
        elif ws.row_dimensions[row].hidden if row in ws.row_dimensions else False:
            place = f"row {row} of {sheet} is hidden"
        elif any(d.hidden and (d.min or 0) <= column <= (d.max or 0) for d in ws.column_dimensions.values()):
            place = f"column {letter} of {sheet} is hidden"
        else:
            continue
        places.setdefault((sheet, place), []).append((cell, spec.name))
    findings = []
    for (sheet, place), cells in places.items():
        shown = ", ".join(f"{name} ({cell})" for cell, name in cells[:5])
        more = f" and {len(cells) - 5} more" if len(cells) > 5 else ""
        findings.append(Finding("hidden", f"{place}: it holds {shown}{more}; a reviewer will not see them",
                                sheet, cells[0][0], cells[0][1]))
    return findings


def _unnamed_refs(formula: str, sheet: str, current_names: dict) -> list[str]:
    """Cells a formula reads that budgetbook did not write: a row a user added, say."""
    found = []
    for ref in references(formula):
        if ref.name or not ref.cell:
            continue
        ref_sheet = ref.sheet or sheet
        area = ref.cell.replace("$", "")
        cells = _cells_in(area, 1024) if ref.is_range else [area]
        found += [f"{ref_sheet}!{c}" for c in (cells or [area]) if (ref_sheet.upper(), c) not in current_names]
    return found


def _cells_in(area: str, cap: int) -> list[str] | None:
    """The first `cap` cells of an A1 range; None for whole rows or columns (`A:A`, `3:5`) or junk.

    Counted before listing: `A1:XFD1048576` must not become 17 billion strings.
    """
    try:
        min_col, min_row, max_col, max_row = range_boundaries(area)
    except (ValueError, TypeError):
        return None
    if None in (min_col, min_row, max_col, max_row):
        return None
    out = []
    for row in range(min_row, min(max_row, min_row + cap) + 1):
        for col in range(min_col, min(max_col, min_col + cap) + 1):
            out.append(f"{get_column_letter(col)}{row}")
            if len(out) >= cap:
                return out
    return out


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value if not (isinstance(value, float) and not math.isfinite(value)) else str(value)
    return str(value)


def edits_since_generated(path: Path) -> list[Finding]:
    """What a user changed in a generated workbook: inputs and formulas, without evaluating it.

    `generate` asks before it replaces a workbook; typed inputs and formula text
    are what hand-tuning changes, and reading them takes a fraction of a check.
    """
    book = open_book(path)
    cells = input_cells(book.plan)
    baseline = {c.name: c.num for c in cells}
    evaluated = evaluate_formula_inputs(book, cells)
    _, input_findings = read_inputs(book, cells, evaluated, baseline)
    # findings about values (error_value, not_computed: nothing was evaluated here) are not edits
    edits = ("missing", "hardcoded", "formula_changed")
    return input_findings + [f for f in audit_formulas(book, evaluated) if f.kind in edits]
