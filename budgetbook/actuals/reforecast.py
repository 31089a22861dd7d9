"""The library behind `budgetbook reforecast`: freeze the book's plan as its baseline, the current inputs as the
reforecast.

The first reforecast of a book takes its embedded plan (the budget as generated or
last imported into) through the reference model, month by month, and freezes that
as the baseline (`ledger.baseline`), dated; the book is then written again from its
current inputs (the reforecast), with its bills, a `Baseline` sheet and the Variance
sheet's versions rows. A later reforecast keeps that baseline and adds its date.
`--from-actuals` re-estimates the current inputs from the bills' run rate first (the
price paid per GPU-hour and the GPU-hours consumed so far: `actuals.run_rate`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from pathlib import Path

from ..atomic import PathLike, check_destination
from ..errors import WorkbookError
from ..ledger.baseline import baseline_of
from ..ledger.model import Actuals, Baseline
from ..planfile.loader import plan_from_text
from ..progress import stage
from ..reference import compute_monthly
from ..review.extract import current_plan_text
from ..review.readback import open_book
from ..workbook.build import build_streamed
from ..workbook.write import save_built
from .run_rate import RunRate, from_actuals


@dataclass
class Reforecast:
    written: Path
    baseline: Baseline
    first: bool          # this reforecast froze the baseline (the book had none)
    plan: str = ""       # the reforecast's plan name
    currency: str = ""
    run_rate: RunRate | None = None  # --from-actuals: what the bills said and the inputs it re-estimated

    def as_json(self) -> dict:
        return {"workbook": str(self.written), "plan": self.plan, "currency": self.currency, "baseline": {
            "frozen": self.baseline.frozen, "plan": self.baseline.plan, "digest": self.baseline.digest,
            "reforecasts": list(self.baseline.reforecasts),
            "totals": {m: self.baseline.total(m) for m, _ in self.baseline.markets if self.baseline.has(m)}},
            "froze": self.first} | ({"from_actuals": self.run_rate.as_json()} if self.run_rate is not None else {})

    def summary(self) -> list[str]:
        b = self.baseline
        totals = ", ".join(f"{label} {b.total(m):,.2f}" for m, label in b.markets if b.has(m))
        what = "froze the baseline" if self.first else f"kept the baseline frozen {b.frozen}"
        lines = [f"{self.written}: {what} (plan {b.plan}: {totals}); reforecast {len(b.reforecasts)} "
                 f"(dated {', '.join(b.reforecasts)}); the current inputs are the reforecast"]
        if self.run_rate is not None:
            lines.append(self.run_rate.summary())
            lines += [f"  {path}: {was:.6g} -> {now:.6g}" for path, (was, now) in self.run_rate.changed.items()]
        return lines


def reforecast(book: PathLike, out: PathLike, *, force: bool = False, today: dt.date | None = None,
               actuals: bool = False) -> Reforecast:
    """Write `book` to `out` as a reforecast: its baseline frozen (or kept), its current inputs the plan (with
    `actuals`, re-estimated from the bills' run rate first)."""
    book, out = Path(book), Path(out)
    check_destination(out, protect=[book], force=force)
    stage("reading the workbook")
    opened = open_book(book)
    today = today or dt.date.today()
    text = current_plan_text(opened)
    plan = plan_from_text(text, f"{book} (current inputs)")
    held = opened.actuals if opened.actuals is not None else Actuals(plan.currency)
    if held.currency != plan.currency:
        raise WorkbookError(f"its bills are in {held.currency} but its plan is now in {plan.currency}",
                            source=str(book))
    held_baseline = held.baseline
    first = held_baseline is None
    if held_baseline is None:
        stage("freezing the baseline")
        frozen = opened.plan
        baseline = baseline_of(compute_monthly(frozen), [(m.id, m.label or m.id) for m in frozen.markets],
                               today.isoformat(), opened.plan_text)
    else:
        baseline = held_baseline
        if baseline.digest != baseline.expected_digest():
            raise WorkbookError("its baseline (hidden sheet `_actuals`) does not match its digest: it was edited "
                                "after it was frozen; reforecast from a book whose `check` is OK", source=str(book))
    run_rate = None
    if actuals:
        if not held.batches:
            raise WorkbookError("--from-actuals: the book has no bills; import them first (`budgetbook actuals "
                                "BOOK BILLS... -o OUT`)", source=str(book))
        stage("re-estimating the inputs from the actuals")
        plan, text, run_rate = from_actuals(plan, text, held, str(book))
    baseline = baseline.with_reforecast(today.isoformat())
    stage("building the workbook")
    save_built(build_streamed(plan, text, today, actuals=replace(held, baseline=baseline)), out, protect=[book])
    return Reforecast(out, baseline, first, plan.name, plan.currency, run_rate)
