"""A worked example through both implementations: the reference model and the workbook's formulas.

Each `lineitems/test_*.py` states one line item's rule on a small plan with
numbers a reader can check by hand, then asserts both implementations give them.
"""

from __future__ import annotations

import math
from pathlib import Path

import yaml

from budgetbook.planfile.loader import plan_from_text
from budgetbook.reference import compute_breakdown, compute_monthly
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

MARKETS = [{"id": "a", "gpu_prices": {"H100_SXM": 3}, "storage_per_gb_month": 0.02, "egress_per_gb": 0.1},
           {"id": "b", "gpu_prices": {"H100_SXM": 2}, "extra_engineering_days": 5}]
ONE_WORKLOAD = [{"id": "w", "gpu": "H100_SXM", "ideal_gpu_hours": 1000, "utilization": 1.5}]


def plan_yaml(**sections) -> str:
    data = {"name": "worked-example", "markets": MARKETS, "workloads": ONE_WORKLOAD} | sections
    return yaml.safe_dump(data, sort_keys=False)


def both_ways(tmp_path: Path, text: str) -> tuple[dict[str, float], dict[str, float]]:
    """({figure name: reference value}, {figure name: the workbook's value, evaluated by `formulas`})."""
    plan = plan_from_text(text, "worked example")
    reference = {f.name: f.value for f in compute_breakdown(plan).figures}
    book = tmp_path / "example.xlsx"
    write_workbook(plan, text, book)
    evaluated = evaluate_workbook(book)
    assert evaluated["checks_ok"] is True
    return reference, {name: evaluated[name] for name in reference}


def assert_figures(tmp_path: Path, text: str, expected: dict[str, float]) -> dict[str, float]:
    reference, workbook = both_ways(tmp_path, text)
    for name, value in expected.items():
        assert reference[name] == value or abs(reference[name] - value) <= 1e-9 * abs(value), (name, reference[name])
        assert abs(workbook[name] - value) <= 1e-9 * abs(value), (name, workbook[name])
    return reference


def assert_cash_flow_matches_reference(plan, values: dict) -> None:
    """Every month of every line and total, and the cumulative spend, as the reference computes them."""
    monthly = compute_monthly(plan)
    for row in monthly.rows:
        for n, expected in enumerate(row.values, 1):
            got = values[f"cf_{row.item}_{row.market}_m{n}"]
            assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-6), \
                f"{row.item} {row.market} month {n}: workbook {got!r} != reference {expected!r}"
    for market in monthly.markets:
        for n, expected in enumerate(monthly.cumulative(market), 1):
            assert math.isclose(values[f"cf_cum_{market}_m{n}"], expected, rel_tol=1e-9, abs_tol=1e-6)


# the reliability worked example (tests/lineitems/test_reliability.py, test_gap.py): 1,000 ideal GPU-hours x 1.5;
# cloud at 3 with interruptions, support and days; dec at 2 with verification; bare at 2 with nothing else
CLOUD = {"interruptions_per_day": 2.4, "checkpoint_interval_hours": 2, "restart_hours": 0.5,
         "sla_credit_share": 0.01, "support_share": 0.05, "setup_days": 2, "debugging_days_per_month": 1,
         "months": 3}
DEC = {"redundant_share": {"low": 0.05, "base": 0.1, "high": 0.2}, "rejected_share": 0.02, "vetting_days": 3}


def reliability_plan(name: str) -> dict:
    """The worked example's plan: three markets and a hybrid, one workload, a day at 1,000."""
    return {"name": name, "markets": [
        {"id": "cloud", "gpu_prices": {"H100_SXM": 3}, "reliability": CLOUD},
        {"id": "dec", "gpu_prices": {"H100_SXM": 2}, "reliability": DEC},
        {"id": "bare", "gpu_prices": {"H100_SXM": 2}},
        {"id": "mix", "hybrid": {"assign": {"w": "dec"}}}],
        "workloads": [{"id": "w", "gpu": "H100_SXM", "ideal_gpu_hours": 1000, "utilization": 1.5}],
        "people": {"engineering_day_cost": 1000}}
