"""How an input reads on the Inputs sheet: a human title, its unit per unit, and its number format.

An `InputCell`'s `label` ("Pretraining core, 7B on 5T tokens flops per param token") names it in
messages, where it must stand alone. On Inputs the row sits under its section ("Workload:
Pretraining core, 7B on 5T tokens"), so the row reads the field's title ("FLOP per parameter per
token"), the owner in front only where one section holds several owners (people roles, items,
timing). Titles are `plan.titles`, which the JSON Schema publishes too; price units live here,
keyed by the plan field.

Number formats follow the unit, not the value typed: a price always shows its cents (`$3.00`,
`$0.023`), other money whole with accounting negatives (`($86,268)`), counts `#,##0` (or two
decimals where the plan's value has a fraction), big counts in a readable scale (`7.0 B`).
"""

from __future__ import annotations

from typing import Any

from ..plan.inputs import InputCell
from ..plan.model import Plan
from ..plan.titles import field_title
from . import style as st

# a price's unit per unit ("money" is the plan's currency)
PRICE_UNITS: dict[str, str] = {
    "gpu_prices": "money per GPU-hour",
    "storage_per_gb_month": "money per GB-month",
    "egress_per_gb": "money per GB",
    "fallback_price_per_gpu_hour": "money per GPU-hour",
    "api_price_per_million_tokens": "money per million tokens",
    "api_input_price_per_million_tokens": "money per million tokens",
    "api_output_price_per_million_tokens": "money per million tokens",
    "unit_price": "money per unit",
}
UNITS = PRICE_UNITS | {"monthly_cost": "money per person-month", "count": "people"}  # the unit column's words
_OWNED_SECTIONS = ("markets", "workloads")  # whose section row already names the owner


def _field(cell: InputCell) -> tuple[str, str | None]:
    """(the plan field, the key of a map entry or None): `gpu_prices`/`H100_SXM`, `mfu`/None."""
    path = cell.path
    if len(path) >= 2 and path[-2] in _MAPS and isinstance(path[-1], str):
        return str(path[-2]), path[-1]
    return str(path[-1]), None


_MAPS = ("gpu_prices", "runs")  # fields that map a key (a GPU, a workload) to a number


def title(plan: Plan, cell: InputCell) -> str:
    """The row's label on Inputs: the field's title (`GPU-hour price, H100_SXM`), after its owner's
    name (`ML engineer: Head count`) where the section holds several owners."""
    field, key = _field(cell)
    parent = cell.path[-2] if len(cell.path) >= 2 and isinstance(cell.path[-2], str) else ""
    text = field_title(field, parent)
    if key is not None:
        text = f"{text}, {key}"
    owner = _owner(plan, cell) if cell.section or cell.path[0] not in _OWNED_SECTIONS else ""
    return f"{owner}: {text}" if owner else text


def _owner(plan: Plan, cell: InputCell) -> str:
    """The name of the listed thing the input belongs to (a role, an item, a workload); "" if none."""
    node: Any = plan
    for part in cell.path[:-1]:
        try:
            node = node[part] if isinstance(part, int) else getattr(node, part)
        except (AttributeError, IndexError, KeyError, TypeError):
            return ""
        if isinstance(part, int):
            named = next((getattr(node, key) for key in ("label", "role", "name", "id") if getattr(node, key, "")), "")
            if named:
                return str(named)
            words = str(cell.path[-1]).replace("_", " ")  # else the label's words before the field's own
            return cell.label.removesuffix(words).strip() if cell.label.endswith(words) else ""
    return ""


def unit(cell: InputCell, currency: str) -> str:
    """The unit column: `USD per GPU-hour`, `USD per GB-month`, `share of compute`, ..."""
    field, _ = _field(cell)
    return UNITS.get(field, cell.bounds.unit).replace("money", currency)


def is_price(cell: InputCell) -> bool:
    return _field(cell)[0] in PRICE_UNITS


def number_format(cell: InputCell, currency: str) -> str:
    """The format for the input's value, low, high and bounds, chosen by unit (see the module doc)."""
    unit_name = cell.bounds.unit
    value = cell.num.base
    fractional = any(float(v) != int(v) for v in (cell.num.low, cell.num.base, cell.num.high))
    if is_price(cell):
        return st.price(currency)
    if unit_name.startswith("money"):
        return st.money(currency, 2 if fractional and abs(value) < 1000 else 0)
    if unit_name in ("share", "share of compute", "share of peak", "share a month"):
        return st.SHARE
    if unit_name == "x ideal hours":
        return st.MULTIPLIER
    if unit_name in ("parameters", "tokens", "requests"):
        return st.SCALED
    if unit_name == "GB":
        return st.GB
    return st.DECIMALS if fractional else st.WHOLE
