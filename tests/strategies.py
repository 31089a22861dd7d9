"""Hypothesis strategies: random valid plans covering every way the schema lets a plan be written.

Plans are kept small (1-2 workloads, 1-2 priced markets, at most one hybrid, one owned cluster a quarter of
the time)
because every example is written to .xlsx and evaluated with `formulas`, which
costs about half a second each: 100 examples (the `ci` profile) must fit in CI's few minutes.
"""

from __future__ import annotations

import copy

import yaml
from hypothesis import strategies as st

from budgetbook.lineitems.registry import LINE_ITEMS
from budgetbook.plan.model import WORKLOAD_KINDS
from budgetbook.planfile.model import PLAN_MODEL

# ids with and without underscores that cannot run into each other in workbook names
MARKET_IDS = ("aws_on_demand", "neo", "market_b", "dc")
WORKLOAD_IDS = ("pretrain", "sweep_a", "ablation", "rl")
ITEM_IDS = ("data", "eval_suite", "hardware")
GPUS = ("H100_SXM", "A100", "H800", "TPU_v5")  # TPU_v5 is not in the catalog: needs peak_tflops
WITH_FP8 = ("H100_SXM", "H800")  # the catalog's A100 has no FP8 peak: `precision: fp8` needs peak_tflops
TEXTS = ("", "Plain label", "=SUM(A1:A3)", "+1 hidden", "-minus", "@at", "Données & coûts <x>")
AS_OF = ("2025-11-30", "2026-01-01")


def note(draw, data: dict) -> dict:
    """`data` with a `note` half the time (notes reach the sheets as text, and come back out through `extract`)."""
    if draw(st.booleans()):
        data["note"] = draw(st.sampled_from(TEXTS[1:]))
    return data


def _number(lo: float, hi: float):
    # `formulas` rounds numeric cells to 15 decimal places (formulas/excel/__init__.py, `round(val, 15)`),
    # so an input below ~1e-6 loses more than 1e-9 of relative precision there: no plan prices that small
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False).map(lambda x: 0.0 if abs(x) < 1e-4 else x)


def _triple(lo: float, hi: float):
    return st.lists(_number(lo, hi), min_size=3, max_size=3).map(sorted).map(
        lambda t: {"low": t[0], "base": t[1], "high": t[2]})


def value(lo: float, hi: float, *, ranged: bool = True):
    """A plain number or a {low, base, high} range inside [lo, hi]."""
    number = _number(lo, hi)
    if not ranged:
        return number
    return st.one_of(number, number, _triple(lo, hi))


def often_ranged(lo: float, hi: float):
    """`value` drawn as a range two times in three: for keys only a few plans reach (the served model's
    shape and bandwidth), so the coverage test's plans hold each of them as a range more than a handful of
    times (Hypothesis follows each plan with near-copies: 500 plans are about 85 independent ones)."""
    return st.one_of(_number(lo, hi), _triple(lo, hi), _triple(lo, hi))


@st.composite
def checkpoints(draw) -> dict:
    data: dict = {}
    if draw(st.booleans()):
        data["size_gb"] = draw(value(1, 5000))
    else:
        data["params"] = draw(value(1e8, 1e12))
        if draw(st.booleans()):
            data["bytes_per_param"] = draw(value(2, 16))
    if draw(st.booleans()):
        data["saves"] = draw(value(0, 500))
    else:
        data["steps"] = draw(value(100, 1e6))
        data["save_every_steps"] = draw(value(10, 5000))
    if draw(st.booleans()):
        data["retention_months"] = draw(value(0, 12))
    if draw(st.booleans()):
        data["moved_share"] = draw(value(0, 1))
    return data


@st.composite
def workload(draw, wid: str) -> dict:
    gpu = draw(st.sampled_from(GPUS))
    data: dict = {"id": wid, "gpu": gpu, "label": draw(st.sampled_from(TEXTS)),
                  "kind": draw(st.sampled_from(WORKLOAD_KINDS))}
    way = draw(st.sampled_from(("ideal_gpu_hours", "flops", "cluster", "allocated_gpu_hours")))
    if way == "ideal_gpu_hours":
        data["ideal_gpu_hours"] = draw(value(1, 1e6))
    elif way == "flops":
        data["flops"] = {"params": draw(value(1e8, 1e11)), "tokens": draw(value(1e8, 1e13))}
        if draw(st.booleans()):
            data["flops"]["flops_per_param_token"] = draw(value(2, 8))
    elif way == "cluster":
        data["cluster"] = {"gpus": draw(value(1, 4096)), "days": draw(value(0.5, 90))}
    else:
        data["allocated_gpu_hours"] = draw(value(1, 3e6))
    if way in ("ideal_gpu_hours", "flops"):
        efficiency = draw(st.integers(0, 7))  # 1 in 8 states neither: the evidence's default MFU (issue 29)
        if efficiency < 4:
            data["utilization"] = draw(value(1, 3))
        elif efficiency < 7:
            data["mfu"] = draw(value(0.2, 0.6))
        if draw(st.integers(0, 3)) == 0:  # its efficiency's trend (issue 29, item 4): 1 in 4
            data["efficiency_change_per_year"] = draw(value(-0.2, 1))
    if gpu == "TPU_v5" or draw(st.integers(0, 4)) == 0:
        data["peak_tflops"] = draw(value(100, 1500))
    if (gpu in WITH_FP8 or "peak_tflops" in data) and draw(st.booleans()):
        data["precision"] = draw(st.sampled_from(("bf16", "fp8")))
    if draw(st.booleans()):  # physics only (wall-clock days, GPUs for a deadline): no cost reads them
        data["gpus"] = draw(value(1, 4096))
    if draw(st.booleans()):
        data["deadline_days"] = draw(value(1, 365))
    if draw(st.booleans()):
        data["runs"] = draw(value(0, 5))
    if draw(st.booleans()):
        data["waste"] = draw(value(0, 0.5))
    data["final_run"] = draw(st.booleans())
    if draw(st.integers(0, 2)):
        data["checkpoints"] = draw(checkpoints())
    data |= draw(timing(months=True))
    return note(draw, data)


START_MONTHS = ("2026-01", "2026-02", "2026-07", "2027-01")  # months at or after PLAN_STARTS[0]
PLAN_STARTS = ("2026-01", "2025-11")


@st.composite
def timing(draw, months: bool) -> dict:
    """A start (absent, an offset or range of offsets, or a calendar month) and, for a workload, a length."""
    data: dict = {}
    way = draw(st.sampled_from(("none", "offset", "month")))
    if way == "offset":
        data["start"] = draw(value(0, 18))
    elif way == "month":
        data["start"] = draw(st.sampled_from(START_MONTHS))
    if months and draw(st.booleans()):
        data["months"] = draw(value(0.1, 14))
    return data


@st.composite
def market(draw, mid: str, gpus: set[str]) -> dict:
    data: dict = {"id": mid, "label": draw(st.sampled_from(TEXTS)),
                  "gpu_prices": {g: draw(value(0.5, 12)) for g in sorted(gpus)}}
    if draw(st.booleans()):  # a label citing its own price: the workbook's header is a live formula
        price = data["gpu_prices"][min(gpus)]
        data["label"] = f"Cloud at ${price['base'] if isinstance(price, dict) else price}/GPU-hour"
    if draw(st.booleans()):
        data["storage_per_gb_month"] = draw(value(0, 0.1))
    if draw(st.booleans()):
        data["egress_per_gb"] = draw(value(0, 0.15))
    if draw(st.booleans()):
        data["extra_engineering_days"] = draw(value(0, 10))
    if draw(st.integers(0, 3)) == 0:  # 1 in 4: what the market costs beyond its price (issue 29)
        data["reliability"] = draw(reliability())
    return note(draw, data)


OWNABLE = ("H100_SXM", "A100", "H800")  # catalog GPUs with a TDP


@st.composite
def owned_market(draw, gpus: set[str], fallback: str) -> dict:
    """An owned cluster of one of the plan's catalog GPUs, sized to sit idle, fill or overflow; bought at the
    plan's start or within its first month (a plan spans at least one), its overflow going to `fallback`.
    One plan in four or fewer has one, so its numbers are ranged two times in three (`often_ranged`): with
    `value`'s one in three, `cost_of_capital` and `months` were never a range in the coverage test's 500 plans
    in some worker processes."""
    gpu = draw(st.sampled_from(sorted(gpus & set(OWNABLE))))
    owned: dict = {"gpu": gpu, "count": draw(often_ranged(1, 1000)), "fallback": fallback}
    if draw(st.booleans()):
        owned["price_per_gpu"] = draw(often_ranged(5000, 40000))
    else:
        owned["price_per_server"] = draw(often_ranged(40000, 400000))
    # held for its `months`, or (a short life, so the cash flow stays a few columns wide) for its life
    if draw(st.booleans()):
        owned |= {"months": draw(often_ranged(0.5, 14)), "life_years": draw(often_ranged(0.5, 7))}
    else:
        owned["life_years"] = draw(often_ranged(0.1, 1.5))
    optional = {"server_overhead_share": (0.2, 1.1), "network_share": (0.05, 0.35),
                "residual_share": (0, 0.3), "cost_of_capital": (0, 0.15), "tdp_w": (300, 1200),
                "power_ratio": (1.2, 2.2), "busy_share": (0.4, 1.0), "idle_share": (0, 0.4), "pue": (1.0, 1.6),
                "price_per_kwh": (0.03, 0.3), "colocation_per_kw_month": (80, 300),
                "maintenance_share": (0, 0.1), "availability": (0.7, 1.0)}
    for key, (lo, hi) in optional.items():
        if draw(st.integers(0, 2)):
            owned[key] = draw(often_ranged(lo, hi))
    if draw(st.integers(0, 2)) == 0:  # the facility by the rack, instead of by the kW
        owned.pop("colocation_per_kw_month", None)
        owned["colocation_per_rack_month"] = draw(often_ranged(1000, 20000))
        if draw(st.booleans()):
            owned["gpus_per_rack"] = draw(often_ranged(8, 64))
    way = draw(st.sampled_from(("none", "offset", "month")))
    if way == "offset":
        owned["start"] = draw(often_ranged(0, 0.9))
    elif way == "month":
        owned["start"] = PLAN_STARTS[0]
    prices = {g: draw(often_ranged(0.5, 12)) for g in sorted(gpus - {gpu})}
    data: dict = {"id": "colo", "label": draw(st.sampled_from(("", "Own cluster", "Colo <x>"))),
                  "gpu_prices": prices, "owned": owned}
    if draw(st.booleans()):
        data["kind"] = "owned"
    if draw(st.booleans()):
        data["storage_per_gb_month"] = draw(often_ranged(0, 0.1))
    return note(draw, data)


@st.composite
def reliability(draw) -> dict:
    """Every key, each a number or a range; at most 2 interruptions a day of up to 4 + 2 hours lost: goodput > 2/3."""
    return {"interruptions_per_day": draw(value(0, 2)), "checkpoint_interval_hours": draw(value(0, 4)),
            "restart_hours": draw(value(0, 2)), "sla_credit_share": draw(value(0, 0.05)),
            "support_share": draw(value(0, 0.1)), "setup_days": draw(value(0, 10)),
            "debugging_days_per_month": draw(value(0, 5)), "months": draw(value(0, 12)),
            "redundant_share": draw(value(0, 1)), "rejected_share": draw(value(0, 0.3)),
            "vetting_days": draw(value(0, 10))}


@st.composite
def serving_section(draw) -> dict | None:
    if not draw(st.booleans()):
        return None
    serving = {"gpu": draw(st.sampled_from(GPUS)), "months": draw(value(0, 24))}
    if draw(st.booleans()):  # serving from physics: the served model's shape bounds the throughput
        serving["model"] = {"params": draw(often_ranged(1e9, 1e11)), "layers": draw(often_ranged(8, 120)),
                            "kv_heads": draw(often_ranged(1, 64)), "head_dim": draw(often_ranged(64, 256))}
        if draw(st.booleans()):
            serving["model"]["bytes_per_value"] = draw(often_ranged(0.5, 4))
            serving["model"]["name"] = draw(st.sampled_from(TEXTS))
        serving["context_tokens"] = draw(value(512, 131072))
        serving["concurrent_sequences"] = draw(value(1, 256))
        for key, lo, hi in (("memory_gb", 16, 256), ("memory_gb_per_s", 500, 8000)):
            if serving["gpu"] == "TPU_v5" or draw(st.booleans()):  # TPU_v5 is not in the catalog
                serving[key] = draw(often_ranged(lo, hi))
        if draw(st.booleans()):  # a measured throughput overrides the bound
            serving["tokens_per_second_per_gpu"] = draw(value(10, 5000))
    else:
        serving["tokens_per_second_per_gpu"] = draw(value(10, 5000))
    if draw(st.booleans()):
        serving["tokens_per_month"] = draw(value(0, 1e12))
    else:
        serving["requests_per_month"] = draw(value(0, 1e8))
        serving["tokens_per_request"] = draw(value(0, 4000))
    if draw(st.booleans()):
        serving["api_price_per_million_tokens"] = draw(value(0, 20))
    return note(draw, serving)


@st.composite
def scope_section(draw, serving: dict) -> dict:
    """A scope for `serving` (changed in place): features give it its volume, perhaps priced input and output apart.
    Drawn in about one plan in four of those with serving: its numbers are ranged two times in three."""
    features = []
    for _ in range(draw(st.integers(0, 3))):
        feature = {"name": draw(st.sampled_from(TEXTS[1:])), "requests_per_month": draw(often_ranged(0, 1e7)),
                   "input_tokens_per_request": draw(often_ranged(0, 8000)),
                   "output_tokens_per_request": draw(often_ranged(0, 2000))}
        if draw(st.booleans()):
            feature["months"] = draw(often_ranged(0, 36))
        if draw(st.booleans()):
            feature["growth"] = draw(often_ranged(0, 0.2))
        features.append(note(draw, feature))
    scope: dict = {"features": features}
    if draw(st.booleans()):  # candidates to fine-tune or train, each served at serving's context and batch
        scope["candidates"] = []
        for cid in draw(st.lists(st.sampled_from(("small", "llama_8b", "big")), unique=True, min_size=1, max_size=2)):
            candidate = {"id": cid, "params": draw(often_ranged(1e9, 1e11)), "layers": draw(often_ranged(8, 120)),
                         "kv_heads": draw(often_ranged(1, 64)), "head_dim": draw(often_ranged(64, 256))}
            if draw(st.booleans()):
                candidate["name"] = draw(st.sampled_from(TEXTS))
                candidate["bytes_per_value"] = draw(often_ranged(0.5, 4))
            scope["candidates"].append(candidate)
        scope["finetune_tokens"] = draw(often_ranged(0, 1e10))
        scope["mfu"] = draw(often_ranged(0.1, 0.6))
        if serving["gpu"] == "TPU_v5" or draw(st.booleans()):  # TPU_v5 is not in the catalog
            scope["peak_tflops"] = draw(often_ranged(100, 2000))
        for key, lo, hi in (("flop_per_param_token", 4, 8), ("tokens_per_param", 0, 100),
                            ("lora_compute_share", 0.5, 1), ("fixed_cost", 0, 1e6)):
            if draw(st.booleans()):  # a plan in four reaches each: ranged two times in three
                scope[key] = draw(often_ranged(lo, hi))
        serving.setdefault("context_tokens", draw(often_ranged(512, 131072)))
        serving.setdefault("concurrent_sequences", draw(often_ranged(1, 256)))
        for key, lo, hi in (("memory_gb", 16, 256), ("memory_gb_per_s", 500, 8000)):
            if serving["gpu"] == "TPU_v5" and key not in serving:
                serving[key] = draw(often_ranged(lo, hi))
    if features:
        for key in ("tokens_per_month", "requests_per_month", "tokens_per_request"):
            serving.pop(key, None)
        if draw(st.booleans()):
            serving.pop("api_price_per_million_tokens", None)
            serving["api_input_price_per_million_tokens"] = draw(often_ranged(0, 10))
            serving["api_output_price_per_million_tokens"] = draw(often_ranged(0, 40))
    return note(draw, scope)


@st.composite
def people_section(draw) -> dict | None:
    roles = [note(draw, {"role": draw(st.sampled_from(TEXTS[1:])), "count": draw(value(0, 20)),
                         "months": draw(value(0, 24)), "monthly_cost": draw(value(0, 1e5))}
                  | draw(timing(months=False))) for _ in range(draw(st.integers(0, 2)))]
    if not roles and not draw(st.booleans()):
        return None
    people: dict = {"roles": roles}
    if draw(st.booleans()):
        people["engineering_day_cost"] = draw(value(0, 5000))
    return people


@st.composite
def items_section(draw) -> list | None:
    ids = draw(st.lists(st.sampled_from(ITEM_IDS), unique=True, max_size=2))
    out = []
    for i in ids:
        item = {"id": i, "label": draw(st.sampled_from(TEXTS))}
        if draw(st.booleans()):
            item["cost"] = draw(value(0, 1e6))
        else:  # quantity x unit price
            item |= {"quantity": draw(value(0, 1e4)), "unit_price": draw(value(0, 1e3)),
                     "unit": draw(st.sampled_from(("", "TB", "evaluations")))}
        out.append(note(draw, item))
    return out or None


@st.composite
def contingency_section(draw) -> dict | None:
    if not draw(st.booleans()):
        return None
    return note(draw, {"share": draw(value(0, 0.5))})


def from_examples(section) -> st.SearchStrategy:
    """A section no strategy is written for: absent, or one of the examples its module gives."""
    # a copy each time: tests mutate plan data, and the examples belong to the package
    return st.one_of(st.none(), st.sampled_from(section.examples).map(copy.deepcopy))


@st.composite
def commitment(draw, market_id: str, gpu: str) -> dict:
    """A block on a priced market: sized so that random workloads leave it idle, fill it, or overflow it."""
    return note(draw, {"market": market_id, "gpu": gpu, "gpus": draw(value(1, 2048)),
                       "term_months": draw(value(0.5, 6)), "fallback_price_per_gpu_hour": draw(value(0.5, 12))}
                | draw(timing(months=False))
                # commit now or wait: left to its default (half the term), or up to past the term (all on demand)
                | draw(st.one_of(st.just({}), st.builds(lambda w: {"wait_months": w}, value(0, 8)))))


# one strategy per plan section a line item owns; commitments name markets, so `plan_data` draws them once
# the markets are known. tests/plan/test_random_plans_cover_the_model.py fails when a section has none, or
# when a field of the plan model (any section's, at any depth) is never drawn: a section's `examples` alone
# do not count, and are drawn here only until its strategy is written
SECTION_STRATEGIES = {"people": people_section(), "items": items_section(), "serving": serving_section(),
                      "contingency": contingency_section(), "commitments": st.none(), "adjustments": st.none(),
                      "scope": st.none(),  # the scope goes with serving: `plan_data` draws it with serving's
                      "fit": st.none()}  # a budget to fit goes with the workloads: `plan_data` draws it with them


@st.composite
def adjustments(draw, market_ids: list[str]) -> list:
    """0-3 of finance's own lines (issue 31): numbers and formulas over the market's compute."""
    out = []
    for _ in range(draw(st.integers(0, 3))):
        market_id = draw(st.sampled_from(market_ids))
        entry: dict = {"label": draw(st.sampled_from(TEXTS[1:])), "market": market_id,
                       "item": draw(st.sampled_from(("other", "compute")))}
        if draw(st.booleans()):
            entry["month"] = 1
        entry["amount"] = draw(st.one_of(st.floats(-1e5, 1e5, allow_nan=False).map(lambda x: round(x, 2)),
                                         st.sampled_from((f"=-0.05*compute_{market_id}",
                                                          f"=compute_{market_id}*-5%+100"))))
        out.append(note(draw, entry))
    return out


@st.composite
def fit_section(draw, workloads: list[dict]) -> dict:
    """A budget, and an input of one workload its hours come from (runs: any) to solve for it."""
    chosen = draw(st.sampled_from(workloads))
    ways = {"flops": ("tokens", "params"), "cluster": ("gpus", "days")}
    solves = next((solve for key, solve in ways.items() if key in chosen), ()) + ("runs",)
    data: dict = {"budget": draw(value(1e3, 1e8)), "solve": draw(st.sampled_from(solves))}
    finals = [w["id"] for w in workloads if w.get("final_run")]
    if (len(workloads) > 1 and finals != [chosen["id"]]) or draw(st.booleans()):
        data["workload"] = chosen["id"]  # else the only workload, or the only final run
    return note(draw, data)


def section_strategy(section) -> st.SearchStrategy:
    return SECTION_STRATEGIES[section.key] if section.key in SECTION_STRATEGIES else from_examples(section)


@st.composite
def plan_data(draw) -> dict:
    n_workloads = draw(st.integers(1, 2))
    workloads = [draw(workload(w)) for w in WORKLOAD_IDS[:n_workloads]]
    sections = {li.section.key: draw(section_strategy(li.section)) for li in LINE_ITEMS if li.section}
    sections = {key: data for key, data in sections.items() if data is not None}
    serving = sections.get("serving")
    if serving and draw(st.booleans()):
        sections["scope"] = draw(scope_section(serving))
    gpus = {w["gpu"] for w in workloads} | ({serving["gpu"]} if serving else set())
    priced_ids = list(MARKET_IDS[: draw(st.integers(1, 2))])
    markets = [draw(market(m, gpus)) for m in priced_ids]
    hybrid_choices = list(priced_ids)
    if gpus & set(OWNABLE) and draw(st.integers(0, 3)) == 0:
        owned = draw(owned_market(gpus, draw(st.sampled_from(priced_ids))))
        markets.insert(draw(st.integers(0, len(markets))), owned)
        hybrid_choices.append(owned["id"])
    if len(priced_ids) > 1 and draw(st.booleans()):
        assign = {w["id"]: draw(st.sampled_from(hybrid_choices)) for w in workloads}
        hybrid: dict = {"assign": assign}
        overrides = draw(st.lists(st.sampled_from([w["id"] for w in workloads]), unique=True, max_size=2))
        if overrides:
            hybrid["runs"] = {wid: draw(value(0, 4)) for wid in overrides}
        if serving:
            hybrid["serving"] = draw(st.sampled_from(priced_ids))
        markets.insert(draw(st.integers(0, len(markets))), {"id": "dc", "label": "Hybrid", "hybrid": hybrid})
    data: dict = {"name": "random-plan", "currency": draw(st.sampled_from(("USD", "EUR", "CHF"))),
                  "description": draw(st.sampled_from(TEXTS)), "markets": markets, "workloads": workloads}
    if draw(st.booleans()):
        sections["commitments"] = [draw(commitment(priced_ids[0], draw(st.sampled_from(sorted(gpus)))))]
    owned_blocks = [m["owned"] for m in markets if "owned" in m]
    # prices that move (issue 29, item 4), 1 in 3 rented markets (a commitment's among them: its block keeps the
    # committed price, its fallback rate moves; an owned cluster's fallback: its overflow pays the month's price)
    for m in markets:
        if m["id"] in priced_ids and "owned" not in m and draw(st.integers(0, 2)) == 0:
            m["price_change_per_year"] = draw(value(-0.5, 0.3))
    with_months = any(isinstance(entry.get("start"), str) for entry in workloads + sections.get("commitments", [])
                      + (sections.get("people") or {}).get("roles", []) + owned_blocks)
    if with_months or draw(st.booleans()):
        data["start"] = PLAN_STARTS[0] if with_months else draw(st.sampled_from(PLAN_STARTS))
    if draw(st.booleans()):
        data["as_of"] = draw(st.sampled_from(AS_OF))
    if draw(st.integers(0, 3)) == 0:  # a modest rate: the Adjustments sheet in about one plan of four
        sections["adjustments"] = draw(adjustments([m["id"] for m in markets]))
    if draw(st.integers(0, 2)) == 0:  # the Fit sheet in about one plan of three
        sections["fit"] = draw(fit_section(workloads))
    return data | sections


def plans():
    """(Plan, its YAML text) pairs."""
    return plan_data().map(lambda data: (PLAN_MODEL.model_validate(data), yaml.safe_dump(data, sort_keys=False)))
