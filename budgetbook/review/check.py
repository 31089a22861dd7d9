"""`check`: hold an edited workbook against the reference model recomputed from its own inputs.

The pieces: `readback` opens the book and reads its inputs, `audit` judges its
formula cells and hidden places, `structure` holds its sheets, names and
formula cells against the embedded plan's layout (so a hidden plan edited to
match typed-over figures does not pass), `compare` holds its figures against
the reference; this module puts them together in a `CheckReport`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import PlanError
from ..plan.inputs import changed_values, input_cells, with_values
from ..plan.model import Plan
from ..planfile.loader import load_plan, plan_from_data
from ..progress import stage
from ..reference import compute_breakdown, compute_monthly
from ..sheetkit.scenario import PLAN_SCENARIO
from . import adjustments, audit, structure
from .compare import DEFAULT_ABS_TOL, DEFAULT_REL_TOL, compare_figures
from .findings import ERROR, INPUT_PROBLEMS, SEVERITY_ORDER, Finding
from .input_cell_errors import as_finding
from .months import compare_months
from .physics_check import compare_physics
from .readback import OpenedWorkbook, open_book, read_inputs
from .scenario import computed_findings, in_scenario, read_ranges, read_scenario
from .shape import shape_findings
from .variance_check import compare_variance


@dataclass
class CheckReport:
    workbook: str
    findings: list[Finding] = field(default_factory=list)
    figures: list[dict] = field(default_factory=list)
    plan: str | None = None        # the embedded plan's name and currency (the JSON envelope's)
    currency: str | None = None

    @property
    def ok(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)

    def sorted_findings(self) -> list[Finding]:
        return sorted(self.findings, key=lambda f: SEVERITY_ORDER[f.severity])

    def as_json(self) -> dict:
        return {"ok": self.ok, "workbook": self.workbook,
                "findings": [f.as_dict() for f in self.sorted_findings()], "figures": self.figures}


def check_workbook(path: Path, plan_spec: str | Path | None = None, *, rel_tol: float = DEFAULT_REL_TOL,
                   abs_tol: float = DEFAULT_ABS_TOL) -> CheckReport:
    """Findings and figures of the workbook at `path`; `plan_spec` (a plan file or template) replaces the
    embedded plan as the baseline the inputs are compared with."""
    book = open_book(path, percentiles=True, computed=True)
    report = CheckReport(str(path), list(book.findings), plan=book.plan.name, currency=book.plan.currency)
    baseline = book.plan if plan_spec is None else load_plan(plan_spec)
    if plan_spec is not None:  # a plan of another shape cannot be this workbook's baseline (issue 15)

        report.findings += shape_findings(book.plan, baseline, str(plan_spec))
    evaluated = book.evaluate()
    cells = input_cells(book.plan)
    baseline_nums = {c.name: c.num for c in input_cells(baseline)}
    values, input_findings = read_inputs(book, cells, evaluated, baseline_nums)
    # the scenario switch and the ends of the ranges are inputs too (`review/scenario.py`)
    scenario, scenario_findings = read_scenario(book, evaluated)
    values, range_findings = read_ranges(book, cells, values, evaluated, baseline_nums)
    input_findings += scenario_findings + range_findings
    rows = None
    if adjustments.has_table(book):  # the rows finance typed are the reference's adjustments
        rows, refused = adjustments.read_rows(book)
        report.findings += refused + adjustments.changes(book, rows)
        rows = None if adjustments.as_planned(book, rows) else rows
    report.findings += input_findings
    stage("audit")
    report.findings += audit.audit_formulas(book, evaluated)
    report.findings += audit.hidden_cells(book)
    report.findings += structure.audit_structure(book)
    reference = current = None
    if not any(f.kind in INPUT_PROBLEMS for f in input_findings):
        stage("reference")
        try:
            current = _current_plan(book, values, rows)
        except PlanError as exc:  # a rule across inputs: named by the cell it names (`input_cell_errors`)
            report.findings.append(as_finding(book, cells, exc))
        else:
            reference = in_scenario(compute_breakdown(current), scenario)
    stage("comparing")
    report.figures, figure_findings = compare_figures(book, evaluated, reference, book.plan, rel_tol, abs_tol)
    report.findings += figure_findings
    if current is not None and reference is not None:
        end = PLAN_SCENARIO[scenario]
        monthly = compute_monthly(current, end, breakdown=reference)  # the figures already computed, in `end`
        report.findings += compare_months(book, evaluated, monthly, rel_tol, abs_tol)
        report.findings += compare_physics(book, evaluated, current, rel_tol, end)
        report.findings += computed_findings(book, current, rel_tol, abs_tol)
        if book.actuals is not None:
            report.findings += compare_variance(book, evaluated, current, rel_tol, abs_tol, end,
                                                breakdown=reference, monthly=monthly)
    return report


def _current_plan(book: OpenedWorkbook, values: dict, rows: list[dict] | None = None) -> Plan:
    """The plan of the workbook's current inputs (and Adjustments rows), for the reference model.

    The workbook's own plan gives the shape (its formulas were built from it);
    `--plan` gives only the old values the inputs are compared with. Only the edited inputs are written
    into it: an unedited book's inputs are its plan, whose figures the Sensitivity's audit has worked out
    (`reference`'s memo keys by content: an input the plan leaves to its default, written in as that
    default, made another plan and the figures twice, ~0.15 s at 45,000 cells).
    """
    edited = changed_values(book.plan, values)
    if not edited and rows is None:
        return book.plan
    data = with_values(book.plan_tree, edited)
    if rows is not None:
        data["adjustments"] = rows
    return plan_from_data(data, f"{book.path} (inputs)", shaped_like=book.plan)
