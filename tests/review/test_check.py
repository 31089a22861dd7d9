"""`budgetbook check` through the real entry point, on real workbooks edited the way users edit them.

Edits are made with openpyxl (what a script does) and through LibreOffice's UNO
API (what a person does: type a value, insert a row, delete a sheet, save).
LibreOffice's own recalculation of each file is the oracle the figures `check`
reports are held against. Workbooks and LibreOffice round trips are made once
per module and shared.
"""

from __future__ import annotations

import json
import math
import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from cli_run import run, sha
from libreoffice import cell_values, needs_libreoffice, needs_uno, recalculate, uno_session
from openpyxl.formula.translate import Translator

from budgetbook.api import generate_workbook
from budgetbook.planfile.loader import template_names

FT = "finetune-13b-lora"
PRICE = "mkt_hyperscaler_on_demand_price_h100_sxm"      # Inputs!C5, 3.00 in the template
COMPUTE = "compute_hyperscaler_on_demand"               # Compute!C16 =SUM(C12)
TOTAL = "total_hyperscaler_on_demand"                   # Summary!C11 =SUM(C7,C8,C9,C10)
GAP_PRICE = "gap_gpu_price_hyperscaler_on_demand"       # Procurement: the gap to the cheapest, its GPU price
FIGURE_KEYS = {"name", "item", "market", "value", "reference"}

_CACHE: dict[tuple, tuple[int, str, str]] = {}


def run_cached(capsys, *args) -> tuple[int, str, str]:
    """`run` once per distinct command line and file content: (exit code, stdout, stderr)."""
    key = tuple(str(a) for a in args) + tuple(sha(a) for a in args if isinstance(a, Path) and a.is_file())
    if key not in _CACHE:
        _CACHE[key] = run(capsys, *args)
    return _CACHE[key]


def check_json(capsys, book: Path, *extra) -> tuple[int, dict]:
    before = sha(book)
    code, out, err = run_cached(capsys, "check", book, "--format", "json", *extra)
    assert sha(book) == before, "check modified its input"
    assert code in (0, 1), err
    assert err == ""
    data = json.loads(out)
    assert data["ok"] is (code == 0)
    return code, data


def findings(data: dict, kind: str) -> list[dict]:
    return [f for f in data["findings"] if f["kind"] == kind]


def figures(data: dict) -> dict[str, dict]:
    return {f["name"]: f for f in data["figures"]}


def where(path: Path, name: str) -> tuple[str, str]:
    wb = openpyxl.load_workbook(path)
    sheet, ref = next(iter(wb.defined_names[name].destinations))
    return sheet, ref.replace("$", "")


def edit_with_openpyxl(src: Path, out: Path, edit) -> Path:
    wb = openpyxl.load_workbook(src)
    edit(wb)
    wb.save(out)
    return out


def set_named(wb, name: str, value) -> None:
    sheet, ref = next(iter(wb.defined_names[name].destinations))
    wb[sheet][ref.replace("$", "")] = value


def assert_figures_equal_libreoffice(data: dict, lo_values: dict) -> None:
    for f in data["figures"]:
        lo = lo_values[f["name"]]
        assert isinstance(lo, (int, float)) and isinstance(f["value"], (int, float)), (f, lo)
        assert math.isclose(f["value"], lo, rel_tol=1e-9, abs_tol=1e-9), f"{f['name']}: check {f['value']} != LO {lo}"
        assert math.isclose(f["reference"], lo, rel_tol=1e-9, abs_tol=1e-9), \
            f"{f['name']}: reference {f['reference']} != LO {lo}"


# --- fixtures -----------------------------------------------------------------


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("check")


@pytest.fixture(scope="module")
def books(work) -> dict[str, Path]:
    out = {}
    for template in template_names():
        path = work / f"{template}.xlsx"
        out[template] = generate_workbook(template, path)
    return out


@pytest.fixture(scope="module")
def edited(books, work) -> dict[str, Path]:
    """openpyxl edits of the fine-tune workbook."""
    src = books[FT]
    return {
        "input": edit_with_openpyxl(src, work / "ox-input.xlsx", lambda wb: set_named(wb, PRICE, 2.5)),
        "hardcoded": edit_with_openpyxl(src, work / "ox-hard.xlsx", lambda wb: set_named(wb, COMPUTE, 150000)),
        "formula": edit_with_openpyxl(src, work / "ox-formula.xlsx",
                                      lambda wb: set_named(wb, COMPUTE, "=SUM(C12)*1.1")),
        "div0": edit_with_openpyxl(src, work / "ox-div0.xlsx", lambda wb: set_named(wb, COMPUTE, "=1/0")),
        "no_people": edit_with_openpyxl(src, work / "ox-no-people.xlsx", lambda wb: wb.remove(wb["People"])),
        "no_name": edit_with_openpyxl(src, work / "ox-no-name.xlsx",
                                      lambda wb: wb.defined_names.pop(COMPUTE)),
        "no_plan": edit_with_openpyxl(src, work / "ox-no-plan.xlsx", lambda wb: wb.remove(wb["_budgetbook"])),
    }


LEGAL_SUMMARY: list[dict] = [  # a row above the total (row 21, under the Adjustments line), typed in, the total over it
    {"op": "insert_rows", "sheet": "Summary", "index": 20, "count": 1},
    {"op": "set_value", "sheet": "Summary", "cell": "A21", "value": "Legal review"},
    {"op": "set_value", "sheet": "Summary", "cell": "C21", "value": 5000},
    {"op": "set_formula", "sheet": "Summary", "cell": "C22", "formula": "=SUM(C16,C17,C18,C19,C20,C21)"},
]
LEGAL_PEOPLE: list[dict] = [  # a row under the one role (row 7); the team subtotal (now row 9) extended over it
    {"op": "insert_rows", "sheet": "People", "index": 7, "count": 1},
    {"op": "set_value", "sheet": "People", "cell": "A8", "value": "Legal review"},
    {"op": "set_value", "sheet": "People", "cell": "C8", "value": 5000},
    {"op": "set_formula", "sheet": "People", "cell": "C9", "formula": "=SUM(C7:C8)"},
]


@pytest.fixture(scope="module")
def lo(books, edited, work) -> dict[str, Path]:
    """Files saved by LibreOffice: UNO edits (recalculated and stored) and plain recalculations."""
    src = books[FT]
    out = {}
    with uno_session() as session:
        jobs: dict[str, list[dict]] = {
            "input": [{"op": "set_value", "sheet": "Inputs", "cell": where(src, PRICE)[1], "value": 2.5}],
            "no_people": [{"op": "delete_sheet", "sheet": "People"}],
            "inserted": [{"op": "insert_rows", "sheet": "Compute", "index": 3, "count": 1},
                         {"op": "insert_rows", "sheet": "Summary", "index": 3, "count": 2},
                         {"op": "insert_rows", "sheet": "Inputs", "index": 3, "count": 1}],
            "legal_summary": LEGAL_SUMMARY,
            "legal_people": LEGAL_PEOPLE,
        }
        for key, ops in jobs.items():
            out[key] = session.edit(src, work / "uno" / f"{key}.xlsx", ops)
    out["untouched_saved"] = recalculate(src, work / "lo-untouched")
    out["input_saved"] = recalculate(edited["input"], work / "lo-input")
    return out


# --- untouched ------------------------------------------------------------------


@pytest.mark.parametrize("template", template_names())
def test_untouched_is_ok_with_design_json_shape(capsys, books, template):
    code, data = check_json(capsys, books[template])
    assert code == 0
    assert set(data) == {"command", "version", "plan", "currency", "ok", "workbook", "findings", "figures"}
    assert data["ok"] is True and data["workbook"] == str(books[template])
    assert data["findings"] == []
    shown = json.loads(run_cached(capsys, "show", template, "--format", "json")[1])
    assert [f["name"] for f in data["figures"]] == [f["name"] for f in shown["figures"]]
    for row, want in zip(data["figures"], shown["figures"]):
        assert FIGURE_KEYS <= set(row) <= FIGURE_KEYS | {"difference"}
        assert (row["item"], row["market"]) == (want["item"], want["market"])
        assert row["reference"] == want["value"]
        assert math.isclose(row["value"], want["value"], rel_tol=1e-12, abs_tol=1e-9)


def test_untouched_table_says_ok(capsys, books):
    code, out, err = run_cached(capsys, "check", books[FT])
    assert (code, err) == (0, "")
    # one line: what was compared (every figure of `show`, as the JSON has them), no table
    figures = len(check_json(capsys, books[FT])[1]["figures"])
    ok = f"{books[FT]}: OK ({figures} figures agree with the reference model, 0 inputs changed)"
    assert out == ok + "\n"
    code, out, err = run_cached(capsys, "check", books[FT], "--verbose")
    assert out.splitlines()[0] == ok
    assert COMPUTE in out and "144,000.00" in out


@needs_libreoffice
def test_untouched_after_libreoffice_save_is_ok(capsys, lo):
    code, data = check_json(capsys, lo["untouched_saved"])
    assert code == 0 and data["findings"] == []
    assert_figures_equal_libreoffice(data, cell_values(lo["untouched_saved"]))


# --- inputs ---------------------------------------------------------------------


def assert_price_changed(data: dict, book: Path) -> None:
    changed = findings(data, "input_changed")
    assert len(changed) == 1, data["findings"]
    f = changed[0]
    assert (f["severity"], f["name"], f["sheet"], f["cell"]) == ("info", PRICE, "Inputs", where(book, PRICE)[1])
    assert (f["expected"], f["actual"]) == (3.0, 2.5)
    # and the numbers budgetbook computed for the plan as generated (percentiles, sensitivity) are now stale
    assert [x["kind"] for x in data["findings"]] == ["stale", "input_changed"]
    assert figures(data)[COMPUTE]["reference"] == pytest.approx(48000 * 2.5, rel=1e-12)


def test_input_edited_with_openpyxl_is_ok(capsys, edited, lo):
    code, data = check_json(capsys, edited["input"])
    assert code == 0
    assert_price_changed(data, edited["input"])
    # the same figures LibreOffice computes for this very file
    assert_figures_equal_libreoffice(data, cell_values(lo["input_saved"]))


@needs_libreoffice
def test_input_edited_with_openpyxl_then_saved_by_libreoffice_is_ok(capsys, lo):
    code, data = check_json(capsys, lo["input_saved"])
    assert code == 0
    assert_price_changed(data, lo["input_saved"])
    assert_figures_equal_libreoffice(data, cell_values(lo["input_saved"]))


@needs_uno
def test_input_typed_in_libreoffice_is_ok(capsys, lo):
    code, data = check_json(capsys, lo["input"])
    assert code == 0
    assert_price_changed(data, lo["input"])
    assert_figures_equal_libreoffice(data, cell_values(lo["input"]))


def test_input_changed_in_table_output(capsys, edited):
    code, out, err = run_cached(capsys, "check", edited["input"])
    assert (code, err) == (0, "")
    assert "input_changed" in out and "3 -> 2.5" in out
    assert out.splitlines()[0].endswith(" figures agree with the reference model, 1 input changed)")
    assert "Figures" not in out  # OK: the findings (info here), not every figure


# --- formulas -------------------------------------------------------------------


def test_figure_typed_over_is_hardcoded(capsys, edited):
    code, data = check_json(capsys, edited["hardcoded"])
    assert code == 1
    hard = findings(data, "hardcoded")
    assert len(hard) == 1
    assert {k: hard[0][k] for k in ("severity", "sheet", "cell", "name", "actual")} == \
        {"severity": "error", "sheet": "Compute", "cell": "C16", "name": COMPUTE, "actual": 150000}
    assert hard[0]["expected"] == "=SUM(C12)"
    # the gap to the cheapest reads the compute too (`lineitems/gap.py`)
    assert {f["name"] for f in findings(data, "mismatch")} == {COMPUTE, TOTAL, GAP_PRICE}
    assert figures(data)[COMPUTE]["value"] == 150000
    code, out, err = run_cached(capsys, "check", edited["hardcoded"])
    assert code == 1 and err == ""
    assert out.splitlines()[0] == f"{edited['hardcoded']}: ERRORS FOUND"
    assert "hardcoded" in out and "Compute!C16" in out and "Figures" in out  # errors: every figure too


def test_formula_altered_is_formula_changed_and_mismatch(capsys, edited):
    code, data = check_json(capsys, edited["formula"])
    assert code == 1
    changed = findings(data, "formula_changed")
    assert [(f["sheet"], f["cell"], f["name"], f["expected"], f["actual"]) for f in changed] == \
        [("Compute", "C16", COMPUTE, "=SUM(C12)", "=SUM(C12)*1.1")]
    mismatch = {f["name"]: f for f in findings(data, "mismatch")}
    assert set(mismatch) == {COMPUTE, TOTAL, GAP_PRICE}
    assert mismatch[COMPUTE]["actual"] == pytest.approx(144000 * 1.1, rel=1e-12)
    assert mismatch[COMPUTE]["expected"] == 144000


def test_division_by_zero_is_error_value(capsys, edited):
    code, data = check_json(capsys, edited["div0"])
    assert code == 1
    errors = {f["name"]: f for f in findings(data, "error_value")}
    assert errors[COMPUTE]["actual"] == "#DIV/0!"
    assert (errors[COMPUTE]["sheet"], errors[COMPUTE]["cell"]) == ("Compute", "C16")
    assert TOTAL in errors  # and everything downstream
    assert findings(data, "formula_changed")[0]["actual"] == "=1/0"
    assert figures(data)[COMPUTE]["value"] is None


# --- deletions ------------------------------------------------------------------


def assert_people_missing(data: dict) -> None:
    missing = {f["name"] for f in findings(data, "missing")}
    assert {"people_hyperscaler_on_demand", "people_decentralized_market"} <= missing
    assert all(f["severity"] == "error" for f in findings(data, "missing"))
    assert figures(data)["people_hyperscaler_on_demand"]["value"] is None


def test_sheet_deleted_with_openpyxl_is_missing(capsys, edited):
    code, data = check_json(capsys, edited["no_people"])
    assert code == 1
    assert_people_missing(data)


@needs_uno
def test_sheet_deleted_in_libreoffice_is_missing(capsys, lo):
    code, data = check_json(capsys, lo["no_people"])
    assert code == 1
    assert_people_missing(data)
    assert {f["name"] for f in findings(data, "error_value")} >= {TOTAL, "checks_ok"}


def test_defined_name_deleted_is_missing(capsys, edited):
    code, data = check_json(capsys, edited["no_name"])
    assert code == 1
    missing = findings(data, "missing")
    assert [(f["name"], f["sheet"]) for f in missing] == [(COMPUTE, "Compute")]
    assert COMPUTE in missing[0]["message"]
    assert figures(data)[COMPUTE]["value"] is None


def test_embedded_plan_deleted_is_one_line_exit_2(capsys, edited):
    before = sha(edited["no_plan"])
    code, out, err = run_cached(capsys, "check", edited["no_plan"])
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert err == f"Error: {edited['no_plan']}: no embedded budgetbook plan: not a workbook made by " \
                  "`budgetbook generate`\n"
    assert sha(edited["no_plan"]) == before


def test_missing_workbook_is_one_line_exit_2(capsys, work):
    code, out, err = run_cached(capsys, "check", work / "nowhere.xlsx")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "nowhere.xlsx" in err


# --- rows inserted and added ----------------------------------------------------------


@needs_uno
def test_rows_inserted_in_libreoffice_are_ok(capsys, books, lo):
    book = lo["inserted"]
    # the names moved with the rows: the check has to find the cells by name
    assert where(book, COMPUTE) == ("Compute", "C17")
    assert where(book, TOTAL) == ("Summary", "C23")
    assert where(book, PRICE) == ("Inputs", "C6")
    code, data = check_json(capsys, book)
    assert code == 0 and data["findings"] == []
    assert_figures_equal_libreoffice(data, cell_values(book))


@needs_uno
def test_legal_review_row_on_summary(capsys, lo):
    book = lo["legal_summary"]
    code, data = check_json(capsys, book)
    assert code == 1
    changed = findings(data, "formula_changed")
    assert [(f["sheet"], f["cell"], f["name"]) for f in changed] == [("Summary", "C22", TOTAL)]
    assert "Summary!C21" in changed[0]["message"]
    assert changed[0]["severity"] == "warning"
    mismatch = findings(data, "mismatch")
    assert [(f["sheet"], f["cell"], f["name"]) for f in mismatch] == [("Summary", "C22", TOTAL)]
    lo_total = cell_values(book)[TOTAL]
    assert mismatch[0]["actual"] == pytest.approx(lo_total, rel=1e-9)
    assert mismatch[0]["actual"] - mismatch[0]["expected"] == pytest.approx(5000, rel=1e-9)


@needs_uno
def test_legal_review_row_on_people(capsys, lo):
    book = lo["legal_people"]
    code, data = check_json(capsys, book)
    assert code == 1
    changed = findings(data, "formula_changed")
    assert [(f["sheet"], f["cell"], f["name"]) for f in changed] == \
        [("People", "C9", "ppl_team_hyperscaler_on_demand")]
    assert "People!C8" in changed[0]["message"]
    mismatch = {f["name"]: f for f in findings(data, "mismatch")}
    assert set(mismatch) == {"people_hyperscaler_on_demand", TOTAL, "gap_people_hyperscaler_on_demand"}
    values = cell_values(book)
    for name, f in mismatch.items():
        assert f["actual"] == pytest.approx(values[name], rel=1e-9)
        assert f["actual"] - f["expected"] == pytest.approx(5000, rel=1e-9)


# --- Excel's shared formulas ------------------------------------------------------

CELL_F = re.compile(r'<c r="([A-Z]+)(\d+)"([^>]*)><f>([^<]*)</f>')


def share_formulas(xml: str) -> tuple[str, int]:
    """Rows of equal-by-translation formulas as Excel writes a filled-right row: shared, text once."""
    by_row: dict[str, list[re.Match]] = {}
    for m in CELL_F.finditer(xml):
        by_row.setdefault(m.group(2), []).append(m)
    edits, si = {}, 0
    for row, cells in by_row.items():
        if len(cells) < 2:
            continue
        first = cells[0]
        origin = f"{first.group(1)}{row}"
        text = "=" + first.group(4).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        consistent = all(
            Translator(text, origin=origin).translate_formula(f"{m.group(1)}{row}")
            == "=" + m.group(4).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
            for m in cells[1:])
        if not consistent:
            continue
        ref = f"{origin}:{cells[-1].group(1)}{row}"
        edits[first.start()] = (first, (f'<c r="{origin}"{first.group(3)}><f t="shared" ref="{ref}" si="{si}">'
                                       f'{first.group(4)}</f>'))
        for m in cells[1:]:
            edits[m.start()] = (m, f'<c r="{m.group(1)}{row}"{m.group(3)}><f t="shared" si="{si}"/>')
        si += 1
    out, last = [], 0
    for start in sorted(edits):
        m, text = edits[start]
        out += [xml[last:m.start()], text]
        last = m.end()
    return "".join(out) + xml[last:], si


def test_excel_shared_formulas_are_ok(capsys, books, work):
    src = books["pretrain-7b"]
    out = work / "shared.xlsx"
    shared = 0
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.startswith("xl/worksheets/sheet"):
                text, n = share_formulas(data.decode("utf-8"))
                shared += n
                data = text.encode("utf-8")
            zout.writestr(info, data)
    assert shared >= 20  # most rows of a four-market workbook are filled right
    assert b'<f t="shared" si="0"/>' in zipfile.ZipFile(out).read("xl/worksheets/sheet3.xml")
    code, data = check_json(capsys, out)
    assert code == 0 and data["findings"] == [], data["findings"]
    _, data_src = check_json(capsys, src)
    assert data["figures"] == data_src["figures"]


# --- --plan ---------------------------------------------------------------------


def test_plan_option_reports_differences_as_input_changed(capsys, books, work):
    plan = work / "cheaper.yaml"
    assert run(capsys, "init", FT, "-o", plan)[0] == 0
    text = plan.read_text()
    assert text.count("H100_SXM: 3.00 ") == 1
    plan.write_text(text.replace("H100_SXM: 3.00 ", "H100_SXM: 2.40 "))
    before = sha(plan)
    code, data = check_json(capsys, books[FT], "--plan", plan)
    assert code == 0
    assert [(f["kind"], f["name"], f["expected"], f["actual"]) for f in data["findings"]] == \
        [("input_changed", PRICE, 2.4, 3.0)]
    assert figures(data)[COMPUTE]["reference"] == 144000.0  # from the workbook's inputs
    assert sha(plan) == before


def test_plan_option_missing_file_is_one_line_exit_2(capsys, books, work):
    missing = work / "no-such-plan.yaml"
    code, out, err = run_cached(capsys, "check", books[FT], "--plan", missing)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("Error: ") and "no-such-plan.yaml" in err


def test_plan_option_with_another_templates_plan_is_a_structure_finding(capsys, books):
    # the workbook's own (embedded) plan gives the shape; a plan of another shape cannot be its baseline
    # (issue 15): its markets and workloads are `structure` errors, the inputs both have still compared
    code, data = check_json(capsys, books[FT], "--plan", "deepseek-v3")
    assert code == 1 and not data["ok"]
    changed = {f["name"]: (f["expected"], f["actual"]) for f in data["findings"] if f["kind"] == "input_changed"}
    assert {k for k in data["findings"][0]} >= {"kind", "severity", "message"}
    assert {f["kind"] for f in data["findings"]} == {"structure", "input_changed"}
    structure = [f["message"] for f in data["findings"] if f["kind"] == "structure"]
    assert any("workload `finetune`" in m and "deepseek-v3 has not" in m for m in structure), structure
    assert all(f["severity"] == "error" for f in data["findings"] if f["kind"] == "structure")
    assert changed["role1_count"] == (150.0, 2)
    assert figures(data)[COMPUTE]["reference"] == 144000.0
