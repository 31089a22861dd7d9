"""The command line: a skin over `api` (parse, call, print, exit code); `main` turns errors into one line."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import traceback
import warnings
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeGuard

import typer

from . import __version__
from .atomic import describe_os_error
from .errors import BudgetbookError
from .review.compare import DEFAULT_ABS_TOL, DEFAULT_REL_TOL, tolerance_problem
from .signals import Terminated, signals_as_exceptions

if TYPE_CHECKING:
    from click import ClickException

# Plain click help (rich_markup_mode=None): rendering it with rich costs --help ~80 ms of imports.
# add_completion: `--install-completion` / `--show-completion`, and `_BUDGETBOOK_COMPLETE` (see README)
app = typer.Typer(add_completion=True, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  context_settings={"terminal_width": 100, "max_content_width": 100},
                  help="Turn an ML training budget into an Excel workbook of live formulas.")

_DEBUG = {"on": False}
_NOTHING_HALF_WRITTEN = "no file was left half-written (outputs are replaced only once complete)"

PlanArgument = Annotated[str | None, typer.Argument(help="Plan file or template name (default: finetune-13b-lora).")]


StrictOption = Annotated[bool, typer.Option("--strict", help="Refuse a plan with warnings (exit 2), for CI.")]


def _strict() -> None:
    """`--strict`: the plan's warnings are still shown, then it is refused (exit 2); `main` resets it."""
    from .strictness import STRICT

    STRICT.set(True)


class ShowFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"


class ShowBy(str, Enum):
    month = "month"


def _version(value: bool):
    if value:
        typer.echo(f"budgetbook {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    debug: Annotated[bool, typer.Option("--debug", help="Show the traceback of an unexpected error.")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
):
    _DEBUG["on"] = debug


@app.command()
def templates():
    """List the built-in templates, one a line, with a one-line description."""
    from .api import list_templates

    listed = list_templates()
    width = max(len(name) for name, _ in listed)
    for name, description in listed:
        typer.echo(f"{name:<{width}}  {description}")


@app.command()
def init(
    template: Annotated[str, typer.Argument(help="Template name (see `budgetbook templates`).")],
    output: Annotated[Path | None, typer.Option("--output", "-o",
                                                help="Plan file to write (default: TEMPLATE.yaml).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
):
    """Write a commented plan file from a template."""
    from .api import init_plan

    written = init_plan(template, output, force=force)
    typer.echo(f"wrote {written}", err=True)


@app.command()
def show(
    plan: PlanArgument = None,
    format: Annotated[ShowFormat, typer.Option("--format", "-f", help="Output format.")] = ShowFormat.table,
    by: Annotated[ShowBy | None, typer.Option("--by", help="month: the development cost month by month.")] = None,
    strict: StrictOption = False,
):
    """Print the reference model's figures for a plan, and its workloads' GPU-hours, days and MFU."""
    from .api import show_months, show_plan

    if strict:
        _strict()
    if by is ShowBy.month:
        monthly = show_months(plan)
        if format is ShowFormat.json:
            typer.echo(json.dumps(monthly.as_json(), indent=2))
        else:
            from .printing_months import render_months

            render_months(monthly, format.value)
        return
    breakdown = show_plan(plan)
    if format is ShowFormat.json:
        typer.echo(json.dumps(breakdown.as_json(), indent=2))
    else:
        from .printing import render

        render(breakdown, format.value)


@app.command()
def schema():
    """Print the plan's JSON Schema (for editors: `budgetbook schema > plan.schema.json`)."""
    from .api import plan_schema

    typer.echo(json.dumps(plan_schema(), indent=2))


@app.command()
def generate(
    plan: PlanArgument = None,
    output: Annotated[Path | None, typer.Option("--output", "-o",
                                                help="Workbook to write (default: <plan name>.xlsx).")] = None,
    force: Annotated[bool, typer.Option("--force",
                                        help="Replace a workbook even if it was edited since generated.")] = False,
    strict: StrictOption = False,
    protect: Annotated[str | None, typer.Option(
        "--protect", metavar="<password>",
        help="Protect the sheets with this password (they are protected, inputs unlocked, without one).")] = None,
):
    """Write the plan as an Excel workbook of live formulas."""
    from .api import generate_workbook

    if strict:
        _strict()

    written = generate_workbook(plan, output, force=force, password=protect)
    typer.echo(f"Wrote {written}")


class CheckFormat(str, Enum):
    table = "table"
    json = "json"


def _tolerance(value: float) -> float:
    """A tolerance option: NaN would let every figure pass, a negative one none (a usage error, exit 2)."""
    problem = tolerance_problem(value)
    if problem is not None:
        raise typer.BadParameter(problem)
    return value


def _threshold(value: float) -> float:
    """`variance --threshold`: a percentage; NaN would pass every line (click's range check calls it too large)."""
    problem = tolerance_problem(value) or (f"must be at most 1e6 (a percentage), got {value:g}" if value > 1e6
                                           else None)
    if problem is not None:
        raise typer.BadParameter(problem)
    return value


@app.command()
def check(
    book: Annotated[Path, typer.Argument(help="Workbook to check (.xlsx).")],
    plan: Annotated[str | None, typer.Option("--plan",
                                             help="Check against this plan instead of the embedded one.")] = None,
    format: Annotated[CheckFormat, typer.Option("--format", "-f", help="Output format.")] = CheckFormat.table,
    rel_tol: Annotated[float, typer.Option(
        "--rel-tol", callback=_tolerance,
        help="Relative tolerance of a figure against the reference.")] = DEFAULT_REL_TOL,
    abs_tol: Annotated[float, typer.Option(
        "--abs-tol", callback=_tolerance, help="Absolute tolerance, in currency units.")] = DEFAULT_ABS_TOL,
):
    """Re-evaluate an edited workbook and report what differs from the accounting (exit 1 on errors)."""
    from .api import check_workbook

    report = check_workbook(book, plan, rel_tol=rel_tol, abs_tol=abs_tol)
    if format is CheckFormat.json:
        typer.echo(json.dumps(report.as_json(), indent=2, default=str))
    else:
        from .printing import render_check

        render_check(report)
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def extract(
    book: Annotated[Path, typer.Argument(help="Workbook made by `budgetbook generate` (.xlsx).")],
    output: Annotated[Path | None, typer.Option("--output", "-o",
                                                help="Plan file to write (default: standard output).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing plan file.")] = False,
):
    """Write the workbook's current inputs back as a plan file, keeping the plan's comments."""
    from .api import extract_plan

    text = extract_plan(book, output, force=force)
    if output is None:
        typer.echo(text, nl=False)
    else:
        typer.echo(f"Wrote {output}", err=True)


class DiffFormat(str, Enum):
    table = "table"
    json = "json"
    markdown = "markdown"


BUDGET_HELP = "a plan file, template name, workbook (.xlsx) or git:REV:path."


@app.command()
def diff(
    old: Annotated[str, typer.Argument(help=f"The budget before: {BUDGET_HELP}")],
    new: Annotated[str, typer.Argument(help=f"The budget after: {BUDGET_HELP}")],
    format: Annotated[DiffFormat, typer.Option("--format", "-f", help="Output format.")] = DiffFormat.table,
    fail_above: Annotated[str | None, typer.Option(
        "--fail-above", help="Exit 1 when a market's total rises more than this: an amount (5000) or a "
        "percentage (5%).")] = None,
):
    """Compare two budgets: inputs, markets and workloads, figures (exit 1 over --fail-above)."""
    from .api import diff_budgets

    result = diff_budgets(old, new, fail_above=fail_above)
    if format is DiffFormat.json:
        typer.echo(json.dumps(result.as_json(), indent=2, default=str))
    else:
        from .printing_diff import render_diff

        render_diff(result, format.value)
    if result.over:
        raise typer.Exit(1)


@app.command()
def textconv(
    file: Annotated[str, typer.Argument(help="A plan file, template name, workbook (.xlsx) or git:REV:path.")],
):
    """Print one budget as stable text: git's diff driver (`git config diff.budgetbook.textconv`)."""
    from .api import budget_text

    text, problem = budget_text(file)
    if problem is not None:  # still text, exit 0: a failing textconv would stop `git diff` altogether
        typer.echo(f"Warning: {problem}", err=True)
    typer.echo(text, nl=False)


# --- budget vs actuals (issue 12): budgetbook/actuals/ -------------------------------------------


@app.command()
def actuals(
    book: Annotated[Path, typer.Argument(help="Workbook made by `budgetbook generate` or `actuals` (.xlsx).")],
    bills: Annotated[list[Path], typer.Argument(help="Bills: FOCUS cost-and-usage CSV or generic CSV.")],
    output: Annotated[Path | None, typer.Option("--output", "-o",
                                                help="Workbook to write (default: BOOK-actuals.xlsx).")] = None,
    map: Annotated[Path | None, typer.Option("--map", help="Mapping file (YAML): bill lines to line items.")] = None,
    format: Annotated[CheckFormat, typer.Option("--format", "-f", help="Output format.")] = CheckFormat.table,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing output file.")] = False,
):
    """Import bills into a workbook: an Actuals sheet (the bills) and a live Variance sheet against the plan."""
    from .actuals.api import import_actuals

    result = import_actuals(book, bills, output, mapping=map, force=force)
    for warning in result.warnings:
        print(f"Warning: {warning}", file=sys.stderr)
    if format is CheckFormat.json:
        typer.echo(json.dumps(result.as_json(), indent=2))
    else:
        for line in result.summary():
            typer.echo(line)
        typer.echo(f"Wrote {result.written}")


@app.command()
def variance(
    book: Annotated[Path, typer.Argument(help="Workbook with imported bills (from `budgetbook actuals`).")],
    format: Annotated[ShowFormat, typer.Option("--format", "-f", help="Output format.")] = ShowFormat.table,
    threshold: Annotated[float, typer.Option(
        "--threshold", callback=_threshold, help="Exit 1 when a line item is over its plan to date by more than "
                                            "this percentage (default 0: any overspend).")] = 0.0,
):
    """Print plan vs actuals per market and line item; exit 1 when one is over budget beyond --threshold."""
    from .actuals.api import book_variance

    report = book_variance(book)
    if format is ShowFormat.json:
        typer.echo(json.dumps(report.as_json(threshold), indent=2))
    else:
        from .actuals.printing import render_variance

        render_variance(report, format.value, threshold)
    if report.over(threshold):
        raise typer.Exit(1)
# --- physics (issue 13): the GPU catalog, calibration against published runs -----------------------

class TableOrJson(str, Enum):
    table = "table"
    json = "json"


@app.command()
def gpus(format: Annotated[TableOrJson, typer.Option("--format", "-f", help="Output format.")] = TableOrJson.table):
    """List the GPU catalog: dense BF16 and FP8 peaks, memory, aliases, source and date."""
    from .api import gpu_catalog

    rows = gpu_catalog()
    if format is TableOrJson.json:
        typer.echo(json.dumps({"gpus": rows}, indent=2))
    else:
        from .printing_physics import render_gpus

        render_gpus(rows, sys.stdout)


@app.command()
def calibrate(
    plan: PlanArgument = None,
    format: Annotated[TableOrJson, typer.Option("--format", "-f", help="Output format.")] = TableOrJson.table,
    strict: StrictOption = False,
):
    """Show where each workload's MFU sits against published training runs (percentile)."""
    from .api import calibrate_plan

    if strict:
        _strict()
    report = calibrate_plan(plan)
    if format is TableOrJson.json:
        typer.echo(json.dumps(report, indent=2))
    else:
        from .printing_physics import render_calibration

        render_calibration(report, sys.stdout)
# ---------------------------------------------------------------- ranges: sensitivity and simulation

class RangeDistribution(str, Enum):
    triangular = "triangular"
    pert = "pert"


@app.command()
def sensitivity(
    plan: PlanArgument = None,
    market: Annotated[str | None, typer.Option("--market", "-m",
                                               help="Market to read (default: the cheapest in the base case).")] = None,
    format: Annotated[ShowFormat, typer.Option("--format", "-f", help="Output format.")] = ShowFormat.table,
):
    """Each ranged input alone at its low and at its high: the total development cost, sorted by swing."""
    from .plan.loader import load_plan
    from .ranges.sensitivity import sensitivity as sensitivity_of

    result = sensitivity_of(load_plan(plan), market)
    if format is ShowFormat.json:
        typer.echo(json.dumps(result.as_json(), indent=2))
    else:
        from .printing_ranges import render_sensitivity

        render_sensitivity(result, format.value)


@app.command()
def simulate(
    plan: PlanArgument = None,
    samples: Annotated[int, typer.Option("--samples", "-n", help="Number of Monte Carlo samples.")] = 10_000,
    seed: Annotated[int, typer.Option("--seed", help="Random seed: the same seed gives the same output.")] = 0,
    distribution: Annotated[RangeDistribution, typer.Option(
        "--distribution", help="Distribution of each range.")] = RangeDistribution.triangular,
    format: Annotated[ShowFormat, typer.Option("--format", "-f", help="Output format.")] = ShowFormat.table,
):
    """Monte Carlo over the ranges: P10/P50/P90 and mean of each market's total, and which is cheaper."""
    from .plan.loader import load_plan
    from .ranges.simulate import simulate as simulate_plan

    result = simulate_plan(load_plan(plan), samples, seed, distribution.value)
    if format is ShowFormat.json:
        typer.echo(json.dumps(result.as_json(), indent=2))
    else:
        from .printing_ranges import render_simulation

        render_simulation(result, format.value)


def main(argv: list[str] | None = None) -> int:
    """Run the app; a `BudgetbookError` is one line on stderr, anything else one line saying it is a bug."""
    with warnings.catch_warnings(), signals_as_exceptions():
        # "always": a warning is about this plan, so a second run in one process must show it too
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *a, **k: print(f"Warning: {message}", file=sys.stderr)
        from .strictness import STRICT

        strict = STRICT.set(False)  # a command's `--strict` holds for that command only
        try:
            return _run(argv)
        finally:
            STRICT.reset(strict)


def _run(argv: list[str] | None) -> int:
    try:
        # standalone_mode=False: click returns a `typer.Exit(code)` raised in a command instead of raising it
        # prog_name: the name completion scripts and usage lines use, however the CLI was started
        result = app(args=argv, standalone_mode=False, prog_name="budgetbook")
        return result if isinstance(result, int) and not isinstance(result, bool) else 0
    except BudgetbookError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return exc.exit_code
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        print("Aborted.", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"Error: interrupted; {_NOTHING_HALF_WRITTEN}", file=sys.stderr)
        return 128 + signal.SIGINT
    except Terminated as exc:
        why = "interrupted" if exc.signum == signal.SIGINT else f"stopped by {exc.signal_name}"
        print(f"Error: {why}; {_NOTHING_HALF_WRITTEN}", file=sys.stderr)
        return 128 + exc.signum
    except OSError as exc:  # files are the api's to report; what is left is the output stream itself
        print(f"Error: cannot write the output: {describe_os_error(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - anything else is a bug, reported as one; click usage errors too
        if _is_usage_error(exc):
            message = exc.format_message().replace("Value error, ", "")
            if not message:
                return 0  # bare `budgetbook`: the help was the answer
            command = getattr(getattr(exc, "ctx", None), "command_path", "budgetbook")
            print(f"Error: {message} (see `{command} --help`)", file=sys.stderr)
            return 2
        if _DEBUG["on"]:
            traceback.print_exc()
        else:
            print(f"Error: unexpected {type(exc).__name__}: {exc} (this is a bug in budgetbook; "
                  "run with --debug for the traceback)", file=sys.stderr)
        return 3


def _is_usage_error(exc: Exception) -> TypeGuard[ClickException]:
    # typer 0.29 vendors click as typer._click; older typers raise click's own classes
    import click

    vendored = getattr(getattr(typer, "_click", None), "exceptions", None)
    classes = [click.exceptions.ClickException] + ([vendored.ClickException] if vendored else [])
    return isinstance(exc, tuple(classes))


def run() -> None:
    code = main()
    try:
        sys.stdout.flush()  # now, not at interpreter exit, where a failure is a traceback-like notice
    except OSError as exc:
        print(f"Error: cannot write the output: {describe_os_error(exc)}", file=sys.stderr)
        code = code or 2
        with contextlib.suppress(OSError):  # what is still buffered goes nowhere, quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(code)
