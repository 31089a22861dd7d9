"""`check` at a portfolio's scale: the same values as ExcelModel, and work that grows linearly with the book.

Times are measured by benchmarks/bench_scale.py, never asserted here; these
tests count operations instead, so a quadratic step cannot come back silently.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from openpyxl.formula.tokenizer import Tokenizer
from openpyxl.workbook.defined_name import DefinedName
from strategies import plan_data

from budgetbook.plan import yamlsafe
from budgetbook.planfile.loader import plan_from_text, template_names, template_text
from budgetbook.review.audit import audit_formulas
from budgetbook.review.check import check_workbook
from budgetbook.review.readback import open_book, single_cell
from budgetbook.workbook.build import build_workbook
from budgetbook.xlsx import fasteval, shapes
from budgetbook.xlsx.evaluate import evaluate_with_model
from budgetbook.xlsx.formula_text import CellNames
from budgetbook.xlsx.numeric import NumericShape
from budgetbook.xlsx.quick_tokens import quick_tokens

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from portfolio import portfolio_plan  # noqa: E402


def portfolio_book(tmp_path: Path, workloads: int, markets: int) -> Path:
    text = yaml.safe_dump(portfolio_plan(workloads, markets, roles=3), sort_keys=False)
    wb = build_workbook(plan_from_text(text, "portfolio"), text, dt.date(2026, 12, 1))
    path = tmp_path / f"portfolio-{workloads}x{markets}.xlsx"
    wb.save(path)
    return path


def formula_cells(wb) -> int:
    return sum(1 for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.data_type == "f")


def test_portfolio_plan_uses_every_way_of_giving_hours():
    plan = portfolio_plan(8, 3)
    ways = {key for w in plan["workloads"] for key in ("flops", "ideal_gpu_hours", "cluster", "allocated_gpu_hours")
            if key in w}
    assert ways == {"flops", "ideal_gpu_hours", "cluster", "allocated_gpu_hours"}
    assert plan["markets"][-1]["hybrid"]["assign"].keys() == {w["id"] for w in plan["workloads"]}


def test_fast_evaluation_equals_excelmodel_exactly_on_a_portfolio(tmp_path):
    data = portfolio_book(tmp_path, 4, 2).read_bytes()  # every way of giving hours, a hybrid: 2,819 cells
    fast, model = fasteval.evaluate_fast(data), evaluate_with_model(data)
    assert fast.keys() == model.keys()
    differ = {k: (fast[k], model[k]) for k in model if type(fast[k]) is not type(model[k]) or fast[k] != model[k]}
    assert differ == {}
    assert fast["checks_ok"] is True


SCENARIO_FLAGS = ('=scenario="best"', '=scenario="worst"')  # sheetkit/scenario.py: text literals
SCENARIO_TEXT_CELLS = SCENARIO_FLAGS  # text compared: left to formulas (Summary's `=scenario` copy is numeric's)

def test_one_call_computes_a_run_of_cells_of_one_shape(tmp_path, monkeypatch):
    """Elementwise shapes are computed a level at a time, not a cell at a time."""
    path = portfolio_book(tmp_path, 12, 3)
    calls = []
    real_call, real_run = fasteval._Evaluator._call, NumericShape.run

    def counting_call(compiled, args):
        calls.append("formulas")
        return real_call(compiled, args)

    def counting_run(self, columns, count):
        calls.append("numeric")
        return real_run(self, columns, count)

    monkeypatch.setattr(fasteval._Evaluator, "_call", staticmethod(counting_call))
    monkeypatch.setattr(NumericShape, "run", counting_run)
    values = fasteval.evaluate_fast(path.read_bytes())
    cells = formula_cells(openpyxl.load_workbook(path))
    assert values["checks_ok"] is True
    assert 0 < len(calls) < cells / 4, (len(calls), cells)
    # every formula budgetbook writes is numeric's to compute, but the scenario switch's two flags
    # (`=scenario="best"`, `=scenario="worst"`): text compared, which numeric leaves to formulas
    assert calls.count("formulas") == len(SCENARIO_TEXT_CELLS)


def test_a_generated_workbook_is_evaluated_without_formulas_function_table(tmp_path):
    """`formulas`' function table imports scipy (~0.6 s): a clean budgetbook workbook never needs it."""
    path = portfolio_book(tmp_path, 6, 3)
    code = ("import sys; from budgetbook.xlsx.evaluate import evaluate_workbook; "
            f"v = evaluate_workbook({str(path)!r}); assert v['checks_ok'] is True; "
            "print(sorted(m for m in sys.modules if m.startswith(('scipy', 'formulas.functions.stat'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_elementwise_shapes_are_only_operators_on_single_cells():
    assert shapes.compile_shape("=PH0!A1*PH1!A1/(1-PH2!A1)").elementwise
    assert shapes.compile_shape("=PH0!A1").elementwise
    assert not shapes.compile_shape("=SUM(PH0!A1:A3)").elementwise
    assert not shapes.compile_shape("=AND(PH0!A1>0,PH1!A1>0)").elementwise  # AND folds a column into one value
    assert not shapes.compile_shape("=PH0!A1*SUM(PH1!A1,PH2!A1)").elementwise


def _audit_work(tmp_path: Path, workloads: int, markets: int, monkeypatch) -> tuple[int, int, int]:
    """(name maps built, tokenizer runs, formula cells) of one audit of a book whose names were touched.

    A user's extra defined name means the current names are not the generated ones, so every formula
    goes the long way: rewritten into names and compared, not matched by its text.
    """
    path = portfolio_book(tmp_path, workloads, markets)
    wb = openpyxl.load_workbook(path)
    wb.defined_names["my_helper"] = DefinedName("my_helper", attr_text="'About'!$Z$99")
    edited = tmp_path / f"edited-{workloads}.xlsx"
    wb.save(edited)
    book = open_book(edited)
    evaluated = book.evaluate()
    cells = formula_cells(wb)
    built, tokenized = [], []
    make_map, tokenize = CellNames.__init__, Tokenizer.__init__

    def counting_map(self, *args, **kwargs):
        built.append(1)
        make_map(self, *args, **kwargs)

    def counting_tokenizer(self, *args, **kwargs):
        tokenized.append(1)
        tokenize(self, *args, **kwargs)

    monkeypatch.setattr(CellNames, "__init__", counting_map)
    monkeypatch.setattr(Tokenizer, "__init__", counting_tokenizer)
    findings = audit_formulas(book, evaluated)
    monkeypatch.undo()
    assert findings == []  # a helper name is no edit of a generated formula
    return len(built), len(tokenized), cells


def test_audit_work_grows_linearly_with_the_book(tmp_path, monkeypatch):
    small = _audit_work(tmp_path, 3, 2, monkeypatch)
    large = _audit_work(tmp_path, 24, 4, monkeypatch)
    assert large[2] > 4 * small[2]  # every book also holds the Adjustments table (a fixed ~100 cells)
    for maps, tokenized, cells in (small, large):
        assert maps <= 2  # the generated and the current map, once per audit, never once per formula
        assert tokenized <= 4 * cells  # each formula and its generated twin, rewritten then normalized


def test_check_of_an_untouched_portfolio_is_clean(tmp_path):
    report = check_workbook(portfolio_book(tmp_path, 20, 4))
    assert report.ok and report.findings == []
    assert {f["market"] for f in report.figures} == {"m0", "m1", "m2", "m3", "hybrid"}
    assert all(f["difference"] == pytest.approx(0, abs=1e-6) for f in report.figures)


@pytest.mark.parametrize("text, where", [
    ("'Inputs'!$D$4", ("Inputs", "D4")),
    ("Inputs!D4", ("Inputs", "D4")),
    ("'Bob''s sheet'!$aa$10", ("Bob's sheet", "AA10")),
    ("'Inputs'!$D$4:$D$5", None),
    ("#REF!", None),
    ("'Inputs'!#REF!", None),
    ("Inputs!D4,Inputs!D5", None),
    ("=1+2", None),
])
def test_single_cell_names(text, where):
    assert single_cell(text) == where


def test_portfolio_book_round_trips_through_bytes(tmp_path):
    """The benchmark's books are real workbooks: openpyxl reads back every defined name as one cell."""
    path = portfolio_book(tmp_path, 4, 2)
    wb = openpyxl.load_workbook(io.BytesIO(path.read_bytes()))
    assert all(single_cell(d.attr_text) is not None for d in wb.defined_names.values())


@pytest.mark.skipif(yamlsafe.CParser is None, reason="PyYAML without libyaml")
@settings(max_examples=25)
@given(plan_data())
def test_libyaml_and_the_python_loader_read_plans_alike(data):
    """Plans are read by libyaml (7x faster on a portfolio); the pure-Python loader words the errors."""
    for text in (yaml.safe_dump(data, sort_keys=False), yaml.safe_dump(data, default_flow_style=True)):
        assert yaml.load(text, Loader=yamlsafe._FastPlanLoader) == yaml.load(text, Loader=yamlsafe._PlanLoader)


def test_libyaml_reads_the_templates_and_a_portfolio_alike():
    texts = [template_text(t) for t in template_names()]
    texts.append(yaml.safe_dump(portfolio_plan(40, 4), sort_keys=False))
    for text in texts:
        assert yamlsafe.parse_yaml_text(text) == yaml.load(text, Loader=yamlsafe._PlanLoader)


PIECES = ["C8", "$C$8", "c8", "C5:C9", "$D$4:$D$9", "Inputs!D4", "Inputs!$D$4:$D$9", "'Storage & egress'!C5",
          "'Bob''s'!A1", "wl_mfu", "x.y", "_n1", "TRUE", "false", "1", "1.5", ".5", "1E+12", "2e-3", "10%",
          "+", "-", "*", "/", "^", "&", "=", "<>", "<=", ">=", "<", ">", "%", "(", ")", ",", "SUM(", "IF(",
          "LOG10(", "AND(", '"text"', " ", ":", "A:A", "3:5", "#REF!", "{1,2}", "[x]", "@", "!", "$", "'", "A1B",
          "XFD1048577", "Sheet1!", "R1C1", "1.", "0.5E+3", "12E+3", "1E5", "9.9E-7"]


@settings(max_examples=3000)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=12))
def test_quick_tokens_split_a_formula_as_openpyxl_does(pieces):
    formula = "=" + "".join(pieces)
    quick = quick_tokens(formula)
    if quick is None:
        return
    items = Tokenizer(formula).items  # raises where the regex should have said None
    assert [t.value for t in quick] == [t.value for t in items], formula
    for mine, theirs in zip(quick, items, strict=True):
        assert (mine.type, mine.subtype) == (theirs.type, theirs.subtype) or mine.type == "OPERATOR" \
            and theirs.type.startswith("OPERATOR-") and theirs.value not in (":", ",", " "), (formula, theirs)


def test_quick_tokens_cover_every_formula_budgetbook_writes(tmp_path):
    wb = openpyxl.load_workbook(portfolio_book(tmp_path, 8, 3))
    texts = [c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.data_type == "f"]
    assert sorted(t for t in texts if quick_tokens(t) is None) == sorted(SCENARIO_FLAGS)  # text literals


def test_a_500_by_6_portfolio_stays_under_libreoffices_name_limit(tmp_path, capsys):
    """LibreOffice 7.4 hangs on a workbook of 65,536 defined names (measured): a 500-workload, 6-market
    portfolio (255,000 cells in its layout) names only its inputs, figures and anchors (`sheetkit.anchors`)."""
    from cli_run import run

    from budgetbook.planfile.loader import LIBREOFFICE_MAX_NAMES
    from budgetbook.workbook.build import workbook_layout

    big = tmp_path / "big.yaml"
    big.write_text(yaml.safe_dump(portfolio_plan(500, 6, roles=3), sort_keys=False))
    code, out, err = run(capsys, "show", big, "--format", "json")
    assert code == 0 and json.loads(out)["figures"] and err == ""
    layout = workbook_layout(plan_from_text(big.read_text(), str(big)))
    named = sum(1 for spec in layout if spec.named)
    assert len(layout) > 200_000 and 20_000 < named <= LIBREOFFICE_MAX_NAMES


def test_a_plan_past_libreoffices_name_limit_warns_but_runs(tmp_path, capsys, monkeypatch):
    """The warning for a book LibreOffice would hang on (no plan within the caps is that big now: shown
    with the limit lowered)."""
    from cli_run import run

    from budgetbook.planfile import loader

    monkeypatch.setattr(loader, "LIBREOFFICE_MAX_NAMES", 1_000)
    big = tmp_path / "big.yaml"
    big.write_text(yaml.safe_dump(portfolio_plan(20, 3, roles=3), sort_keys=False))
    code, out, err = run(capsys, "show", big, "--format", "json")
    assert code == 0 and json.loads(out)["figures"]
    warning, = err.splitlines()
    assert warning.startswith(f"Warning: {big}: its workbook has ") and "more than 1,000" in warning
