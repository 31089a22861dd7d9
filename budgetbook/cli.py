"""The command line: thin commands over the library; `main` turns errors into one line."""

from __future__ import annotations

import json
import sys
import traceback
import warnings
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from . import __version__
from .errors import BudgetbookError
from .plan.loader import load_plan

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Turn an ML training budget into an Excel workbook of live formulas.")

_DEBUG = {"on": False}


class ShowFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"


def _version(value: bool):
    if value:
        typer.echo(f"budgetbook {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    debug: bool = typer.Option(False, "--debug", help="Show the traceback of an unexpected error."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
):
    _DEBUG["on"] = debug


@app.command()
def templates():
    """List the built-in templates, one a line, with a one-line description."""
    from .plan.loader import template_description, template_names

    names = template_names()
    width = max(map(len, names))
    for name in names:
        typer.echo(f"{name:<{width}}  {template_description(name)}")


@app.command()
def init(
    template: str = typer.Argument(..., help="Template name (see `budgetbook templates`)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Plan file to write (default: TEMPLATE.yaml)."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing file."),
):
    """Write a commented plan file from a template."""
    from .atomic import refuse_overwrite, write_text_atomic
    from .plan.loader import template_text

    text = template_text(template)
    output = output or Path(f"{template}.yaml")
    refuse_overwrite(output, force)
    write_text_atomic(output, text)
    typer.echo(f"wrote {output}", err=True)


@app.command()
def show(
    plan: Optional[str] = typer.Argument(None, help="Plan file or template name (default: finetune-13b-lora)."),
    format: ShowFormat = typer.Option(ShowFormat.table, "--format", "-f", help="Output format."),
):
    """Print the reference model's figures for a plan."""
    from .reference import compute_breakdown

    breakdown = compute_breakdown(load_plan(plan))
    if format is ShowFormat.json:
        typer.echo(json.dumps(breakdown.as_json(), indent=2))
    else:
        from .printing import render

        render(breakdown, format.value)


@app.command()
def schema():
    """Print the plan's JSON Schema (for editors: `budgetbook schema > plan.schema.json`)."""
    from .plan.schema import plan_schema

    typer.echo(json.dumps(plan_schema(), indent=2))


@app.command()
def generate(
    plan: Optional[str] = typer.Argument(None, help="Plan file or template name (default: finetune-13b-lora)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Workbook to write (default: <plan name>.xlsx)."),
    force: bool = typer.Option(False, "--force", help="Replace a workbook even if it was edited since generated."),
):
    """Write the plan as an Excel workbook of live formulas."""
    from .review.guard import ensure_replaceable
    from .plan.loader import plan_from_text, resolve
    from .workbook import write_workbook

    source, text = resolve(plan)
    parsed = plan_from_text(text, source)
    out = output if output is not None else Path(f"{parsed.name}.xlsx")
    if not force:
        ensure_replaceable(out)
    write_workbook(parsed, text, out)
    typer.echo(f"Wrote {out}")


class CheckFormat(str, Enum):
    table = "table"
    json = "json"


@app.command()
def check(
    book: Path = typer.Argument(..., help="Workbook to check (.xlsx)."),
    plan: Optional[str] = typer.Option(None, "--plan", help="Check against this plan instead of the embedded one."),
    format: CheckFormat = typer.Option(CheckFormat.table, "--format", "-f", help="Output format."),
    rel_tol: float = typer.Option(1e-9, "--rel-tol", help="Relative tolerance of a figure against the reference."),
    abs_tol: float = typer.Option(0.005, "--abs-tol", help="Absolute tolerance, in currency units."),
):
    """Re-evaluate an edited workbook and report what differs from the accounting (exit 1 on errors)."""
    from .review.check import check_workbook

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
    book: Path = typer.Argument(..., help="Workbook made by `budgetbook generate` (.xlsx)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Plan file to write (default: standard output)."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing plan file."),
):
    """Write the workbook's current inputs back as a plan file, keeping the plan's comments."""
    from .atomic import refuse_overwrite, write_text_atomic
    from .review.extract import extract_plan_text

    text = extract_plan_text(book)
    if output is None:
        typer.echo(text, nl=False)
        return
    refuse_overwrite(output, force)
    write_text_atomic(output, text, protect=[book])
    typer.echo(f"Wrote {output}", err=True)


def main(argv: list[str] | None = None) -> int:
    """Run the app; a `BudgetbookError` is one line on stderr, anything else one line saying it is a bug."""
    with warnings.catch_warnings():
        # "always": a warning is about this plan, so a second run in one process must show it too
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *a, **k: print(f"Warning: {message}", file=sys.stderr)
        return _run(argv)


def _run(argv: list[str] | None) -> int:
    try:
        # standalone_mode=False: click returns a `typer.Exit(code)` raised in a command instead of raising it
        result = app(args=argv, standalone_mode=False)
        return result if isinstance(result, int) and not isinstance(result, bool) else 0
    except BudgetbookError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return exc.exit_code
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        print("Aborted.", file=sys.stderr)
        return 1
    except Exception as exc:  # click usage errors arrive here too
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


def _is_usage_error(exc: Exception) -> bool:
    # typer 0.29 vendors click as typer._click; older typers raise click's own classes
    import click

    vendored = getattr(getattr(typer, "_click", None), "exceptions", None)
    classes = [click.exceptions.ClickException] + ([vendored.ClickException] if vendored else [])
    return isinstance(exc, tuple(classes))


def run() -> None:
    sys.exit(main())
