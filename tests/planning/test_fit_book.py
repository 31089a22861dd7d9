"""The Fit sheet: `fit`'s answer in the workbook, live where the total is linear in the solved input.

pretrain-7b with a `fit:` budget by hand (the decentralized market's tokens: the closed form, live; the
committed hyperscaler's: `fit`'s bisection, a value); LibreOffice recalculating it after an edited price
and budget, and `check` saying the computed answer went stale; random plans: the live answer, fed back
into the plan, lands on the budget.
"""

from __future__ import annotations

import json

import openpyxl
import pytest
import yaml
from cli_run import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from libreoffice import cell_values, needs_libreoffice, recalculate_many
from strategies import plans

from budgetbook.planfile.loader import plan_from_text, template_text
from budgetbook.planfile.rewrite import rewrite_values
from budgetbook.planning.fit import TOLERANCE, fit
from budgetbook.planning.fit_book import computed, sheet_rows
from budgetbook.planning.targets import target
from budgetbook.reference import compute_breakdown
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

FIT = "\nfit:\n  budget: 2500000   # assumption: what the board approved\n  solve: tokens\n"
TEXT = template_text("pretrain-7b") + FIT
# the pretrain's cost per token on the decentralized market, as test_fit.py has it by hand:
# 6 FLOP x 7e9 params / (989 TFLOP/s x 3600 s) / MFU 0.5 x $1.80 x (1 + 0.15 waste + reliability): the goodput
# uplift of 1.15 interruptions a day, each losing half a 2.4 h interval and a 1 h restart, and half the work twice
LOST = 1.15 / 24 * (2.4 / 2 + 1)
PER_TOKEN = 6 * 7e9 / (989e12 * 3600) / 0.5 * 1.80 * (1 + 0.15 + LOST / (1 - LOST) + 0.5)


def _book(tmp_path, text: str = TEXT, name: str = "fit.xlsx"):
    return write_workbook(plan_from_text(text), text, tmp_path / name)


def test_the_fit_sheet_by_hand(tmp_path):
    plan = plan_from_text(TEXT)
    values = evaluate_workbook(_book(tmp_path))
    total = compute_breakdown(plan).value("total_decentralized_market")
    by_hand = 5e12 + (2.5e6 - total) / PER_TOKEN
    assert values["fits_moving_decentralized_market"] == pytest.approx(5e12 * PER_TOKEN, rel=1e-9)
    assert values["fits_linear_decentralized_market"] == 1
    assert values["fits_solved_decentralized_market"] == pytest.approx(by_hand, rel=1e-9)
    solved = fit(plan, 2.5e6, "tokens", market="decentralized_market")
    assert values["fits_solved_decentralized_market"] == pytest.approx(solved.value, rel=1e-8)  # fit's shortest
    # the committed hyperscaler: the block's idle hours absorb the first tokens, so the total is not linear in
    # them; the answer is fit's bisection, a value computed by budgetbook
    committed = fit(plan, 2.5e6, "tokens", market="hyperscaler_commit")
    assert committed.method == "bisection" and values["fits_linear_hyperscaler_commit"] == 0
    assert values["fits_solved_hyperscaler_commit"] == committed.value == values["fits_computed_hyperscaler_commit"]
    for name, _key, _market, _label, expected in sheet_rows(plan):
        assert values[name] == pytest.approx(expected, rel=1e-9), name


def test_fit_reads_the_plan_s_fit_section(capsys, tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text(TEXT)
    code, out, err = run(capsys, "fit", plan, "-m", "decentralized_market", "--format", "json")
    assert code == 0, err
    result = json.loads(out)
    assert (result["budget"], result["solve"], result["binds"]) == (2.5e6, "tokens", "budget")
    assert result["value"] == pytest.approx(5e12 + (2.5e6 - result["was_total"]) / PER_TOKEN, rel=1e-8)
    code, out, err = run(capsys, "fit", plan, "--budget", 1e6, "-m", "decentralized_market", "--format", "json")
    assert code == 0 and json.loads(out)["budget"] == 1e6, err  # a flag wins over the section


def test_a_bad_fit_section_is_one_line(capsys, tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text(TEXT.replace("solve: tokens", "solve: days"))
    code, out, err = run(capsys, "generate", plan, "-o", tmp_path / "out.xlsx")
    assert code == 2 and "`fit.solve`" in err and "cluster" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out.xlsx").exists()


@needs_libreoffice
def test_live_after_an_edited_price_and_budget_and_check_says_the_value_is_stale(capsys, tmp_path):
    # finance types the decentralized price from $1.80 to $2.00 and the budget to $3M; LibreOffice recalculates
    wb = openpyxl.load_workbook(_book(tmp_path))
    for name, typed in (("mkt_decentralized_market_price_h100_sxm", 2.00), ("fit_budget", 3e6)):
        sheet, ref = next(iter(wb.defined_names[name].destinations))
        wb[sheet][ref.replace("$", "")] = typed
    wb.save(edited := tmp_path / "edited.xlsx")
    values = cell_values(recalculate_many([edited], tmp_path / "lo")[0])
    now = plan_from_text(TEXT.replace("H100_SXM: {low: 1.80, base: 1.80, high: 2.13}",
                                      "H100_SXM: {low: 1.80, base: 2.00, high: 2.13}").replace("2500000", "3000000"))
    total = compute_breakdown(now).value("total_decentralized_market")
    by_hand = 5e12 + (3e6 - total) / (PER_TOKEN / 1.80 * 2.00)
    assert values["fits_solved_decentralized_market"] == pytest.approx(by_hand, rel=1e-9)
    assert values["fits_solved_decentralized_market"] == pytest.approx(
        fit(now, 3e6, "tokens", market="decentralized_market").value, rel=1e-8)
    for name, _key, _market, _label, expected in sheet_rows(now):
        assert values[name] == pytest.approx(expected, rel=1e-9), name
    # the committed market's answer is a value: it stays as generated, and `check` says so
    assert values["fits_solved_hyperscaler_commit"] != computed(now)["hyperscaler_commit"]["computed"]
    code, out, err = run(capsys, "check", edited, "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["ok"], out
    assert any(f["kind"] == "stale" for f in report["findings"])


@given(plans(), st.floats(1.01, 4))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_live_answer_fed_back_lands_on_the_budget(tmp_path_factory, pair, factor):
    plan, text = pair
    if getattr(plan, "fit", None) is None:
        return
    data = yaml.safe_load(text)  # a budget the plan can reach: above its first market's total
    data["fit"]["budget"] = budget = compute_breakdown(plan).value(f"total_{plan.markets[0].id}") * factor
    text = yaml.safe_dump(data, sort_keys=False)
    plan = plan_from_text(text)
    values = evaluate_workbook(write_workbook(plan, text, tmp_path_factory.mktemp("fit") / "plan.xlsx"))
    chosen = target(plan, plan.fit.solve, plan.fit.workload or None)
    for market in plan.markets:
        if values[f"fits_linear_{market.id}"] != 1:
            continue
        solved = plan_from_text(rewrite_values(text, plan, chosen.values(values[f"fits_solved_{market.id}"])))
        assert abs(compute_breakdown(solved).value(f"total_{market.id}") - budget) <= TOLERANCE, market.id
