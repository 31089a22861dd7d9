"""The workbook reads as a finance reader expects (issue 14, items 2 and 3): human labels, unique and
never cut off, units per unit, number formats chosen by unit, no format Excel shows as `300.`."""

from __future__ import annotations

import datetime as dt
import re

import openpyxl
import pytest

from budgetbook.lineitems.items import sheet_title
from budgetbook.plan.inputs import input_cells
from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.sheetkit import style as st
from budgetbook.workbook.inputs_sheet import LABEL_WIDTH, NOTE_WIDTH
from budgetbook.workbook.write import write_workbook

# what a price's unit column says, by the plan field that holds it
PRICE_FIELDS = {"gpu_prices": "USD per GPU-hour", "storage_per_gb_month": "USD per GB-month",
                "egress_per_gb": "USD per GB", "fallback_price_per_gpu_hour": "USD per GPU-hour",
                "api_price_per_million_tokens": "USD per million tokens",
                "api_input_price_per_million_tokens": "USD per million tokens",
                "api_output_price_per_million_tokens": "USD per million tokens"}
# a decimal part of only optional digits: Excel shows 300 as "300." (LibreOffice hides the point)
_BARE_POINT = re.compile(r"\.#+(?![0#])")


def _rows(template, folder):
    source, text = resolve(template)
    plan = plan_from_text(text, source)
    book = write_workbook(plan, text, folder / f"{template}.xlsx", dt.date(2026, 1, 1))
    wb = openpyxl.load_workbook(book)
    ws = wb["Inputs"]
    where = {name: ref.replace("$", "") for name, d in wb.defined_names.items() for sheet, ref in d.destinations
             if sheet == "Inputs"}
    return plan, wb, ws, {cell.name: ws[where[cell.name]].row for cell in input_cells(plan)}


@pytest.mark.parametrize("template", template_names())
def test_inputs_labels_units_and_formats(template, tmp_path):
    plan, wb, ws, rows = _rows(template, tmp_path)
    section, seen = "", set()
    sections = {}
    for row in range(5, ws.max_row + 1):
        section = ws.cell(row, 1).value or section
        sections[row] = section
    for cell in input_cells(plan):
        row = rows[cell.name]
        label, unit, value = ws.cell(row, 2), ws.cell(row, 4).value, ws.cell(row, 3)
        # human, unique under its section, and never cut off (it fits its column or wraps in it)
        assert label.value[0].isupper() and label.value != cell.label, (cell.name, label.value)
        assert (sections[row], label.value) not in seen, f"{template}: two rows read {label.value!r}"
        seen.add((sections[row], label.value))
        assert len(label.value) <= LABEL_WIDTH or label.alignment.wrap_text, label.value
        note = ws.cell(row, 7)
        assert not note.value or len(note.value) <= NOTE_WIDTH or note.alignment.wrap_text
        field = cell.path[-2] if cell.path[-2] == "gpu_prices" else cell.path[-1]
        if field in PRICE_FIELDS:  # a price: its unit per unit, always its cents
            assert unit == PRICE_FIELDS[field], (cell.name, unit)
            assert value.number_format == st.price("USD")
        elif cell.bounds.unit.startswith("money"):
            assert value.number_format in (st.money("USD"), st.money("USD", 2)) and unit.startswith("USD")
        elif cell.bounds.unit in ("parameters", "tokens"):
            assert value.number_format == st.SCALED
        elif cell.bounds.unit.startswith("share"):
            assert value.number_format == st.SHARE
        elif cell.bounds.unit in ("runs", "GPUs", "people", "days", "months", "steps", "saves", "count") \
                and float(cell.num.base).is_integer() and not cell.num.ranged:
            assert value.number_format == "#,##0", (cell.name, value.number_format)
    for sheet in wb.worksheets:  # no cell anywhere shows a bare trailing point
        formats = {c.number_format for r in sheet.iter_rows() for c in r if isinstance(c.value, (int, float, str))}
        assert not [f for f in formats if _BARE_POINT.search(f)], (sheet.title, formats)
    assert all(len(title) <= 31 and not title.endswith((" ", ",")) for title in wb.sheetnames)


def test_money_negatives_in_accounting_style_and_big_counts_scaled():
    # the currency pinned to a locale (`[$$-409]`): never a built-in id a reader's locale re-reads; zero a dash
    assert st.money("USD") == '[$$-409]#,##0_);([$$-409]#,##0);"-"_)'
    assert st.price("EUR") == "[$€-1809]#,##0.00##_);([$€-1809]#,##0.00##)"
    assert st.money("CHF", 2) == '"CHF "#,##0.00_);("CHF "#,##0.00);"-"_)'
    assert st.SCALED.count("[") == 2  # Excel takes at most two conditions in a format


def test_long_sheet_titles_end_on_a_word():
    taken: set[str] = set()
    assert sheet_title("Data collection, filtering and labelling", taken) == "Data collection, filtering and\u2026"
    assert sheet_title("Data collection, filtering and labelling, round two", taken) \
        == "Data collection, filtering\u2026 (2)"
    assert sheet_title("Evaluation", taken) == "Evaluation"


def test_print_areas_and_repeated_headers(tmp_path):
    _, wb, ws, _ = _rows("pretrain-7b", tmp_path)
    assert ws.print_area.replace("$", "").split("!")[-1].startswith("A1:G")  # technical columns off paper
    assert ws.print_title_rows.replace("$", "") == "4:4"
    for title, header in (("Compute", 4), ("Summary", 4), ("Procurement", 4), ("Checks", 5)):
        assert (wb[title].print_title_rows or "").replace("$", "") == f"{header}:{header}", title
        assert wb[title].cell(header, 2).value  # the row repeated is the header row
    # Cash flow and Checks run on, one page wide, their headers (Cash flow: the months and their bounds)
    # atop each page; Procurement prints as one page; Summary one page wide (its figures, then each chart on a
    # page of its own: squeezed onto one page it printed at about 5 pt, issue 25)
    cash = wb["Cash flow"]
    assert cash.print_title_rows.replace("$", "") == "4:6" and cash.cell(4, 6).value == "2026-01"
    fits = {title: (wb[title].page_setup.fitToWidth, wb[title].page_setup.fitToHeight)
            for title in ("Cash flow", "Checks", "Summary", "Procurement", "Compute")}
    assert fits == {"Cash flow": (1, 0), "Checks": (1, 0), "Summary": (1, 0), "Procurement": (1, 1),
                    "Compute": (1, 0)}


def test_the_schema_titles_are_the_inputs_titles():
    """An editor hovering a key reads what the Inputs row says (issue 14: labels from the schema's titles)."""
    from budgetbook.planfile.schema import plan_schema
    from budgetbook.sheetkit import input_labels

    defs = plan_schema()["$defs"]
    titles = {(name, field): sub.get("title") for name, node in defs.items()
              for field, sub in node.get("properties", {}).items()}
    assert titles[("Workload", "mfu")] == "Model FLOPs utilization (MFU)"
    assert titles[("Flops", "params")] == "Parameters trained"
    assert titles[("Checkpoints", "params")] == "Parameters saved per checkpoint"
    assert titles[("Market", "gpu_prices")] == "GPU-hour price"
    plan = plan_from_text(resolve("lab-year")[1], "lab-year")
    seen = 0
    for cell in input_cells(plan):
        field = str(cell.path[-2] if cell.path[-2] in ("gpu_prices", "runs") else cell.path[-1])
        shown = input_labels.title(plan, cell)
        schema_titles = {t for (_, f), t in titles.items() if f == field}
        assert any(t and t in shown for t in schema_titles), (cell.key_path, shown, schema_titles)
        seen += 1
    assert seen > 40


@pytest.mark.parametrize("template", template_names())
def test_calculation_labels_are_not_cut_off_by_the_unit_column(template, tmp_path):
    source, text = resolve(template)
    path = write_workbook(plan_from_text(text, source), text, tmp_path / "book.xlsx", dt.date(2026, 1, 1))
    wb = openpyxl.load_workbook(path)
    for title in ("Compute", "Summary", "Procurement", "Cash flow"):
        ws = wb[title]
        # a label with a unit beside it would be cut where column A is narrower (bold text is wider)
        needs = [len(str(ws.cell(r, 1).value)) * (1.1 if ws.cell(r, 1).font.b else 1.0) + 2
                 for r in range(5, ws.max_row + 1) if ws.cell(r, 1).value and ws.cell(r, 2).value]
        assert ws.column_dimensions["A"].width >= min(100, max(needs)), title
        if title == "Compute":
            assert max(needs) > 46  # what the old fixed width cut off
