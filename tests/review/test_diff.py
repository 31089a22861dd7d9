"""`budgetbook diff` and `textconv` through the real entry point (issue 15).

Each side is read for real: plan files, templates, workbooks edited with
openpyxl and in LibreOffice (through UNO), files in a real git repository. The
oracles: `show` on each side (its totals are the diff's old and new), the
edits the test made (exactly those inputs are listed, no other), and for the
LibreOffice-edited book LibreOffice's own computed figures.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest
import yaml
from cli_run import run, sha
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from libreoffice import cell_values, needs_uno, uno_session
from markdown_it import MarkdownIt
from strategies import plan_data

import budgetbook
from budgetbook.api import generate_workbook, show_plan
from budgetbook.planfile.loader import template_text
from budgetbook.reference import compute_breakdown

FT = "finetune-13b-lora"
HYPER, DECENT = "hyperscaler_on_demand", "decentralized_market"
PRICE = f"markets[{HYPER}].gpu_prices.H100_SXM"
WASTE = "workloads[finetune].waste"
UTIL = "workloads[finetune].utilization"
ROLE_COUNT = "people.roles[0].count"


# --- helpers --------------------------------------------------------------------


def diff_json(capsys, old, new, *extra) -> tuple[int, dict]:
    protected = [p for p in (old, new) if isinstance(p, Path)]
    before = [sha(p) for p in protected]
    code, out, err = run(capsys, "diff", old, new, "--format", "json", *extra)
    assert code in (0, 1), err
    assert [sha(p) for p in protected] == before, "diff modified an input"
    return code, json.loads(out)


def show_json(capsys, spec) -> dict:
    code, out, err = run(capsys, "show", spec, "--format", "json")
    assert (code, err) == (0, ""), err
    return json.loads(out)


def figures_of(shown: dict) -> dict[str, float]:
    return {f["name"]: f["value"] for f in shown["figures"]}


def assert_figures_are_shows(data: dict, old: dict[str, float], new: dict[str, float]) -> None:
    """Every figure that differs between the two `show`s is listed with both values, no other; totals are show's."""
    listed = {f["name"]: f for f in data["figures"]}
    changed = {n for n in old.keys() | new.keys() if not math.isclose(old.get(n, math.nan), new.get(n, math.nan),
                                                                      rel_tol=1e-9, abs_tol=0.005)}
    assert set(listed) == changed
    for name, f in listed.items():
        assert (f["old"], f["new"]) == (old.get(name), new.get(name))
        assert math.isclose(f["delta"], (f["new"] or 0) - (f["old"] or 0), abs_tol=1e-9)
        if f["old"] and f["new"] is not None:
            assert math.isclose(f["pct"], 100 * f["delta"] / f["old"])
    for market, total in data["total"].items():
        assert (total["old"], total["new"]) == (old.get(f"total_{market}"), new.get(f"total_{market}"))
    # per market: its total first
    markets = [f["market"] for f in data["figures"]]
    for market in set(markets):
        first = next(f for f in data["figures"] if f["market"] == market)
        assert first["item"] == "total" or f"total_{market}" not in changed


def inputs_of(data: dict) -> dict[str, tuple]:
    return {c["key"]: (c["change"], c["old"], c["new"]) for c in data["inputs"]}


def name_cell(book: Path, name: str) -> tuple[str, str]:
    wb = openpyxl.load_workbook(book)
    sheet, ref = next(iter(wb.defined_names[name].destinations))
    return sheet, ref.replace("$", "")


# --- fixtures -------------------------------------------------------------------


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("diff")


@pytest.fixture(scope="module")
def edited_plan(work) -> Path:
    """The template with its H100 price raised and its waste range narrowed to one number."""
    text = template_text(FT)
    assert text.count("H100_SXM: 3.00 ") == 1 and text.count("waste: {low: 0.20, base: 0.25, high: 0.30}") == 1
    path = work / "edited.yaml"
    path.write_text(text.replace("H100_SXM: 3.00 ", "H100_SXM: 3.50 ")
                    .replace("waste: {low: 0.20, base: 0.25, high: 0.30}", "waste: 0.30"))
    return path


@pytest.fixture(scope="module")
def book(work) -> Path:
    return generate_workbook(FT, work / f"{FT}.xlsx")


@pytest.fixture(scope="module")
def openpyxl_book(book, work) -> Path:
    """Inputs typed with openpyxl (one as a formula), and the Compute figure of one market typed over."""
    wb = openpyxl.load_workbook(book)
    for name, value in (("mkt_hyperscaler_on_demand_price_h100_sxm", 2.5), ("wl_finetune_utilization", "=1.7"),
                        ("compute_decentralized_market", 99000)):
        sheet, ref = next(iter(wb.defined_names[name].destinations))
        wb[sheet][ref.replace("$", "")] = value
    path = work / "openpyxl-edited.xlsx"
    wb.save(path)
    return path


@pytest.fixture(scope="module")
def uno_book(book, work) -> Path:
    """Edited in LibreOffice: a row inserted above the inputs, two inputs typed, a formula typed over."""
    price = name_cell(book, "mkt_decentralized_market_price_h100_sxm")
    count = name_cell(book, "role1_count")
    figure = name_cell(book, "storage_egress_hyperscaler_on_demand")
    assert price[0] == count[0] == "Inputs"
    below = lambda ref: ref[0] + str(int(ref[1:]) + 1)  # noqa: E731 - after the row inserted at the top
    ops = [{"op": "insert_rows", "sheet": "Inputs", "index": 1, "count": 1},
           {"op": "set_value", "sheet": "Inputs", "cell": below(price[1]), "value": 2.1},
           {"op": "set_value", "sheet": "Inputs", "cell": below(count[1]), "value": 3},
           {"op": "set_value", "sheet": figure[0], "cell": figure[1], "value": 7000}]
    with uno_session() as session:
        return session.edit(book, work / "uno" / "edited.xlsx", ops)


# --- plan vs plan, template vs file ---------------------------------------------------


def test_template_vs_edited_plan_lists_exactly_the_changes(capsys, edited_plan):
    code, data = diff_json(capsys, FT, edited_plan)
    assert code == 0
    assert set(data) >= {"old", "new", "inputs", "structure", "figures", "total"}
    assert data["old"]["kind"] == "template" and data["new"]["kind"] == "plan"
    assert inputs_of(data) == {PRICE: ("changed", 3, 3.5),
                               WASTE: ("changed", {"low": 0.2, "base": 0.25, "high": 0.3}, 0.3)}
    notes = {c["key"]: c["note"] for c in data["inputs"]}
    assert notes[PRICE] == 'seed 000: "48,000 hrs x $3.00"'  # the plan's comment on that key: its source
    assert data["structure"] == [] and data["audit"] == []
    assert_figures_are_shows(data, figures_of(show_json(capsys, FT)), figures_of(show_json(capsys, edited_plan)))
    assert data["total"][HYPER]["delta"] == pytest.approx(
        48000 * (3.5 - 3.0) + 48000 * (3.5 * 0.30 - 3.0 * 0.25))  # compute, and failed runs = compute x waste
    # and the other way round: everything reversed
    code, back = diff_json(capsys, edited_plan, FT)
    assert {k: (c, n, o) for k, (c, o, n) in inputs_of(back).items()} == inputs_of(data)
    assert back["total"][HYPER]["delta"] == -data["total"][HYPER]["delta"]


def test_plan_file_vs_plan_file_and_no_change(capsys, edited_plan, work):
    copy = work / "copy.yaml"
    copy.write_text(template_text(FT).replace("# seed 000", "# moved: seed 000"))  # comments are not budget
    code, data = diff_json(capsys, copy, FT)
    assert code == 0 and not data["inputs"] and not data["structure"] and not data["figures"]
    assert all(t["delta"] == 0 for t in data["total"].values())
    code, out, err = run(capsys, "diff", copy, FT)
    assert (code, err) == (0, "") and "no change" in out
    code, data = diff_json(capsys, edited_plan, copy)
    assert set(inputs_of(data)) == {PRICE, WASTE}
    assert data["inputs"][0]["note"] == 'moved: seed 000: "48,000 hrs x $3.00"'  # the new side's note


def test_other_shape_lists_markets_workloads_and_line_items(capsys):
    code, data = diff_json(capsys, FT, "pretrain-7b")
    assert code == 0
    structure = {(s["kind"], s["key"]): s["change"] for s in data["structure"]}
    assert structure[("market", HYPER)] == "removed"
    assert structure[("market", "neo_cloud")] == "added"
    assert structure[("workload", "finetune")] == "removed" and structure[("workload", "pretrain")] == "added"
    assert structure[("line_item", "commitment")] == "added"
    assert structure[("setting", "name")] == "changed"
    assert_figures_are_shows(data, figures_of(show_json(capsys, FT)), figures_of(show_json(capsys, "pretrain-7b")))
    assert data["total"]["neo_cloud"]["old"] is None and data["total"][HYPER]["new"] is None
    assert data["total"][DECENT]["old"] is not None and data["total"][DECENT]["new"] is not None
    removed = {k for k, (change, _, _) in inputs_of(data).items() if change == "removed"}
    assert f"markets[{HYPER}].egress_per_gb" in removed


def test_a_changed_gpu_is_a_setting(capsys, work):
    path = work / "h200.yaml"
    text = template_text(FT)
    path.write_text(text.replace("gpu: H100_SXM", "gpu: H200")
                    .replace("H100_SXM: 3.00 ", "H100_SXM: 3.00\n      H200: 4.00")
                    .replace("H100_SXM: 1.80 ", "H100_SXM: 1.80\n      H200: 2.40"))
    code, data = diff_json(capsys, FT, path)
    settings = {s["key"]: (s["old"], s["new"]) for s in data["structure"] if s["kind"] == "setting"}
    assert settings == {"workloads[finetune].gpu": ("H100_SXM", "H200")}
    assert {k for k, (c, _, _) in inputs_of(data).items() if c == "added"} == \
        {f"markets[{HYPER}].gpu_prices.H200", f"markets[{DECENT}].gpu_prices.H200"}


def test_another_currency_is_a_setting_and_a_warning(capsys, work):
    path = work / "eur.yaml"
    path.write_text(template_text(FT).replace("currency: USD", "currency: EUR"))
    code, out, err = run(capsys, "diff", FT, path, "--format", "json")
    assert code == 0 and err.startswith("Warning: ") and "USD" in err and "EUR" in err and err.count("\n") == 1
    data = json.loads(out)
    assert [(s["key"], s["old"], s["new"]) for s in data["structure"]] == [("currency", "USD", "EUR")]
    assert data["inputs"] == [] and data["figures"] == []


# --- workbooks --------------------------------------------------------------------


def test_plan_vs_its_openpyxl_edited_workbook(capsys, openpyxl_book, work):
    code, data = diff_json(capsys, FT, openpyxl_book)
    assert code == 0 and data["new"]["kind"] == "workbook"
    assert inputs_of(data) == {PRICE: ("changed", 3, 2.5),
                               UTIL: ("changed", {"low": 1.5, "base": 1.6, "high": 1.8},
                                      {"low": 1.5, "base": 1.7, "high": 1.8})}
    # the figures are the reference model's of the book's current inputs: `show` of what `extract` writes
    extracted = work / "openpyxl-extracted.yaml"
    assert run(capsys, "extract", openpyxl_book, "-o", extracted)[0] == 0
    assert_figures_are_shows(data, figures_of(show_json(capsys, FT)), figures_of(show_json(capsys, extracted)))
    # the typed-over figure is the workbook audit's, on the side that has it
    audit = [(a["side"], a["kind"], a["name"]) for a in data["audit"]]
    assert ("new", "hardcoded", "compute_decentralized_market") in audit
    assert all(side == "new" for side, _, _ in audit)
    # the untouched workbook is its plan: nothing to report
    code, data = diff_json(capsys, FT, work / f"{FT}.xlsx")
    assert (data["inputs"], data["structure"], data["figures"], data["audit"]) == ([], [], [], [])


@needs_uno
def test_workbook_vs_workbook_edited_in_libreoffice(capsys, book, uno_book, work):
    code, data = diff_json(capsys, book, uno_book)
    assert code == 0
    assert inputs_of(data) == {f"markets[{DECENT}].gpu_prices.H100_SXM": ("changed", 1.8, 2.1),
                               ROLE_COUNT: ("changed", 2, 3)}
    extracted = work / "uno-extracted.yaml"
    assert run(capsys, "extract", uno_book, "-o", extracted)[0] == 0
    new = figures_of(show_json(capsys, extracted))
    assert_figures_are_shows(data, figures_of(show_json(capsys, FT)), new)
    # LibreOffice's own figures for the edited book are the new side's, bar the figure typed over
    computed = cell_values(uno_book)
    typed_over, its_total = f"storage_egress_{HYPER}", f"total_{HYPER}"
    its_gap = f"gap_storage_egress_{HYPER}"  # the gap to the cheapest reads it too
    for name, value in new.items():
        if name not in (typed_over, its_total, its_gap):
            assert computed[name] == pytest.approx(value, rel=1e-9, abs=1e-9), name
    assert computed[typed_over] == 7000
    for name in (its_total, its_gap):
        assert computed[name] == pytest.approx(new[name] - new[typed_over] + 7000, rel=1e-9)
    audit = {(a["side"], a["kind"], a["name"]) for a in data["audit"]}
    assert ("new", "hardcoded", typed_over) in audit
    # workbook against workbook, the other way: the audit finding is the old side's now
    code, back = diff_json(capsys, uno_book, book)
    assert {(a["side"], a["kind"], a["name"]) for a in back["audit"]} == {("old", k, n) for _, k, n in audit}


# --- git ----------------------------------------------------------------------------


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> str:
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com",
               PYTHONPATH=str(Path(budgetbook.__file__).resolve().parents[1]))
    done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def repo(work, edited_plan) -> Path:
    """A repository with two commits: the template's plan and workbook, then both after the price rise."""
    repo = work / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "plan.yaml").write_text(template_text(FT))
    generate_workbook(repo / "plan.yaml", repo / "budget.xlsx")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "the budget")
    (repo / "plan.yaml").write_text(edited_plan.read_text())
    generate_workbook(repo / "plan.yaml", repo / "budget.xlsx", force=True)
    git(repo, "commit", "-qam", "price rise")
    return repo


@needs_git
def test_git_revisions_of_a_plan_and_a_workbook(capsys, repo, monkeypatch):
    monkeypatch.chdir(repo)
    code, data = diff_json(capsys, "git:HEAD~1:plan.yaml", "git:HEAD:plan.yaml")
    assert set(inputs_of(data)) == {PRICE, WASTE}
    assert data["old"] == {"spec": "git:HEAD~1:plan.yaml", "kind": "plan", "plan": FT, "currency": "USD"}
    assert_figures_are_shows(data, figures_of(show_json(capsys, FT)), figures_of(show_json(capsys, "plan.yaml")))
    code, data = diff_json(capsys, "git:HEAD~1:budget.xlsx", Path("budget.xlsx"))
    assert data["old"]["kind"] == "workbook" and set(inputs_of(data)) == {PRICE, WASTE}
    assert data["audit"] == []


@needs_git
def test_bad_git_revision_and_spec_are_one_line_exit_2(capsys, repo, monkeypatch):
    monkeypatch.chdir(repo)
    for spec, says in (("git:nosuchrev:plan.yaml", "git:nosuchrev:plan.yaml"),
                       ("git:HEAD:nosuchfile.yaml", "nosuchfile.yaml"), ("git:HEAD", "expected git:REV:path")):
        code, out, err = run(capsys, "diff", spec, FT)
        assert (code, out) == (2, ""), err
        assert err.startswith("Error: ") and err.count("\n") == 1 and says in err, err


@needs_git
def test_git_diff_uses_textconv_to_show_the_budget_change(repo):
    (repo / ".gitattributes").write_text("*.xlsx diff=budgetbook\n*.yaml diff=budgetbook\n")
    git(repo, "config", "diff.budgetbook.textconv", f"{sys.executable} -m budgetbook textconv")
    shown = git(repo, "diff", "HEAD~1", "HEAD", "--", "budget.xlsx")
    assert "Binary files" not in shown
    removed = [line for line in shown.splitlines() if line.startswith("-  ")]
    added = [line for line in shown.splitlines() if line.startswith("+  ")]
    assert f"-  {HYPER}  Compute: 144,000.00" in removed and f"+  {HYPER}  Compute: 168,000.00" in added
    assert f"-  {PRICE} = 3  # seed 000: \"48,000 hrs x $3.00\"" in removed
    assert f"+  {PRICE} = 3.5  # seed 000: \"48,000 hrs x $3.00\"" in added
    assert not any("storage_per_gb_month" in line for line in removed + added)  # unchanged: no line
    # a plan file: the same budget text, so the same budget lines change
    plan_lines = git(repo, "diff", "HEAD~1", "HEAD", "--", "plan.yaml").splitlines()
    assert set(removed) <= set(plan_lines) and set(added) <= set(plan_lines)


def test_textconv_of_a_plan_and_its_workbook_is_the_same_text(capsys, book):
    code, from_book, err = run(capsys, "textconv", book)
    assert (code, err) == (0, "")
    code, from_plan, err = run(capsys, "textconv", FT)
    assert from_book == from_plan
    assert f"  {HYPER}  Total development cost: {show_plan(FT).value(f'total_{HYPER}'):,.2f}" in from_plan


def test_textconv_of_what_is_not_a_budget_is_still_text(capsys, work):
    """git stops a whole `git diff` when textconv fails: a broken plan is shown as text, with why."""
    broken = work / "broken.yaml"
    broken.write_text("name: [half edited\n")
    code, out, err = run(capsys, "textconv", broken)
    assert code == 0 and out.splitlines()[0].startswith("budgetbook: not readable as a budget: ")
    assert out.splitlines()[1:] == ["name: [half edited"]
    assert err.startswith("Warning: ") and "broken.yaml" in err and err.count("\n") == 1
    binary = work / "broken.xlsx"
    binary.write_bytes(b"PK\x03\x04" + bytes(range(256)))
    code, out, err = run(capsys, "textconv", binary)
    assert code == 0 and out.count("\n") == 2 and "260 bytes, SHA-256 " in out
    code, out, err = run(capsys, "textconv", work / "no-such.yaml")
    assert (code, out) == (2, "") and err.startswith("Error: ")


def test_check_plan_of_another_shape_is_a_structure_finding(capsys, book, work):
    """`check --plan`: a plan with a role more, or a market less, is not the workbook's (issue 15, item 4)."""
    text = template_text(FT)
    more_roles = work / "more-roles.yaml"
    role = "    - role: Data engineer\n      count: 1\n      months: 1\n      monthly_cost: 30000\n"
    assert text.count("  engineering_day_cost:") == 1
    more_roles.write_text(text.replace("  engineering_day_cost:", role + "  engineering_day_cost:"))
    one_market = work / "one-market.yaml"
    start, end = text.index("  - id: decentralized_market"), text.index("workloads:")
    one_market.write_text(text[:start] + "\n" + text[end:])
    for plan, says in ((more_roles, "only the plan"), (one_market, "market `decentralized_market`")):
        code, out, err = run(capsys, "check", book, "--plan", plan, "--format", "json")
        assert code == 1, err
        structure = [f for f in json.loads(out)["findings"] if f["kind"] == "structure"]
        assert structure and all(f["severity"] == "error" for f in structure)
        assert any(says in f["message"] and plan.name in f["message"] for f in structure), structure
    code, out, err = run(capsys, "check", book, "--plan", FT, "--format", "json")  # its own plan: OK
    assert (code, json.loads(out)["findings"]) == (0, [])


# --- --fail-above, formats, bad input ------------------------------------------------


def test_fail_above_amount_and_percent(capsys, edited_plan):
    rise = show_plan(edited_plan).value(f"total_{HYPER}") - show_plan(FT).value(f"total_{HYPER}")
    pct = 100 * rise / show_plan(FT).value(f"total_{HYPER}")
    for limit, code_wanted in ((f"{rise - 1:.0f}", 1), (f"{rise + 1:.0f}", 0), (f"{pct - 0.1:.2f}%", 1),
                               (f"{pct + 0.1:.2f}%", 0)):
        code, data = diff_json(capsys, FT, edited_plan, "--fail-above", limit)
        assert code == code_wanted, (limit, data["fail_above"])
        assert data["fail_above"]["over"] == ([HYPER] if code == 1 else [])
    # a fall never fails, however small the line
    assert diff_json(capsys, edited_plan, FT, "--fail-above", "0")[0] == 0
    code, out, err = run(capsys, "diff", FT, edited_plan, "--fail-above", "1%")
    # the table names the market by its label and prints money as `show` does (issue 26: one look)
    assert code == 1 and "over --fail-above 1%: Hyperscaler (on-demand) total rises +$" in out
    assert HYPER not in out.split("Inputs")[0]
    code, out, err = run(capsys, "diff", FT, edited_plan, "--format", "markdown")
    assert "| Hyperscaler (on-demand) | $" in out and f"| {HYPER}" not in out and f"`{HYPER}`" not in out


def test_bad_input_is_one_line_exit_2(capsys, work, book):
    junk = work / "junk.xlsx"
    junk.write_bytes(b"PK\x03\x04 not a workbook")
    wb = openpyxl.load_workbook(book)
    sheet, ref = next(iter(wb.defined_names["wl_finetune_waste"].destinations))
    wb[sheet][ref.replace("$", "")] = "a quarter"
    typed = work / "text-input.xlsx"
    wb.save(typed)
    code, out, err = run(capsys, "diff", FT, typed)  # refused as `extract` refuses it
    assert (code, out) == (2, "") and err.count("\n") == 1 and "text-input.xlsx" in err and "'a quarter'" in err
    for args, says in (((FT, work / "missing.yaml"), "missing.yaml"), ((junk, FT), "junk.xlsx"),
                       ((FT, "no-such-template"), "no-such-template"),
                       ((FT, FT, "--fail-above", "lots"), "--fail-above"),
                       ((FT, FT, "--fail-above", "-5%"), "--fail-above"), ((FT, FT, "--format", "csv"), "csv")):
        code, out, err = run(capsys, "diff", *args)
        assert (code, out) == (2, ""), (args, err)
        assert err.startswith("Error: ") and err.count("\n") == 1 and says in err, err


def test_hostile_workbooks_are_refused_as_check_refuses_them(capsys, work):
    """A workbook side is opened by the same safe reader as `check`: a zip bomb or XXE is one line, exit 2."""
    import hostile

    for path in (hostile.zip_bomb(work / "bomb.xlsx"), hostile.xxe_xlsx(work / "xxe.xlsx"),
                 hostile.ole_container(work / "ole.xlsx")):
        before = sha(path)
        for args in (("diff", FT, path), ("diff", path, FT), ("textconv", path)):
            code, out, err = run(capsys, *args)
            if args[0] == "textconv":  # still text for git: why, then the file's digest
                assert code == 0 and out.startswith("budgetbook: not readable as a budget: ") and "SHA-256" in out
            else:
                assert (code, out) == (2, ""), (args, err)
            assert err.count("\n") == 1 and f"{path}: " in err, err
        assert sha(path) == before


def test_markdown_renders_as_a_pull_request_comment(capsys, work):
    hostile = work / "hostile.yaml"
    text = template_text(FT).replace("label: Hyperscaler (on-demand)", "label: '<img src=x> | *x*'")
    line = next(line for line in text.splitlines() if "H100_SXM: 3.00 " in line)
    hostile.write_text(text.replace(line, "      H100_SXM: 3.25  # <b>quote</b> | pipe"))
    render = lambda out: MarkdownIt("commonmark").enable("table").render(out)  # noqa: E731
    code, out, err = run(capsys, "diff", FT, hostile, "--format", "markdown")
    assert (code, err) == (0, "")
    html = render(out)
    assert "<img" not in html and "<b>quote" not in html  # text from a plan is text, never markup
    assert "&lt;b&gt;quote&lt;/b&gt; | pipe" in html and "&lt;img src=x&gt; | *x*" in html
    assert "<details" not in html  # two inputs, one setting: nothing to collapse
    code, out, err = run(capsys, "diff", "pretrain-7b", hostile, "--format", "markdown")
    html = render(out)
    # long lists collapse (dozens of inputs differ between these plans), the totals never do
    assert html.count("<details") >= 2 and "<summary><b>Inputs</b>" in html
    assert html.index("<table>") < html.index("<details")
    assert "<table>" in html[html.index("<details"):]  # what a details block holds is Markdown, rendered
    first_table = html[html.index("<table>"):html.index("</table>")]
    assert first_table.count("<tr>") == 1 + 5  # header, then each market of both plans
    for row in first_table.split("<tr>")[2:]:
        assert row.count("<td") == 5  # no cell split by a `|` from a label


# --- random plans ------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::budgetbook.planfile.loader.PlanWarning")  # random peaks look sparse
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=plan_data(), picks=st.data())
def test_random_plans_list_exactly_the_inputs_changed(data, picks, tmp_path_factory):
    """Change a few inputs of a random plan: the diff lists those, no other; its totals are each side's."""
    from budgetbook.errors import PlanError
    from budgetbook.plan.inputs import TIMING, input_cells, with_values
    from budgetbook.plan.numbers import Num
    from budgetbook.planfile.loader import plan_from_data
    from budgetbook.review.diff import diff_budgets, id_key

    old_plan = plan_from_data(data)
    cells = [c for c in input_cells(old_plan) if c.section != TIMING]
    chosen = picks.draw(st.lists(st.sampled_from(cells), unique_by=lambda c: c.name, min_size=1, max_size=3))
    values = {}
    for cell in chosen:
        low = cell.bounds.minimum + (1e-3 if cell.bounds.min_exclusive else 0.0)
        values[cell.path] = Num.of(picks.draw(st.floats(low, min(cell.bounds.maximum, max(low, 1.0) * 1e4))))
    new_data = with_values(data, values)
    try:
        new_plan = plan_from_data(new_data)
    except PlanError:
        assume(False)
    folder = tmp_path_factory.mktemp("random")
    old, new = folder / "old.yaml", folder / "new.yaml"
    old.write_text(yaml.safe_dump(data, sort_keys=False))
    new.write_text(yaml.safe_dump(new_data, sort_keys=False))
    result = diff_budgets(str(old), str(new)).as_json()
    changed = {id_key(old_plan, c.path) for c in chosen
               if (c.num.base, c.num.ranged) != (values[c.path].base, False)}
    assert {c["key"] for c in result["inputs"]} == changed
    assert all(c["change"] == "changed" for c in result["inputs"])
    before, after = compute_breakdown(old_plan), compute_breakdown(new_plan)
    for market, total in result["total"].items():
        assert total["old"] == before.value(f"total_{market}") and total["new"] == after.value(f"total_{market}")
    assert_figures_are_shows(result, {f.name: f.value for f in before.figures},
                             {f.name: f.value for f in after.figures})
