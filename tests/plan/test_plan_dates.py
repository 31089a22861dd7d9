"""Calendar-true months in plans (issue 27 item 8): nothing past 9999-12, an impossible month refused by key path.

Excel's calendar ends on 9999-12-31: a plan whose `start` and windows run past 9999-12 was accepted
and `show --by month` labelled months `10000-01`. Now every window, in every scenario, is held to
9999-12 and the first past it is named by its key path; a calendar-month start more than 600 months
after the plan's start is refused as the same offset is; year 0000 is no year. Real plan files through
the real command line; and a workbook whose months are edited past 9999-12 names the cell.
"""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from cli_run import run

from budgetbook.api import generate_workbook

PLAN = """\
name: late
start: {start}
markets:
  - {{id: cloud, gpu_prices: {{H100: 2.0}}}}
workloads:
  - {{id: train, gpu: H100, ideal_gpu_hours: 100, utilization: 1.5, months: {months}{extra}}}
people:
  roles: [{{role: engineer, count: 1, months: {role_months}, monthly_cost: 10000}}]
"""


def plan(tmp_path: Path, start: str = "9999-10", months: str = "3", extra: str = "", role_months: str = "1") -> Path:
    path = tmp_path / "plan.yaml"
    path.write_text(PLAN.format(start=start, months=months, extra=extra, role_months=role_months))
    return path


def refused(capsys, *args) -> str:
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, (code, out, err)
    return err.rstrip("\n")


def test_a_plan_that_ends_in_9999_12_is_fine_and_labelled_to_it(tmp_path, capsys):
    code, out, err = run(capsys, "show", plan(tmp_path), "--by", "month", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["months"] == ["9999-10", "9999-11", "9999-12"]


@pytest.mark.parametrize(("kwargs", "key", "runs_to"), [
    ({"start": "9999-12", "months": "2"}, "workloads[0].months", "10000-01"),
    ({"months": "{low: 2, base: 3, high: 4}"}, "workloads[0].months", "10000-01 (in the high case)"),
    ({"extra": ", checkpoints: {size_gb: 1, saves: 1, retention_months: 2}"},
     "workloads[0].checkpoints.retention_months", "10000-02"),
    ({"role_months": "12"}, "people.roles[0].months", "10000-09"),
])
@pytest.mark.parametrize("command", ["show", "generate"])
def test_a_window_past_9999_12_is_refused_with_its_key_path(tmp_path, capsys, kwargs, key, runs_to, command):
    path = plan(tmp_path, **kwargs)
    args = (command, path, "--by", "month") if command == "show" else (command, path, "-o", tmp_path / "b.xlsx")
    line = refused(capsys, *args)
    assert line.startswith(f"Error: {path}: `{key}`: it runs to {runs_to}, past 9999-12"), line
    assert not (tmp_path / "b.xlsx").exists()


@pytest.mark.parametrize(("start", "said"), [
    ("0000-01", "the calendar has no year 0000"),
    ("2026-13", "expected a month as YYYY-MM"),
    ("10000-01", "expected a month as YYYY-MM"),
])
def test_a_month_that_is_not_one_is_refused(tmp_path, capsys, start, said):
    path = plan(tmp_path, start=start)
    line = refused(capsys, "show", path)
    assert line.startswith(f"Error: {path}: `start`: ") and said in line, line


def test_a_calendar_start_past_the_offset_cap_is_refused(tmp_path, capsys):
    """`start: 2090-01` is 768 months after 2026-01: as an offset it would be refused (at most 600)."""
    path = plan(tmp_path, start="2026-01", extra=", start: 2090-01")
    line = refused(capsys, "show", path)
    assert line == (f"Error: {path}: `workloads[0].start`: 2090-01 is 768 months after the plan's start 2026-01; "
                    "at most 600 (as for an offset)"), line


def test_months_edited_past_9999_12_in_the_workbook_name_the_cell(tmp_path, capsys):
    book = generate_workbook(plan(tmp_path), tmp_path / "late.xlsx")
    wb = openpyxl.load_workbook(book)
    (sheet, ref), = wb.defined_names["wl_train_months"].destinations
    wb[sheet][ref.replace("$", "")] = 5
    wb.save(tmp_path / "edited.xlsx")
    code, out, err = run(capsys, "check", tmp_path / "edited.xlsx", "--format", "json")
    assert code == 1, err
    bad, = [f for f in json.loads(out)["findings"] if f["kind"] == "invalid_input"]
    assert (bad["sheet"], bad["cell"], bad["name"]) == (sheet, ref.replace("$", ""), "wl_train_months")
    assert "runs to 10000-02, past 9999-12" in bad["message"]
