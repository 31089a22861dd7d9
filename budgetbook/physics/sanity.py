"""Sanity rules: a valid plan whose numbers are probably wrong, each with the likely fix.

A warning (`Sanity`) goes to stderr and into `show --format json`'s `warnings`; `--strict`
turns warnings into exit 2. A value that is physically impossible (a run that would use more
than the GPUs' peak) is an error (`impossible`), whatever the flag.

The bands, with their evidence (`physics/calibration.py` holds the published runs):

- MFU: published runs imply 0.14-0.51 (Llama 3.1 8B to LLaMA 13B), median ~0.39; the best
  reported large-scale training reaches ~0.55 (MegaScale, arXiv 2402.15627: 55.2 % on 12,288
  GPUs). Below 0.10 or above 0.60 is out of the ordinary.
- parameters: the smallest model anyone budgets GPU-hours for has millions; the largest dense
  published run has 405B (Llama 3.1); more per token is the total of a mixture of experts.
- tokens: a training run sees millions of tokens at least, and none published more than 15.6e12
  (Llama 3.1 405B): ten times that is a unit slip.
- FLOP per parameter-token: 2 (a forward pass) to 8 (training with activation recomputation);
  below 6 only on a workload of kind `eval` (a forward pass, 2, is not a training run's).
- an MFU (stated, or implied by `utilization` on `flops` hours) above every published run
  warns; one in their top quarter is a note (`plan_notes`, which `--strict` lets be); so is an
  MFU taken from the evidence (`plan.evidence`). At `precision: fp8` such an MFU (against the
  FP8 peak, twice BF16's) is likely one taken from BF16 runs, which halves the hours: the
  warning says so, beside the FP8 evidence (DeepSeek-V3, 0.17 of its FP8 peak).
- price per GPU-hour: published H100 rates run $1.80-12 (late 2025, published-runs.md), A100
  and older GPUs less, B200/GB200 more; below $0.10 or above $50 is a unit slip (per node, per
  month, per GPU-second).
- runs: sweeps run tens to hundreds; above 1,000 is out of the ordinary.
- waste: seed 000 budgets 20-30 % of compute; above 100 % is a share written as a percentage.
- stated ideal hours against the 6ND ideal when both are given: more than 3x apart.
- a further item whose id a built-in line has (`items.line_ids`): its figures take `<id>_item`.
- a market's label that cites an amount none of the market's own prices has (`$2/GPU-hour` on a
  market priced at 3): the workbook shows it as written, stating a price the plan does not use,
  and it cannot follow edits (a label citing one of its prices is live: `sheetkit.market_labels`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from ..lineitems.last_month import past_last_month
from ..lineitems.scenario import Resolved
from ..plan.catalog import CATALOG, MFU_WARNING, lookup
from ..plan.evidence import PUBLISHED_RUNS, evidence_mfu
from ..plan.inputs import input_cells
from ..plan.model import Plan
from ..sheetkit.market_labels import market_labels, priced_inputs
from .calibration import published_mfus
from .model import run_physics

MFU_LOW, MFU_HIGH = 0.10, MFU_WARNING
PARAMS_LOW, PARAMS_DENSE_HIGH = 1e6, 500e9
TOKENS_LOW = 1e6
PRICE_LOW, PRICE_HIGH = 0.10, 50.0
RUNS_HIGH = 1000
WASTE_ORDINARY, WASTE_SHARE = 0.5, 1.0
IDEAL_RATIO = 3.0
TOKENS_PAST = 10                        # tokens more than 10x any published run's (Llama 3.1: 15.6e12)
FLOP_PER_PARAM_TOKEN = (2.0, 8.0)       # forward only 2; training 6; with activation recomputation 8
TRAINING_FLOP = 6.0                     # below it, a workload not of kind `eval` counts a forward pass only


@dataclass(frozen=True)
class Sanity:
    key: str        # key path, `workloads[0].mfu`
    message: str    # the whole line, starting with the key in backticks

    def as_dict(self) -> dict[str, str]:
        return {"key": self.key, "message": self.message}


def _published() -> str:
    mfus = published_mfus()
    return f"{mfus[0]:.2f}-{mfus[-1]:.2f} (median {statistics.median(mfus):.2f})"


def _values(num: Any) -> list[float]:
    return list(dict.fromkeys((num.low, num.base, num.high)))


def _n(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def _as_share(key: str, value: float) -> str:
    return f"`{key}: {_n(value)}` is a share ({value * 100:,.0f} %): did you mean {value / 100:g}?"


def plan_sanity(plan: Plan) -> list[Sanity]:
    """Every warning of a plan, in plan order."""
    found: list[Sanity] = []
    warn = lambda key, message: found.append(Sanity(key, message))  # noqa: E731
    for m, market in enumerate(plan.markets):
        for gpu, price in market.gpu_prices.items():
            key = f"markets[{m}].gpu_prices.{gpu}"
            for value in _values(price):
                if 0 < value < PRICE_LOW or value > PRICE_HIGH:
                    guess = f"did you mean {value / 1000:g}?" if value > PRICE_HIGH else "a price per GPU-hour?"
                    warn(key, f"`{key}` {value:,.4g} {plan.currency} per GPU-hour is far from the published "
                              f"range (H100 $1.80-12, late 2025; below {PRICE_LOW:g} or above {PRICE_HIGH:g} is "
                              f"a unit slip: per node, per month?): {guess}")
                    break
        _owned(warn, m, getattr(market, "owned", None), plan.currency)
    _stray_label_amounts(warn, plan)
    for i, w in enumerate(plan.workloads):
        at = f"workloads[{i}]"
        _workload(warn, at, w)
    _section_warnings(warn, plan)
    return found


# a datacenter GPU bought new: V100 ~$10,000 to B200 ~$40,000 (Epoch AI hardware prices, read 2026-12-02);
# outside $2,000-100,000 per GPU is a unit slip (a server's price as a GPU's, thousands as units)
GPU_PRICE_LOW, GPU_PRICE_HIGH, GPUS_A_SERVER = 2000.0, 100000.0, 8


def _owned(warn, m: int, owned: Any, currency: str) -> None:
    """An owned cluster's implausible numbers: a price per GPU far from what GPUs cost, a life under a year."""
    if owned is None:
        return
    at = f"markets[{m}].owned"
    key, per = (f"{at}.price_per_gpu", 1) if owned.price_per_gpu is not None else (f"{at}.price_per_server",
                                                                                   GPUS_A_SERVER)
    for value in _values(owned.price_per_gpu if per == 1 else owned.price_per_server):
        if not GPU_PRICE_LOW <= value / per <= GPU_PRICE_HIGH:
            warn(key, f"`{key}` {value:,.0f} {currency} is {value / per:,.0f} a GPU, far from what a datacenter "
                      f"GPU costs (about {GPU_PRICE_LOW:,.0f} to {GPU_PRICE_HIGH:,.0f}; V100 ~10,000 to B200 ~40,000): "
                      "a server's price as a GPU's, or thousands?")
            break
    for value in _values(owned.life_years):
        if value < 1:
            warn(f"{at}.life_years", f"`{at}.life_years: {_n(value)}`: a cluster written off in under a year "
                                     "(servers are depreciated over 4-6 years): months as years?")
            break


def _section_warnings(warn, plan: Plan) -> None:
    """What a line item's own section warns of (a further item renamed beside a built-in line)."""
    for li in plan.LINE_ITEMS:
        if li.section is not None and li.section.warnings is not None:
            for key, message in li.section.warnings(plan):
                warn(key, message)


def _stray_label_amounts(warn, plan: Plan) -> None:
    if not any(m.label for m in plan.markets):
        return

    cells = input_cells(plan)
    for label in market_labels(plan, cells):
        if not label.stray:
            continue
        key = f"markets[{label.index}].label"
        prices = [c for c in priced_inputs(label.index, cells) if c.num.base]
        own = ("the market's: " + ", ".join(f"`{c.key_path}` {c.num.base:g}" for c in prices)) if prices \
            else "the market has no price of its own"
        amounts = ", ".join(cited.typed for cited in label.stray)
        warn(key, f"`{key}` \"{label.market.label}\" states {amounts}, a price the plan does not use ({own}): "
                  "the workbook shows the label as written and it will not follow edits; cite the price the "
                  "market uses, or leave the amount out")


def _workload(warn, at: str, w: Any) -> None:
    gpu = lookup(w.gpu)
    if w.peak_tflops is not None and gpu is not None:
        dense = gpu.peak(w.precision) or gpu.dense_bf16_tflops
        for value in _values(w.peak_tflops):
            if value >= 1.9 * dense:
                fp8 = gpu.dense_fp8_tflops
                hint = (" (or the FP8 peak: then say `precision: fp8`)"
                        if w.precision == "bf16" and fp8 and abs(value - fp8) < 0.05 * fp8 else "")
                warn(f"{at}.peak_tflops", f"`{at}.peak_tflops` {value:g} is about twice the dense "
                     f"{w.precision.upper()} peak of {gpu.id} ({dense:g}): a sparse figure?{hint}")
                break
    if not _evidence(warn, at, w) and w.mfu is not None and w.mfu_default is None:
        for value in _values(w.mfu):
            if value > MFU_HIGH:
                warn(f"{at}.mfu", f"`{at}.mfu` {value:g} is above {MFU_HIGH:g}: published large runs reach "
                     f"0.35-0.55 (implied {_published()}, see `budgetbook calibrate`)")
                break
            if value < MFU_LOW:
                warn(f"{at}.mfu", f"`{at}.mfu` {value:g} is below {MFU_LOW:g}: published runs imply {_published()}: "
                     f"did you mean {value * 10:g}?")
                break
    for section in ("flops", "checkpoints"):
        model = getattr(w, section)
        if model is not None and getattr(model, "params", None) is not None:
            _params(warn, f"{at}.{section}.params", model.params, section == "flops")
    if w.flops is not None:
        for value in _values(w.flops.tokens):
            key = f"{at}.flops.tokens"
            if value < TOKENS_LOW:
                warn(key, f"`{key}` {value:g} is a count of tokens, not trillions or billions: "
                          f"did you mean {value:g}e12 or {value:g}e9?")
                break
            most = max(PUBLISHED_RUNS, key=lambda run: run.tokens)
            if value > TOKENS_PAST * most.tokens:
                warn(key, f"`{key}` {value:.3g} is {value / most.tokens:,.0f}x the most tokens of any published "
                          f"run ({most.model}: {most.tokens:.3g}): did you mean {value / 1000:.3g}?")
                break
        for value in _values(w.flops.flops_per_param_token):
            forward_only = value < TRAINING_FLOP and w.kind != "eval"  # 2 is a forward pass: an eval's, not training's
            if not FLOP_PER_PARAM_TOKEN[0] <= value <= FLOP_PER_PARAM_TOKEN[1] or forward_only:
                key = f"{at}.flops.flops_per_param_token"
                warn(key, f"`{key}` {value:g} is outside {FLOP_PER_PARAM_TOKEN[0]:g}-{FLOP_PER_PARAM_TOKEN[1]:g}: "
                          "training is 6 (forward 2, backward 4), 8 with activation recomputation, a forward "
                          "pass alone 2: did you mean 6?")
                break
    for value in _values(w.runs):
        if value > RUNS_HIGH:
            warn(f"{at}.runs", f"`{at}.runs` {_n(value)} is out of the ordinary (sweeps run tens to hundreds, "
                 f"above {RUNS_HIGH:,} is rare): did you mean fewer runs, or GPU-hours in `allocated_gpu_hours`?")
            break
    for value in _values(w.waste):
        if value > WASTE_SHARE:
            warn(f"{at}.waste", _as_share(f"{at}.waste", value))
            break
        if value > WASTE_ORDINARY:
            warn(f"{at}.waste", f"`{at}.waste` {value:g} is {value * 100:.0f} % of compute thrown away: seed 000 "
                 "budgets 0.20-0.30; more is out of the ordinary")
            break
    _against_model(warn, at, w)


def _judged(at: str, w: Any) -> tuple[str, float, float] | None:
    """The MFU a workload states (or implies by `utilization` on `flops` hours), base case: its key, the MFU
    at the workload's peak and against the BF16 peak (the evidence's); None where the MFU is the default, or the
    hours are allocated already (`_against_model` judges those)."""
    if w.hours_given not in ("flops", "ideal_gpu_hours") or w.mfu_default is not None:
        return None
    if w.utilization is not None and w.hours_given != "flops":
        return None  # stated ideal hours need not be at peak (seed 000's are not): their utilization says no MFU
    if w.utilization is not None:
        key, mfu = f"{at}.utilization", 1 / w.utilization.base
    else:
        key, mfu = f"{at}.mfu", w.mfu.base
    gpu = lookup(w.gpu)
    at_peak = w.peak_tflops.base if w.peak_tflops is not None else (gpu.peak(w.precision) if gpu else None)
    scale = at_peak / gpu.dense_bf16_tflops if gpu is not None and at_peak else 1.0
    return key, mfu, mfu * scale


def _evidence(warn, at: str, w: Any) -> bool:
    """An MFU above every published run, or at FP8 above the FP8 evidence: budgets at it come in low."""
    judged = _judged(at, w)
    if judged is None:
        return False
    key, mfu, bf16 = judged
    what = (f"`{key}` {w.utilization.base:g} implies an MFU of {mfu:.3g} (6ND at peak x utilization)"
            if key.endswith("utilization") else f"`{key}` {mfu:g}")
    default = evidence_mfu().num
    top = published_mfus()[-1]
    if w.precision == "fp8":
        fp8 = [run for run in PUBLISHED_RUNS if run.precision == "fp8"]
        gpu = lookup(w.gpu)
        ratio = bf16 / mfu if mfu else 1.0
        best = max(fp8, key=lambda run: run.mfu)
        best_fp8 = best.mfu * CATALOG[best.gpu].dense_bf16_tflops / (CATALOG[best.gpu].dense_fp8_tflops or 1)
        if gpu is not None and ratio > 1 and bf16 > top:  # at the BF16 peak, more than any run: a BF16 MFU
            fix = (f"`utilization: {w.utilization.base * ratio:.3g}`" if key.endswith("utilization")
                   else f"`mfu: {mfu / ratio:.2g}`")
            warn(key, f"{what} at `precision: fp8` is against the FP8 peak ({ratio:.3g}x the BF16 one), above the "
                      f"published FP8 evidence ({best.model}: {best_fp8:.3g} of its FP8 peak, {best.mfu:.3g} of "
                      f"BF16's): an MFU from BF16 runs divides the hours by {ratio:.3g}: did you mean {fix} (that "
                      "MFU against the FP8 peak), or leave the MFU out for the evidence's default?")
            return True
    if bf16 > top:
        warn(key, f"{what} is above every published run ({_published()}; `budgetbook calibrate`): a budget at it "
                  f"comes in low: leave `mfu` and `utilization` out for the evidence's default "
                  f"({default.base:.2f}, {default.low:.2f}-{default.high:.2f}), or did you mean "
                  f"`mfu: {default.base:.2g}`?")
        return True
    return False


def plan_notes(plan: Plan) -> list[Sanity]:
    """What `show`, `generate` and `calibrate` note without warning (`--strict` lets them be): an MFU taken
    from the evidence, and one in the top quarter of published runs (below the top one, which warns)."""
    found = []
    quartile = statistics.quantiles(published_mfus(), n=4, method="inclusive")[-1]
    for i, w in enumerate(plan.workloads):
        at = f"workloads[{i}]"
        if w.mfu_default is not None:
            found.append(Sanity(f"{at}.mfu", f"`{at}.mfu` not given: {w.mfu_default.note}"))
        judged = _judged(at, w)
        if judged is not None and quartile < judged[2] <= published_mfus()[-1]:
            key, mfu, bf16 = judged
            said = f"implies an MFU of {mfu:.3g}" if key.endswith("utilization") else f"{mfu:g}"
            bf16_said = "" if bf16 == mfu else f" ({bf16:.3g} of the BF16 peak)"
            found.append(Sanity(key, f"`{key}` {said}{bf16_said} is in the top quarter "
                                     f"of published runs (above {quartile:.2f}, their 75th percentile): "
                                     "optimistic; see `budgetbook calibrate`"))
    return found


def _params(warn, key: str, params: Any, per_token: bool) -> None:
    for value in _values(params):
        if value < PARAMS_LOW:
            warn(key, f"`{key}` {value:g} is a count of parameters, not billions: did you mean {value:g}e9?")
            return
        if per_token and value > PARAMS_DENSE_HIGH:
            warn(key, f"`{key}` {value:,.3g} is more than any published dense run (Llama 3.1 405B): for a "
                      "mixture of experts, FLOPs count the active parameters per token (DeepSeek-V3: 37e9 of "
                      "671e9); the total belongs in `checkpoints.params`")
            return


def _against_model(warn, at: str, w: Any) -> None:
    """Hours given beside a model (`flops`): judge the implied MFU, or the stated ideal hours against 6ND."""
    if w.flops is None or w.hours_given == "flops" or _peak_missing(w):
        return
    base = run_physics(Resolved(w, "base"))
    if w.hours_given == "ideal_gpu_hours":
        stated, model = base.ideal_gpu_hours or 0.0, base.flops_gpu_hours or 0.0
        ratio = stated / model if model else 0.0
        if ratio > IDEAL_RATIO or 0 < ratio < 1 / IDEAL_RATIO:
            key = f"{at}.ideal_gpu_hours"
            warn(key, f"`{key}` {_n(stated)} is {ratio:,.3g}x the 6ND ideal at peak ({_n(model)} GPU-hours "
                      "from `flops`): ideal hours are at peak FLOP/s; check the parameters, the tokens or the hours")
        return
    mfu = base.mfu or 0.0
    key = f"{at}.{w.hours_given}"
    if MFU_HIGH < mfu <= 1:
        warn(key, f"`{key}` implies an MFU of {mfu:.3g} with `flops` (6ND at peak / allocated hours): above "
                  f"{MFU_HIGH:g}, more than published large runs reach (see `budgetbook calibrate`)")
    elif 0 < mfu < MFU_LOW:
        warn(key, f"`{key}` implies an MFU of {mfu:.3g} with `flops` (6ND at peak / allocated hours): below "
                  f"{MFU_LOW:g}, published runs imply {_published()}: check the parameters and tokens")


def _peak_missing(w: Any) -> bool:
    if w.peak_tflops is not None:
        return False
    gpu = lookup(w.gpu)
    return gpu is None or gpu.peak(w.precision) is None


def impossible(plan: Plan) -> str | None:
    """The first physically impossible value: hours that deliver more FLOPs than the GPUs' peak, or a month
    past 9999-12 (`lineitems/last_month.py`)."""
    late = past_last_month(plan)
    if late is not None:
        return late

    for i, w in enumerate(plan.workloads):
        if w.flops is None or w.hours_given in ("flops", "ideal_gpu_hours") or _peak_missing(w):
            continue
        for scenario in ("base", "low", "high"):
            run = run_physics(Resolved(w, scenario))
            if run.mfu is not None and run.mfu > 1:
                case = "" if scenario == "base" else f" (in the {scenario} case)"
                return (f"`workloads[{i}].{w.hours_given}`: {_n(run.allocated_gpu_hours)} GPU-hours cannot do "
                        f"the {run.flop:.3g} FLOP of `flops`{case}: that is an MFU of {run.mfu:.3g}, above the "
                        "GPUs' peak; for a mixture of experts give the active parameters per token in "
                        "`flops.params` (DeepSeek-V3: 37e9 of 671e9)")
    return None
