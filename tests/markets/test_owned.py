"""An owned cluster (`kind: owned`): a worked example by hand, month by month, through the reference, `formulas`
and LibreOffice; the break-even utilization; bad input refused in one line.

The worked example: 16 H100 at $20,000, +50% server, +25% network: $600,000, bought in month 2, two-year life,
10% residual: $540,000 / 24 = $22,500 a month. A GPU draws 0.7 kW x 2 (server) x 1.2 (PUE) x $0.10 = $0.168 an
hour at TDP. Month 1 (before the purchase): the 5,000 hours of `early` all overflow to `neo` at $2: $10,000.
Months 2-3: `main` buys 15,000 hours a month; the cluster delivers 16 x 730.5 x 0.9 = 10,519.2 (held), 1,168.8 of
its 11,688 installed hours idle, 4,480.8 overflow ($8,961.60). Energy (10,519.2 x 0.75 + 1,168.8 x 0.25) x 0.168 =
$1,374.5088; facility 16 x 1.4 kW x $150 = $3,360; maintenance 600,000 x 6% / 12 = $3,000; financing 12% / 12 on
the book value at the month's start: $6,000 then $5,775. Book value at the end: 600,000 - 45,000 = $555,000.
"""

from __future__ import annotations

import json
import math

import pytest
import yaml
from cli_run import run
from libreoffice import needs_libreoffice, recalculated_values

from budgetbook.planfile.loader import plan_from_text
from budgetbook.reference import compute_breakdown, compute_monthly, ownership
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

OWNED = {"gpu": "H100_SXM", "count": 16, "price_per_gpu": 20000, "server_overhead_share": 0.5,
         "network_share": 0.25, "start": 1, "months": 2, "life_years": 2, "residual_share": 0.1,
         "cost_of_capital": 0.12, "power_ratio": 2, "busy_share": 0.75, "idle_share": 0.25, "pue": 1.2,
         "price_per_kwh": 0.1, "colocation_per_kw_month": 150, "maintenance_share": 0.06,
         "availability": 0.9, "fallback": "neo"}
WORKLOADS = [{"id": "early", "gpu": "H100_SXM", "ideal_gpu_hours": 5000, "utilization": 1, "months": 1},
             {"id": "main", "gpu": "H100_SXM", "ideal_gpu_hours": 30000, "utilization": 1, "start": 1, "months": 2}]
MONTHS = {"owned_depreciation": [0, 22500, 22500], "owned_energy": [0, 1374.5088, 1374.5088],
          "owned_facility": [0, 3360, 3360], "owned_maintenance": [0, 3000, 3000],
          "owned_financing": [0, 6000, 5775], "owned_overflow": [10000, 8961.6, 8961.6]}


def _plan_data(owned: dict | None = None, workloads: list | None = None) -> dict:
    return {"name": "owned-example", "start": "2026-01",
            "markets": [{"id": "neo", "gpu_prices": {"H100_SXM": 2.0}},
                        {"id": "cluster", "label": "Own cluster", "kind": "owned", "owned": owned or OWNED}],
            "workloads": workloads or WORKLOADS}


TEXT = yaml.safe_dump(_plan_data(), sort_keys=False)


def _assert_months(values: dict, where: str) -> None:
    for line, months in MONTHS.items():
        for n, expected in enumerate(months, 1):
            got = values[f"cf_{line}_cluster_m{n}"]
            assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-9), (where, line, n, got)
    assert math.isclose(values["owned_book_value_cluster"], 555000, rel_tol=1e-12), where
    assert math.isclose(values["total_cluster"], sum(map(sum, MONTHS.values())), rel_tol=1e-12), where
    assert values["owned_depreciation_neo"] == 0 and values["checks_ok"] is True, where


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    return write_workbook(plan_from_text(TEXT, "worked example"), TEXT, tmp_path_factory.mktemp("owned") / "o.xlsx")


def test_the_worked_example_by_hand_in_the_reference_and_formulas(book):
    plan = plan_from_text(TEXT, "worked example")
    monthly = {(r.item, r.market): r.values for r in compute_monthly(plan).rows}
    figures = {f.name: f.value for f in compute_breakdown(plan).figures}
    reference = {f"cf_{item}_{market}_m{n}": v for (item, market), values in monthly.items()
                 for n, v in enumerate(values, 1)} | figures | {"checks_ok": True}
    _assert_months(reference, "reference")
    evaluated = evaluate_workbook(book)
    _assert_months(evaluated, "formulas")
    assert math.isclose(evaluated["own_cluster_per_hour_cluster"], 72244.0176 / 21038.4, rel_tol=1e-12)
    assert evaluated["own_cluster_utilization_cluster"] == pytest.approx(1.0)
    # the cash view's rows: the purchase in month 2, then what is paid out month by month
    assert [evaluated[f"cf_own_cluster_purchase_cash_cluster_m{n}"] for n in (1, 2, 3)] == [0, 600000, 0]
    assert [evaluated[f"cf_own_cluster_cash_cluster_m{n}"] for n in (1, 2, 3)] == pytest.approx(
        [10000, 600000 + 22696.1088 - 0, 22471.1088])
    # live: fixed 69,495 + 23,376 installed hours x 0.25 x 0.168, over 21,038.4 hours x ($2 - 0.5 x 0.168)
    assert math.isclose(evaluated["own_cluster_breakeven_neo_cluster"], 70476.792 / (21038.4 * 1.916), rel_tol=1e-12)
    [entry] = ownership(plan)
    assert entry["purchase"] == 600000 and entry["book_value_at_end"] == pytest.approx(555000)
    assert entry["cost_per_gpu_hour"] == pytest.approx(72244.0176 / 21038.4, rel=1e-12)
    assert entry["breakeven_utilization"] == {"neo": pytest.approx(70476.792 / (21038.4 * 1.916), rel=1e-12)}


@needs_libreoffice
def test_the_worked_example_in_libreoffice(book, tmp_path):
    _assert_months(recalculated_values(book, tmp_path), "LibreOffice")


@pytest.mark.parametrize("price", [2.5, 4.0])
def test_at_the_breakeven_utilization_owning_costs_what_renting_does(price):
    """Load the cluster at its reported break-even share of deliverable hours: its expense equals renting them."""
    owned = OWNED | {"start": 0, "months": 3, "life_years": 5, "price_per_gpu": 8000}
    data = _plan_data(owned, [{"id": "main", "gpu": "H100_SXM", "ideal_gpu_hours": 1000, "utilization": 1,
                               "months": 3}])
    data["markets"][0]["gpu_prices"]["H100_SXM"] = price
    [entry] = ownership(plan_from_text(yaml.safe_dump(data), "probe"))
    share = entry["breakeven_utilization"]["neo"]
    assert 0 < share < 1
    deliverable = 16 * 730.5 * 3 * 0.9
    data["workloads"][0]["ideal_gpu_hours"] = share * deliverable
    [loaded] = ownership(plan_from_text(yaml.safe_dump(data), "at break-even"))
    expense = sum(loaded[p] for p in ("depreciation", "energy", "facility", "maintenance", "financing"))
    assert loaded["overflow"] == 0 and loaded["utilization"] == pytest.approx(share, rel=1e-12)
    assert abs(expense - share * deliverable * price) < 0.005


@pytest.mark.parametrize(("change", "where", "says"), [
    ({"life_years": -1}, "`markets[1].owned.life_years`", "must be"),
    ({"pue": 0.9}, "`markets[1].owned.pue`", "must be"),
    ({"start": "2027-06"}, "`markets[1].owned.start`", "after the plan's last month"),
    ({"gpu": "H100_XYZ"}, "`markets[1].owned.gpu`", "not in the GPU catalog"),
    ({"fallback": "nowhere"}, "`markets[1].owned.fallback`", "not a rented market"),
    ({"price_per_server": 160000}, "`markets[1].owned`", "give exactly one of `price_per_gpu`, `price_per_server`"),
])
def test_bad_input_is_one_line_with_its_key_path(tmp_path, capsys, change, where, says):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(_plan_data(OWNED | change), sort_keys=False))
    code, out, err = run(capsys, "generate", path, "-o", tmp_path / "bad.xlsx")
    assert code == 2 and err.count("\n") == 1, err
    assert where in err and says in err, err
    assert not (tmp_path / "bad.xlsx").exists()


@pytest.mark.parametrize(("market", "says"), [
    ({"id": "cluster", "kind": "owned"}, "a market of `kind: owned` needs its `owned:` block"),
    ({"id": "cluster", "owned": OWNED, "hybrid": {"assign": {"early": "neo", "main": "neo"}}},
     "a market has one kind"),
    ({"id": "cluster", "kind": "hybrid", "owned": OWNED}, "a market has one kind"),
])
def test_one_kind_a_market(tmp_path, capsys, market, says):
    data = _plan_data()
    data["markets"][1] = market
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    code, out, err = run(capsys, "show", path)
    assert code == 2 and err.count("\n") == 1 and "`markets[1]`" in err and says in err, err


@pytest.mark.parametrize(("change", "key"), [({"life_years": 0.5}, "markets[1].owned.life_years"),
                                             ({"price_per_gpu": 250000}, "markets[1].owned.price_per_gpu")])
def test_sanity_warns_of_an_implausible_cluster(tmp_path, capsys, change, key):
    path = tmp_path / "odd.yaml"
    path.write_text(yaml.safe_dump(_plan_data(OWNED | change), sort_keys=False))
    code, out, err = run(capsys, "show", path)
    assert code == 0 and f"`{key}" in err, err
    if "price_per_gpu" in change:  # a range of money reads "low to high", as every range printed
        assert "(about 2,000 to 100,000;" in err, err


def test_show_says_where_owning_beats_renting(capsys):
    code, out, err = run(capsys, "show", "own-vs-rent")
    assert code == 0, err
    assert "Own cluster (256 H100): $2.70 per delivered GPU-hour; owning beats Hyperscaler (1-year commit) " \
           "above 55% utilization" in " ".join(out.split()), out
    code, out, err = run(capsys, "show", "own-vs-rent", "--format", "json")
    [entry] = json.loads(out)["ownership"]
    # inside E. Cheah's $1.65-2.85 per H100-hour (Latent Space, 2024-10-10), the template's check
    assert 1.65 <= entry["cost_per_gpu_hour"] <= 2.85 and entry["utilization"] == pytest.approx(0.772, abs=1e-3)


def test_the_cash_view_puts_the_purchase_in_its_month(tmp_path, capsys):
    path = tmp_path / "owned.yaml"
    path.write_text(TEXT)
    code, out, err = run(capsys, "show", path, "--by", "month", "--view", "cash", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    rows = {r["item"]: r["values"] for r in data["rows"] if r["market"] == "cluster"}
    assert data["view"] == "cash" and "owned_depreciation" not in rows
    assert rows["owned_purchase"] == [0, 600000, 0] and rows["owned_financing"] == pytest.approx([0, 6000, 5775])
    assert rows["total"] == pytest.approx([10000, 600000 + 22696.1088, 22471.1088])
    code, out, err = run(capsys, "show", path, "--by", "month", "--format", "json")
    assert json.loads(out)["view"] == "expense"
    assert [r["values"] for r in json.loads(out)["rows"] if r["item"] == "owned_depreciation"][1] == [0, 22500, 22500]
    code, out, err = run(capsys, "show", path, "--view", "cash")
    assert code == 2 and "`--by month`" in err


def test_power_and_colocation_bills_map_to_the_owned_lines(tmp_path, capsys):
    """A power bill and a colocation invoice are imported against the cluster's energy and facility lines and held
    against their plan; depreciation and the cost of capital, which no bill carries, are plan only."""
    book, bills, out = tmp_path / "own.xlsx", tmp_path / "power.csv", tmp_path / "billed.xlsx"
    assert run(capsys, "generate", "own-vs-rent", "-o", book)[0] == 0
    bills.write_text("date,market,item,amount\n2026-01-31,own_cluster,owned_energy,21000.00\n"
                     "2026-01-31,own_cluster,owned_facility,40000.00\n")
    code, _, err = run(capsys, "actuals", book, bills, "-o", out)
    assert code == 0, err
    code, stdout, err = run(capsys, "variance", out, "--format", "json")
    lines = {line["item"]: line for line in json.loads(stdout)["lines"] if line["market"] == "own_cluster"}
    assert lines["owned_energy"]["actual"] == 21000.0 and lines["owned_facility"]["actual"] == 40000.0
    assert 0 < lines["owned_energy"]["plan_to_date"] < lines["owned_energy"]["plan"]  # one month billed
    assert all(lines[i]["plan_only"] for i in ("owned_depreciation", "owned_financing", "owned_overflow"))
    assert code == 1 and "Owned: energy +" in err  # a month of power at 2.6x the plan: over the 10 % threshold
    code, stdout, err = run(capsys, "check", out, "--format", "json")
    assert code == 0 and json.loads(stdout)["ok"], err


def test_summary_says_where_owning_beats_renting_live(tmp_path):
    """Summary's own-or-rent rows read the Ownership sheet: in the cluster's column, the break-even against each
    rented market and this plan's utilization, as the reference computes them."""
    from budgetbook.planfile.loader import load_plan, resolve

    text = resolve("own-vs-rent")[1]
    plan = load_plan("own-vs-rent")
    values = evaluate_workbook(write_workbook(plan, text, tmp_path / "own.xlsx"))
    (answer,) = ownership(plan)
    for rented, share in answer["breakeven_utilization"].items():
        got = values[f"sum_own_own_cluster_breakeven_{rented}_own_cluster"]
        assert got == pytest.approx(share, rel=1e-9) and 0 < got < 1
        assert values[f"sum_own_own_cluster_breakeven_{rented}_{rented}"] == 0  # not that column's: shown "-"
    assert values["sum_own_own_cluster_utilization_own_cluster"] == pytest.approx(answer["utilization"], rel=1e-9)


def test_colocation_by_the_rack(tmp_path, capsys):
    """256 GPUs, 32 a rack, 7,500 a rack-month, a year in service: 8 racks x 7,500 x 12 = 720,000, in the
    reference and the workbook's formulas; the per-kW price is then no input at all. Both prices: one line."""
    from budgetbook.planfile.loader import resolve
    from budgetbook.review.check import check_workbook

    text = resolve("own-vs-rent")[1]
    assert "      colocation_per_kw_month: {low: 150, base: 184, high: 220}" in text
    rack = text.replace("      colocation_per_kw_month: {low: 150, base: 184, high: 220}",
                        "      colocation_per_rack_month: 7500\n      gpus_per_rack: {low: 24, base: 32, high: 40}")
    plan = plan_from_text(rack, "rack.yaml")
    expected = {f.name: f.value for f in compute_breakdown(plan).figures}["owned_facility_own_cluster"]
    assert expected == pytest.approx(256 / 32 * 7500 * 12)
    book = write_workbook(plan, rack, tmp_path / "rack.xlsx")
    values = evaluate_workbook(book)
    assert values["owned_facility_own_cluster"] == pytest.approx(expected, rel=1e-12)
    assert "mkt_own_cluster_owned_colocation_per_kw_month" not in values
    assert check_workbook(book).ok
    both = tmp_path / "both.yaml"
    both.write_text(rack.replace("      colocation_per_rack_month: 7500\n",
                                 "      colocation_per_rack_month: 7500\n      colocation_per_kw_month: 184\n"))
    code, _, err = run(capsys, "show", both)
    assert code == 2 and "give one of `colocation_per_kw_month` and `colocation_per_rack_month`" in err
