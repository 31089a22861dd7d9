"""The library behind the command line: one function per command; `cli.py` only parses, prints and exits.

    from budgetbook import api

    api.generate_workbook("finetune-13b-lora", "budget.xlsx")
    report = api.check_workbook("budget.xlsx")
    print(report.ok, [f.message for f in report.findings])

A plan (`spec`) is a path to a plan file or the name of a built-in template;
None is the default template. Every function raises a `BudgetbookError` (one
line naming the file) on bad input and prints nothing. No output ever replaces
one of the command's inputs, with or without `force`. Heavy modules are
imported inside the functions, so importing this one (and `budgetbook --help`)
stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .atomic import PathLike, check_destination
from .review.compare import DEFAULT_ABS_TOL, DEFAULT_REL_TOL

if TYPE_CHECKING:
    from .reference import Breakdown, MonthlyBreakdown
    from .review.check import CheckReport
    from .review.diff import BudgetDiff

__all__ = [
    "budget_text",
    "calibrate_plan",
    "check_workbook",
    "diff_budgets",
    "extract_plan",
    "generate_workbook",
    "gpu_catalog",
    "init_plan",
    "list_templates",
    "plan_schema",
    "show_months",
    "show_plan",
]


def list_templates() -> list[tuple[str, str]]:
    """(name, one-line description) of every built-in template, by name."""
    from .plan.templates import template_description, template_names

    return [(name, template_description(name)) for name in template_names()]


def init_plan(template: str, out: PathLike | None = None, *, force: bool = False) -> Path:
    """Write the commented plan file of a built-in template to `out` (default: TEMPLATE.yaml)."""
    from .atomic import write_text_atomic
    from .plan.templates import template_text

    text = template_text(template)
    out = Path(out) if out is not None else Path(f"{template}.yaml")
    inputs = _plan_files(template)
    check_destination(out, protect=inputs, force=force)
    return write_text_atomic(out, text, protect=inputs)


def show_plan(spec: str | Path | None = None) -> Breakdown:
    """The reference model's figures for a plan (or a workbook's embedded plan, its current inputs)."""
    from .reference import compute_breakdown

    return compute_breakdown(_shown_plan(spec))


def show_months(spec: str | Path | None = None) -> MonthlyBreakdown:
    """The reference model's development cost month by month (base case), per market."""
    from .reference import compute_monthly

    return compute_monthly(_shown_plan(spec))


def _shown_plan(spec: str | Path | None) -> Any:
    """The plan `show` prints: a plan file or template, or a workbook's embedded plan with the inputs
    it holds now (what `extract` would write)."""
    from .plan.loader import load_plan, plan_from_text

    if spec is not None and is_workbook_file(Path(spec)):
        from .review.extract import extract_plan_text

        return plan_from_text(extract_plan_text(Path(spec)), f"{spec} (embedded plan, current inputs)")
    return load_plan(spec)


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


def calibrate_plan(spec: str | Path | None = None) -> dict[str, Any]:
    """Where each workload's MFU sits against the published runs (`calibration.calibrate`)."""
    from .calibration import calibrate
    from .plan.loader import load_plan

    return calibrate(load_plan(spec))


def plan_schema() -> dict[str, Any]:
    """The plan's JSON Schema."""
    from .plan.schema import plan_schema as schema

    return schema()


def generate_workbook(spec: str | Path | None = None, out: PathLike | None = None, *,
                      force: bool = False, password: str | None = None) -> Path:
    """Write the plan's workbook to `out` (default: <plan name>.xlsx) and return its path.

    Every sheet is protected with its inputs unlocked; `password` (`--protect`) sets a password.

    An existing workbook is replaced only when it is untouched since it was
    generated, or with `force`; the plan itself never, even with `force`
    (checked before the existing file is read).
    """
    from .errors import PlanError
    from .plan.loader import plan_from_text, resolve
    from .review.guard import ensure_replaceable
    from .workbook import write_workbook
    from .workbook.protect import check_password

    check_password(password)
    source, text = resolve(spec)
    plan = plan_from_text(text, source)
    out = Path(out) if out is not None else Path(f"{plan.name}.xlsx")
    inputs = _plan_files(spec)
    check_destination(out, protect=inputs)
    if not force:
        ensure_replaceable(out)
    try:
        return write_workbook(plan, text, out, protect=inputs, password=password)
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


def _plan_files(spec: str | Path | None) -> list[Path]:
    """The file a plan `spec` is read from (a plan file, or the template's own file), as outputs' `protect`."""
    from .plan.loader import plan_file

    found = plan_file(spec)
    return [found] if found is not None and found.exists() else []


# ---------------------------------------------------------------- diff and textconv (issue 15)

def diff_budgets(old: str, new: str, *, fail_above: str | None = None) -> BudgetDiff:
    """What changed from budget `old` to `new`: each a plan file, template name, workbook or `git:REV:path`.

    `fail_above` ("5000" in the currency, or "5%") sets the line `BudgetDiff.over` reports markets above.
    """
    from .review.diff import diff_budgets as diff

    return diff(old, new, fail_above)


def budget_text(spec: str) -> tuple[str, str | None]:
    """One budget (plan file, template, workbook or `git:REV:path`) as stable text, for git's textconv.

    Returns (text, problem). git gives textconv a file it must not fail on (a plan committed half
    edited would stop `git diff` as a whole), so an existing file that is not a readable budget is
    still text: the problem on the first line, then the file's own text (or, if it is not text,
    its size and SHA-256), and `problem` says why. Anything else that cannot be read raises.
    """
    from .errors import BudgetbookError
    from .output.diff import budget_text as text
    from .output.diff import unreadable_text
    from .review.sides import load_side

    try:
        return text(load_side(spec)), None
    except BudgetbookError as exc:
        if spec.startswith("git:") or not Path(spec).is_file():
            raise
        return unreadable_text(Path(spec), exc.reason), str(exc)
