"""Reliability (issue 29, item 2): goodput, SLA, support, verification and people-days, three ways."""

import pytest
import yaml
from cli_run import run
from libreoffice import error_cells, needs_libreoffice, recalculated_values
from lineitem_case import assert_figures, reliability_plan

from budgetbook.markets.registry import kind_of
from budgetbook.planfile.loader import load_plan, plan_from_text
from budgetbook.ranges.simulate import simulate
from budgetbook.workbook.write import write_workbook

# compute: 1,000 ideal hours x 1.5 = 1,500 hours; cloud at 3 (4,500), dec at 2 (3,000); a day costs 1,000
PLAN = reliability_plan("reliability")
# goodput on cloud: 2.4 interruptions/day / 24 x (2 h x half + 0.5 h restart) = 0.15 of paid hours lost
LOST = 2.4 / 24 * (2 * 0.5 + 0.5)
EXPECTED = {
    "reliability_cloud": 4500 * (LOST / (1 - LOST) + 0.05 - 0.01) + (2 + 1 * 3) * 1000,
    "reliability_dec": 3000 * (0.1 + 0.02) + 3 * 1000,        # verification: redundant + rejected, vetting days
    "reliability_mix": 3000 * (0.1 + 0.02) + 3 * 1000,        # the hybrid pays the market it uses
    "reliability_bare": 0,                                     # no block: nothing
    "total_cloud": 4500 + 4500 * (LOST / (1 - LOST) + 0.04) + 5000,
}


def test_goodput_and_verification_agree_in_the_reference_and_formulas(tmp_path):
    figures = assert_figures(tmp_path, yaml.safe_dump(PLAN), EXPECTED)
    assert figures["reliability_cloud"] == pytest.approx(5974.1176, rel=1e-6)


@needs_libreoffice
def test_libreoffice_agrees_and_the_cash_flow_holds_the_line(tmp_path):
    text = yaml.safe_dump(PLAN)
    (tmp_path / "in").mkdir()
    book = write_workbook(plan_from_text(text), text, tmp_path / "in" / "rel.xlsx")
    values = recalculated_values(book, tmp_path / "out")
    assert error_cells(tmp_path / "out" / "rel.xlsx") == []
    assert values["checks_ok"] is True
    for name, expected in EXPECTED.items():
        assert values[name] == pytest.approx(expected, rel=1e-9), name


def test_a_plan_without_reliability_has_no_line_and_a_hybrid_may_not_state_one(tmp_path, capsys):
    bare = dict(PLAN, markets=[PLAN["markets"][2]])
    path = tmp_path / "bare.yaml"
    path.write_text(yaml.safe_dump(bare))
    code, out, _ = run(capsys, "show", path, "--format", "json")
    assert code == 0 and "Reliability" not in out
    wrong = dict(PLAN, markets=PLAN["markets"][:3] + [dict(PLAN["markets"][3], reliability={"support_share": 0.1})])
    path.write_text(yaml.safe_dump(wrong))
    code, _, err = run(capsys, "show", path)
    assert code == 2 and "a hybrid market pays the reliability of the markets it assigns" in err
    lossy = dict(PLAN, markets=[dict(PLAN["markets"][0], reliability={"interruptions_per_day": 30,
                                                                        "restart_hours": 1})])
    path.write_text(yaml.safe_dump(lossy))
    code, _, err = run(capsys, "show", path)
    assert code == 2 and "markets[0].reliability" in err and "no training is left" in err


def test_an_owned_market_may_not_state_reliability(tmp_path, capsys):
    import importlib.util
    from pathlib import Path

    where = Path(__file__).resolve().parents[1] / "markets" / "test_owned.py"  # the owned kind's worked example
    spec = importlib.util.spec_from_file_location("owned_example", where)
    owned = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(owned)
    data = owned._plan_data()
    data["markets"][1]["reliability"] = {"support_share": 0.1}
    path = tmp_path / "owned.yaml"
    path.write_text(yaml.safe_dump(data))
    code, _, err = run(capsys, "show", path)
    assert code == 2 and "markets[1]" in err and "downtime is its availability" in err


def test_pretrain_7bs_sourced_reliability_splits_the_cheapest_market():
    """With its markets' sourced reliability (template comments, docs/accounting.md) `simulate pretrain-7b` no
    longer finds the decentralized market cheapest in every sample: 77 % of them, the neo-cloud the rest."""
    plan = load_plan("pretrain-7b")
    assert all(m.reliability is not None for m in plan.markets if kind_of(m).priced)
    cheapest = {m: s.cheapest for m, s in simulate(plan, 2_000, 1).markets.items()}
    assert cheapest["decentralized_market"] == pytest.approx(0.770, abs=0.005)
    assert cheapest["neo_cloud"] == pytest.approx(0.231, abs=0.005)
    assert max(cheapest.values()) < 1.0
