"""Bad inputs typed into a generated workbook, unwritable outputs, internal errors, and plan edge cases.

Inputs are edited the way a user's tool would: openpyxl writes the named
input cell and saves. `check` must name the cell and its allowed range, exit 1,
and not pretend to have a reference for the figures.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import openpyxl
import pytest
from cli_run import run, sha

from budgetbook.planfile.loader import load_plan, template_text
from budgetbook.workbook.write import write_workbook


@pytest.fixture(scope="module")
def books(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("books")
    out = {}
    for name in ("finetune-13b-lora", "pretrain-7b"):
        out[name] = write_workbook(load_plan(name), template_text(name), folder / f"{name}.xlsx")
    return out


def with_input(source: Path, target: Path, name: str, value) -> tuple[Path, str, str]:
    """Copy of `source` with the cell named `name` set to `value`; returns (path, sheet, cell)."""
    wb = openpyxl.load_workbook(source)
    (sheet, ref), = wb.defined_names[name].destinations
    ref = ref.replace("$", "")
    wb[sheet][ref].value = value
    wb.save(target)
    return target, sheet, ref


# ---------------------------------------------------------------- invalid inputs in the workbook

INVALID = {
    # id: (template, input name, typed value, what the message says)
    "mfu_above_one": ("pretrain-7b", "wl_pretrain_mfu", 1.5,
                      "1.5 is out of range; must be greater than 0 and at most 1 share of peak"),
    "mfu_zero": ("pretrain-7b", "wl_pretrain_mfu", 0,
                 "0 is out of range; must be greater than 0 and at most 1 share of peak"),
    "utilization_negative": ("finetune-13b-lora", "wl_finetune_utilization", -5,
                             "-5 is out of range; must be at least 1 and at most 100 x ideal hours"),
    "text_for_number": ("finetune-13b-lora", "wl_finetune_utilization", "lots",
                        "expected a number at least 1 and at most 100 x ideal hours, got 'lots'"),
    "number_as_text": ("finetune-13b-lora", "wl_finetune_ideal_gpu_hours", "30000",
                       "expected a number greater than 0 and at most 1e12 GPU-hours, got '30000'"),
    "blank": ("finetune-13b-lora", "wl_finetune_utilization", None,
              "expected a number at least 1 and at most 100 x ideal hours, got a blank cell"),
    "boolean": ("finetune-13b-lora", "role1_count", True, "got True"),
    "too_large_for_money": ("finetune-13b-lora", "role1_monthly_cost", 1e300,
                            "1e+300 is out of range; must be at least 0 and at most 1e8"),
    "formula_dividing_by_zero": ("finetune-13b-lora", "wl_finetune_waste", "=1/0", "got '#DIV/0!'"),
    "share_above_one": ("finetune-13b-lora", "wl_finetune_ckpt_moved_share", 1.2,
                        "1.2 is out of range; must be at least 0 and at most 1 share"),
}


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_input_is_named_with_its_range(case, books, tmp_path, capsys):
    template, name, value, detail = INVALID[case]
    path, sheet, cell = with_input(books[template], tmp_path / "edited.xlsx", name, value)
    before = sha(path)
    code, out, err = run(capsys, "check", str(path), "--format", "json")
    assert code == 1 and err == "", err
    report = json.loads(out)
    assert report["ok"] is False
    invalid = [f for f in report["findings"] if f["kind"] == "invalid_input"]
    assert len(invalid) == 1, invalid
    finding = invalid[0]
    assert (finding["severity"], finding["sheet"], finding["cell"], finding["name"]) == ("error", "Inputs", cell, name)
    assert sheet == "Inputs"
    assert detail in finding["message"], finding["message"]
    # no reference is claimed for a plan the inputs do not make
    assert report["figures"] and all(f["reference"] is None for f in report["figures"])
    assert not any(f["kind"] == "mismatch" for f in report["findings"])
    # extract refuses to write such a plan, naming the same cell
    code, out, err = run(capsys, "extract", str(path))
    assert code == 2 and out == ""
    assert err.startswith(f"Error: {path}: Inputs!{cell} ({name}): ") and detail in err
    assert len(err.splitlines()) == 1
    assert sha(path) == before


def test_every_invalid_input_is_reported_at_once(books, tmp_path, capsys):
    wb = openpyxl.load_workbook(books["finetune-13b-lora"])
    for name, value in (("wl_finetune_utilization", -5), ("role1_count", "two"), ("wl_finetune_waste", None)):
        (sheet, ref), = wb.defined_names[name].destinations
        wb[sheet][ref.replace("$", "")].value = value
    path = tmp_path / "three.xlsx"
    wb.save(path)
    code, out, _ = run(capsys, "check", str(path), "--format", "json")
    report = json.loads(out)
    assert code == 1
    assert sorted(f["name"] for f in report["findings"] if f["kind"] == "invalid_input") == \
        ["role1_count", "wl_finetune_utilization", "wl_finetune_waste"]
    code, _, err = run(capsys, "extract", str(path))
    assert code == 2 and "(and 2 more)" in err and len(err.splitlines()) == 1


def test_valid_edit_in_range_is_ok(books, tmp_path, capsys):
    """The boundary itself is allowed: mfu exactly 1 is within (0, 1]."""
    path, _, cell = with_input(books["pretrain-7b"], tmp_path / "edge.xlsx", "wl_pretrain_mfu", 1)
    wb = openpyxl.load_workbook(path)
    # keep the range around the new base, as extract requires low <= base <= high
    row = wb["Inputs"][cell].row
    wb["Inputs"].cell(row, wb["Inputs"][cell].column + 2).value = 0.9  # Low (the Unit column lies between)
    wb["Inputs"].cell(row, wb["Inputs"][cell].column + 3).value = 1  # High
    wb.save(path)
    code, out, _ = run(capsys, "check", str(path), "--format", "json")
    report = json.loads(out)
    assert code == 0, report["findings"]
    changed = [f for f in report["findings"] if f["kind"] == "input_changed"]
    assert [(f["name"], f["expected"], f["actual"]) for f in changed] == [("wl_pretrain_mfu", 0.5, 1),
                                                                          ("wl_pretrain_mfu_low", 0.45, 0.9),
                                                                          ("wl_pretrain_mfu_high", 0.55, 1)]
    assert all(f["reference"] == pytest.approx(f["value"]) for f in report["figures"])


# ---------------------------------------------------------------- outputs that cannot be written

def test_extract_to_a_missing_directory(books, tmp_path, capsys):
    target = tmp_path / "no" / "such" / "plan.yaml"
    code, out, err = run(capsys, "extract", str(books["finetune-13b-lora"]), "-o", str(target))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(f"Error: {target}: ")
    assert not (tmp_path / "no").exists()


def test_extract_to_a_directory(books, tmp_path, capsys):
    target = tmp_path / "plans"
    target.mkdir()
    code, out, err = run(capsys, "extract", str(books["finetune-13b-lora"]), "-o", str(target))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(f"Error: {target}: ") and "directory" in err
    assert list(target.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_extract_into_a_read_only_directory(books, tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        code, _, err = run(capsys, "extract", str(books["finetune-13b-lora"]), "-o", str(folder / "p.yaml"))
    finally:
        folder.chmod(0o700)
    assert code == 2 and len(err.splitlines()) == 1
    assert list(folder.iterdir()) == []


def test_failed_extract_leaves_no_file(books, tmp_path, capsys):
    path, _, _ = with_input(books["finetune-13b-lora"], tmp_path / "bad.xlsx", "wl_finetune_utilization", "x")
    target = tmp_path / "plan.yaml"
    code, _, err = run(capsys, "extract", str(path), "-o", str(target))
    assert code == 2 and len(err.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.xlsx"]  # no plan, no temporary file


def test_failed_extract_keeps_the_previous_file(books, tmp_path, capsys):
    path, _, _ = with_input(books["finetune-13b-lora"], tmp_path / "bad.xlsx", "wl_finetune_utilization", "x")
    target = tmp_path / "plan.yaml"
    target.write_text("name: previous\n")
    code, _, _ = run(capsys, "extract", str(path), "-o", str(target), "--force")
    assert code == 2
    assert target.read_text() == "name: previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.xlsx", "plan.yaml"]


def test_extract_refuses_to_overwrite_without_force(books, tmp_path, capsys):
    target = tmp_path / "plan.yaml"
    target.write_text("mine\n")
    code, _, err = run(capsys, "extract", str(books["finetune-13b-lora"]), "-o", str(target))
    assert code == 2 and len(err.splitlines()) == 1 and target.read_text() == "mine\n"
    code, _, err = run(capsys, "extract", str(books["finetune-13b-lora"]), "-o", str(target), "--force")
    assert code == 0 and target.read_text() == template_text("finetune-13b-lora")


def test_extract_onto_its_own_workbook_is_refused(books, tmp_path, capsys):
    book = tmp_path / "book.xlsx"
    book.write_bytes(books["finetune-13b-lora"].read_bytes())
    before = sha(book)
    code, _, err = run(capsys, "extract", str(book), "-o", str(book), "--force")
    assert code == 2 and len(err.splitlines()) == 1
    assert sha(book) == before


def test_generate_into_a_missing_directory(tmp_path, capsys):
    target = tmp_path / "missing" / "book.xlsx"
    code, _, err = run(capsys, "generate", "finetune-13b-lora", "-o", str(target))
    assert code == 2 and len(err.splitlines()) == 1 and err.startswith(f"Error: {target}: ")
    assert not target.parent.exists()


# ---------------------------------------------------------------- a workbook its evaluator cannot read

@pytest.mark.parametrize("command", ["check", "extract"])
def test_unevaluable_formula_names_the_users_workbook(books, tmp_path, capsys, command):
    """extract used to name only the evaluator's temporary copy of the workbook."""
    path, _, _ = with_input(books["finetune-13b-lora"], tmp_path / "bad.xlsx", "wl_finetune_waste", "=SUM(1;2)")
    code, out, err = run(capsys, command, path)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and err.startswith(f"Error: {path}: ")
    assert "the formula in Inputs!C16 (`=SUM(1;2)`) is not one Excel accepts" in err


def test_unevaluable_formula_names_no_temporary_file(books, tmp_path, capsys):
    path, _, _ = with_input(books["finetune-13b-lora"], tmp_path / "bad.xlsx", "wl_finetune_waste", "=SUM(1;2)")
    _, _, err = run(capsys, "check", path)
    assert err == (f"Error: {path}: cannot evaluate the workbook: the formula in Inputs!C16 (`=SUM(1;2)`) is not "
                   "one Excel accepts; fix or clear it\n")


# ---------------------------------------------------------------- an internal error: one line, or --debug

def _explode(*args, **kwargs):
    raise RuntimeError("provoked failure inside check")


def test_internal_error_is_one_line_saying_it_is_a_bug(books, monkeypatch, capsys):
    import budgetbook.review.audit

    monkeypatch.setattr(budgetbook.review.audit, "audit_formulas", _explode)
    code, _, err = run(capsys, "check", str(books["finetune-13b-lora"]), bug_ok=True)
    assert code == 3
    assert err == ("Error: unexpected RuntimeError: provoked failure inside check (this is a bug in "
                   "budgetbook; run with --debug for the traceback)\n")


def test_debug_shows_the_traceback(books, monkeypatch, capsys):
    import budgetbook.review.audit

    monkeypatch.setattr(budgetbook.review.audit, "audit_formulas", _explode)
    code, _, err = run(capsys, "--debug", "check", str(books["finetune-13b-lora"]), bug_ok=True)
    assert code == 3
    assert err.startswith("Traceback (most recent call last):")
    assert "budgetbook/review/check.py" in err and err.rstrip().endswith("RuntimeError: provoked failure inside check")
    # the next run without --debug is back to one line
    code, _, err = run(capsys, "check", str(books["finetune-13b-lora"]), bug_ok=True)
    assert code == 3 and len(err.splitlines()) == 1 and "Traceback" not in err


def test_internal_error_in_extract_leaves_no_file(books, tmp_path, monkeypatch, capsys):
    import budgetbook.review.extract

    monkeypatch.setattr(budgetbook.review.extract, "rewrite_plan", _explode)
    target = tmp_path / "plan.yaml"
    code, _, err = run(capsys, "extract", str(books["finetune-13b-lora"]), "-o", str(target), bug_ok=True)
    assert code == 3 and "this is a bug in budgetbook" in err
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- plans: what test_plan_errors lacks

BASE = template_text("finetune-13b-lora")

PLANS = {
    "integer_400_digits": (BASE.replace("ideal_gpu_hours: 30000", "ideal_gpu_hours: " + "9" * 400),
                           ("`workloads[0].ideal_gpu_hours` (line 37): the number 999999999999... "
                           "(400 characters) is too large for any plan")),
    "integer_5000_digits": (BASE.replace("count: 2 ", "count: " + "9" * 5000 + " "),
                            "`people.roles[0].count`"),
    "hex_integer_huge": (BASE.replace("ideal_gpu_hours: 30000", "ideal_gpu_hours: 0x" + "f" * 290),
                         "the number 0xffffffffff... is too large for any plan"),
    "float_overflow": (BASE.replace("ideal_gpu_hours: 30000", "ideal_gpu_hours: 1e400"),
                       "`workloads[0].ideal_gpu_hours`: expected a finite number, got inf"),
    "utf16": (None, "byte 0xff is not UTF-8 text; save the file as UTF-8"),
    "empty": ("", "the plan is empty"),
    "only_comments": ("# nothing here\n", "the plan is empty"),
    "top_level_list": ("- 1\n- 2\n", "expected a mapping of keys, got list"),
    "two_documents": (BASE + "---\nname: other\n", "expected a single document"),
    "tab_indent": (BASE.replace("  - id: finetune", "\t- id: finetune"), "found character '\\t'"),
    "nul_byte": ("name: a\x00b\n", "invalid YAML"),
    "merge_key": ("a: &a {x: 1}\nb:\n  <<: *a\n", "`b.<<`"),
}


@pytest.mark.parametrize("case", sorted(PLANS))
def test_more_bad_plans_are_one_line(case, tmp_path, capsys):
    text, detail = PLANS[case]
    plan = tmp_path / "plan.yaml"
    content = BASE.encode("utf-16") if text is None else text.encode()
    plan.write_bytes(content)
    for command in (["show", str(plan)], ["generate", str(plan), "-o", str(tmp_path / "out.xlsx")]):
        code, out, err = run(capsys, *command)
        assert code == 2, err
        assert len(err.splitlines()) == 1 and err.startswith(f"Error: {plan}: "), err
        assert detail in err, err
        assert out == ""
    assert plan.read_bytes() == content
    assert not (tmp_path / "out.xlsx").exists()


def test_plan_path_is_a_directory(tmp_path, capsys):
    folder = tmp_path / "plan.yaml"
    folder.mkdir()
    code, _, err = run(capsys, "show", str(folder))
    assert code == 2 and err == f"Error: {folder}: not a file\n"


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_windows_and_old_mac_newlines_load(newline, tmp_path, capsys):
    plan = tmp_path / "plan.yaml"
    plan.write_bytes(BASE.replace("\n", newline).encode())
    code, out, _ = run(capsys, "show", str(plan), "--format", "json")
    assert code == 0 and json.loads(out)["figures"][0]["value"] == 144000.0
