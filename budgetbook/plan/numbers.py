"""`Num`: a plan's numeric input, either one number or a range (low, base, high).

Every numeric key of a plan is declared with `num(...)`, which carries the
allowed bounds (validated on load, written as the workbook's data validation,
published in the JSON Schema) and whether a larger value lowers the cost (MFU,
throughput), which decides what the optimistic `low` scenario picks.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Any

from pydantic_core import core_schema

SCENARIOS = ("low", "base", "high")


@dataclass(frozen=True)
class Bounds:
    """A numeric plan key's allowed values; as `Annotated` metadata it is also the key's validator and schema."""

    minimum: float
    maximum: float
    min_exclusive: bool = False
    unit: str = ""
    lowers_cost: bool = False
    description: str = ""

    def allows(self, value: float) -> bool:
        above = value > self.minimum if self.min_exclusive else value >= self.minimum
        return above and value <= self.maximum

    def describe(self) -> str:
        lower = f"greater than {_fmt(self.minimum)}" if self.min_exclusive else f"at least {_fmt(self.minimum)}"
        return f"{lower} and at most {_fmt(self.maximum)}"

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(lambda value: _parse(value, self))

    def __get_pydantic_json_schema__(self, schema: Any, handler: Any) -> dict[str, Any]:
        number: dict[str, Any] = {"type": "number", "maximum": self.maximum}
        number["exclusiveMinimum" if self.min_exclusive else "minimum"] = self.minimum
        return {
            "description": f"{self.description} [{self.unit}] ({self.describe()})".replace(" []", ""),
            "oneOf": [
                number,
                {
                    "type": "object",
                    "description": "a range: optimistic, expected and pessimistic values",
                    "properties": {k: number for k in SCENARIOS},
                    "required": list(SCENARIOS),
                    "additionalProperties": False,
                },
            ],
        }


def _fmt(value: float) -> str:
    return f"{value:g}".replace("e+0", "e").replace("e+", "e")


@dataclass(frozen=True)
class Num:
    base: float
    low: float
    high: float
    ranged: bool = False
    lowers_cost: bool = False

    @classmethod
    def of(cls, value: float) -> Num:
        return cls(base=float(value), low=float(value), high=float(value))

    def at(self, scenario: str) -> float:
        """The value in a scenario: `low` is the optimistic end (cheapest), `high` the pessimistic."""
        if scenario == "base":
            return self.base
        cheap_end, dear_end = (self.high, self.low) if self.lowers_cost else (self.low, self.high)
        return cheap_end if scenario == "low" else dear_end

    def with_base(self, base: float) -> Num:
        """The same input with a new value; a range widens to keep it inside."""
        if not self.ranged:
            return Num(base, base, base, False, self.lowers_cost)
        return Num(base, min(self.low, base), max(self.high, base), True, self.lowers_cost)

    def to_yaml(self) -> Any:
        plain = lambda v: int(v) if float(v).is_integer() and abs(v) < 1e15 else v  # noqa: E731
        if not self.ranged:
            return plain(self.base)
        return {"low": plain(self.low), "base": plain(self.base), "high": plain(self.high)}


def _number(value: Any, bounds: Bounds, what: str = "") -> float:
    if isinstance(value, bool):
        # YAML 1.1 reads true/false/yes/no/on/off as booleans
        raise ValueError(f"expected a number{what}, got a boolean ({str(value).lower()}: YAML reads "
                         "true/false/yes/no/on/off as booleans)")
    if not isinstance(value, (int, float)):
        kinds: dict[type, str] = {dict: "a mapping", list: "a list", str: "text"}
        kind = kinds.get(type(value), type(value).__name__)
        shown = f" {value!r:.40}" if isinstance(value, str) else ""
        raise ValueError(f"expected a number{what}, got {kind}{shown}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"expected a finite number{what}, got {value!r}")
    if not bounds.allows(number):
        # a share written as a percentage (`waste: 25`, `mfu: 45`): say the likely fix
        share = bounds.unit.startswith("share") and number > bounds.maximum and bounds.allows(number / 100)
        hint = f": it is a share, did you mean {_fmt(number / 100)}?" if share else ""
        raise ValueError(f"must be {bounds.describe()}{what}, got {_fmt(number)}{hint}")
    return number


def _parse(value: Any, bounds: Bounds) -> Num:
    if isinstance(value, Num):
        return value
    if isinstance(value, dict):
        keys = set(value)
        if keys != {"low", "base", "high"}:
            extra = sorted(keys - {"low", "base", "high"})
            missing = sorted({"low", "base", "high"} - keys)
            hint = difflib.get_close_matches(str(extra[0]), missing, n=1) if extra else []
            problem = (f"unknown key `{extra[0]}`" + (f"; did you mean `{hint[0]}`?" if hint else "")
                       if extra else f"missing `{missing[0]}`")
            raise ValueError(f"a range is {{low, base, high}}: {problem}")
        low, base, high = (_number(value[k], bounds, f" for `{k}`") for k in ("low", "base", "high"))
        if not low <= base <= high:
            raise ValueError(f"a range needs low <= base <= high, got {low:g}, {base:g}, {high:g}")
        return Num(base, low, high, True, bounds.lowers_cost)
    number = _number(value, bounds)
    return Num(number, number, number, False, bounds.lowers_cost)


def num(minimum: float = 0.0, maximum: float = 1e12, *, gt: bool = False, unit: str = "",
        lowers_cost: bool = False, description: str = "") -> Bounds:
    """The bounds of a numeric plan key, used as `Annotated[Num, num(...)]`."""
    return Bounds(minimum, maximum, gt, unit, lowers_cost, description)
