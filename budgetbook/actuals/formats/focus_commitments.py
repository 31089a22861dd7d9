"""The FOCUS Contract Commitment dataset (1.3, and its wider 1.4 form): the terms of each commitment.

It holds no charges (a commitment's fee is billed in the cost-and-usage export, as
its `Purchase` rows): imported alongside the cost-and-usage files, each commitment's
type (`Savings Plan`, `Reserved Instance`, `Committed Use Discount`, ...) is what the
rules' `contract_commitment_type` matches, through the `ContractApplied` id of each
charge. The summary lists the commitments and what they commit to.
"""

from __future__ import annotations

from decimal import Decimal

from ...ledger.model import Batch
from ...output.words import plural
from .checks import hold_count
from .focus import COMMITMENTS
from .kit import BillError, Context, clip, col, run
from .source import Source

REQUIRED = ("ContractCommitmentId", "ContractCommitmentType", "ContractCommitmentCost", "BillingCurrency")
ADDED_1_4 = ("ContractCommitmentApplicability", "ContractCommitmentLifecycleStatus", "ContractCommitmentModel")


class _Commitments:
    name = "focus-contract-commitment"
    side = True   # read before the files with charges, which match against it

    def detects(self, header: list[str]) -> bool:
        return "ContractCommitmentId" in header and "ChargePeriodStart" not in header

    def read(self, ctx: Context, source: Source) -> list[Batch]:
        header = source.header
        version = "1.4" if any(c in header for c in ADDED_1_4) else "1.3"
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            raise BillError(f"is a FOCUS {version} Contract Commitment dataset without the column"
                            f"{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
        source.count()
        scan, q = source.scan(), lambda name: f"trim({col(name, header)})"
        rows = run(ctx.con, f"SELECT count(*) FROM {scan}")[0][0]
        hold_count(source, rows)
        ctx.con.execute(f"CREATE TEMP TABLE IF NOT EXISTS {COMMITMENTS} (id VARCHAR PRIMARY KEY, type VARCHAR)")
        ctx.con.execute(f"""INSERT INTO {COMMITMENTS} SELECT id, any_value(type) FROM (
                              SELECT {q('ContractCommitmentId')} AS id, {q('ContractCommitmentType')} AS type
                              FROM {scan}) WHERE id <> '' AND id NOT IN (SELECT id FROM {COMMITMENTS})
                            GROUP BY id""")
        ctx.commitments = True
        kinds = run(ctx.con, f"""SELECT {q('ContractCommitmentType')}, count(*), {q('BillingCurrency')},
                                        sum(TRY_CAST({q('ContractCommitmentCost')} AS DECIMAL(38,10)))
                                 FROM {scan} GROUP BY ALL ORDER BY ALL""")
        parts = ", ".join(f"{clip(kind or '(no type)', 40)} {n:,}" for kind, n, _, _ in kinds)
        costs: dict[str, Decimal] = {}
        for _, _, cur, cost in kinds:
            costs[cur or ""] = costs.get(cur or "", Decimal(0)) + (cost or Decimal(0))
        money = ", ".join(f"{cost:,.2f} {clip(cur, 8)[1:-1]}" for cur, cost in sorted(costs.items()))
        ctx.notes.append(f"{source.path.name}: FOCUS {version} Contract Commitment dataset: "
                         f"{plural(rows, 'commitment')} "
                         f"({parts}), {money} committed; no charges (the rules' `contract_commitment_type` reads it)")
        return []


FORMAT = _Commitments()
