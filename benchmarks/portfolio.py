"""Realistic portfolio plans of any size: a year of a team's training work across several markets.

    python benchmarks/portfolio.py --workloads 60 --markets 5 --roles 12 > portfolio.yaml

A real team's budget is not one run: it is pretrains, fine-tunes, sweeps,
ablations and evals, spread over hyperscalers, neo-clouds and GPU markets, with
a hybrid that places each workload where it is cheapest to run. `portfolio_plan`
builds such a plan deterministically from a seed, using every way the plan
language has to give hours (6ND FLOPs at an MFU, ideal hours with a
utilization factor, a cluster for some days, allocated hours as billed), ranges
on most assumptions, checkpoints given by saves or by steps, several GPU types
per market, people, one-off items, contingency and serving.

Used by `bench_scale.py` and by the test that keeps `check` linear in size.
"""

from __future__ import annotations

import argparse
import random
import sys

GPUS = ("H100_SXM", "H200", "A100", "B200", "MI300X")
BASE_PRICE = {"H100_SXM": 2.9, "H200": 3.6, "A100": 1.5, "B200": 5.2, "MI300X": 2.6}
MARKET_KINDS = (  # (label, price factor, storage $/GB-month, egress $/GB, extra engineering days)
    ("Hyperscaler on demand", 1.35, 0.023, (0.05, 0.09, 0.12), None),
    ("Hyperscaler committed", 1.05, 0.023, (0.05, 0.09, 0.12), None),
    ("Neo-cloud", 0.9, 0.020, (0.0, 0.01, 0.05), None),
    ("Decentralized market", 0.62, 0.020, (0.01, 0.02, 0.04), (1, 2, 5)),
    ("Sovereign cloud", 1.2, 0.03, (0.02, 0.05, 0.08), (0, 1, 3)),
)
ROLES = ("Research engineer", "ML engineer", "Training infrastructure", "Data engineer", "Evaluation",
         "Product manager", "Safety researcher", "Site reliability")


def _range(rng: random.Random, base: float, spread: float) -> dict | float:
    """A low/base/high range around `base` (or, one time in five, a plain number)."""
    if rng.random() < 0.2:
        return round(base, 6)
    return {"low": round(base * (1 - spread), 6), "base": round(base, 6), "high": round(base * (1 + spread), 6)}


def _markets(rng: random.Random, count: int) -> list[dict]:
    markets = []
    for i in range(count):
        label, factor, storage, egress, days = MARKET_KINDS[i % len(MARKET_KINDS)]
        gpus = GPUS[: 2 + i % 3]  # every market prices H100 and H200; some more
        market = {
            "id": f"m{i}",
            "label": f"{label} {i // len(MARKET_KINDS) + 1}",
            "gpu_prices": {g: _range(rng, BASE_PRICE[g] * factor * rng.uniform(0.95, 1.05), 0.1) for g in gpus},
            "storage_per_gb_month": storage,
            "egress_per_gb": {"low": egress[0], "base": egress[1], "high": egress[2]},
        }
        if days is not None:
            market["extra_engineering_days"] = {"low": days[0], "base": days[1], "high": days[2]}
        markets.append(market)
    return markets


def _pretrain(rng: random.Random, i: int, gpu: str) -> dict:
    params = rng.choice((1e9, 3e9, 7e9, 13e9, 34e9))
    tokens = params * rng.choice((20, 100, 300))
    return {"kind": "pretrain", "flops": {"params": params, "tokens": tokens},
            "mfu": _range(rng, rng.uniform(0.35, 0.5), 0.15), "waste": _range(rng, 0.15, 0.3),
            "checkpoints": {"params": params, "steps": int(tokens / 4e6) + 1000,
                            "save_every_steps": rng.choice((1000, 2000, 5000)),
                            "retention_months": rng.choice((1, 3, 6)), "moved_share": _range(rng, 0.2, 0.5)}}


def _finetune(rng: random.Random, i: int, gpu: str) -> dict:
    return {"kind": "finetune", "ideal_gpu_hours": _range(rng, rng.uniform(200, 5000), 0.3),
            "utilization": _range(rng, 1.4, 0.2), "runs": rng.choice((1, 2, 3)),
            "waste": _range(rng, 0.25, 0.2),
            "checkpoints": {"size_gb": rng.choice((26, 140, 280)), "saves": _range(rng, 20, 0.5)}}


def _sweep(rng: random.Random, i: int, gpu: str) -> dict:
    return {"kind": "sweep", "cluster": {"gpus": rng.choice((8, 16, 64, 256)), "days": _range(rng, 3, 0.5)},
            "runs": _range(rng, rng.choice((2, 4, 8)), 0.5), "waste": _range(rng, 0.25, 0.2)}


def _eval(rng: random.Random, i: int, gpu: str) -> dict:
    return {"kind": "eval", "allocated_gpu_hours": _range(rng, rng.uniform(100, 3000), 0.25),
            "runs": rng.choice((1, 4, 12))}


SHAPES = (_pretrain, _finetune, _sweep, _eval)


def _workloads(rng: random.Random, count: int) -> list[dict]:
    workloads = []
    for i in range(count):
        gpu = ("H100_SXM", "H200")[i % 2]  # priced on every market
        shape = SHAPES[i % len(SHAPES)]
        workload = {"id": f"w{i}", "label": f"{shape.__name__[1:].capitalize()} {i}", "gpu": gpu}
        workload.update(shape(rng, i, gpu))
        workloads.append(workload)
    workloads[0]["final_run"] = True
    return workloads


def portfolio_plan(workloads: int = 60, markets: int = 5, roles: int = 12, seed: int = 0) -> dict:
    """A portfolio plan as plan data (what the YAML file would hold)."""
    rng = random.Random(seed)
    market_list = _markets(rng, markets)
    workload_list = _workloads(rng, workloads)
    if markets >= 2:
        market_list.append({
            "id": "hybrid", "label": "Hybrid: each workload where it runs cheapest",
            "hybrid": {"assign": {w["id"]: market_list[i % markets]["id"] for i, w in enumerate(workload_list)},
                       "serving": market_list[markets - 1]["id"]},
        })
    people = [{"role": f"{ROLES[i % len(ROLES)]} {i // len(ROLES) + 1}",
               "count": _range(rng, rng.choice((1, 2, 4, 8)), 0.25), "months": _range(rng, 12, 0.25),
               "monthly_cost": _range(rng, rng.choice((15000, 25000, 40000)), 0.2)} for i in range(roles)]
    return {
        "name": f"portfolio-{workloads}w-{markets}m",
        "description": f"{workloads} workloads over {markets} markets and a hybrid, {roles} roles",
        "currency": "USD",
        "as_of": "2026-12-01",
        "markets": market_list,
        "workloads": workload_list,
        "people": {"roles": people, "engineering_day_cost": 2000},
        "items": [{"id": "data", "label": "Data licensing", "cost": _range(rng, 500000, 0.5)},
                  {"id": "evals", "label": "Human evaluation", "quantity": _range(rng, 20000, 0.3),
                   "unit": "ratings", "unit_price": 1.5}],
        "contingency": {"share": _range(rng, 0.1, 0.5)},
        "serving": {"gpu": "H100_SXM", "tokens_per_month": 1e11,
                    "tokens_per_second_per_gpu": _range(rng, 1500, 0.3), "months": 6},
    }


def main(argv: list[str] | None = None) -> None:
    import yaml

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", type=int, default=60)
    parser.add_argument("--markets", type=int, default=5)
    parser.add_argument("--roles", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    yaml.safe_dump(portfolio_plan(args.workloads, args.markets, args.roles, args.seed), sys.stdout,
                   sort_keys=False)


if __name__ == "__main__":
    main()
