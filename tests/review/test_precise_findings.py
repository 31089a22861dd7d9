"""Clear answers where there used to be weak ones (issue 16, item 10), through the real command line.

Each case is a real file: a generated workbook edited with openpyxl the way a
user's tool would, or a plan file; the CLI runs in-process (`cli_run.run`),
and the exit code and the exact line on stderr are asserted.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import openpyxl
import pytest
from cli_run import run, sha

from budgetbook.api import check_workbook, generate_workbook
from budgetbook.errors import UsageError
from budgetbook.planfile.loader import template_text

FT = "finetune-13b-lora"
PRICE = "mkt_hyperscaler_on_demand_price_h100_sxm"   # Inputs!C5, 3.00
PRICE_LABEL = ("Hyperscaler (on-demand) price per GPU-hour, H100_SXM: expected a number at least 0 and "
               "at most 1e6 money, got ")
COMPUTE = "compute_hyperscaler_on_demand"            # Compute!C16 =SUM(C12)


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    return generate_workbook(FT, tmp_path_factory.mktemp("answers") / f"{FT}.xlsx")


def edited(book: Path, target: Path, **cells) -> Path:
    """A copy of `book` with each named cell set (openpyxl, then saved)."""
    wb = openpyxl.load_workbook(book)
    for name, value in cells.items():
        (sheet, ref), = wb.defined_names[name].destinations
        wb[sheet][ref.replace("$", "")].value = value
    wb.save(target)
    return target


def check_json(capsys, path: Path) -> tuple[int, dict]:
    before = sha(path)
    code, out, err = run(capsys, "check", path, "--format", "json")
    assert err == "" and sha(path) == before, err
    return code, json.loads(out)


def one_line(capsys, *args) -> tuple[int, str]:
    """(exit code, the one stderr line) of a command that fails with nothing on stdout."""
    code, out, err = run(capsys, *args)
    assert out == "" and len(err.splitlines()) == 1, (out, err)
    return code, err.rstrip("\n")


def invalid(report: dict, name: str) -> dict:
    found, = [f for f in report["findings"] if f["kind"] == "invalid_input" and f["name"] == name]
    return found


# ---------------------------------------------------------------- tolerances

@pytest.mark.parametrize(("option", "value", "problem"), [
    ("--rel-tol", "nan", "must be a finite number, got nan"),
    ("--rel-tol", "-1e-9", "must be at least 0, got -1e-09"),
    ("--abs-tol", "-0.5", "must be at least 0, got -0.5"),
    ("--abs-tol", "inf", "must be a finite number, got inf"),
])
def test_nan_or_negative_tolerance_is_a_usage_error(capsys, book, option, value, problem):
    """NaN made every comparison false, so every figure passed; now it is refused before any work."""
    code, line = one_line(capsys, "check", book, option, value)
    assert code == 2
    # the program's name in the hint is argv[0]: `budgetbook` from the script, the runner's name here
    assert line.startswith(f"Error: Invalid value for '{option}': {problem} (see `")
    assert line.endswith(" check --help`)")


def test_library_refuses_a_nan_tolerance_too(book):
    with pytest.raises(UsageError, match="^`rel_tol` must be a finite number, got nan$"):
        check_workbook(book, rel_tol=math.nan)


# ---------------------------------------------------------------- a constant in formula clothing

@pytest.mark.parametrize("typed", ["=144000", "=100000+44000", "=(150000)"])
def test_constant_formula_over_a_calculation_is_hardcoded(capsys, book, tmp_path, typed):
    code, report = check_json(capsys, edited(book, tmp_path / "constant.xlsx", **{COMPUTE: typed}))
    kinds = {(f["kind"], f["name"]) for f in report["findings"]}
    assert ("formula_changed", COMPUTE) not in kinds
    hard, = [f for f in report["findings"] if f["kind"] == "hardcoded"]
    assert {k: hard[k] for k in ("severity", "sheet", "cell", "name", "expected")} == \
        {"severity": "error", "sheet": "Compute", "cell": "C16", "name": COMPUTE, "expected": "=SUM(C12)"}
    assert hard["message"] == f"formula replaced by a constant typed as a formula (`{typed}`)"
    assert code == 1 and report["ok"] is False  # hardcoded is an error even where the number is right


def test_formula_still_reading_cells_stays_formula_changed(capsys, book, tmp_path):
    _, report = check_json(capsys, edited(book, tmp_path / "changed.xlsx", **{COMPUTE: "=SUM(C12)*1"}))
    assert [f["kind"] for f in report["findings"] if f["name"] == COMPUTE] == ["formula_changed"]


# ---------------------------------------------------------------- inputs that are not numbers

def test_circular_input_says_circular_reference(capsys, book, tmp_path):
    path = edited(book, tmp_path / "circular.xlsx", **{PRICE: "=Inputs!C5*1"})
    code, report = check_json(capsys, path)
    assert code == 1
    assert invalid(report, PRICE)["message"] == \
        PRICE_LABEL + "a circular reference: its formula `=Inputs!C5*1` reads itself"
    code, line = one_line(capsys, "extract", path)
    assert code == 2
    assert line == (f"Error: {path}: Inputs!C5 ({PRICE}): " + PRICE_LABEL
                    + "a circular reference: its formula `=Inputs!C5*1` reads itself")


def test_cycle_through_another_input_names_the_path(capsys, book, tmp_path):
    other = "mkt_decentralized_market_price_h100_sxm"
    path = edited(book, tmp_path / "pair.xlsx", **{PRICE: f"={other}*1", other: f"={PRICE}*0.6"})
    _, report = check_json(capsys, path)
    message = invalid(report, PRICE)["message"]
    assert message.startswith(PRICE_LABEL + f"a circular reference: its formula `={other}*1` reads itself through "
                              "Inputs!C"), message
    assert "blank" not in message


def test_long_text_input_is_quoted_short(capsys, book, tmp_path):
    path = edited(book, tmp_path / "long.xlsx", **{PRICE: "x" * 32_767})
    _, report = check_json(capsys, path)
    message = invalid(report, PRICE)["message"]
    assert message == PRICE_LABEL + "'" + "x" * 56 + "... (32,767 characters)"
    code, line = one_line(capsys, "extract", path)
    assert code == 2
    assert line == f"Error: {path}: Inputs!C5 ({PRICE}): {message}"  # 33 KB before


def test_overflowing_input_formula_is_num_not_a_rejected_formula(capsys, book, tmp_path):
    """`=1E308*10` is #NUM! in Excel: say that, naming the workbook and cell, not a temporary file."""
    path = edited(book, tmp_path / "overflow.xlsx", **{PRICE: "=1E308*10"})
    code, line = one_line(capsys, "extract", path)
    assert code == 2
    assert line == (f"Error: {path}: Inputs!C5 ({PRICE}): " + PRICE_LABEL
                    + "'#NUM!': its formula `=1E308*10` does not give a finite number")
    code, report = check_json(capsys, path)
    assert code == 1
    assert invalid(report, PRICE)["actual"] == "#NUM!"


# ---------------------------------------------------------------- plans

def test_id_collision_names_the_plan_file(capsys, tmp_path):
    """Two ids that make one defined name: the line names plan.yaml, not the plan's `name:`."""
    text = template_text(FT)
    start, end = text.index("markets:"), text.index("workloads:")
    markets = """markets:
  - id: x
    gpu_prices: {H100_SXM: 3.0, H_egress_per_gb: 1.0}
  - id: x_price_h
    gpu_prices: {H100_SXM: 2.0}
    egress_per_gb: 0.05
"""
    plan = tmp_path / "plan.yaml"
    plan.write_text(text[:start] + markets + text[end:])
    code, line = one_line(capsys, "generate", plan, "-o", tmp_path / "out.xlsx")
    assert code == 2
    assert line == (f"Error: {plan}: `markets[1].id`: two cells of the workbook would both be named "
                    "`mkt_x_price_h_egress_per_gb` "
                    "(ids that run into each other, such as `a_b` + `c` and `a` + `b_c`): rename one id")
    assert not (tmp_path / "out.xlsx").exists()


@pytest.mark.parametrize("command", ["generate"])  # `show BOOK.xlsx` reads its embedded plan (test_cli_show_book)
def test_workbook_given_as_plan_points_to_check_and_extract(capsys, book, tmp_path, command):
    before = sha(book)
    code, line = one_line(capsys, command, book, *(["-o", tmp_path / "x.xlsx"] if command == "generate" else []))
    assert code == 2
    assert line == (f"Error: {book}: is an Excel workbook (a zip archive), not a plan file: check it with "
                    f"`budgetbook check {book}`, or write its inputs back as a plan with "
                    f"`budgetbook extract {book} -o plan.yaml`")
    assert sha(book) == before
