"""Fuzzing: random YAML into the plan loader, random damage to generated workbooks into `check`.

The contract under test: bad input is a `PlanError`/`WorkbookError` (one line,
exit 2) or a finding (exit 1), never another exception (exit 3) or a
traceback. Example counts follow the hypothesis profile (tests/conftest.py):
`dev` runs a handful, `ci` (CI=true) runs 200 per test (the suite must stay within 10 minutes), or
BUDGETBOOK_FUZZ_EXAMPLES when set.

Workbooks are generated once per session; each example loads the bytes with
openpyxl, damages them and saves a copy, then runs `main(["check", ...])` in
process (no subprocess: ~0.3-1 s per example is the `formulas` evaluation).
"""

from __future__ import annotations

import copy
import io
import json
import math
import os
import time
import warnings

import openpyxl
import pytest
import yaml
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from strategies import plan_data

from budgetbook.cli import main
from budgetbook.errors import PlanError
from budgetbook.plan.yamlsafe import parse_yaml_text
from budgetbook.planfile.loader import plan_from_text, template_names, template_text
from budgetbook.workbook.write import write_workbook

PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI", "").lower() == "true" else "dev")
EXAMPLES = int(os.environ.get("BUDGETBOOK_FUZZ_EXAMPLES")
               or (200 if PROFILE == "ci" else settings.default.max_examples))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=False,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
# a hang guard, not a speed test (speed lives in benchmarks/): one check of a damaged 2-market book takes about
# a second on a quiet machine; 120 s means it hangs, even on a machine loaded several times over
SLOW_EXAMPLE_SECONDS = 120.0
# the workbook fuzz: each example saves a book and checks it (about 1 s); a quarter of the other fuzzers'
# examples keeps it near a minute of CI, and every run draws new damage (not derandomized)
WORKBOOK_FUZZ = settings(FUZZ, max_examples=max(8, EXAMPLES // 4))

# ---------------------------------------------------------------- (a) random YAML into the loader

KEYS = ("name", "currency", "markets", "workloads", "people", "items", "serving", "id", "gpu", "label",
        "gpu_prices", "ideal_gpu_hours", "utilization", "mfu", "low", "base", "high", "flops", "params",
        "tokens", "cluster", "gpus", "days", "roles", "count", "months", "monthly_cost", "hybrid", "assign",
        "checkpoints", "H100_SXM", "as_of", "description", "runs", "waste", "<<", "", "x" * 50)

scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(), st.integers(min_value=-(10 ** 500), max_value=10 ** 500),
    st.floats(allow_nan=True, allow_infinity=True), st.floats(-1e12, 1e12),
    st.text(max_size=30), st.sampled_from(("=SUM(A1)", "nan", ".inf", "-0", "1e999", "yes", "~", "2025-13-45",
                                           "0x1F", "1_000", "H100_SXM", "USD", "\u202e", "\x00"))
)
yaml_values = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=5),
                               st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=8)),
                                               children, max_size=6)),
    max_leaves=40,
)


def dump(data) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=4096)


def template_data() -> dict[str, dict]:
    return {name: parse_yaml_text(template_text(name)) for name in template_names()}


TEMPLATES = template_data()


def paths_of(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths_of(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from paths_of(value, prefix + (i,))


def parent_of(data, path):
    node = data
    for part in path[:-1]:
        node = node[part]
    return node


@st.composite
def mutated_plans(draw) -> dict:
    """A valid plan (a template or a random one), then 1-4 mutations at random key paths."""
    if draw(st.booleans()):
        data = copy.deepcopy(TEMPLATES[draw(st.sampled_from(sorted(TEMPLATES)))])
    else:
        data = draw(plan_data())
    for _ in range(draw(st.integers(1, 4))):
        paths = [p for p in paths_of(data) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent, key = parent_of(data, path), path[-1]
        action = draw(st.sampled_from(("replace", "replace", "delete", "add_key", "number", "wrap")))
        if action == "replace":
            parent[key] = draw(yaml_values)
        elif action == "delete":
            del parent[key]
        elif action == "add_key" and isinstance(parent, dict):
            parent[draw(st.sampled_from(KEYS))] = draw(yaml_values)
        elif action == "number":
            parent[key] = draw(st.sampled_from((-1, 0, -0.0, 1e300, -1e300, 10 ** 400, math.nan, math.inf,
                                                -math.inf, 1e-320, 2 ** 63, "12", True)))
        elif action == "wrap":
            parent[key] = draw(st.sampled_from(([parent[key]], {"base": parent[key]},
                                                {"low": parent[key], "base": 0, "high": -1})))
    return data


def load_only_plan_errors(text: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            plan_from_text(text, "fuzz.yaml")
        except PlanError as exc:
            message = str(exc)
            assert message.startswith("fuzz.yaml: ") and "\n" not in message, message


@FUZZ
@given(yaml_values)
def test_random_yaml_structures_load_or_raise_plan_error(data):
    load_only_plan_errors(dump(data))


@FUZZ
@given(mutated_plans())
def test_mutated_plans_load_or_raise_plan_error(data):
    load_only_plan_errors(dump(data))


@FUZZ
@given(st.sampled_from(sorted(TEMPLATES)), st.data())
def test_damaged_plan_text_loads_or_raises_plan_error(name, data):
    """Character-level damage: YAML syntax errors, stray tabs, quotes, brackets, bytes cut off."""
    text = template_text(name)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 20))
        insert = data.draw(st.one_of(st.sampled_from(("\t", "'", '"', "[", "{", "}", ": ", "- ", "&a ", "*a",
                                                      "!!python/object:os.system ", "\n  ", "#", "%YAML 1.2\n",
                                                      "---\n", "? ", "|", ">")), st.text(max_size=5)))
        text = text[:at] + insert + text[at + cut:]
    load_only_plan_errors(text)


@settings(max_examples=max(3, EXAMPLES // 50), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mutated_plans())
def test_mutated_plans_through_the_cli(tmp_path_factory, capsys, data):
    plan = tmp_path_factory.mktemp("plan") / "plan.yaml"
    text = dump(data)
    plan.write_text(text, encoding="utf-8")
    code = main(["show", str(plan), "--format", "json"])
    captured = capsys.readouterr()
    assert code in (0, 2), captured.err
    assert "Traceback" not in captured.err and "bug in budgetbook" not in captured.err
    errors = [line for line in captured.err.splitlines() if not line.startswith("Warning: ")]
    if code == 2:
        assert len(errors) == 1 and errors[0].startswith(f"Error: {plan}: "), captured.err
        assert captured.out == ""
    else:
        assert errors == [] and json.loads(captured.out)["figures"]
    assert plan.read_text(encoding="utf-8") == text


# ---------------------------------------------------------------- (b) damaged workbooks into `check`

MINI_PLAN = """\
name: mini
currency: USD
markets:
  - id: cloud
    gpu_prices: {H100_SXM: 2.5}
workloads:
  - id: run
    gpu: H100_SXM
    ideal_gpu_hours: {low: 900, base: 1000, high: 1200}
    utilization: 1.5
people:
  roles:
    - {role: Engineer, count: 1, months: 2, monthly_cost: 10000}
"""

FORMULAS = ("=1/0", "=A1+", "=SUM(", "=#REF!", "=NA()", "=XLOOKUP(1,A1:A2,B1:B2)", '="text"', "=Inputs!ZZ99999",
            "=1E+309", "=-", "=((", "=A1:A3", "=no_such_name", '=INDIRECT("A1")', "=OFFSET(A1,1,1)", "=)",
            "=SUM(A:A)", "=Inputs!C5*2", "={1,2}", "=+", "=Summary!C11", "='No sheet'!A1", "=1+1", "=TRUE",
            "=A1048576", "=XFD1", "=\"=1\"", "=SUM(1;2)", "=SUM(A1:XFD1048576)", "=SUM(3:5)",
            "=[other.xlsx]Sheet1!A1", "==1", "=@A1", "= ")
TEXTS = ("#REF!", "#DIV/0!", "#N/A", "#VALUE!", "#NAME?", "Err:502", "lots", "", " ", "1,000", "12%", "∞",
         "=", "'=1", "x" * 3000, "\u202e", "1e3")


def named_cells(wb) -> list[tuple[str, str, str]]:
    out = []
    for name, definition in wb.defined_names.items():
        try:
            (sheet, ref), = definition.destinations
        except ValueError:
            continue
        out.append((name, sheet, ref.replace("$", "")))
    return sorted(out)


class Bases(list):
    def __repr__(self) -> str:  # hypothesis prints the fixtures of a failing example
        return f"<{len(self)} base workbooks: {', '.join(label for label, _, _ in self)}>"


@pytest.fixture(scope="module")
def base_books(tmp_path_factory) -> list[tuple[str, bytes, list]]:
    """(label, bytes, named cells): a small plan (cheap to evaluate) and the default template."""
    folder = tmp_path_factory.mktemp("fuzzbase")
    books = []
    for label, text in (("mini", MINI_PLAN), ("finetune-13b-lora", template_text("finetune-13b-lora"))):
        path = write_workbook(plan_from_text(text, label), text, folder / f"{label}.xlsx")
        data = path.read_bytes()
        books.append((label, data, named_cells(openpyxl.load_workbook(io.BytesIO(data)))))
    return Bases(books)


cell_values = st.one_of(
    st.floats(allow_nan=False), st.integers(-10 ** 15, 10 ** 15), st.sampled_from(FORMULAS),
    st.sampled_from(TEXTS), st.booleans(), st.none(),
    # what a worksheet can hold: openpyxl refuses control characters
    st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=12),
)


def mutate(wb, draw, cells) -> list[str]:
    """Apply 1-4 random edits a user (or a broken tool) might make; returns what was done."""
    done = []
    for _ in range(draw(st.integers(1, 4))):
        action = draw(st.sampled_from(("named_cell", "named_cell", "named_cell", "any_cell", "delete_sheet",
                                       "delete_name", "rename_sheet", "insert_rows", "delete_rows",
                                       "repoint_name", "hide", "embedded_plan")))
        if action == "named_cell" and cells:
            name, sheet, ref = cells[draw(st.integers(0, len(cells) - 1))]
            if sheet in wb.sheetnames:
                value = draw(cell_values)
                wb[sheet][ref].value = value
                done.append(f"{name}={value!r:.40}")
        elif action == "any_cell":
            ws = wb[draw(st.sampled_from(wb.sheetnames))]
            row, col = draw(st.integers(1, 60)), draw(st.integers(1, 8))
            value = draw(cell_values)
            ws.cell(row, col).value = value
            done.append(f"{ws.title}!R{row}C{col}={value!r:.40}")
        elif action == "delete_sheet" and len(wb.sheetnames) > 1:
            title = draw(st.sampled_from(wb.sheetnames))
            del wb[title]
            done.append(f"del sheet {title}")
        elif action == "delete_name" and wb.defined_names:
            name = draw(st.sampled_from(sorted(wb.defined_names)))
            del wb.defined_names[name]
            done.append(f"del name {name}")
        elif action == "rename_sheet":
            ws = wb[draw(st.sampled_from(wb.sheetnames))]
            new = draw(st.sampled_from(("Renamed", "Inputs2", "Summary", "x")))
            if new not in wb.sheetnames:
                ws.title = new
                done.append(f"rename {new}")
        elif action in ("insert_rows", "delete_rows"):
            ws = wb[draw(st.sampled_from(wb.sheetnames))]
            at, count = draw(st.integers(1, 40)), draw(st.integers(1, 3))
            getattr(ws, action)(at, count)
            done.append(f"{action} {ws.title} {at}+{count}")
        elif action == "repoint_name" and cells:
            name, _, _ = cells[draw(st.integers(0, len(cells) - 1))]
            if name in wb.defined_names:
                target = draw(st.sampled_from(("#REF!", "Inputs!$A$1", "Inputs!$C$5:$C$9", "'No sheet'!$A$1",
                                               "1+1", "Summary!$C$11", "Compute!$ZZ$1")))
                wb.defined_names[name].attr_text = target
                done.append(f"repoint {name} -> {target}")
        elif action == "hide":
            ws = wb[draw(st.sampled_from(wb.sheetnames))]
            if draw(st.booleans()):
                ws.row_dimensions[draw(st.integers(1, 30))].hidden = True
            elif sum(s.sheet_state == "visible" for s in wb.worksheets) > 1:
                ws.sheet_state = "hidden"
            done.append(f"hide in {ws.title}")
        elif action == "embedded_plan" and "_budgetbook" in wb.sheetnames:
            ws = wb["_budgetbook"]
            ref = draw(st.sampled_from(("A1", "B2", "B3", "B4")))
            ws[ref].value = draw(st.one_of(cell_values, st.sampled_from(("name: [", "0", "-1", "99999",
                                                                         MINI_PLAN.replace("mini", "other")))))
            done.append(f"_budgetbook!{ref}")
    return done


TIMES: list[float] = []
SLOWEST: list = []


@WORKBOOK_FUZZ
@given(data=st.data())
def test_damaged_workbooks_are_findings_or_one_line(base_books, tmp_path_factory, capsys, data):
    # the small plan 7 times in 8: it evaluates in about a third of the time
    index = data.draw(st.sampled_from((0,) * 7 + (1,)), label="base")
    label, raw, cells = base_books[index]
    wb = openpyxl.load_workbook(io.BytesIO(raw))
    done = mutate(wb, data.draw, cells)
    note(f"{label}: {done}")
    path = tmp_path_factory.mktemp("fuzzbook") / "book.xlsx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wb.save(path)
    before = path.read_bytes()
    start = time.perf_counter()
    code = main(["check", str(path), "--format", "json"])
    elapsed = time.perf_counter() - start
    TIMES.append(elapsed)
    SLOWEST[:] = max(SLOWEST, [elapsed, f"{label}: {done}"]) if SLOWEST else [elapsed, f"{label}: {done}"]
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err, captured.err
    assert code in (0, 1, 2), (code, captured.err)
    assert elapsed < SLOW_EXAMPLE_SECONDS, (elapsed, done)
    if code == 2:
        lines = captured.err.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"Error: {path}: "), captured.err
        assert captured.out == ""
    else:
        report = json.loads(captured.out)
        assert report["ok"] is (code == 0)
        assert captured.err == ""
    assert path.read_bytes() == before


def test_report_fuzz_timing():
    """Runs after the workbook fuzz (file order): prints the time per example for the record."""
    if TIMES:
        print(f"\nworkbook fuzz: {len(TIMES)} checks, mean {sum(TIMES) / len(TIMES):.3f} s, "
              f"max {max(TIMES):.2f} s, total {sum(TIMES):.1f} s; slowest: {SLOWEST[1]}")
        assert max(TIMES) < SLOW_EXAMPLE_SECONDS


# ---------------------------------------------------------------- crashes the fuzz found, pinned

def _edit_name(wb, name, value):
    (sheet, ref), = wb.defined_names[name].destinations
    wb[sheet][ref.replace("$", "")].value = value


REGRESSIONS = {
    # whole-column range in an edited figure: TypeError in check's unnamed-reference scan (exit 3)
    "sum_whole_column": (lambda wb: _edit_name(wb, "compute_hyperscaler_on_demand", "=SUM(A:A)"), 1,
                         "it now also reads Compute!A:A"),
    # a defined name repointed at a range: AttributeError on a tuple of cells (exit 3)
    "name_on_a_range": (lambda wb: setattr(wb.defined_names["wl_finetune_utilization"], "attr_text",
                                           "Inputs!$C$5:$C$9"), 1, "wl_finetune_utilization"),
    # a damaged marker in the embedded plan sheet: the one line did not name the file
    "embedded_marker": (lambda wb: wb["_budgetbook"].__setitem__("A1", 0), 2,
                        "sheet `_budgetbook` cell A1 is not the budgetbook marker"),
    # a formula the evaluator cannot parse: its error held a newline (two stderr lines), no cell named
    "unparseable_formula": (lambda wb: _edit_name(wb, "wl_finetune_waste", "=SUM(1;2)"), 2,
                            "the formula in Inputs!C16 (`=SUM(1;2)`) is not one Excel accepts"),
}


@pytest.mark.parametrize("case", sorted(REGRESSIONS))
def test_fuzz_regressions(case, base_books, tmp_path, capsys):
    change, expected_code, detail = REGRESSIONS[case]
    wb = openpyxl.load_workbook(io.BytesIO(base_books[1][1]))
    change(wb)
    path = tmp_path / "book.xlsx"
    wb.save(path)
    code = main(["check", str(path), "--format", "json"])
    captured = capsys.readouterr()
    assert code == expected_code, captured.err
    if code == 2:
        assert captured.err.count("\n") == 1 and captured.err.startswith(f"Error: {path}: ")
        assert detail in captured.err, captured.err
    else:
        assert captured.err == "" and detail in captured.out


@pytest.mark.parametrize("data, shown", [
    ({"\n": 1}, "`\\n`: unknown key"),
    ({"name": {"a\x19\nb": [1, 10 ** 301]}}, "`name.a\\x19\\nb[1]` (line 4): the number"),
])
def test_keys_with_newlines_stay_on_one_line(data, shown):
    """Found by the fuzz: a key holding a newline split the one-line error in two."""
    with pytest.raises(PlanError) as caught:
        plan_from_text(dump(data), "fuzz.yaml")
    assert "\n" not in str(caught.value) and shown in str(caught.value), str(caught.value)
