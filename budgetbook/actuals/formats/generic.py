"""The generic bill: `date,market,item,amount[,quantity,unit,workload,currency,invoice]`, for GPU markets and
payroll that export no FOCUS.

Each row names its market and line item of the plan (a row naming neither is
unmapped, never dropped). A batch is an invoice: the `invoice` a row gives, else the
rows of one market, line item and month with a digest of their content
(`d:<16 hex>`, the sum of each row's MD5 over its columns' text, so the order of
rows does not matter). So two different bills never replace each other (two vendors,
two payroll runs of a month), and the same bill imported again replaces itself. A
corrected bill without an `invoice` is another bill: give it an `invoice` to have a
correction replace what it corrects.
"""

from __future__ import annotations

import hashlib
import re
from decimal import Decimal

from ...ledger.model import UNMAPPED, Batch, Charge
from ...lineitems.registry import development_lines
from . import checks
from .kit import BillError, Context, batch, col, content_digest, rate_sql, run, text, warn_formula_text
from .source import Source

REQUIRED = ("date", "market", "item", "amount")
OPTIONAL = ("quantity", "unit", "workload", "currency", "invoice")
GPU_HOUR_UNIT = re.compile(r"^\s*gpu[-_ ]?(hours?|hrs?|h)\s*$", re.IGNORECASE)
TEXTS = ("market", "item", "workload", "unit")


class _Generic:
    name = "generic"
    side = False

    def detects(self, header: list[str]) -> bool:
        return all(c in header for c in REQUIRED)

    def read(self, ctx: Context, source: Source) -> list[Batch]:
        header, path, plan = source.header, source.path, ctx.plan
        unknown = [h for h in header if h not in REQUIRED + OPTIONAL]
        if unknown:
            raise BillError(f"is a generic bill with the unknown column {unknown[0]} (columns: "
                            f"{','.join(REQUIRED)}[,{','.join(OPTIONAL)}])")
        source.count()
        scan = source.scan()
        c = lambda name: col(name, header)  # noqa: E731
        rows = checks.validate(ctx, source, scan, checks.Columns(
            c("amount"), c("date"), c("currency"), c("quantity"),
            {"cost": "amount", "date": "date", "quantity": "quantity", "currency": "currency"}),
            empty_currency_ok=True)
        rate, rate_params = rate_sql(c("currency"), ctx.mapping, plan)
        content = "concat_ws(chr(31), " + ", ".join(text(h, header) for h in REQUIRED + OPTIONAL) + ")"
        found = run(ctx.con, f"""
            SELECT substr(trim({c('date')}), 1, 7), {text('market', header)}, {text('item', header)},
                   {text('workload', header)}, {text('unit', header)}, {text('invoice', header)},
                   sum(CAST(CAST(trim({c('amount')}) AS DECIMAL(38,10)) * {rate} AS DECIMAL(38,10))),
                   sum(coalesce(TRY_CAST(trim({c('quantity')}) AS DECIMAL(38,10)), 0)), count(*),
                   sum(md5_number_upper({content})), sum(md5_number_lower({content}))
            FROM {scan} GROUP BY ALL ORDER BY ALL""", rate_params)
        checks.hold_aggregate(source, rows, sum(r[8] for r in found))
        digests, invoiced = _digests(found), _invoice_digests(found)
        markets = {m.id for m in plan.markets}
        items = {line.id for line in development_lines(plan)}
        workloads = {w.id for w in plan.workloads}
        charges: dict[str, list[Charge]] = {}
        for month, market, item, workload, unit, invoice, amount, quantity, count, _, _ in found:
            key = (f"generic|invoice|{invoice}" if invoice
                   else f"generic|{market}|{item}|{month}|d:{digests[(month, market, item)]}")
            if market not in markets or item not in items:
                what = f"generic: market {market or '(none)'}, item {item or '(none)'} not in the plan"
                charge = Charge(month, "", UNMAPPED, "", amount, Decimal(0), count, what)
            else:
                if workload and workload not in workloads:
                    ctx.warnings.append(f"{path}: workload `{workload}` is not in the plan; its charges count for "
                                        f"{item} on {market} without a workload")
                    workload = ""
                hours = quantity if item == "compute" and GPU_HOUR_UNIT.match(unit) else Decimal(0)
                charge = Charge(month, market, item, workload, amount, hours, count)
            charges.setdefault(key, []).append(charge)
        warn_formula_text(ctx.con, scan, header, path, ctx.warnings, TEXTS)
        return [batch(key, path, "generic", "amount", found_, digest=invoiced.get(key, ""))
                for key, found_ in charges.items()]


def _digests(found: list[tuple]) -> dict[tuple[str, str, str], str]:
    """(month, market, item) -> the digest of its rows without an invoice: their MD5 sums and count."""
    sums: dict[tuple[str, str, str], list[int]] = {}
    for month, market, item, _, _, invoice, _, _, count, upper, lower in found:
        if not invoice:
            acc = sums.setdefault((month, market, item), [0, 0, 0])
            acc[0], acc[1], acc[2] = acc[0] + int(upper), acc[1] + int(lower), acc[2] + count
    return {k: hashlib.sha256(f"{u % 2**64}:{lo % 2**64}:{n}".encode()).hexdigest()[:16]
            for k, (u, lo, n) in sums.items()}


def _invoice_digests(found: list[tuple]) -> dict[str, str]:
    """The batch key of each `invoice` given -> the digest of its rows (`kit.content_digest`): telling a part of
    an invoice in another file from the same bill again (`bills.join_parts`, `Actuals.conflicts`)."""
    sums: dict[str, list[int]] = {}
    for _, _, _, _, _, invoice, _, _, count, upper, lower in found:
        if invoice:
            acc = sums.setdefault(f"generic|invoice|{invoice}", [0, 0, 0])
            acc[0], acc[1], acc[2] = acc[0] + int(upper), acc[1] + int(lower), acc[2] + count
    return {k: content_digest(u, lo, n) for k, (u, lo, n) in sums.items()}


FORMAT = _Generic()
