"""`Options`: build or buy, live. Per market, the plan's own model (development plus own serving) against an
API over the serving horizon, and the break-even volume as a closed form of live inputs, so a finance reader
who types another API price sees it move. `planning/options.py` is its reference, written apart.
"""

from __future__ import annotations

from ..lineitems.scope import KINDS
from ..lineitems.scope import SECTION as SCOPE
from ..lineitems.serving import SECTION, prices_api
from ..plan.model import Plan
from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, CellOf, NameOf

TITLE = "Options"
API_PRICE = CellOf("svc_api_per_million")  # the Serving sheet's API price a million tokens (one, or in and out blended)


def build_options(book: Blueprint, plan: Plan, inp: Inputs) -> None:
    serving = SECTION.of(plan)
    if serving is None or not prices_api(serving):
        return
    cur = plan.currency
    money0, money2 = st.money(cur), st.money(cur, 2)
    sheet = CalcSheet(book, plan, TITLE, "output", "Options: build or buy",
                      "The serving volume over the serving months, met by an API or by this plan's own model on "
                      "each market. Break-even: the tokens a month above which the own model costs less.")
    months = CellOf("svc_months")
    sheet.section("Own model (this plan)")
    dev = sheet.row("Development (total development cost)", cur, money0, "={total}", "opt_dev", total=NameOf("total"))
    own = sheet.row("Own serving a month (serving / months served)", cur, money0,
                    "=IF({months}>k_none,{serving}/{months},k_none)", "opt_own_month", months=months,
                    serving=NameOf("serving"))
    sheet.row("Own total over the horizon (development + serving a month x months)", cur, money0,
              "={dev}+{own}*{months}", "opt_own_total", dev=dev, own=own, months=months)
    sheet.gap()
    sheet.section("API (buy)")
    api_month = sheet.row("API a month (tokens a month / 1e6 x price per million)", cur, money0,
                          "={tokens}/k_tokens_per_million*{api}", "opt_api_month", tokens=CellOf("svc_tokens"),
                          api=API_PRICE)
    sheet.row("API total over the horizon (a month x months)", cur, money0, "={month}*{months}", "opt_api_total",
              month=api_month, months=months)
    sheet.gap()
    sheet.section("Break-even")
    margin = sheet.row("API price less own cost, per million tokens", f"{cur}/M tokens", money2,
                       "={api}-{own}", "opt_margin", api=API_PRICE, own=CellOf("svc_per_million"))
    breakeven(sheet, "Break-even tokens a month (development / (months x margin / 1e6); 0: never, the API costs "
                     "less per token)", "opt_breakeven", margin, dev)
    scope = SCOPE.of(plan)
    if scope is not None and scope.candidates:
        candidate_rows(sheet, plan, inp)


def breakeven(sheet: CalcSheet, label: str, name: str, margin: int, dev: int) -> int:
    return sheet.row(label, "tokens", st.SCALED,
                     "=IF(AND({margin}>k_none,{months}>k_none),{dev}/({months}*{margin}/k_tokens_per_million),k_none)",
                     name, margin=margin, months=CellOf("svc_months"), dev=dev)


def candidate_rows(sheet: CalcSheet, plan: Plan, inp: Inputs) -> None:
    """Each candidate of the scope fine-tuned with LoRA, fully, or trained from scratch, with its own serving
    (`lineitems/scope.py`): the same comparison, live. Each column prices its market's serving GPU-hour."""
    cur = plan.currency
    money0, money2 = st.money(cur), st.money(cur, 2)
    scope, months, price = ("scope",), CellOf("svc_months"), CellOf("svc_price")
    sheet.gap()
    sheet.section("Candidates: fine-tune with LoRA, fully, or train from scratch (the bar is your choice of "
                  "candidates)")
    per_hour = sheet.row("FLOP a GPU-hour (peak TFLOP/s x 1e12 x MFU x 3600)", "FLOP", st.SCALED,
                         "={peak}*k_flop_per_tflop*{mfu}*k_seconds_per_hour", "opt_flop_per_hour",
                         peak=inp[scope + ("peak_tflops",)], mfu=inp[scope + ("mfu",)])
    for i, candidate in enumerate(SCOPE.of(plan).candidates):
        key, stem, name = scope + ("candidates", i), f"opt_{candidate.id}", candidate.name or candidate.id
        params, per_token = inp[key + ("params",)], inp[scope + ("flop_per_param_token",)]
        sheet.gap()
        sheet.section(f"Candidate: {name}")
        full = sheet.row("Full fine-tune FLOP (FLOP per parameter-token x parameters x fine-tune tokens)", "FLOP",
                         st.SCALED, "={per}*{params}*{tokens}", f"{stem}_ft_flop", per=per_token, params=params,
                         tokens=inp[scope + ("finetune_tokens",)])
        scratch = sheet.row("From scratch FLOP (FLOP per parameter-token x parameters x tokens per parameter x "
                            "parameters, + a full fine-tune)", "FLOP", st.SCALED,
                            "={per}*{params}*{ratio}*{params}+{full}", f"{stem}_scratch_flop", per=per_token,
                            params=params, ratio=inp[scope + ("tokens_per_param",)], full=full)
        fixed = inp[scope + ("fixed_cost",)]
        dev = {"lora": sheet.row("LoRA fine-tune (fixed cost + LoRA's share x full fine-tune FLOP / FLOP a GPU-hour x "
                                 "price)", cur, money0, "={fixed}+{share}*{full}/{per_hour}*{price}",
                                 f"{stem}_lora_dev", fixed=fixed, share=inp[scope + ("lora_compute_share",)],
                                 full=full, per_hour=per_hour, price=price),
               "finetune": sheet.row("Full fine-tune (fixed cost + FLOP / FLOP a GPU-hour x price)", cur, money0,
                                     "={fixed}+{full}/{per_hour}*{price}", f"{stem}_finetune_dev", fixed=fixed,
                                     full=full, per_hour=per_hour, price=price),
               "scratch": sheet.row("Train from scratch (fixed cost + FLOP / FLOP a GPU-hour x price)", cur, money0,
                                    "={fixed}+{flop}/{per_hour}*{price}", f"{stem}_scratch_dev", fixed=fixed,
                                    flop=scratch, per_hour=per_hour, price=price)}
        memory = sheet.row("Memory per replica (parameters x bytes / 1e9 + 2 x layers x KV heads x head dim x bytes x "
                           "context x sequences / 1e9)", "GB", st.DECIMALS,
                           "={params}*{bytes}/k_bytes_per_gb+k_kv_tensors*{layers}*{heads}*{dim}*{bytes}*{context}"
                           "*{sequences}/k_bytes_per_gb", f"{stem}_memory", params=params,
                           bytes=inp[key + ("bytes_per_value",)], layers=inp[key + ("layers",)],
                           heads=inp[key + ("kv_heads",)], dim=inp[key + ("head_dim",)],
                           context=inp[("serving", "context_tokens")],
                           sequences=inp[("serving", "concurrent_sequences")])
        decode = sheet.row("Decode bound per GPU (sequences x HBM GB/s / memory per replica)", "tokens/s", st.COUNT,
                           "={sequences}*{bandwidth}/{memory}", f"{stem}_decode",
                           sequences=inp[("serving", "concurrent_sequences")],
                           bandwidth=inp[("serving", "memory_gb_per_s")], memory=memory)
        per_million = sheet.row("Own cost per million tokens (price / (tokens/s x 3600) x 1e6)", f"{cur}/M tokens",
                                money2, "={price}/({speed}*k_seconds_per_hour)*k_tokens_per_million",
                                f"{stem}_per_million", price=price, speed=decode)
        month = sheet.row("Own serving a month (tokens a month / 1e6 x cost per million)", cur, money0,
                          "={tokens}/k_tokens_per_million*{per_million}", f"{stem}_month",
                          tokens=CellOf("svc_tokens"), per_million=per_million)
        margin = sheet.row("API price less own cost, per million tokens", f"{cur}/M tokens", money2, "={api}-{own}",
                           f"{stem}_margin", api=API_PRICE, own=per_million)
        for way, label in KINDS:
            sheet.row(f"{label}: total over the horizon (development + serving a month x months)", cur, money0,
                      "={dev}+{month}*{months}", f"{stem}_{way}_total", dev=dev[way], month=month, months=months)
            breakeven(sheet, f"{label}: break-even tokens a month (0: never)", f"{stem}_{way}_breakeven", margin,
                      dev[way])
