"""The command line: a skin over `api`. Each command parses, calls one `api` function, hands the result to
its renderer in `output/` and returns the exit code; `main` hands any failure to `output.failure`.

Nothing here writes to a stream: every byte goes through `output/`, behind its terminal-safety guard.
"""

import contextlib
import gc
import os
import sys
import warnings
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from . import __version__, api
from .atomic import describe_os_error
from .errors import UsageError
from .ledger.threshold import DEFAULT_THRESHOLD_PCT
from .output.emit import ask_password, error, line, text, warning, write_json, wrote
from .output.failure import report_failure
from .output.lines import render_templates
from .output.progress import shown
from .review.compare import DEFAULT_ABS_TOL, DEFAULT_REL_TOL, tolerance_problem
from .signals import Terminated, signals_as_exceptions

# Plain click help (rich_markup_mode=None): rendering it with rich costs --help ~80 ms of imports.
# add_completion: `--install-completion` / `--show-completion`, and `_BUDGETBOOK_COMPLETE` (see README)
app = typer.Typer(add_completion=True, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  context_settings={"terminal_width": 100, "max_content_width": 100},
                  help="Turn an ML training budget into an Excel workbook of live formulas.")

_DEBUG = {"on": False, "quiet": False}


def _progress(command: str, fmt: str = "table"):
    """The stages of the work inside the block on standard error, where a terminal shows them
    (`output.progress.shown`: never into a pipe, in JSON or with --quiet)."""
    return shown(command, fmt, quiet=_DEBUG["quiet"])

PlanArgument = Annotated[str | None, typer.Argument(help="Plan file or template name (default: finetune-13b-lora).")]


PASSWORD_ENV = "BUDGETBOOK_PASSWORD"  # `generate --protect`'s password, kept out of the command line

PlotOption = Annotated[Path | None, typer.Option(
    "--plot", metavar="FILE.png|svg", help="Also draw it to this picture (needs the `plots` extra).")]

StrictOption = Annotated[bool, typer.Option("--strict", help="Refuse a plan with warnings (exit 2), for CI.")]


class ShowFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"


class ShowBy(str, Enum):
    month = "month"


class ShowView(str, Enum):
    expense = "expense"
    cash = "cash"


def _charts(picture: Path | None = None, option: str = "", *inputs: str | Path | None):
    """The charts module and a picture's format, checked before the work: one line, exit 2, when matplotlib (the
    `plots` extra) is missing, the file is not .png or .svg, or it would overwrite an input."""
    from .output.plots import checked_picture

    return checked_picture(picture, option, protect=[p for p in inputs if p is not None and Path(p).exists()])


def _version(value: bool):
    if value:
        line(f"budgetbook {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    debug: Annotated[bool, typer.Option("--debug", help="Show the traceback of an unexpected error.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on standard error, even on a "
                                                                "terminal.")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
):
    _DEBUG["on"], _DEBUG["quiet"] = debug, quiet


@app.command()
def templates():
    """List the built-in templates, one a line, with a one-line description."""
    render_templates(api.list_templates())


@app.command()
def init(
    template: Annotated[str, typer.Argument(help="Template name (see `budgetbook templates`).")],
    output: Annotated[Path | None, typer.Option("--output", "-o",
                                                help="Plan file to write (default: TEMPLATE.yaml).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
):
    """Write a commented plan file from a template."""

    written = api.init_plan(template, output, force=force)
    wrote(written, err=True)
    schema_file, fresh = api.init_schema(written, force=force)
    # the plan's first line points its editor to this file (`yaml-language-server: $schema=plan.schema.json`)
    wrote(schema_file, err=True, verb="Wrote" if fresh else "Kept the existing")


@app.command()
def show(
    plan: PlanArgument = None,
    format: Annotated[ShowFormat, typer.Option("--format", "-f", help="Output format.")] = ShowFormat.table,
    by: Annotated[ShowBy | None, typer.Option("--by", help="month: the development cost month by month.")] = None,
    view: Annotated[ShowView, typer.Option("--view", help="With --by month: expense (the total development "
                                           "cost's) or cash (an owned cluster's purchase in its month).")]
    = ShowView.expense,
    strict: StrictOption = False,
):
    """Print the reference model's figures for a plan, and its workloads' GPU-hours, days and MFU."""

    if view is ShowView.cash and by is not ShowBy.month:
        raise UsageError("`--view cash` is a view of the months: give `--by month` too")
    if by is ShowBy.month:
        from .output.months import render_months  # heavy (reference model, rich): off the startup path

        render_months(api.show_months(plan, strict=strict, view=view.value), format.value)
    else:
        from .output.show import render  # heavy (reference model, rich): off the startup path

        render(api.show_plan(plan, strict=strict), format.value)


@app.command()
def schema(
    output: Annotated[str | None, typer.Option(
        "--output", metavar="COMMAND", help="Print the JSON Schema of COMMAND's --format json instead.")] = None,
):
    """Print the plan's JSON Schema (for editors: `budgetbook schema > plan.schema.json`), or a command's."""

    write_json(api.plan_schema() if output is None else api.output_schema(output))


@app.command()
def generate(
    plan: PlanArgument = None,
    output: Annotated[Path | None, typer.Option("--output", "-o",
                                                help="Workbook to write (default: <plan name>.xlsx).")] = None,
    force: Annotated[bool, typer.Option("--force",
                                        help="Replace a workbook even if it was edited since generated.")] = False,
    strict: StrictOption = False,
    protect: Annotated[str | None, typer.Option(
        "--protect", metavar="<password>", envvar=PASSWORD_ENV, show_envvar=True,
        help="Protect the sheets with this password; `-` asks for it (on the terminal, else one line of "
             "standard input), out of `ps` and shell history (they are protected, inputs unlocked, "
             "without one).")] = None,
):
    """Write the plan as an Excel workbook of live formulas."""

    from .output.show import render_generated  # heavy (reference model, rich): off the startup path

    password = ask_password("Sheet password") if protect == "-" else protect
    with _progress("generate"):
        written = api.generate(plan, output, force=force, password=password, strict=strict)
    render_generated(*written)


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
    verbose: Annotated[bool, typer.Option("--verbose", "-v",
                                          help="Print every figure beside the reference, OK or not.")] = False,
):
    """Re-evaluate an edited workbook and report what differs from the accounting (exit 1 on errors)."""
    from .output.show import render_check  # heavy (reference model, rich): off the startup path

    with _progress("check", format.value):
        report = api.check_workbook(book, plan, rel_tol=rel_tol, abs_tol=abs_tol)
    render_check(report, format.value, verbose=verbose)
    return 0 if report.ok else 1


@app.command()
def extract(
    book: Annotated[Path, typer.Argument(help="Workbook made by `budgetbook generate` (.xlsx).")],
    output: Annotated[Path | None, typer.Option("--output", "-o",
                                                help="Plan file to write (default: standard output).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing plan file.")] = False,
):
    """Write the workbook's current inputs back as a plan file, keeping the plan's comments."""

    output = _stdout(output)
    with _progress("extract"):
        plan_text = api.extract_plan(book, output, force=force)
    if output is None:
        text(plan_text)
    else:
        wrote(output, err=True)


def _stdout(output: Path | None) -> Path | None:
    """`-o -` is standard output, as no `-o` is, for the commands whose default it is."""
    return None if output is not None and str(output) == "-" else output


class ExportFormat(str, Enum):
    focus_forecast = "focus-forecast"


@app.command()
def export(
    plan: Annotated[str | None, typer.Argument(help="Plan file, template name or workbook (.xlsx): its current "
                                                    "inputs.")] = None,
    format: Annotated[ExportFormat, typer.Option("--format", "-f", help="What to write: focus-forecast, the "
                                                 "plan's months as FOCUS-shaped forecast rows (CSV).")]
    = ExportFormat.focus_forecast,
    output: Annotated[Path | None, typer.Option("--output", "-o",
                                                help="File to write (default: standard output).")] = None,
    start: Annotated[str | None, typer.Option("--start", metavar="YYYY-MM", help="The first month of a plan "
                                              "that gives no `start:` (FOCUS rows are dated).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
    strict: StrictOption = False,
):
    """Write the plan out for other tools: FOCUS-shaped forecast rows, one per market, line item and month."""

    output = _stdout(output)
    with _progress("export"):
        written = api.export_plan(plan, output, format=format.value, force=force, strict=strict, start=start)
    if output is None:
        text(written)
    else:
        wrote(output, err=True)


class DiffFormat(str, Enum):
    table = "table"
    json = "json"
    markdown = "markdown"
    html = "html"


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
    """Compare two budgets: inputs, markets and workloads, figures (exit 1 over --fail-above); html: the bridge."""
    from .output.diff import render_diff  # heavy (reference model, rich): off the startup path

    html = format is DiffFormat.html
    if html:
        _charts()  # before the work: one line naming the extra where matplotlib is missing
    with _progress("diff", format.value):
        result = api.diff_budgets(old, new, fail_above=fail_above)
        bridge = api.diff_bridge(result) if html else None
    if html:
        from .output.diff_html import render_diff_html  # matplotlib (the `plots` extra): only for html

        render_diff_html(result, bridge)
    else:
        render_diff(result, format.value)
    return 1 if result.over else 0


@app.command()
def textconv(
    file: Annotated[str, typer.Argument(help="A plan file, template name, workbook (.xlsx) or git:REV:path.")],
):
    """Print one budget as stable text: git's diff driver (`git config diff.budgetbook.textconv`)."""
    from .output.diff import render_textconv  # heavy (reference model, rich): off the startup path

    render_textconv(*api.budget_text(file))  # exit 0 even when unreadable: a failing textconv stops `git diff`


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
    replace: Annotated[bool, typer.Option("--replace", help="Replace an invoice the book holds with other rows of "
                                          "it (a re-export, or all its parts given together).")] = False,
):
    """Import bills into a workbook: an Actuals sheet (the bills) and a live Variance sheet against the plan."""
    from .output.actuals import render_import  # heavy (reference model, rich): off the startup path

    with _progress("actuals", format.value):
        result = api.import_actuals(book, bills, output, mapping=map, force=force, replace=replace)
    render_import(result, format.value)


@app.command()
def reforecast(
    book: Annotated[Path, typer.Argument(help="Workbook made by `budgetbook generate`, `actuals` or `reforecast`.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Workbook to write.")],
    from_actuals: Annotated[bool, typer.Option("--from-actuals", help="Re-estimate the current inputs from the "
                                               "bills' run rate: price paid and GPU-hours consumed so far.")] = False,
    format: Annotated[CheckFormat, typer.Option("--format", "-f", help="Output format.")] = CheckFormat.table,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing output file.")] = False,
):
    """Keep the book's plan as a frozen Baseline sheet; its current inputs become the reforecast."""
    from .output.actuals import render_reforecast  # heavy (reference model, rich): off the startup path

    with _progress("reforecast", format.value):
        result = api.reforecast(book, output, force=force, from_actuals=from_actuals)
    render_reforecast(result, format.value)


@app.command()
def variance(
    book: Annotated[Path, typer.Argument(help="Workbook with imported bills (from `budgetbook actuals`).")],
    format: Annotated[ShowFormat, typer.Option("--format", "-f", help="Output format.")] = ShowFormat.table,
    threshold: Annotated[float, typer.Option(
        "--threshold", callback=_threshold, help="Exit 1 when a line a bill can carry (a market's GPU spend, "
        "storage, people, ...) is over its plan to date by more than this percentage (0: any overspend).",
    )] = DEFAULT_THRESHOLD_PCT,
    plot: PlotOption = None,
):
    """Print plan vs actuals per market, at the level a bill can know; exit 1 when a line is over --threshold."""
    from .output.actuals import render_variance  # heavy (reference model, rich): off the startup path

    picture = _charts(plot, "--plot", book) if plot is not None else None
    report = api.book_variance(book)
    render_variance(report, format.value, threshold, workbook=str(book))
    if plot is not None and picture is not None:
        kind, charts = picture
        wrote(api.write_output(plot, charts.variance(report, kind), book), err=True)
    over = report.over(threshold)
    for found in over:
        share = found.totals()["variance_pct"] * 100
        warning(f"over budget: {report.label(found.market)} {found.label} {share:+,.1f} % of its plan to date "
                f"(threshold {threshold:g} %)")
    return 1 if over else 0
# --- physics (issue 13): the GPU catalog, calibration against published runs -----------------------

class TableOrJson(str, Enum):
    table = "table"
    json = "json"


@app.command()
def gpus(format: Annotated[TableOrJson, typer.Option("--format", "-f", help="Output format.")] = TableOrJson.table):
    """List the GPU catalog: dense BF16 and FP8 peaks, memory, aliases, source and date."""
    from .output.physics import render_gpus  # heavy (reference model, rich): off the startup path

    render_gpus(api.gpu_catalog(), format.value)


@app.command()
def calibrate(
    plan: PlanArgument = None,
    format: Annotated[TableOrJson, typer.Option("--format", "-f", help="Output format.")] = TableOrJson.table,
    strict: StrictOption = False,
    sources: Annotated[bool, typer.Option("--sources", help="List every published run with its source "
                                                            "(the table; JSON always has them).")] = False,
):
    """Show where each workload's MFU sits against published training runs (percentile)."""
    from .output.physics import render_calibration  # heavy (reference model, rich): off the startup path

    render_calibration(api.calibrate_plan(plan, strict=strict), format.value, sources=sources)
# --- planning in reverse (issue 24): budgetbook/planning/ -------------------------------------------

class Solve(str, Enum):
    tokens = "tokens"
    params = "params"
    gpus = "gpus"
    days = "days"
    runs = "runs"


@app.command()
def fit(
    plan: Annotated[str, typer.Argument(help="Plan file, template name, or workbook (its current inputs).")],
    budget: Annotated[float | None, typer.Option("--budget", help="The total development cost to spend "
                                                                  "(default: the plan's fit.budget).")] = None,
    solve: Annotated[Solve | None, typer.Option("--solve", help="The input to solve; every other is held "
                                                                "(default: the plan's fit.solve).")] = None,
    workload: Annotated[str | None, typer.Option("--workload", "-w",
                                                 help="Workload to solve (default: the final run).")] = None,
    market: Annotated[str | None, typer.Option("--market", "-m",
                                               help="Market whose total meets the budget (default: the "
                                                    "cheapest).")] = None,
    deadline: Annotated[float | None, typer.Option("--deadline", help="Wall-clock days one run must fit in "
                                                                      "(default: the workload's).")] = None,
    tokens_per_param: Annotated[float | None, typer.Option(
        "--tokens-per-param", help="With --solve params: tokens per parameter (default 20, Chinchilla).")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o",
                                                help="Write the solved plan here, comments kept.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing plan file.")] = False,
    format: Annotated[TableOrJson, typer.Option("--format", "-f", help="Output format.")] = TableOrJson.table,
):
    """Solve one input so that a market's total development cost equals a budget (default: the plan's fit:)."""
    from .output.fit import render_fit  # heavy (reference model, rich): off the startup path

    with _progress("fit", format.value):
        result = api.fit_plan(plan, budget, solve and solve.value, workload=workload, market=market,
                              deadline=deadline, tokens_per_param=tokens_per_param, out=output, force=force)
    render_fit(result, format.value)
    if output is not None:
        wrote(output, err=True)


class OptionsFormat(str, Enum):
    table = "table"
    json = "json"
    markdown = "markdown"


@app.command()
def options(
    plan: PlanArgument = None,
    format: Annotated[OptionsFormat, typer.Option("--format", "-f", help="Output format.")] = OptionsFormat.table,
):
    """Build or buy: an API against the plan's own model on each market, with the break-even volume."""
    from .output.options import render_options  # heavy (reference model, rich): off the startup path

    render_options(api.options(plan), format.value)


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
    from .output.ranges import render_sensitivity  # heavy (reference model, rich): off the startup path

    render_sensitivity(api.sensitivity(plan, market), format.value)


@app.command()
def simulate(
    plan: PlanArgument = None,
    samples: Annotated[int, typer.Option("--samples", "-n", help="Number of Monte Carlo samples.")] = 10_000,
    seed: Annotated[int, typer.Option("--seed", help="Random seed: the same seed gives the same output.")] = 0,
    distribution: Annotated[RangeDistribution, typer.Option(
        "--distribution", help="Distribution of each range.")] = RangeDistribution.triangular,
    format: Annotated[ShowFormat, typer.Option("--format", "-f", help="Output format.")] = ShowFormat.table,
    plot: PlotOption = None,
):
    """Monte Carlo over the ranges: P10/P50/P90 and mean of each market's total, and which is cheaper."""
    from .output.ranges import render_simulation  # heavy (reference model, rich): off the startup path

    picture = _charts(plot, "--plot", plan) if plot is not None else None
    with _progress("simulate", format.value):
        result = api.simulate(plan, samples, seed, distribution.value)
    render_simulation(result, format.value)
    if plot is not None and picture is not None:
        kind, charts = picture
        wrote(api.write_output(plot, charts.distributions(result, kind), plan), err=True)


@app.command()
def report(
    plan: Annotated[str | None, typer.Argument(
        help="Plan file, template name or workbook (.xlsx; then its check and variance too).")] = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="Page to write (replaced if it exists).")]
    = Path("report.html"),
    samples: Annotated[int, typer.Option("--samples", "-n", help="Monte Carlo samples for the distributions.")]
    = 10_000,
):
    """Write one self-contained HTML page: decision, totals, cash flow, tornado, distributions (a workbook: its
    check and variance); printable on A4 and Letter."""
    from .output.report_html import report_page  # heavy (matplotlib, the `plots` extra): only here

    _charts()  # before the work: one line naming the extra where matplotlib is missing
    api.check_output(output, plan)
    with _progress("report"):
        page = report_page(api.budget_report(plan, samples=samples))
    wrote(api.write_output(output, page, plan), err=True)


def main(argv: list[str] | None = None) -> int:
    """Run the app; whatever fails is one line on stderr and an exit code (`output.failure`)."""
    with warnings.catch_warnings(), signals_as_exceptions():
        # "always": a warning is about this plan, so a second run in one process must show it too
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *a, **k: warning(message)
        try:
            # standalone_mode=False: click returns a command's return value (its exit code) instead of exiting
            # prog_name: the name completion scripts and usage lines use, however the CLI was started
            result = app(args=argv, standalone_mode=False, prog_name="budgetbook")
            return result if isinstance(result, int) and not isinstance(result, bool) else 0
        except typer.Exit as exc:
            return exc.exit_code
        except (Exception, KeyboardInterrupt, Terminated) as exc:  # noqa: BLE001 - reported, bugs as bugs
            return report_failure(exc, debug=_DEBUG["on"])


def run() -> None:
    # A command is one short process that builds a few hundred thousand objects (a plan's layout, a book's
    # cells) and keeps most to its end: at the collector's default (a pass per 700 new objects) the passes
    # rescanning them took ~40 % of a 45,000-cell layout. A pass per 50,000 finds the same cycles, later.
    gc.set_threshold(50_000, 20, 20)
    code = main()
    try:
        sys.stdout.flush()  # now, not at interpreter exit, where a failure is a traceback-like notice
    except OSError as exc:
        error(f"cannot write the output: {describe_os_error(exc)}")
        code = code or 2
        with contextlib.suppress(OSError):  # what is still buffered goes nowhere, quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(code)
