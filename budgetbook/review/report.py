"""What `budgetbook report` puts on its page: one budget's figures, months, ranges and, for a workbook, its review.

`gather` reads a plan (file or template) or a workbook (its embedded plan with the inputs it holds now, as
`show` reads it) and runs what the page shows: the reference model's breakdown and cash view by month, the
sensitivity and a simulation where the plan has ranges, and for a workbook `check` and, where it carries
bills, its variance. The page itself is `output/report_html.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..actuals.api import book_variance
from ..ledger.variance import VarianceReport
from ..plan.model import Plan
from ..progress import stage
from ..ranges.sensitivity import Sensitivity, sensitivity
from ..ranges.simulate import Simulation, simulate
from ..reference import Breakdown, MonthlyBreakdown, compute_breakdown, compute_monthly
from .check import CheckReport, check_workbook
from .readback import open_book

REPORT_SAMPLES = 10_000  # simulate's default: P10/P90 steady to a few tenths of a percent


@dataclass
class Report:
    source: str                      # as given: a plan file, template name or workbook
    kind: str                        # "plan" or "workbook"
    plan: Plan
    breakdown: Breakdown
    months: MonthlyBreakdown         # the cash view: an owned cluster's purchase in its month
    sensitivity: Sensitivity | None  # where the plan has ranges
    simulation: Simulation | None
    check: CheckReport | None = None        # a workbook's
    variance: VarianceReport | None = None  # a workbook with bills

    @property
    def labels(self) -> dict[str, str]:
        return {m.id: m.label or m.id for m in self.plan.markets}


def gather(source: str, plan: Plan, workbook: Path | None, *, samples: int = REPORT_SAMPLES) -> Report:
    """The report of `plan` (read from `source`); with `workbook`, its check and variance too."""
    stage("reference")
    breakdown = compute_breakdown(plan)
    months = compute_monthly(plan, "base", view="cash")
    ranged = any(f.low is not None for f in breakdown.figures)
    found = sensitivity(plan) if ranged else None
    if ranged:
        stage("simulating", samples, "samples")
    simulation = simulate(plan, samples) if ranged else None
    report = Report(source, "workbook" if workbook else "plan", plan, breakdown, months, found, simulation)
    if workbook is not None:
        stage("checking the workbook")
        report.check = check_workbook(workbook)
        if open_book(workbook).actuals is not None:
            report.variance = book_variance(workbook)
    return report
