"""The mapping file: which bill lines are which market, line item and workload of the plan.

    cost_column: BilledCost          # or EffectiveCost (amortised); see README
    rates: {EUR: 1.08}               # plan currency per unit of a bill's currency
    rules:                           # first match wins; a charge no rule matches is `unmapped`
      - match: {provider: AWS, service: Amazon EC2, sku: "p5*", tags: {project: llm}}
        market: hyperscaler_on_demand
        item: compute
        workload: pretrain           # optional
        gpus_per_unit: 8             # ConsumedQuantity (instance-hours) x 8 = GPU-hours

Patterns are globs (`*`, `?`), matched case-insensitively against the FOCUS
columns (MATCH_COLUMNS; `provider` is ServiceProviderName where FOCUS 1.3 on has it,
else ProviderName) and a key of Tags.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import BudgetbookError
from ..lineitems.registry import development_lines
from ..plan.model import Plan, suggest
from ..plan.yamlsafe import parse_yaml_text
from ..planfile.loader import describe_validation_error, key_path

MAX_MAPPING_BYTES = 1_000_000
MAX_RULES = 1_000
# the FOCUS column each `match` key is held against (formats/focus.py reads them, version by version)
MATCH_COLUMNS = {"provider": "ServiceProviderName or ProviderName", "host_provider": "HostProviderName",
                 "service": "ServiceName", "service_category": "ServiceCategory", "sku": "SkuId",
                 "charge_category": "ChargeCategory", "description": "ChargeDescription",
                 "commitment": "CommitmentDiscountId",
                 "contract_commitment": "ContractApplied (its first element's ContractCommitmentId; FOCUS 1.3 on)",
                 "contract_commitment_type": "ContractCommitmentType of that commitment (a FOCUS Contract "
                                             "Commitment dataset imported alongside)"}
CURRENCY = r"^[A-Z]{3}$"


Rate = Annotated[float, Field(gt=0, le=1e9, allow_inf_nan=False)]  # a NaN is "not a finite number", not "> 1e9"


class MappingError(BudgetbookError):
    """An unreadable or invalid mapping file."""


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Match(_Strict):
    provider: str | None = None
    service: str | None = None
    service_category: str | None = None
    sku: str | None = None
    charge_category: str | None = None
    description: str | None = None
    host_provider: str | None = None
    commitment: str | None = None
    contract_commitment: str | None = None
    contract_commitment_type: str | None = None
    tags: dict[str, str] = Field(default_factory=dict)


class Rule(_Strict):
    match: Match = Field(description="glob patterns (*, ?), case-insensitive; all must match")
    market: str = Field(description="market id of the plan the charges count for")
    item: str = Field(description="development line id of the plan (compute, storage_egress, people, ...)")
    workload: str = Field(default="", description="workload id of the plan, optional")
    gpus_per_unit: Annotated[float, Field(gt=0, le=1e6, allow_inf_nan=False)] | None = Field(
        default=None, description="GPU-hours per unit of ConsumedQuantity (8 for an 8-GPU instance-hour); compute only")


class Mapping(_Strict):
    """Which bill lines are which market, line item and workload of a budgetbook plan."""

    cost_column: Literal["BilledCost", "EffectiveCost"] = Field(
        default="BilledCost", description="FOCUS cost column: BilledCost (invoiced) or EffectiveCost (amortised)")
    rates: dict[Annotated[str, Field(pattern=CURRENCY)], Rate] = Field(
        default_factory=dict, description="plan currency per unit of a bill's currency (EUR: 1.08)")
    rules: Annotated[list[Rule], Field(max_length=MAX_RULES)] = Field(
        default_factory=list, description="first match wins; a charge no rule matches is unmapped")

    def rate(self, currency: str, plan_currency: str) -> Decimal | None:
        if currency == plan_currency:
            return Decimal(1)
        rate = self.rates.get(currency)
        return None if rate is None else Decimal(str(rate))


def load_mapping(path: Path | None, plan: Plan) -> Mapping:
    """The mapping file at `path` (None: no rules, so every FOCUS charge is unmapped), checked against the plan."""
    if path is None:
        return Mapping()

    source = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_MAPPING_BYTES:
            raise MappingError(f"is {size:,} bytes; a mapping file may be at most {MAX_MAPPING_BYTES:,}",
                               source=source)
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise MappingError("is not UTF-8 text", source=source) from None
    except OSError as exc:
        raise MappingError(f"cannot read: {exc.strerror or type(exc).__name__}", source=source) from None
    _refuse_aliases(text, source)
    try:
        data = parse_yaml_text(text)
    except BudgetbookError as exc:
        raise MappingError(exc.reason, source=source) from None
    if data is not None and not isinstance(data, dict):
        raise MappingError(f"expected a mapping with the keys {', '.join(Mapping.model_fields)}, got "
                           f"{type(data).__name__}", source=source)
    try:
        mapping = Mapping.model_validate(data if data is not None else {})
    except ValidationError as exc:
        raise MappingError(_described(exc), source=source) from None
    refuse_unknown_targets(mapping, plan, source)
    return mapping


def _refuse_aliases(text: str, source: str) -> None:
    """A mapping file's own wording for an alias (the plan loader's says "in plans")."""
    try:  # PyYAML's anchors are letters, digits, `-` and `_` only: safe to print
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                line = f"line {event.start_mark.line + 1}: " if event.start_mark is not None else ""
                raise MappingError(f"{line}YAML aliases (`*{str(event.anchor)[:40]}`) "
                                   "are not allowed in mapping files: write the values out", source=source)
    except yaml.YAMLError:
        return  # the loader names what is wrong


def _described(exc: ValidationError) -> str:
    """The plan's wording of a validation error; an unknown key named with the keys allowed there."""

    first = exc.errors()[0]
    if first["type"] == "extra_forbidden":
        model: type[BaseModel] = Mapping
        for part in first["loc"][:-1]:
            field = model.model_fields.get(str(part)) if isinstance(part, str) else None
            if field is None:
                continue
            inner = field.annotation
            model = next((t for t in getattr(inner, "__args__", ()) + (inner,)
                          if isinstance(t, type) and issubclass(t, BaseModel)), model)
        allowed = list(model.model_fields)
        key = str(first["loc"][-1])
        return (f"`{key_path(first['loc'])}`: unknown key `{key}`{suggest(key, allowed)} (the keys here: "
                f"{', '.join(allowed)})")
    return describe_validation_error(exc)


def refuse_unknown_targets(mapping: Mapping, plan: Plan, source: str) -> None:
    markets = [m.id for m in plan.markets]
    items = [line.id for line in development_lines(plan) if line.billed != "plan"]  # contingency: no bill
    workloads = [w.id for w in plan.workloads]
    for i, rule in enumerate(mapping.rules):
        for key, value, allowed in (("market", rule.market, markets), ("item", rule.item, items),
                                    ("workload", rule.workload, workloads)):
            if value and value not in allowed:
                raise MappingError(f"`rules[{i}].{key}`: `{value}` is not a {key} of the plan "
                                   f"(one of {', '.join(allowed)}){suggest(value, allowed)}", source=source)
        if rule.gpus_per_unit is not None and rule.item != "compute":
            raise MappingError(f"`rules[{i}].gpus_per_unit`: GPU-hours are counted under `compute` only, "
                               f"not `{rule.item}`", source=source)


if __name__ == "__main__":  # python -m budgetbook.actuals.mapping > mapping.schema.json
    import json

    print(json.dumps(Mapping.model_json_schema(), indent=2))
