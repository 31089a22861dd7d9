"""Market kinds: one module each, and nothing outside a kind's module tests for it.

A hybrid's storage, egress and extra engineering days are read by no formula (it pays those of the
markets it uses), so they are not inputs: the Inputs sheet holds only what something reads.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import openpyxl
import pytest
import yaml
from cli_run import run

from budgetbook.markets import hybrid, registry, rented
from budgetbook.markets.registry import KINDS, kind_of
from budgetbook.plan.templates import template_text
from budgetbook.planfile.loader import load_plan, plan_from_text
from budgetbook.workbook.write import write_workbook

PACKAGE = Path(registry.__file__).resolve().parents[1]
# what "is this market a hybrid?" looks like in code: an attribute test, a kind compared, a flag
HYBRID_TEST = re.compile(r"\.hybrid\b|kind\s*==\s*['\"]hybrid|\bif\s+(not\s+)?hybrid\b|hybrid\s+is\s+(not\s+)?None")


def test_no_module_but_the_hybrids_own_tests_for_a_hybrid():
    found = [f"{path.relative_to(PACKAGE.parent)}:{n}: {line.strip()}"
             for path in sorted(PACKAGE.rglob("*.py")) if path != Path(hybrid.__file__).resolve()
             for n, line in enumerate(path.read_text().splitlines(), 1) if HYBRID_TEST.search(line)]
    assert not found, "\n".join(found)


def test_every_templates_market_has_its_kind():
    plan = load_plan("pretrain-7b")
    assert [kind_of(m).id for m in plan.markets] == ["rented", "rented", "rented", "hybrid"]
    assert [m.market_kind for m in plan.markets] == [kind_of(m) for m in plan.markets]  # a kind's module asks so
    assert [m.id for m in plan.markets if kind_of(m).priced] == ["hyperscaler_commit", "neo_cloud",
                                                                  "decentralized_market"]


def test_the_registry_refuses_two_kinds_on_one_key():
    twin = dataclasses.replace(hybrid.KIND, id="twin")
    with pytest.raises(ValueError, match="two market kinds share the plan key 'hybrid'"):
        registry._refuse_clashes((rented.KIND, hybrid.KIND, twin))
    unpriced = dataclasses.replace(rented.KIND, id="free", key="free", gpu_price=None)
    with pytest.raises(ValueError, match="market kind 'free' sells GPU-hours: give its price rule both ways"):
        registry._refuse_clashes((rented.KIND, unpriced))
    assert [k.id for k in KINDS] == ["rented", "hybrid", "owned"]


def test_a_market_has_one_kind(tmp_path, capsys):
    data = yaml.safe_load(template_text("pretrain-7b"))
    data["markets"][3]["gpu_prices"] = {"H100_SXM": 2}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    code, out, err = run(capsys, "show", path)
    assert code == 2 and err.count("\n") == 1
    assert "`markets[3]`" in err and "a hybrid market takes its prices from the markets it assigns" in err, err


def test_a_hybrids_inputs_are_only_what_a_formula_reads(tmp_path, capsys):
    text = template_text("pretrain-7b")
    book = write_workbook(plan_from_text(text), text, tmp_path / "pretrain.xlsx")
    names = set(openpyxl.load_workbook(book).defined_names)
    assert "mkt_hybrid_runs_ablations" in names          # a hybrid's own runs: read by Compute
    for unread in ("storage_per_gb_month", "egress_per_gb", "extra_engineering_days"):
        assert f"mkt_hybrid_{unread}" not in names
        assert f"mkt_neo_cloud_{unread}" in names        # a rented market's are read
    inputs = openpyxl.load_workbook(book)["Inputs"]
    keys = [row[7].value for row in inputs.iter_rows(min_row=5) if row[7].value]
    assert [k for k in keys if k.startswith("markets[3]")] == ["markets[3].hybrid.runs.ablations"]
    code, out, err = run(capsys, "check", book)
    assert code == 0, out + err
    extracted = tmp_path / "back.yaml"
    code, out, err = run(capsys, "extract", book, "-o", extracted)
    assert code == 0, err
    assert load_plan(extracted).model_dump() == plan_from_text(text).model_dump()
