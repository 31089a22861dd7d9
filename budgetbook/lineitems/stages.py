"""Stages: the compute of pre-training, post-training, experiments and evals, and what one experiment costs.

Rule: a stage's compute is the compute of the workloads whose `kind` is one of the
stage's (pre-training: `pretrain`; post-training: `finetune`, `post_training`, `rl`;
experiments: `sweep`, `ablation`, `exploratory`; evals: `eval`), on each market. It is
already inside Compute; it is reported beside the total development cost, never added to
it a second time. The cost per experiment is the experiments' compute / their runs on the
market (nothing where they have none), and the experiments per 10,000 of the currency are
10,000 / that cost: seed 000's "The experiments you'd never run because they cost $8,000
suddenly cost $3,800, and you run twelve of them instead of five", said outright.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..plan.model import Plan
from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, sum_arguments
from . import compute
from .base import Line, LineItem, no_sheet, rule
from .scenario import MarketView
from .units import EXPERIMENT_BUDGET


@dataclass(frozen=True)
class Stage:
    id: str
    label: str
    kinds: tuple[str, ...]   # the workload kinds it holds

    @property
    def line(self) -> Line:
        return Line(f"stage_{self.id}", f"{self.label} compute", in_total=False)


STAGES = (
    Stage("pretraining", "Pre-training", ("pretrain",)),
    Stage("post_training", "Post-training", ("finetune", "post_training", "rl")),
    Stage("experiments", "Experiments", ("sweep", "ablation", "exploratory")),
    Stage("evals", "Evals", ("eval",)),
)
EXPERIMENTS = STAGES[2]
PER_EXPERIMENT = Line("experiment_cost", "Cost per experiment (one run's compute)", in_total=False)
PER_BUDGET = "stage_experiments_per_budget"  # experiments per 10,000 of the currency, a row of its own
RUNS = "stage_experiment_runs"


def _of(plan: Any, stage: Stage) -> list[Any]:
    return [w for w in plan.workloads if w.kind in stage.kinds]


def lines(plan: Plan) -> list[Line]:
    found = [stage.line for stage in STAGES if _of(plan, stage)]
    return found + ([PER_EXPERIMENT] if _of(plan, EXPERIMENTS) else [])


def experiments(view: MarketView) -> tuple[float, float]:
    """The experiments' compute and runs on the market."""
    done = [compute.workload_compute(view, w) for w in _of(view.plan, EXPERIMENTS)]
    return sum(d.cost for d in done), sum(d.runs for d in done)


def per_budget(cost_per_experiment: float) -> float:
    """Experiments per 10,000 of the currency (nothing where an experiment costs nothing)."""
    return EXPERIMENT_BUDGET / cost_per_experiment if cost_per_experiment else 0.0


def reference(view: MarketView) -> dict[str, float]:
    out = {stage.line.id: sum(compute.workload_compute(view, w).cost for w in _of(view.plan, stage))
           for stage in STAGES if _of(view.plan, stage)}
    if _of(view.plan, EXPERIMENTS):
        cost, runs = experiments(view)
        # no runs: no compute either, so dividing by one says nothing; a number or each sample of an array
        # (`simulate` runs this rule on arrays), with no test of truth
        out[PER_EXPERIMENT.id] = cost / (runs + (runs == 0))
    return out


def build(book: Blueprint, plan: Plan, inp: Inputs) -> None:
    """Rows at the foot of the Compute sheet, under their own heading."""
    present = [stage for stage in STAGES if _of(plan, stage)]
    if not present:
        return
    sheet = CalcSheet.resume(book, plan, compute.TITLE)
    money0 = st.money(plan.currency)
    sheet.section("Stages: inside Compute, beside the total")

    def names(stage: Stage, what: str):
        return lambda m: sum_arguments([book.ref(f"cmp_{w.id}_{what}_{m.id}", sheet.sheet) for w in _of(plan, stage)])

    rows = {}
    for stage in present:
        rows[stage.id] = sheet.row(f"{stage.label} compute (workloads of kind {', '.join(stage.kinds)})",
                                   plan.currency, money0, "=SUM({parts})", stage.line.id, kind="figure",
                                   item=stage.line.id, parts=names(stage, "compute"))
    if EXPERIMENTS in present:
        runs = sheet.row("Experiment runs", "runs", st.COUNT, "=SUM({parts})", RUNS, parts=names(EXPERIMENTS, "runs"))
        cost = sheet.row(PER_EXPERIMENT.label, plan.currency, money0, "=IF({runs}=k_none,k_none,{compute}/{runs})",
                         PER_EXPERIMENT.id, kind="figure", item=PER_EXPERIMENT.id, runs=runs,
                         compute=rows[EXPERIMENTS.id])
        sheet.row("Experiments per 10,000 of the currency", "runs", st.COUNT,
                  "=IF({cost}=k_none,k_none,k_experiment_budget/{cost})", PER_BUDGET, cost=cost)
    sheet.gap()


ITEM = LineItem(id="stages", doc=rule(__doc__), known_lines=(*(s.line for s in STAGES), PER_EXPERIMENT),
                lines=lines, reference=reference, build=build, sheet_titles=no_sheet)
