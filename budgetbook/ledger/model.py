"""The imported facts: batches of charges aggregated by month, market, line item and workload.

A batch is one invoice's worth of charges (FOCUS: provider, billing account,
billing period and invoice id; generic CSV: its `invoice` column, else market,
line item and month with a digest of those rows). Importing a batch
whose key is already held replaces it, so the same bills imported twice count
once and a new month's bills append. Amounts are exact decimals in the plan's
currency (converted at the mapping's rate where the bill is in another).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from decimal import Decimal

UNMAPPED = "unmapped"


@dataclass(frozen=True)
class Charge:
    month: str            # YYYY-MM
    market: str           # plan market id; "" when unmapped
    item: str             # development line id, or UNMAPPED
    workload: str         # workload id or ""
    amount: Decimal
    gpu_hours: Decimal = Decimal(0)
    rows: int = 0
    detail: str = ""      # unmapped: what the charges are (provider / service / category)

    def as_json(self) -> dict:
        return {"month": self.month, "market": self.market, "item": self.item, "workload": self.workload,
                "amount": str(self.amount), "gpu_hours": str(self.gpu_hours), "rows": self.rows,
                "detail": self.detail}

    @classmethod
    def from_json(cls, data: dict) -> Charge:
        return cls(str(data["month"]), str(data["market"]), str(data["item"]), str(data["workload"]),
                   Decimal(str(data["amount"])), Decimal(str(data["gpu_hours"])), int(data["rows"]),
                   str(data.get("detail", "")))


@dataclass(frozen=True)
class Batch:
    key: str              # the invoice identity: a re-import of the same key replaces this batch
    source: str           # the file it came from (its name only)
    format: str           # "focus" or "generic"
    cost_column: str      # BilledCost, EffectiveCost, or amount
    rows: int
    total: Decimal        # the file's cost column over this batch, in the plan's currency
    charges: tuple[Charge, ...]
    categories: tuple[tuple[str, Decimal], ...] = ()   # FOCUS ChargeCategory -> its total (Usage, Credit, ...)
    # FOCUS: the other cost column (EffectiveCost when the mapping's is BilledCost, and the reverse) over this
    # batch: (its name, its total, the part on charges no rule maps); None for a generic bill
    other: tuple[str, Decimal, Decimal] | None = None
    # FOCUS, and a generic bill's `invoice`: a digest of its rows' content (order aside), telling a part of an
    # invoice from the same rows given twice (`actuals.bills.join_parts`, `Actuals.conflicts`); embedded, ""
    # in books imported before it was kept
    digest: str = field(default="", compare=False, repr=False)

    def same_rows(self, other: Batch) -> bool:
        """Whether `other` holds this batch's rows, so replacing one by the other changes no charge: their digests
        agree, or (another version of the export, a book without digests) their rows, total and charges do."""
        if self.digest and other.digest and self.digest == other.digest:
            return True
        return ((self.rows, self.total, sorted(self.charges, key=repr))
                == (other.rows, other.total, sorted(other.charges, key=repr)))

    @property
    def unmapped(self) -> Decimal:
        """The cost column's amount on charges no rule maps."""
        return sum((c.amount for c in self.charges if c.item == UNMAPPED), Decimal(0))

    def costs(self) -> dict[str, tuple[Decimal, Decimal]]:
        """Each cost column this batch has (the mapping's first) -> (its total, its unmapped part)."""
        found = {self.cost_column: (self.total, self.unmapped)}
        if self.other is not None:
            found[self.other[0]] = (self.other[1], self.other[2])
        return found

    def as_json(self) -> dict:
        return {"key": self.key, "source": self.source, "format": self.format, "cost_column": self.cost_column,
                "rows": self.rows, "total": str(self.total), "charges": [c.as_json() for c in self.charges],
                "categories": {k: str(v) for k, v in self.categories}} | (
            {"other": {"column": self.other[0], "total": str(self.other[1]), "unmapped": str(self.other[2])}}
            if self.other is not None else {}) | ({"digest": self.digest} if self.digest else {})

    @classmethod
    def from_json(cls, data: dict) -> Batch:
        other = data.get("other")  # absent in books imported before it was kept, and for generic bills
        return cls(str(data["key"]), str(data["source"]), str(data["format"]), str(data["cost_column"]),
                   int(data["rows"]), Decimal(str(data["total"])),
                   tuple(Charge.from_json(c) for c in data["charges"]),
                   tuple((str(k), Decimal(str(v))) for k, v in dict(data.get("categories", {})).items()),
                   (str(other["column"]), Decimal(str(other["total"])), Decimal(str(other["unmapped"])))
                   if other else None, str(data.get("digest", "")))


@dataclass(frozen=True)
class Baseline:
    frozen: str                      # ISO date the baseline was frozen (the first reforecast)
    plan: str                        # the plan's name then
    months: tuple[str, ...]          # its months, YYYY-MM (or M1, M2, ... for a plan without a start)
    lines: tuple[tuple[str, str, str, tuple[float, ...]], ...]  # (market, item, label, month values)
    markets: tuple[tuple[str, str], ...]                         # (id, label), in the plan's order
    reforecasts: tuple[str, ...] = ()  # ISO dates of each reforecast made against it
    digest: str = ""
    # the frozen plan's text (the book's embedded plan then), so `diff` and `show` can name BOOK@baseline; ""
    # in a baseline frozen before it was kept
    plan_text: str = ""

    def expected_digest(self) -> str:
        parts: list = [self.frozen, self.plan, list(self.months),
                       [[m, i, [repr(v) for v in vs]] for m, i, _, vs in self.lines]]
        body = json.dumps(parts + ([self.plan_text] if self.plan_text else []), separators=(",", ":"))
        return "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest()

    def sealed(self) -> Baseline:
        return replace(self, digest=self.expected_digest())

    def with_reforecast(self, date: str) -> Baseline:
        return replace(self, reforecasts=(*self.reforecasts, date))

    def month_value(self, market: str, month: str) -> float:
        """The baseline's total of `market` in `month` (0 where the baseline has no such month or market)."""
        if month not in self.months:
            return 0.0
        n = self.months.index(month)
        return sum(vs[n] for m, _, _, vs in self.lines if m == market)

    def total(self, market: str) -> float:
        return sum(sum(vs) for m, _, _, vs in self.lines if m == market)

    def has(self, market: str) -> bool:
        return any(m == market for m, *_ in self.lines)

    def as_json(self) -> dict:
        kept = {"plan_text": self.plan_text} if self.plan_text else {}
        return kept | {"frozen": self.frozen, "plan": self.plan, "months": list(self.months),
                "markets": [list(m) for m in self.markets], "reforecasts": list(self.reforecasts),
                "digest": self.digest,
                "lines": [{"market": m, "item": i, "label": label, "values": [repr(v) for v in vs]}
                          for m, i, label, vs in self.lines]}

    @classmethod
    def from_json(cls, data: dict) -> Baseline:
        return cls(str(data["frozen"]), str(data["plan"]), tuple(str(m) for m in data["months"]),
                   tuple((str(d["market"]), str(d["item"]), str(d["label"]),
                          tuple(float(v) for v in d["values"])) for d in data["lines"]),
                   tuple((str(i), str(label)) for i, label in data["markets"]),
                   tuple(str(d) for d in data.get("reforecasts", ())), str(data.get("digest", "")),
                   str(data.get("plan_text", "")))


@dataclass(frozen=True)
class Actuals:
    currency: str
    batches: tuple[Batch, ...] = field(default_factory=tuple)
    baseline: Baseline | None = None   # a reforecast book's frozen baseline (`ledger.baseline`)

    def merged(self, new: Iterable[Batch]) -> tuple[Actuals, list[str]]:
        """These actuals with `new` batches added; a batch with a key already held replaces it (listed)."""
        new = list(new)
        actuals, replaced = self.merged_replacing(new)
        return actuals, [b.key for b, was in zip(new, replaced, strict=True) if was is not None]

    def conflicts(self, new: Iterable[Batch]) -> list[tuple[Batch, Batch]]:
        """(new, held) for each of `new` whose invoice is held with other rows: a later part of an export, or a
        re-export, which replacing would lose or change (so replacing it is asked for, `actuals.api`)."""
        held = {b.key: b for b in self.batches}
        return [(b, held[b.key]) for b in new if b.key in held and not held[b.key].same_rows(b)]

    def merged_replacing(self, new: Iterable[Batch]) -> tuple[Actuals, list[Batch | None]]:
        """These actuals with `new` batches added, and what each of `new` replaced: the batch of its key held
        before, or one earlier in `new` (the same bill given twice counts once), or None (added)."""
        held = {b.key: b for b in self.batches}
        replaced: list[Batch | None] = []
        for batch in new:
            replaced.append(held.get(batch.key))
            held[batch.key] = batch
        return replace(self, batches=tuple(sorted(held.values(), key=lambda b: b.key))), replaced

    @property
    def charges(self) -> list[Charge]:
        return [c for b in self.batches for c in b.charges]

    def markets(self) -> list[str]:
        return sorted({c.market for c in self.charges if c.item != UNMAPPED})

    def amount(self, month: str, market: str, item: str) -> Decimal:
        return sum((c.amount for c in self.charges
                    if c.month == month and c.market == market and c.item == item), Decimal(0))

    def by_cell(self) -> dict[tuple[str, str, str], Decimal]:
        """(month, market, item) -> amount; unmapped charges under ("month", "", UNMAPPED)."""
        out: dict[tuple[str, str, str], Decimal] = {}
        for c in self.charges:
            key = (c.month, c.market if c.item != UNMAPPED else "", c.item)
            out[key] = out.get(key, Decimal(0)) + c.amount
        return out

    def gpu_hours(self) -> dict[tuple[str, str], Decimal]:
        """(month, market) -> GPU-hours billed under compute."""
        out: dict[tuple[str, str], Decimal] = {}
        for c in self.charges:
            if c.item != UNMAPPED and c.gpu_hours:
                out[(c.month, c.market)] = out.get((c.month, c.market), Decimal(0)) + c.gpu_hours
        return out

    def unmapped(self) -> list[tuple[str, Decimal, int]]:
        """(what, amount, rows) of the unmapped charges, largest first."""
        found: dict[str, tuple[Decimal, int]] = {}
        for c in self.charges:
            if c.item == UNMAPPED:
                amount, rows = found.get(c.detail, (Decimal(0), 0))
                found[c.detail] = (amount + c.amount, rows + c.rows)
        return sorted(((k, a, r) for k, (a, r) in found.items()), key=lambda t: (-abs(t[1]), t[0]))

    def closed_months(self, months: list[str]) -> int:
        """How many of `months` the bills cover: up to the last month any charge falls in."""
        seen = {c.month for c in self.charges}
        return max((n + 1 for n, m in enumerate(months) if m in seen), default=0)

    def as_json(self) -> dict:
        return {"currency": self.currency, "batches": [b.as_json() for b in self.batches]} | (
            {"baseline": self.baseline.as_json()} if self.baseline is not None else {})

    @classmethod
    def from_json(cls, data: dict) -> Actuals:
        baseline = data.get("baseline")
        return cls(str(data["currency"]), tuple(Batch.from_json(b) for b in data["batches"]),
                   Baseline.from_json(baseline) if baseline else None)
