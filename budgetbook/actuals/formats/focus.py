"""The FOCUS cost-and-usage reader every FOCUS version's module is an instance of.

A version (`FocusVersion`, one module each: `focus_1_0` ... `focus_1_4`) says which
columns it added (its detection: the newest version whose columns a header holds),
where the provider's name is (`ProviderName` to 1.2; 1.3 deprecated it for
`ServiceProviderName`/`HostProviderName`; 1.4 removed it) and whether rows say which
contract commitment they drew on (`ContractApplied`, 1.3 on). The rest is common:
the cost column of the mapping, `BillingCurrency`, `ChargePeriodStart`,
`ChargeCategory`, `ServiceName`; optional `ServiceCategory`, `SkuId`,
`ChargeDescription`, `ConsumedQuantity`, `Tags`, `CommitmentDiscountId`,
`BillingAccountId`, `BillingPeriodStart`, `InvoiceId`.

A batch is one invoice: the issuer, billing account, billing period and invoice id.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ...ledger.model import UNMAPPED, Batch, Charge
from ..mapping import Rule
from . import checks
from .kit import BillError, Context, batch, clip, col, content_digest, first_of, rate_sql, run, text, warn_formula_text
from .source import Source

COMMON_REQUIRED = ("BillingCurrency", "ChargePeriodStart", "ChargeCategory", "ServiceName")
MARKERS = ("BilledCost", "EffectiveCost", "ChargePeriodStart", "BillingCurrency")
# FOCUS ChargeCategory values: a Purchase is a commitment's (or anything's) fee, a Credit is negative, Tax and
# Adjustment are charges as the invoice states them; each is mapped by the rules like any charge
CHARGE_CATEGORIES = ("Usage", "Purchase", "Tax", "Credit", "Adjustment")
TEXTS = ("ProviderName", "ServiceProviderName", "HostProviderName", "ServiceName", "ChargeCategory",
         "ChargeDescription", "SkuId")
OTHER_COST = {"BilledCost": "EffectiveCost", "EffectiveCost": "BilledCost"}  # the cost column not mapped
COMMITMENTS = "bb_contract_commitments"   # loaded by `focus_commitments` when its dataset is imported alongside


@dataclass(frozen=True)
class FocusVersion:
    version: str
    added: tuple[str, ...]        # the columns this version introduced: a header with any is (at least) it
    providers: tuple[str, ...]    # where the provider's name is, first filled wins (the `provider` match)
    issuer: tuple[str, ...]       # the invoice key's provider part
    removed: tuple[str, ...] = ()  # columns this version dropped: a header without them (and with `providers`) is it
    contract_applied: bool = False
    side = False   # it holds charges

    @property
    def name(self) -> str:
        return f"focus-{self.version}"

    @property
    def label(self) -> str:
        return f"FOCUS {self.version}"

    def detects(self, header: list[str]) -> bool:
        if not any(c in header for c in MARKERS):
            return False
        if not self.added:  # the oldest version reads any FOCUS-looking header
            return True
        if any(c in header for c in self.added):
            return True
        return bool(self.removed) and not any(c in header for c in self.removed) and any(
            c in header for c in self.providers)

    def read(self, ctx: Context, source: Source) -> list[Batch]:
        return read_focus(self, ctx, source)


def match_fields(version: FocusVersion, header: list[str], ctx: Context) -> dict[str, str]:
    """The SQL of each `match` key of the mapping's rules, in this version's columns."""
    applied = (f"coalesce(json_extract_string(TRY_CAST({col('ContractApplied', header)} AS JSON), "
               "'$.Elements[0].ContractCommitmentId'), '')") if version.contract_applied else "''"
    return {"provider": first_of(version.providers, header), "host_provider": text("HostProviderName", header),
            "service": text("ServiceName", header), "service_category": text("ServiceCategory", header),
            "sku": text("SkuId", header), "charge_category": text("ChargeCategory", header),
            "description": text("ChargeDescription", header),
            "commitment": text("CommitmentDiscountId", header), "contract_commitment": applied,
            "contract_commitment_type": "coalesce(__cc_type, '')" if ctx.commitments else "''"}


def _like(glob: str) -> str:
    """A glob (`*`, `?`) as an ILIKE pattern with `\\` as its escape."""
    special = {"*": "%", "?": "_", "%": "\\%", "_": "\\_", "\\": "\\\\"}
    return "".join(special.get(ch, ch) for ch in glob)


def rule_sql(rules: list[Rule], fields: dict[str, str], header: list[str]) -> tuple[str, list]:
    """`CASE WHEN <rule 0> THEN 0 ... END`: the first rule each charge matches, NULL when none does."""
    if not rules:
        return "CAST(NULL AS INTEGER)", []
    whens, params = [], []
    for i, rule in enumerate(rules):
        conds = []
        for key, sql in fields.items():
            pattern = getattr(rule.match, key)
            if pattern is not None:
                conds.append(f"{sql} ILIKE ? ESCAPE '\\'")
                params.append(_like(pattern))
        for tag, pattern in sorted(rule.match.tags.items()):
            conds.append(f"coalesce(json_extract_string(TRY_CAST({col('Tags', header)} AS JSON), ?), '') "
                         "ILIKE ? ESCAPE '\\'")
            params += ['$."' + tag.replace("\\", "\\\\").replace('"', '\\"') + '"', _like(pattern)]
        whens.append(f"WHEN {' AND '.join(conds) or 'true'} THEN {i}")
    return f"CASE {' '.join(whens)} END", params


def read_focus(version: FocusVersion, ctx: Context, source: Source) -> list[Batch]:
    header, mapping, path = source.header, ctx.mapping, source.path
    missing = [c for c in (mapping.cost_column, *COMMON_REQUIRED) if c not in header]
    if not any(c in header for c in version.providers):
        missing.append(" or ".join(version.providers))
    if missing:
        raise BillError(f"is a {version.label} export without the column{'s' if len(missing) > 1 else ''} "
                        f"{', '.join(missing)} (required: {mapping.cost_column}, {', '.join(COMMON_REQUIRED)}, "
                        f"{' or '.join(version.providers)})")
    source.count()
    scan = source.scan()
    cost, date, currency = col(mapping.cost_column, header), col("ChargePeriodStart", header), \
        col("BillingCurrency", header)
    rows = checks.validate(ctx, source, scan, checks.Columns(
        cost, date, currency, col("ConsumedQuantity", header),
        {"cost": mapping.cost_column, "date": "ChargePeriodStart", "quantity": "ConsumedQuantity",
         "currency": "BillingCurrency"}))
    fields = match_fields(version, header, ctx)
    if not ctx.commitments and any(r.match.contract_commitment_type is not None for r in mapping.rules):
        ctx.warnings.append(f"{path}: a rule matches `contract_commitment_type`, which only a FOCUS Contract "
                            "Commitment dataset imported alongside gives; without one it matches no charge")
    if ctx.commitments:  # each charge with the type of the contract commitment it drew on (ids are unique there)
        scan = (f"(SELECT s.*, c.type AS __cc_type FROM {scan} s LEFT JOIN {COMMITMENTS} c "
                f"ON c.id = {fields['contract_commitment']})")
    rate, rate_params = rate_sql(currency, mapping, ctx.plan)
    rule, rule_params = rule_sql(mapping.rules, fields, header)
    key = (f"concat_ws('|', 'focus', {first_of(version.issuer, header)}, {text('BillingAccountId', header)}, "
           f"coalesce(substr(trim({col('BillingPeriodStart', header)}), 1, 10), ''), {text('InvoiceId', header)})")
    detail = f"concat_ws(' / ', {fields['provider']}, {fields['service']}, {fields['charge_category']})"
    other_name = OTHER_COST[mapping.cost_column]
    other = col(other_name, header)
    found = run(ctx.con, f"""
        SELECT batch, month, rule, CASE WHEN rule IS NULL THEN detail END AS what, category,
               sum(amount), sum(quantity), sum(other), count(*) FILTER (WHERE NOT other_ok), count(*),
               sum(md5_number_upper(content)), sum(md5_number_lower(content))
        FROM (SELECT {key} AS batch, substr(trim({date}), 1, 7) AS month, {rule} AS rule, {detail} AS detail,
                     concat_ws(chr(31), {', '.join(text(h, header) for h in header)}) AS content,
                     {fields['charge_category']} AS category,
                     CAST(TRY_CAST(trim({cost}) AS DECIMAL(38,10)) * {rate} AS DECIMAL(38,10)) AS amount,
                     coalesce(TRY_CAST(trim({col('ConsumedQuantity', header)}) AS DECIMAL(38,10)), 0) AS quantity,
                     coalesce(CAST(TRY_CAST(trim({other}) AS DECIMAL(38,10)) * {rate} AS DECIMAL(38,10)), 0)
                         AS other, {checks.number_ok(other, True)} AS other_ok
              FROM {scan})
        GROUP BY ALL ORDER BY ALL""", rule_params + rate_params * 2)  # the rate twice: the cost, the other
    checks.hold_aggregate(source, rows, sum(r[9] for r in found))
    others = _other_costs(found, other_name if other_name in header else None, path, ctx.warnings)
    digests = _digests(found)
    found = [r[:7] + r[9:10] for r in found]
    charges: dict[str, list[Charge]] = {}
    categories: dict[str, dict[str, Decimal]] = {}
    odd: set[str] = set()
    for key_value, month, index, what, category, amount, quantity, count in found:
        spent = categories.setdefault(key_value, {})
        spent[category] = spent.get(category, Decimal(0)) + amount
        if category not in CHARGE_CATEGORIES:
            odd.add(category)
        if index is None:
            charge = Charge(month, "", UNMAPPED, "", amount, Decimal(0), count, what)
        else:
            r = mapping.rules[index]
            hours = quantity * Decimal(str(r.gpus_per_unit)) if r.gpus_per_unit is not None else Decimal(0)
            charge = Charge(month, r.market, r.item, r.workload, amount, hours, count)
        charges.setdefault(key_value, []).append(charge)
    if odd:
        ctx.warnings.append(f"{path}: ChargeCategory {', '.join(clip(c or '(empty)') for c in sorted(odd))} is not "
                            f"one FOCUS defines ({', '.join(CHARGE_CATEGORIES)}); those charges are mapped by the "
                            "rules like any other")
    warn_formula_text(ctx.con, source.scan(), header, path, ctx.warnings, TEXTS)
    return [batch(k, path, "focus", mapping.cost_column, found_, categories[k], others.get(k), digests[k])
            for k, found_ in charges.items()]


def _digests(found: list[tuple]) -> dict[str, str]:
    """Per batch, a digest of its rows' content: the sums of each row's MD5 over its columns' text, and the count
    (the order of rows does not matter)."""
    sums: dict[str, list[int]] = {}
    for r in found:
        acc = sums.setdefault(r[0], [0, 0, 0])
        acc[0], acc[1], acc[2] = acc[0] + int(r[10]), acc[1] + int(r[11]), acc[2] + r[9]
    return {k: content_digest(u, lo, n) for k, (u, lo, n) in sums.items()}


def _other_costs(found: list[tuple], name: str | None, path, warnings: list[str]) -> dict[str, tuple]:
    """Per batch, the other cost column's (name, total, unmapped part); none where the file lacks the column or
    holds a value in it that is not a number (said in a warning: that column is then not shown)."""
    if name is None:
        return {}
    bad = sum(r[8] for r in found)
    if bad:
        warnings.append(f"{path}: {name} is not a number on {bad:,} rows; the Actuals sheet shows no {name} "
                        "totals for it")
        return {}
    out: dict[str, tuple] = {}
    for r in found:
        was = out.get(r[0], (name, Decimal(0), Decimal(0)))
        out[r[0]] = (name, was[1] + r[7], was[2] + (r[7] if r[2] is None else Decimal(0)))
    return out
