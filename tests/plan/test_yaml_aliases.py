"""YAML anchors and aliases in a plan are refused with one line naming the file, the line and the key path.

An alias makes two places of a plan one value: after a legitimate edit of one
workload's input in the workbook, `check` reported false mismatches and
`extract` silently changed the other workload too. Every command refuses them,
the plan file and a workbook whose embedded plan holds one alike.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from cli_run import run, sha

from budgetbook.planfile.loader import template_text

BASE = template_text("finetune-13b-lora")
CHECKPOINTS = BASE[BASE.index("    checkpoints:\n"):BASE.index("\npeople:")]
SECOND = """  - id: second_pass
    label: Second pass
    kind: finetune
    gpu: H100_SXM
    ideal_gpu_hours: 1000
    utilization: 1.5
    checkpoints: *ck
"""
# both workloads save checkpoints the same way; the second says so with an alias
ALIASED = BASE.replace("    checkpoints:\n", "    checkpoints: &ck\n").replace("\npeople:", "\n" + SECOND + "\npeople:")
WRITTEN_OUT = BASE.replace("\npeople:", "\n" + SECOND.replace("    checkpoints: *ck\n", CHECKPOINTS) + "\npeople:")
ALIAS_LINE = ALIASED.splitlines().index("    checkpoints: *ck") + 1
MESSAGE = (f"`workloads[1].checkpoints` (line {ALIAS_LINE}): YAML aliases (`*ck`) are not allowed in plans: "
           "write the values out")


def one_error_line(code: int, out: str, err: str) -> str:
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.rstrip("\n")


@pytest.mark.parametrize("command", ["show", "generate"])
def test_aliased_plan_is_refused_naming_file_line_and_key(capsys, tmp_path, command):
    plan = tmp_path / "plan.yaml"
    plan.write_text(ALIASED)
    before = sha(plan)
    args = ["-o", tmp_path / "out.xlsx"] if command == "generate" else []
    line = one_error_line(*run(capsys, command, plan, *args))
    assert line.startswith(f"Error: {plan}: {MESSAGE}"), line
    assert sha(plan) == before and not (tmp_path / "out.xlsx").exists()


def test_the_same_plan_written_out_loads(capsys, tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text(WRITTEN_OUT)
    code, _, err = run(capsys, "show", plan, "--format", "json")
    assert code == 0, err


def _with_embedded_plan(source: Path, text: str, out: Path) -> Path:
    """A generated workbook whose embedded plan is `text` (as a workbook made before aliases were refused)."""
    wb = openpyxl.load_workbook(source)
    ws = wb["_budgetbook"]
    assert ws["B3"].value == 1
    ws["B4"] = text
    ws["B4"].data_type = "s"
    wb.save(out)
    return out


@pytest.mark.parametrize("command", ["check", "extract"])
def test_workbook_whose_embedded_plan_has_an_alias_is_refused(capsys, tmp_path, command):
    plan = tmp_path / "plan.yaml"
    plan.write_text(WRITTEN_OUT)
    code, _, err = run(capsys, "generate", plan, "-o", tmp_path / "clean.xlsx")
    assert code == 0, err
    book = _with_embedded_plan(tmp_path / "clean.xlsx", ALIASED, tmp_path / "aliased.xlsx")
    wb = openpyxl.load_workbook(book)
    saves = "wl_finetune_ckpt_save_every_steps"
    sheet, cell = next(iter(wb.defined_names[saves].destinations))
    wb[sheet][cell.replace("$", "")] = 1000  # a legitimate edit of the first workload's input only
    wb.save(book)
    before = sha(book)
    line = one_error_line(*run(capsys, command, book, *(["--format", "json"] if command == "check" else [])))
    assert line.startswith(f"Error: {book}: its embedded plan is damaged: {MESSAGE}"), line
    assert sha(book) == before
