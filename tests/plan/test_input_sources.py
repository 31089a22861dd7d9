"""Sources reach the workbook (issue 14, item 1): each input's YAML comment is its Inputs note and its
input message, and an edited note comes back out through `extract` as the key's comment."""

from __future__ import annotations

import datetime as dt
import re

import openpyxl
import pytest

from budgetbook.plan.comments import input_comments, with_comments
from budgetbook.plan.inputs import input_cells
from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.review.extract import extract_plan_text
from budgetbook.workbook.write import write_workbook

# a number typed after a key (inside a section: top-level dates are no inputs), then a comment:
# `H100_SXM: 3.00   # seed 000: "..."` (read apart from `plan.comments`: by the raw text's lines)
_NUMBER_LINE = re.compile(r"^\s+(?:- )?[A-Za-z_0-9]+:\s*(?:[-+0-9.eE]+|\{[^}]*\})\s+#\s*(?P<note>.+)$")


def _book(template, folder):
    source, text = resolve(template)
    plan = plan_from_text(text, source)
    return plan, text, write_workbook(plan, text, folder / f"{template}.xlsx", dt.date(2026, 1, 1))


def _notes_and_prompts(book):
    """({defined name: note}, {defined name: (prompt title, prompt, shown)}) of every input's row."""
    wb = openpyxl.load_workbook(book)
    ws = wb["Inputs"]
    prompts = {str(dv.sqref): (dv.promptTitle, dv.prompt, dv.showInputMessage)
               for dv in ws.data_validations.dataValidation}
    notes, messages = {}, {}
    for name, defined in wb.defined_names.items():
        sheet, ref = next(iter(defined.destinations))
        ref = ref.replace("$", "")
        if sheet == "Inputs" and ref.startswith("C") and ref in prompts:
            notes[name] = ws[ref].offset(column=4).value
            messages[name] = prompts[ref]
    return notes, messages


@pytest.mark.parametrize("template", template_names())
def test_every_comment_on_a_number_is_a_note_and_an_input_message(template, tmp_path):
    plan, text, book = _book(template, tmp_path)
    notes, prompts = _notes_and_prompts(book)
    written = [note for note in notes.values() if note]
    cited = [m.group("note").strip() for line in text.splitlines() if (m := _NUMBER_LINE.match(line))]
    assert len(cited) >= 10
    for comment in cited:  # every source the plan cites on a number's line is on Inputs
        assert any(comment in note for note in written), f"{template}: {comment!r} not on Inputs"
    for cell in input_cells(plan):
        title, prompt, shown = prompts[cell.name]
        assert shown and prompt.startswith("Allowed: ") and len(prompt) <= 255 and len(title) <= 32
        note = notes[cell.name]
        if note:
            assert f"Source: {note}"[:200] in prompt or prompt.endswith("\u2026"), (cell.label, prompt)


def test_comments_above_a_key_join_its_own():
    text = ("markets:\n  - id: m\n    gpu_prices:\n      H100_SXM: 3.00   # list price\n"
            "    # a day or two of tooling;\n    # the base is 0\n"
            "    extra_engineering_days: {low: 0, base: 0, high: 2}\n"
            "    storage_per_gb_month: 0.02\n")
    paths = [("markets", 0, "gpu_prices", "H100_SXM"), ("markets", 0, "extra_engineering_days"),
             ("markets", 0, "storage_per_gb_month"), ("markets", 0, "egress_per_gb")]
    assert input_comments(text, paths) == {
        paths[0]: "list price", paths[1]: "a day or two of tooling; the base is 0"}
    edited = with_comments(text, {paths[0]: "AWS p5, Dec 2026", paths[1]: "two days", paths[2]: "S3"})
    assert edited.splitlines()[3:] == ["      H100_SXM: 3.00   # AWS p5, Dec 2026",
                                       "    extra_engineering_days: {low: 0, base: 0, high: 2}   # two days",
                                       "    storage_per_gb_month: 0.02   # S3"]
    assert input_comments("a: [unclosed", paths) == {}  # notes are a courtesy: never an error


def test_an_edited_note_comes_back_out_through_extract(tmp_path):
    plan, text, book = _book("finetune-13b-lora", tmp_path)
    assert extract_plan_text(book) == text  # nothing edited: the plan as written, comments and all
    wb = openpyxl.load_workbook(book)
    ws = wb["Inputs"]
    cells = {c.path: c for c in input_cells(plan)}

    def row_of(path):
        return ws[next(iter(wb.defined_names[cells[path].name].destinations))[1].replace("$", "")].row

    storage = row_of(("markets", 0, "storage_per_gb_month"))
    egress = row_of(("markets", 0, "egress_per_gb"))
    days = row_of(("markets", 1, "extra_engineering_days"))
    ws.cell(storage, 7).value = "AWS S3 pricing page, Dec 2026"
    ws.cell(egress, 7).value = None
    ws.cell(days, 7).value = "two days of tooling, pessimistic"
    wb.save(tmp_path / "edited.xlsx")
    out = extract_plan_text(tmp_path / "edited.xlsx")
    assert "    storage_per_gb_month: 0.023   # AWS S3 pricing page, Dec 2026\n" in out
    assert "    egress_per_gb: {low: 0.05, base: 0.09, high: 0.12}\n" in out
    assert "    extra_engineering_days: {low: 0, base: 0, high: 2}   # two days of tooling, pessimistic\n" in out
    assert "expect to spend a day or two extra" not in out  # the lines above it were its note
    assert plan_from_text(out) == plan  # the numbers untouched
    again = write_workbook(plan_from_text(out), out, tmp_path / "again.xlsx", dt.date(2026, 1, 1))
    assert _notes_and_prompts(again)[0][cells[("markets", 0, "storage_per_gb_month")].name] \
        == "AWS S3 pricing page, Dec 2026"
