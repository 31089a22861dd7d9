"""The library behind the command line: one function per command, returning data; `cli.py` parses, calls
one of these, hands the result to its renderer in `output/` and exits.

    from budgetbook import api

    api.generate_workbook("finetune-13b-lora", "budget.xlsx")
    report = api.check_workbook("budget.xlsx")
    print(report.ok, [f.message for f in report.findings])

A plan (`spec`) is a path to a plan file or the name of a built-in template; None is the default template.
`strict` (`--strict`) refuses a plan with warnings (exit 2), after the warnings are issued (`warnings.warn`,
`PlanWarning`); it is passed down to the loader, never held anywhere else. Every function raises a
`BudgetbookError` (one line naming the file) on bad input and prints nothing. No output ever replaces one
of the command's inputs, with or without `force`. Heavy modules are imported inside the functions, so
importing this one (and `budgetbook --help`) stays fast.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .atomic import PathLike, check_destination
from .progress import stage
from .review.compare import DEFAULT_ABS_TOL, DEFAULT_REL_TOL

if TYPE_CHECKING:
    from .actuals.api import ImportResult
    from .actuals.reforecast import Reforecast
    from .ledger.variance import VarianceReport
    from .plan.model import Plan
    from .planning.fit import Fit
    from .planning.options import Options
    from .ranges.sensitivity import Sensitivity
    from .ranges.simulate import Simulation
    from .reference import Breakdown, MonthlyBreakdown
    from .review.bridge import Bridge
    from .review.check import CheckReport
    from .review.diff import BudgetDiff
    from .review.report import Report
    from .review.sides import Side, Unreadable
    from .workbook.write import Written

__all__ = [
    "book_variance",
    "budget_text",
    "calibrate_plan",
    "budget_report",
    "check_output",
    "check_workbook",
    "diff_bridge",
    "diff_budgets",
    "export_plan",
    "extract_plan",
    "fit_plan",
    "generate_workbook",
    "gpu_catalog",
    "import_actuals",
    "init_plan",
    "options",
    "list_templates",
    "plan_schema",
    "reforecast",
    "sensitivity",
    "show_months",
    "show_plan",
    "simulate",
    "write_output",
]


def list_templates() -> list[tuple[str, str]]:
    """(name, one-line description) of every built-in template, by name."""
    from .plan.templates import template_description, template_names

    return [(name, template_description(name)) for name in template_names()]


SCHEMA_FILE = "plan.schema.json"  # the name the templates' modeline points to


def init_plan(template: str, out: PathLike | None = None, *, force: bool = False) -> Path:
    """Write the commented plan file of a built-in template to `out` (default: TEMPLATE.yaml)."""
    from .atomic import write_text_atomic
    from .plan.templates import template_text

    text = template_text(template)
    out = Path(out) if out is not None else Path(f"{template}.yaml")
    inputs = _plan_files(template)
    check_destination(out, protect=inputs, force=force)
    return write_text_atomic(out, text, protect=inputs)


def init_schema(plan: PathLike, *, force: bool = False) -> tuple[Path, bool]:
    """Write the plan's JSON Schema beside `plan`, as the `$schema=plan.schema.json` modeline of every template
    names it, so an editor finds it: (its path, whether it was written). An existing file is kept, unless
    `force` or it already holds this very schema."""
    import json

    from .atomic import write_text_atomic
    from .planfile.schema import plan_schema as schema

    out = Path(plan).parent / SCHEMA_FILE
    text = json.dumps(schema(), indent=2) + "\n"  # as `budgetbook schema` prints it
    if out.exists() and not force:
        return out, False
    check_destination(out, force=True)
    return write_text_atomic(out, text), True


def show_plan(spec: str | Path | None = None, *, strict: bool = False) -> Breakdown:
    """The reference model's figures for a plan (or a workbook's embedded plan, its current inputs)."""
    from .reference import compute_breakdown

    return compute_breakdown(_shown_plan(spec, strict))


def show_months(spec: str | Path | None = None, *, strict: bool = False, view: str = "expense") -> MonthlyBreakdown:
    """The reference model's development cost month by month (base case), per market; `view="cash"` puts an
    owned cluster's purchase in its month instead of its depreciation."""
    from .reference import compute_monthly

    return compute_monthly(_shown_plan(spec, strict), view=view)


def _shown_plan(spec: str | Path | None, strict: bool) -> Plan:
    """The plan `show` prints: a plan file or template, or a workbook's embedded plan with the inputs
    it holds now (what `extract` would write); `BOOK.xlsx@baseline`: the plan it froze (`review.sides`)."""
    from .planfile.loader import plan_from_text
    source, text, shape = _shown_text(spec)  # a book's is laid out no more than its embedded plan is
    return plan_from_text(text, source, strict=strict, shaped_like=shape)


def _shown_text(spec: str | Path | None) -> tuple[str, str, Plan | None]:
    """(source, text, the embedded plan of the same ids) of the plan `show` prints (a book's: current inputs)."""
    from .planfile.loader import resolve
    from .review.sides import load_side, split_version
    if isinstance(spec, str) and split_version(spec)[1] is not None:  # BOOK.xlsx@baseline, @reforecast
        return f"{spec} (a version of the book)", load_side(spec).text, None
    if spec is not None and is_workbook_file(Path(spec)):
        from .review.extract import extracted
        return (f"{spec} (embedded plan, current inputs)", *extracted(Path(spec)))
    return (*resolve(spec), None)


def is_workbook_file(path: Path) -> bool:
    """Whether `path` is a file that starts as an .xlsx (a zip archive) does."""
    from .xlsx.file_bytes import ZIP_MAGICS

    try:
        if not path.is_file():
            return False
        with open(path, "rb") as handle:
            return handle.read(8).startswith(ZIP_MAGICS)
    except OSError:
        return False


# --- physics (issue 13): the GPU catalog and the calibration against published runs ---------------

def gpu_catalog() -> list[dict[str, Any]]:
    """The GPU catalog, one dict per GPU: id, name, dense BF16 and FP8 peaks, memory, aliases, source, date."""
    from dataclasses import asdict

    from .plan.catalog import CATALOG

    return [asdict(gpu) for gpu in CATALOG.values()]


def calibrate_plan(spec: str | Path | None = None, *, strict: bool = False) -> dict[str, Any]:
    """Where each workload's MFU sits against the published runs (`calibration.calibrate`)."""
    from .physics.calibration import calibrate
    from .planfile.loader import load_plan

    return calibrate(load_plan(spec, strict=strict))


def plan_schema() -> dict[str, Any]:
    """The plan's JSON Schema."""
    from .planfile.schema import plan_schema as schema

    return schema()


def output_schema(command: str) -> dict[str, Any]:
    """The closed JSON Schema of `command`'s `--format json` (`output.schemas`); a `UsageError` for another."""
    from .errors import UsageError
    from .output.schemas import COMMANDS, report
    from .plan.model import suggest

    if command not in COMMANDS:
        raise UsageError(f"no JSON output schema for `{command}`{suggest(command, COMMANDS)} (one of: "
                         f"{', '.join(COMMANDS)})")
    return report(command)


def generate_workbook(spec: str | Path | None = None, out: PathLike | None = None, *,
                      force: bool = False, password: str | None = None, strict: bool = False) -> Path:
    """Write the plan's workbook to `out` (default: <plan name>.xlsx) and return its path (`generate`)."""
    return generate(spec, out, force=force, password=password, strict=strict)[0].path


def generate(spec: str | Path | None = None, out: PathLike | None = None, *,
             force: bool = False, password: str | None = None, strict: bool = False) -> tuple[Written, Breakdown]:
    """Write the plan's workbook to `out` (default: <plan name>.xlsx): what was written (`Written`: sheets,
    formula cells, the master check) and the plan's breakdown (its decision).

    Every sheet is protected with its inputs unlocked; `password` (`--protect`) sets a password.

    An existing workbook is replaced only when it is untouched since it was generated, or with `force`;
    the plan itself never, even with `force` (checked before the existing file is read).
    """
    from .errors import PlanError
    from .planfile.loader import plan_and_book, resolve
    from .reference import compute_breakdown
    from .review.guard import ensure_replaceable
    from .workbook.protect import check_password
    from .workbook.write import write_workbook_saying

    check_password(password)
    source, text = resolve(spec)
    plan, *laid_out = plan_and_book(text, source, strict=strict)  # laid out once; the writer takes it (memory)
    out = Path(out) if out is not None else Path(f"{plan.name}.xlsx")
    inputs = _plan_files(spec)
    check_destination(out, protect=inputs)
    if not force:
        ensure_replaceable(out)
    try:
        return (write_workbook_saying(plan, text, out, protect=inputs, password=password, laid_out=laid_out),
                compute_breakdown(plan))
    except PlanError as exc:  # ids that make one defined name: the plan file is at fault, not its `name:`
        raise exc.with_source(source) from None


def check_workbook(book: PathLike, plan: str | Path | None = None, *, rel_tol: float = DEFAULT_REL_TOL,
                   abs_tol: float = DEFAULT_ABS_TOL) -> CheckReport:
    """Re-evaluate a workbook and hold it against the reference model (`plan`: another baseline plan)."""
    from .review.check import check_workbook as check
    from .review.compare import check_tolerances

    check_tolerances(rel_tol, abs_tol)
    return check(Path(book), plan, rel_tol=rel_tol, abs_tol=abs_tol)


def extract_plan(book: PathLike, out: PathLike | None = None, *, force: bool = False) -> str:
    """The workbook's current inputs as plan text, comments kept; written to `out` too when given."""
    from .atomic import write_text_atomic
    from .review.extract import extract_plan_text

    text = extract_plan_text(Path(book))
    if out is not None:
        check_destination(out, protect=[book], force=force)
        write_text_atomic(out, text, protect=[book])
    return text


def export_plan(spec: str | Path | None, out: PathLike | None = None, *, format: str = "focus-forecast",
                force: bool = False, strict: bool = False, start: str | None = None) -> str:
    """The plan (a workbook's: its current inputs) as a FOCUS-shaped forecast CSV; written to `out` when given.
    `start` (YYYY-MM) dates a plan that gives no `start:` of its own."""
    from .actuals.focus_forecast import FORMAT, dated, forecast_csv
    from .atomic import write_text_atomic
    from .errors import UsageError

    if format != FORMAT:
        raise UsageError(f"--format {format} is not an export format; use --format {FORMAT}")
    stage("reading the plan")
    plan = dated(_shown_plan(spec, strict), start, spec)
    stage("forecast rows")
    text = forecast_csv(plan)
    if out is not None:
        check_destination(out, protect=_plan_files(spec), force=force)  # a workbook's own path too
        write_text_atomic(out, text, protect=_plan_files(spec))
    return text


def _plan_files(spec: str | Path | None) -> list[Path]:
    """The file a plan `spec` is read from (a plan file, or the template's own file), as outputs' `protect`."""
    from .planfile.loader import plan_file

    found = plan_file(spec)
    return [found] if found is not None and found.exists() else []


# ---------------------------------------------------------------- diff and textconv (issue 15)

def diff_budgets(old: str, new: str, *, fail_above: str | None = None) -> BudgetDiff:
    """What changed from budget `old` to `new`: each a plan file, template name, workbook or `git:REV:path`.

    `fail_above` ("5000" in the currency, or "5%") sets the line `BudgetDiff.over` reports markets above.
    """
    from .review.diff import diff_budgets as diff

    return diff(old, new, fail_above)


def budget_text(spec: str) -> tuple[Side | Unreadable, str | None]:
    """One budget (plan file, template, workbook or `git:REV:path`), for git's textconv: (found, problem).

    git gives textconv a file it must not fail on (a plan committed half edited would stop
    `git diff` as a whole), so an existing file that is not a readable budget is still
    returned, as `Unreadable` (its own text, or its size and SHA-256), and `problem` says why.
    Anything else that cannot be read raises. `output.diff.render_textconv` writes either as text.
    """
    from .errors import BudgetbookError
    from .review.sides import load_side

    try:
        return load_side(spec), None
    except BudgetbookError as exc:
        if spec.startswith("git:") or not Path(spec).is_file():
            raise
        return _unreadable(Path(spec), exc.reason), str(exc)


def _unreadable(path: Path, reason: str) -> Unreadable:
    import hashlib

    from .plan.yamlsafe import MAX_PLAN_BYTES
    from .review.sides import Unreadable

    size = path.stat().st_size
    if size <= MAX_PLAN_BYTES:
        try:
            return Unreadable(path, reason, path.read_bytes().decode("utf-8"), size, None)
        except UnicodeDecodeError:
            pass
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return Unreadable(path, reason, None, size, digest.hexdigest())


# ---------------------------------------------------------------- budget vs actuals (issue 12): actuals/

def import_actuals(book: PathLike, bills: Sequence[PathLike], out: PathLike | None = None, *,
                   mapping: PathLike | None = None, force: bool = False, replace: bool = False) -> ImportResult:
    """Read `bills` into the workbook's Actuals and Variance sheets, written to `out` (`actuals.api`)."""
    from .actuals.api import import_actuals as import_bills

    return import_bills(book, bills, out, mapping=mapping, force=force, replace=replace)


def reforecast(book: PathLike, out: PathLike, *, force: bool = False, from_actuals: bool = False) -> Reforecast:
    """Freeze the book's plan as its baseline (a later reforecast keeps it), the current inputs (`from_actuals`:
    re-estimated from the bills' run rate) the reforecast (`actuals.reforecast`)."""
    from .actuals.reforecast import reforecast as make

    return make(book, out, force=force, actuals=from_actuals)


def book_variance(book: PathLike) -> VarianceReport:
    """Plan vs actuals of a workbook with bills, per market and line item (`actuals.api.book_variance`)."""
    from .actuals.api import book_variance as variance

    return variance(book)


def diff_bridge(result: BudgetDiff, market: str | None = None) -> Bridge | None:
    """The bridge of a diff: a market's total from old to new, one step per changed input (`review.bridge`)."""
    from .review.bridge import bridge

    return bridge(result, market)


def budget_report(spec: str | Path | None = None, *, samples: int = 10_000) -> Report:
    """What `report` shows of a plan or a workbook (`review.report.gather`): a workbook is read as `show` reads
    it (its embedded plan, current inputs) and checked, its bills held against the plan."""
    from .planfile.loader import DEFAULT_TEMPLATE
    from .review.report import gather

    book = Path(spec) if spec is not None and is_workbook_file(Path(spec)) else None
    return gather(str(spec or DEFAULT_TEMPLATE), _shown_plan(spec, False), book, samples=samples)


def _present(inputs: Sequence[str | Path | None]) -> list[Path]:
    """The command's inputs that are files (a template name is not): what its outputs must never replace."""
    return [Path(p) for p in inputs if p is not None and Path(p).exists()]


def check_output(path: PathLike, *inputs: str | Path | None) -> Path:
    """Before the work: `path` may be written (replaced if it exists), and is none of `inputs` (one line, exit 2)."""
    return check_destination(path, protect=_present(inputs))


def write_output(path: PathLike, data: str | bytes, *inputs: str | Path | None) -> Path:
    """A page (text) or a picture (`output.charts`' bytes) written atomically, never over one of `inputs`."""
    from .atomic import write_bytes_atomic, write_text_atomic

    if isinstance(data, bytes):
        return write_bytes_atomic(path, data, protect=_present(inputs))
    return write_text_atomic(path, data, protect=_present(inputs))


# ---------------------------------------------------------------- ranges (issue 14): sensitivity and simulation

def sensitivity(spec: str | Path | None = None, market: str | None = None) -> Sensitivity:
    """Each ranged input alone at its low and its high: `market`'s total (default: the cheapest), by swing."""
    from .planfile.loader import load_plan
    from .ranges.sensitivity import sensitivity as sensitivity_of

    return sensitivity_of(load_plan(spec), market)


def simulate(spec: str | Path | None = None, samples: int = 10_000, seed: int = 0,  # ranges.simulate.DEFAULT_*
             distribution: str = "triangular") -> Simulation:
    """Monte Carlo over the plan's ranges: each market's P10/P50/P90 and mean, and how often it is cheapest."""
    from .planfile.loader import load_plan
    from .ranges.simulate import simulate as simulate_plan

    return simulate_plan(load_plan(spec), samples, seed, distribution)


# ---------------------------------------------------------------- planning in reverse (issue 24): planning/

def fit_plan(spec: str | Path | None, budget: float | None, solve: str | None, *, workload: str | None = None,
             market: str | None = None, deadline: float | None = None, tokens_per_param: float | None = None,
             out: PathLike | None = None, force: bool = False) -> Fit:
    """One input (`solve`: tokens, params, gpus, days, runs) solved so that `market`'s total development
    cost equals `budget` (`planning.fit`; None: the plan's `fit:`); with `out`, the solved plan is written
    there, comments kept. A workbook is read as `show` reads it (its embedded plan, current inputs)."""
    from .atomic import write_text_atomic
    from .planfile.loader import plan_from_text
    from .planfile.rewrite import rewrite_values
    from .planning.fit import fit

    source, text, shape = _shown_text(spec)
    plan = plan_from_text(text, source, shaped_like=shape)
    stage("solving")
    inputs = _plan_files(spec)  # a workbook's own path too
    if out is not None:
        check_destination(out, protect=inputs, force=force)
    result = fit(plan, budget, solve, workload=workload, market=market, deadline=deadline,
                 tokens_per_param=tokens_per_param)
    if out is not None:
        solved = rewrite_values(text, plan, result.values)
        plan_from_text(solved, f"{out} (solved plan)")  # what we write must load
        write_text_atomic(out, solved, protect=inputs)
    return result


def options(spec: str | Path | None = None) -> Options:
    """The plan's serving volume met each way: an API, or the plan's own model on each market (`planning.options`)."""
    from .planfile.loader import load_plan
    from .planning.options import options as options_of

    return options_of(load_plan(spec))
