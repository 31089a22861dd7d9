"""The plan's core: markets and workloads, validated on load.

Units: money in the plan's currency; hours are GPU-hours; `params` and
`tokens` are plain counts (13e9, not 13); `size_gb` is decimal gigabytes.

Top-level sections that belong to one line item (`people`, `items`,
`serving`, ...) are defined in that line item's module; the full
plan model, core plus sections, is `planfile.model.PLAN_MODEL`: it names its line items in
`LINE_ITEMS`, which the checks below and `inputs.input_cells` iterate.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import re
from typing import Annotated, Any, ClassVar, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from .catalog import CATALOG, PRECISIONS, lookup
from .evidence import DefaultMfu, default_mfu
from .numbers import Num, num
from .rules import Rule, given, not_given, one_way, when
from .timing import Month, Months, Start, months_after_as_of, offset_of

ID_PATTERN = r"^[a-z][a-z0-9_]{0,39}$"
GPU_PATTERN = r"^[A-Za-z][A-Za-z0-9_]{0,23}$"
WORKLOAD_KINDS = ("pretrain", "finetune", "sweep", "ablation", "exploratory", "post_training",
                  "eval", "rl", "other")
MAX_ENTRIES = 500  # workloads, roles: a large team's year, with room; each adds a few hundred cells
# GPU prices per market: the catalog has a handful of GPUs, a price list a few dozen. Each price is an
# input row that `check` reads back and every workload may be priced against, so it needs a cap too
MAX_GPU_PRICES = 50

Money: TypeAlias = Annotated[Num, num(0, 1e12, unit="money")]
Price: TypeAlias = Annotated[Num, num(0, 1e6, unit="money")]
Hours: TypeAlias = Annotated[Num, num(0, 1e12, gt=True, unit="GPU-hours")]
Count: TypeAlias = Annotated[Num, num(0, 1e6, unit="count")]
Params: TypeAlias = Annotated[Num, num(0, 1e15, gt=True, unit="parameters",
                                       description="parameters per token: the active ones for a mixture of experts")]


def _folded(word: str) -> str:
    """A name as a person may misremember it: case and `-`/`_`/space ignored (`Neo-Cloud` is `neo_cloud`)."""
    return re.sub(r"[-_\s]+", "_", str(word).casefold())


def suggest(word: str, choices) -> str:
    """"; did you mean `choice`?" for the choice closest to `word` (case and -/_ ignored), or ""."""
    folded: dict[str, str] = {}
    for choice in choices:
        folded.setdefault(_folded(choice), str(choice))
    key = _folded(word)
    match = [key] if key in folded else difflib.get_close_matches(key, list(folded), n=1, cutoff=0.6)
    if not match:  # `neocloud` for `neo_cloud`: the separators dropped on both sides
        bare = {k.replace("_", ""): k for k in folded}
        match = [bare[m] for m in difflib.get_close_matches(key.replace("_", ""), list(bare), n=1, cutoff=0.8)]
    return f"; did you mean `{folded[match[0]]}`?" if match else ""


class Strict(BaseModel):
    """Refuses unknown keys with a did-you-mean, and anything that is not a mapping."""

    # the schema says what `_known_keys` does, so editors flag a mistyped key too
    model_config = ConfigDict(frozen=True, validate_default=True, json_schema_extra={"additionalProperties": False})

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise ValueError(f"expected a mapping of keys, got {type(data).__name__} {data!r:.40}")
        allowed = set(cls.model_fields)
        for key in data:
            if key not in allowed:
                raise ValueError(f"unknown key `{key}`{suggest(str(key), allowed)}")
        return data

    # the cross-field rules of the model's validators, as JSON Schema (see `rules`)
    SCHEMA_RULES: ClassVar[list[Rule]] = []

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> dict[str, Any]:
        """The model's schema, closed to unknown keys (as `_known_keys` is), with its cross-field rules."""
        schema = handler(core_schema)
        target = handler.resolve_ref_schema(schema)
        target["additionalProperties"] = False
        if cls.SCHEMA_RULES:
            target["allOf"] = list(cls.SCHEMA_RULES)
        return schema


def exactly_one(model: BaseModel, options: tuple[str, ...], what: str) -> str:
    given = [name for name in options if getattr(model, name) is not None]
    if len(given) != 1:
        listed = ", ".join(f"`{o}`" for o in options)
        found = f" (got {', '.join(f'`{g}`' for g in given)})" if given else ""
        raise ValueError(f"give exactly one of {listed} for {what}{found}")
    return given[0]


def unique_ids(what: str, ids: list[str]) -> None:
    seen: set[str] = set()
    for i, item_id in enumerate(ids):
        if item_id in seen:
            raise ValueError(f"`{what}[{i}].id`: another entry of `{what}` already has the id `{item_id}`")
        seen.add(item_id)


class Flops(Strict):
    params: Params
    tokens: Annotated[Num, num(0, 1e17, gt=True, unit="tokens")]
    flops_per_param_token: Annotated[Num, num(0, 1e3, gt=True, unit="FLOP")] = Num.of(6)


class Cluster(Strict):
    gpus: Annotated[Num, num(0, 1e7, gt=True, unit="GPUs")]
    days: Annotated[Num, num(0, 3650, gt=True, unit="days")]


class Checkpoints(Strict):
    """What a workload saves; the storage & egress line item prices it."""

    size_gb: Annotated[Num, num(0, 1e7, gt=True, unit="GB", description="one full save")] | None = None
    params: Annotated[Num, num(0, 1e15, gt=True, unit="parameters",
                               description="all parameters, for size = params x bytes_per_param")] | None = None
    bytes_per_param: Annotated[Num, num(0, 64, gt=True, unit="bytes")] = Num.of(12)
    saves: Annotated[Num, num(0, 1e6, unit="saves")] | None = None
    steps: Annotated[Num, num(0, 1e9, gt=True, unit="steps")] | None = None
    save_every_steps: Annotated[Num, num(0, 1e9, gt=True, unit="steps", lowers_cost=True)] | None = None
    retention_months: Annotated[Num, num(0, 120, unit="months")] = Num.of(1)
    moved_share: Annotated[Num, num(0, 1, unit="share",
                                    description="share of the volume moved between providers (egress)")] = Num.of(1)

    @model_validator(mode="after")
    def _one_way_each(self):
        exactly_one(self, ("size_gb", "params"), "the size of one save")
        if self.saves is None and (self.steps is None or self.save_every_steps is None):
            raise ValueError("give `saves`, or `steps` and `save_every_steps`")
        if self.saves is not None and (self.steps is not None or self.save_every_steps is not None):
            raise ValueError("give `saves` or `steps` with `save_every_steps`, not both")
        return self

    SCHEMA_RULES = [*one_way(("size_gb",), ("params",)), *one_way(("saves",), ("steps", "save_every_steps"))]


class Workload(Strict):
    id: str = Field(pattern=ID_PATTERN)
    label: str = Field("", max_length=200)
    kind: Literal[WORKLOAD_KINDS] = "other"  # type: ignore[valid-type]
    gpu: str = Field(pattern=GPU_PATTERN)
    peak_tflops: Annotated[Num, num(0, 1e5, gt=True, unit="TFLOP/s", lowers_cost=True,
                                    description="peak dense at `precision`; defaults to the catalog's")] | None = None
    # physics (issue 13): the precision the catalog's peak is read at, the GPUs a run uses (wall-clock
    # days) and a deadline (GPUs needed); none of them changes a cost
    precision: Literal[PRECISIONS] = "bf16"  # type: ignore[valid-type]
    gpus: Annotated[Num, num(0, 1e7, gt=True, unit="GPUs", description="GPUs one run uses, for its wall-clock "
                                                                       "days")] | None = None
    deadline_days: Annotated[Num, num(0, 3650, gt=True, unit="days", description="wall-clock days one run "
                                                                                 "must fit in, for the GPUs "
                                                                                 "it needs")] | None = None
    runs: Annotated[Num, num(0, 1e5, unit="runs")] = Num.of(1)
    ideal_gpu_hours: Hours | None = None
    flops: Flops | None = None
    cluster: Cluster | None = None
    allocated_gpu_hours: Hours | None = None
    utilization: Annotated[Num, num(1, 100, unit="x ideal hours")] | None = None
    mfu: Annotated[Num, num(0, 1, gt=True, unit="share of peak", lowers_cost=True)] | None = None
    efficiency_change_per_year: Annotated[Num, num(-0.5, 3, unit="share a year", lowers_cost=True, description=(
        "the useful work a GPU-hour does (MFU: kernels, software, methods), its change a year from the prices' "
        "date: a run needs its hours x (1 + change) ^ -(months from `as_of` to its start / 12)"))] | None = None
    waste: Annotated[Num, num(0, 10, unit="share of compute")] = Num.of(0)
    final_run: bool = False
    checkpoints: Checkpoints | None = None
    start: Start | None = Field(None, description="a month (2026-03) or months after the plan's start; "
                                                  "default the plan's start")
    months: Months | None = Field(None, description="how long it runs; default a cluster's days, else 1")
    note: str = Field("", max_length=2000)
    _mfu_default: DefaultMfu | None = PrivateAttr(None)
    _timed: tuple[str | None, int] = PrivateAttr((None, 0))  # the plan's start, months from `as_of` to it

    @model_validator(mode="after")
    def _hours_and_efficiency(self):
        way = self.hours_given
        efficiency = [n for n in ("utilization", "mfu") if getattr(self, n) is not None]
        if way in ("cluster", "allocated_gpu_hours"):
            if efficiency or self.efficiency_change_per_year is not None:
                key = efficiency[0] if efficiency else "efficiency_change_per_year"
                raise ValueError(f"`{key}` does not apply: `{way}` hours are already allocated")
        elif len(efficiency) > 1:
            raise ValueError(f"give one of `utilization` or `mfu` for `{way}` hours, not both")
        if self.flops is not None and self.peak_tflops is None:
            gpu = lookup(self.gpu)
            if gpu is None:
                raise ValueError(f"GPU `{self.gpu}` is not in the catalog (`budgetbook gpus` lists it): give "
                                 f"`peak_tflops`{suggest(self.gpu, CATALOG)}")
            if gpu.peak(self.precision) is None:
                raise ValueError(f"the catalog's {gpu.name} has no {self.precision.upper()} tensor cores: "
                                 f"use `precision: bf16`, or give `peak_tflops` for `precision: {self.precision}`")
        if way in ("flops", "ideal_gpu_hours") and not efficiency:
            # issue 29: no MFU stated takes the evidence's (the median of the published runs, with its range);
            # the model is frozen, so the default is set once here, as if the plan had given it
            default = default_mfu(self)
            object.__setattr__(self, "mfu", default.num)
            self._mfu_default = default
        return self

    @property
    def plan_timing(self) -> tuple[str | None, int]:
        """(the plan's `start`, whole months from its `as_of` to that start): set by the plan (`Plan`), so that
        a workload seen alone knows when it runs against the prices' date (`efficiency_change_per_year`)."""
        return self._timed

    @property
    def mfu_default(self) -> DefaultMfu | None:
        """The evidence's MFU where the plan states none (`plan.evidence`), else None."""
        return self._mfu_default

    SCHEMA_RULES = [
        # one source of hours; `flops` may sit beside another, where it prices nothing and judges the hours
        {"anyOf": [{"oneOf": [given("ideal_gpu_hours"), given("cluster"), given("allocated_gpu_hours")]},
                   {"allOf": [given("flops"), not_given("ideal_gpu_hours", "cluster", "allocated_gpu_hours")]}]},
        when({"anyOf": [given("cluster"), given("allocated_gpu_hours")]},
             not_given("utilization", "mfu", "efficiency_change_per_year"),
             {"not": {"allOf": [given("utilization"), given("mfu")]}}),
        when({"allOf": [given("flops"), not_given("peak_tflops")]}, {"properties": {"gpu": {"enum": sorted(CATALOG)}}}),
    ]

    @property
    def hours_given(self) -> str:
        """Where the hours come from; `flops` beside another source is the model the hours are checked against."""
        sources = ("ideal_gpu_hours", "cluster", "allocated_gpu_hours")
        if self.flops is not None and not any(getattr(self, name) is not None for name in sources):
            return "flops"
        return exactly_one(self, sources, "the hours (`flops` may come beside one of them, as its model)")

    @property
    def peak(self) -> Num:
        if self.peak_tflops is not None:
            return self.peak_tflops
        gpu = lookup(self.gpu)
        catalog = gpu.peak(self.precision) if gpu is not None else None
        if catalog is None:
            raise LookupError(f"no catalog peak for `{self.gpu}` at {self.precision}")
        return Num(catalog, catalog, catalog, False, True)


Share: TypeAlias = Annotated[Num, num(0, 1, unit="share of compute")]
Days: TypeAlias = Annotated[Num, num(0, 3650, unit="people-days")]


class Reliability(Strict):
    """What a market costs beyond its price (issue 29): every key 0 unless the plan gives it.

    Goodput is the share of paid hours that train: a run interrupted `interruptions_per_day` times a
    wall-clock day loses, each time, on average half a checkpoint interval of work plus the restart
    (Llama 3 report, arXiv 2407.21783, section 3.3.4: 419 unexpected interruptions in 54 days on 16,384
    H100, 7.8 a day; read 2026-12-02). `lineitems/reliability.py` prices it."""

    interruptions_per_day: Annotated[Num, num(0, 1000, unit="per day", description="a run's interruptions "
                                                                                     "per wall-clock day")] = Num.of(0)
    checkpoint_interval_hours: Annotated[Num, num(0, 1000, unit="hours", description="wall-clock hours "
                                                                                      "between saves")] = Num.of(0)
    restart_hours: Annotated[Num, num(0, 1000, unit="hours", description="from an interruption to training "
                                                                          "again")] = Num.of(0)
    sla_credit_share: Annotated[Num, num(0, 1, unit="share of compute", lowers_cost=True,
                                         description="credited back under the provider's SLA")] = Num.of(0)
    support_share: Share = Num.of(0)
    setup_days: Days = Num.of(0)
    debugging_days_per_month: Days = Num.of(0)
    months: Annotated[Num, num(0, 600, unit="months", description="months of use the debugging days are "
                                                                  "paid for")] = Num.of(0)
    redundant_share: Share = Num.of(0)
    rejected_share: Share = Num.of(0)
    vetting_days: Days = Num.of(0)

    @model_validator(mode="after")
    def _goodput(self):
        for scenario in ("low", "base", "high"):
            lost = self.interruptions_per_day.at(scenario) / 24 * (self.checkpoint_interval_hours.at(scenario) / 2
                                                                   + self.restart_hours.at(scenario))
            if lost >= 1:
                raise ValueError(f"interruptions x (half a checkpoint interval + restart) lose {lost:.3g} of "
                                 "every hour: no training is left; check the hours (per day, not per month?)")
        return self


class Market(Strict):
    """A market's core: what every kind has. Each kind adds its key and the market its note: the full model is
    `markets.registry.MARKET_MODEL`; which kind a market is, and what that means, is `markets.registry.kind_of`."""

    id: str = Field(pattern=ID_PATTERN)
    label: str = Field("", max_length=200)
    gpu_prices: dict[str, Price] = Field(default_factory=dict, max_length=MAX_GPU_PRICES,
                                         description="price per GPU-hour by GPU id")
    storage_per_gb_month: Price = Num.of(0)
    egress_per_gb: Price = Num.of(0)
    extra_engineering_days: Annotated[Num, num(0, 3650, unit="days")] = Num.of(0)
    reliability: Reliability | None = None
    price_change_per_year: Annotated[Num, num(-0.9, 1, unit="share a year", description=(
        "the change of its GPU prices a year (-0.2: 20 % cheaper a year), applied month by month from `as_of` "
        "(else the plan's start) to the compute bought each month"))] | None = None
    # its kind (`markets.registry.kind_of`): a property of the full model, which the sheet kit asks of a
    # market without importing the registry above it
    market_kind: ClassVar[Any]

    @model_validator(mode="after")
    def _gpu_ids(self):
        for gpu in self.gpu_prices:
            if not re.match(GPU_PATTERN, gpu):
                raise ValueError(f"GPU id `{gpu}` must be letters, digits and `_`")
        return self


class Plan(Strict):
    """The core every plan has; line items add their sections (see `planfile.model.PLAN_MODEL`)."""

    # the line items whose sections the full model adds (`planfile.model` sets them); the core has none
    LINE_ITEMS: ClassVar[tuple[Any, ...]] = ()
    # the market kinds (`markets.registry`, set by `planfile.model` as well): each market's kind checks it
    MARKET_KINDS: ClassVar[Any] = None

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
    description: str = Field("", max_length=2000)
    currency: str = Field("USD", pattern=r"^[A-Z]{3}$")
    as_of: _dt.date | None = Field(None, description="date of the prices (YYYY-MM-DD)")
    start: Month | None = Field(None, description="first month of the plan (YYYY-MM); the cash flow starts here")
    markets: list[Market] = Field(min_length=1, max_length=20)
    workloads: list[Workload] = Field(min_length=1, max_length=MAX_ENTRIES)

    @model_validator(mode="after")
    def _references(self):
        # errors here are about one key deep in the plan, so each message starts with its path
        unique_ids("markets", [m.id for m in self.markets])
        unique_ids("workloads", [w.id for w in self.workloads])
        for i, workload in enumerate(self.workloads):
            check_start(self, workload.start, f"workloads[{i}].start")
            workload._timed = (self.start, months_after_as_of(self))
        needed = {w.gpu for w in self.workloads}
        for item in self.LINE_ITEMS:
            if item.section is not None and item.section.gpus is not None:
                needed |= item.section.gpus(self)
        self.MARKET_KINDS.validate_markets(self, needed)
        for item in self.LINE_ITEMS:
            if item.section is not None and item.section.validate is not None:
                item.section.validate(self)
        return self


def check_start(plan: Plan, start: object, at: str) -> None:
    """A calendar-month start needs the plan's `start`, and may not come before it."""
    try:
        offset_of(plan.start, start)
    except ValueError as exc:
        raise ValueError(f"`{at}`: {exc}") from None
