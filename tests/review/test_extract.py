"""`budgetbook extract` through the real entry point: a workbook's edited inputs back as a plan.

The oracle is LibreOffice: the plan `extract` writes, run through `show`, must
give the figures LibreOffice computes for the edited workbook itself.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import openpyxl
import pytest
from cli_run import run, sha
from libreoffice import cell_values, needs_libreoffice, needs_uno, recalculate, uno_session
from ruamel.yaml import YAML

from budgetbook.api import generate_workbook
from budgetbook.planfile.loader import template_text

FT = "finetune-13b-lora"


def extract(capsys, book: Path, out: Path) -> str:
    before = sha(book)
    code, stdout, err = run(capsys, "extract", book, "-o", out)
    assert (code, stdout, err) == (0, "", f"Wrote {out}\n")
    assert sha(book) == before
    return out.read_text()


def show(capsys, plan: Path) -> dict:
    before = sha(plan)
    code, out, err = run(capsys, "show", plan, "--format", "json")
    assert (code, err) == (0, "")
    assert sha(plan) == before
    return json.loads(out)


def assert_show_equals_libreoffice(shown: dict, book: Path) -> None:
    values = cell_values(book)
    assert shown["figures"]
    for f in shown["figures"]:
        lo = values[f["name"]]
        assert isinstance(lo, (int, float)), (f["name"], lo)
        assert math.isclose(f["value"], lo, rel_tol=1e-9, abs_tol=1e-9), f"{f['name']}: show {f['value']} != LO {lo}"


def comments(text: str) -> list[str]:
    return ["#" + line.split("#", 1)[1] for line in text.splitlines() if "#" in line]


def node(text: str, *path):
    data = YAML(typ="safe").load(text)
    for part in path:
        data = data[part]
    return data


# --- fixtures -----------------------------------------------------------------


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("extract")


@pytest.fixture(scope="module")
def book(work) -> Path:
    return generate_workbook(FT, work / f"{FT}.xlsx")


# Inputs rows of the fine-tune template: C5 H100 price (3.00), row 7 egress range
# (0.05 / 0.09 / 0.12 in E/C/F), C15 utilization (1.6, range 1.5-1.8), C23 people count (2).
UNO_OPS = [
    {"op": "insert_rows", "sheet": "Inputs", "index": 3, "count": 1},  # everything below moves down a row
    {"op": "set_value", "sheet": "Inputs", "cell": "C6", "value": 2.5},
    {"op": "set_value", "sheet": "Inputs", "cell": "E8", "value": 0.06},
    {"op": "set_value", "sheet": "Inputs", "cell": "F8", "value": 0.15},
    {"op": "set_value", "sheet": "Inputs", "cell": "C16", "value": 1.7},
    {"op": "set_value", "sheet": "Inputs", "cell": "C24", "value": 3},
]


@pytest.fixture(scope="module")
def uno_book(book, work) -> Path:
    with uno_session() as session:
        return session.edit(book, work / "uno" / "edited.xlsx", UNO_OPS)


@pytest.fixture(scope="module")
def openpyxl_book(book, work) -> Path:
    wb = openpyxl.load_workbook(book)
    ws = wb["Inputs"]
    ws["C5"] = "=2*1.25"      # an input typed as a formula: extract evaluates it
    ws["E7"], ws["F7"] = 0.04, 0.10
    ws["C24"] = 1             # role months
    path = work / "openpyxl-edited.xlsx"
    wb.save(path)
    return path


@pytest.fixture(scope="module")
def saved_book(openpyxl_book, work) -> Path:
    return recalculate(openpyxl_book, work / "lo")


# --- round trips --------------------------------------------------------------


@needs_uno
def test_extract_after_libreoffice_edits_gives_libreoffice_figures(capsys, uno_book, work):
    text = extract(capsys, uno_book, work / "uno.yaml")
    assert node(text, "markets", 0, "gpu_prices", "H100_SXM") == 2.5
    assert node(text, "markets", 0, "egress_per_gb") == {"low": 0.06, "base": 0.09, "high": 0.15}
    assert node(text, "workloads", 0, "utilization") == {"low": 1.5, "base": 1.7, "high": 1.8}
    shown = show(capsys, work / "uno.yaml")
    assert_show_equals_libreoffice(shown, uno_book)
    egress = {f["name"]: f for f in shown["figures"]}["storage_egress_hyperscaler_on_demand"]
    assert egress["low"] < egress["value"] < egress["high"]
    # and `check` agrees the workbook is just these edits
    code, out, err = run(capsys, "check", uno_book, "--plan", work / "uno.yaml", "--format", "json")
    assert (code, err) == (0, "")
    assert [f["kind"] for f in json.loads(out)["findings"]] == ["stale"]  # the computed percentiles: as generated


@needs_libreoffice
def test_extract_after_libreoffice_recalculation(capsys, saved_book, openpyxl_book, work):
    for source, name in ((saved_book, "saved.yaml"), (openpyxl_book, "unsaved.yaml")):
        text = extract(capsys, source, work / name)
        assert node(text, "markets", 0, "gpu_prices", "H100_SXM") == 2.5
        assert node(text, "markets", 0, "egress_per_gb") == {"low": 0.04, "base": 0.09, "high": 0.10}
        assert node(text, "people", "roles", 0, "months") == 1
        assert_show_equals_libreoffice(show(capsys, work / name), saved_book)
    assert (work / "saved.yaml").read_text() == (work / "unsaved.yaml").read_text()


def test_untouched_extract_is_the_template_itself(capsys, book, work, monkeypatch):
    assert extract(capsys, book, work / "same.yaml") == template_text(FT)
    code, out, err = run(capsys, "extract", book)
    assert (code, err) == (0, "") and out == template_text(FT)
    # `-o -` is standard output too, never a file named `-` (issue 27)
    monkeypatch.chdir(work)
    assert run(capsys, "extract", book, "-o", "-") == (0, template_text(FT), "")
    assert not (work / "-").exists()


def test_an_unedited_book_gives_back_its_plan_byte_for_byte(capsys, work, monkeypatch):
    """A plan laid out as ruamel would not write it (lists at the key's indent, odd spacing) comes back as
    written from a book nobody edited: no YAML round trip (~0.4 s at 40x4), and none of its layout lost."""
    import budgetbook.planfile.rewrite

    text = template_text(FT).replace("\n  - ", "\n- ").replace("\n    ", "\n  ")
    assert text != template_text(FT)
    plan, book = work / "flat.yaml", work / "flat.xlsx"
    plan.write_text(text)
    assert run(capsys, "generate", plan, "-o", book)[0] == 0
    monkeypatch.setattr(budgetbook.planfile.rewrite, "YAML", None)  # no round trip may run
    assert run(capsys, "extract", book) == (0, text, "")


@needs_uno
def test_extract_keeps_comments_and_layout(capsys, uno_book, work):
    original = template_text(FT)
    text = extract(capsys, uno_book, work / "comments.yaml")
    assert comments(text) == comments(original)
    assert len(text.splitlines()) == len(original.splitlines())
    changed = [(a, b) for a, b in zip(original.splitlines(), text.splitlines()) if a != b]
    assert len(changed) == 4  # price, egress range, utilization, people count
    assert all(a.split("#")[1:] == b.split("#")[1:] for a, b in changed)


# --- refusals -------------------------------------------------------------------


def test_plain_workbook_is_refused(capsys, work):
    plain = work / "plain.xlsx"
    wb = openpyxl.Workbook()
    wb.active["A1"] = 42
    wb.save(plain)
    before = sha(plain)
    code, out, err = run(capsys, "extract", plain)
    assert (code, out) == (2, "")
    assert err == f"Error: {plain}: no embedded budgetbook plan: not a workbook made by `budgetbook generate`\n"
    assert sha(plain) == before


@pytest.mark.parametrize("force", [False, True])
def test_output_over_the_input_workbook_is_refused(capsys, book, force):
    before = sha(book)
    code, out, err = run(capsys, "extract", book, "-o", book, *(["--force"] if force else []))
    assert (code, out) == (2, "")
    assert err.startswith(f"Error: {book}: ") and err.count("\n") == 1
    assert "would overwrite the input file" in err and "--force" not in err  # --force would not help
    assert sha(book) == before


def test_output_over_an_existing_plan_needs_force(capsys, book, work):
    plan = work / "existing.yaml"
    plan.write_text("keep me\n")
    code, _, err = run(capsys, "extract", book, "-o", plan)
    assert code == 2 and "--force" in err and plan.read_text() == "keep me\n"
    code, _, err = run(capsys, "extract", book, "-o", plan, "--force")
    assert code == 0 and plan.read_text() == template_text(FT)


def test_a_low_above_its_value_is_written_widened_and_said(capsys, book, work):
    """A fair edit (issue 25): the range written covers the value, with one warning naming the cell."""
    wb = openpyxl.load_workbook(book)
    wb["Inputs"]["E7"] = 0.10  # low above the base of 0.09
    wide = work / "wide-range.xlsx"
    wb.save(wide)
    before = sha(wide)
    code, out, err = run(capsys, "extract", wide, "-o", work / "wide.yaml")
    assert (code, out) == (0, "")
    assert err.startswith(f"Warning: {wide}: Inputs!C7 (") and "widened to 0.09 to 0.12" in err, err
    assert "egress_per_gb: {low: 0.09, base: 0.09, high: 0.12}" in (work / "wide.yaml").read_text()
    assert sha(wide) == before


def test_text_in_an_input_is_one_line_exit_2(capsys, book, work):
    wb = openpyxl.load_workbook(book)
    wb["Inputs"]["C5"] = "three"
    bad = work / "text-input.xlsx"
    wb.save(bad)
    code, out, err = run(capsys, "extract", bad)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "Inputs!C5" in err and "'three'" in err


def test_a_stamped_book_is_shown_and_extracted_without_laying_its_plan_out(capsys, work, monkeypatch):
    """`generate` laid the embedded plan out to write the book, and its stamp vouches for the plan: `show`
    and `extract` read no layout, so none is made (~1 s of `show BOOK` at 45,000 formula cells); `check`,
    which audits the book against it, still makes one."""
    from budgetbook.sheetkit.grid import Blueprint
    from budgetbook.workbook import build

    made: list[str] = []

    class Counted(Blueprint):
        def __init__(self, *args, **kwargs):
            made.append(args[0])
            super().__init__(*args, **kwargs)

    # a plan of its own: one of a template's content laid out by another test is remembered (`workbook.memo`)
    plan, book = work / "stamped.yaml", work / "stamped.xlsx"
    plan.write_text(template_text(FT).replace("name: ", f"name: stamped-{work.name}-", 1))
    assert run(capsys, "generate", plan, "-o", book)[0] == 0
    monkeypatch.setattr(build, "Blueprint", Counted)
    assert run(capsys, "show", book, "--format", "json")[0] == 0
    assert run(capsys, "extract", book, "-o", work / "out.yaml")[0] == 0
    assert made == []
    assert run(capsys, "check", book, "--plan", work / "out.yaml")[0] == 0
    assert made


def test_a_plans_warning_is_said_once_by_show_and_extract(capsys, work):
    """`show BOOK` said a plan's warning three times (of the embedded plan, of the extracted one and of the
    one shown) and `extract` twice: each now once, of the plan it shows or writes."""
    text = template_text("pretrain-7b")
    plan, book = work / "warned.yaml", work / "warned.xlsx"
    plan.write_text(text.replace("\n    mfu: ", "\n    mfu: 0.62  # ", 1))
    assert run(capsys, "generate", plan, "-o", book)[0] == 0
    code, _, err = run(capsys, "show", book, "--format", "json")
    assert code == 0 and [line.split(": `")[0] for line in err.splitlines()] == \
        [f"Warning: {book} (embedded plan, current inputs)"], err
    code, _, err = run(capsys, "extract", book, "-o", work / "warned-out.yaml")
    assert code == 0 and [line.split(": `")[0] for line in err.splitlines() if "mfu" in line] == \
        [f"Warning: {book} (extracted plan)"], err
