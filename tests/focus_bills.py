"""A realistic FOCUS 1.0 cost-and-usage export for the tests (and `samples/`), and its mapping file.

AWS, pretrain-7b's `hyperscaler_commit` market, January and February 2026:
p5.48xlarge GPU instances (8 H100 each: ConsumedQuantity is instance-hours),
S3 storage, data transfer out (egress), the Savings Plan purchase (the commitment,
ChargeCategory Purchase), a support credit (negative), tax, and CloudWatch, which
no rule maps (an unmapped service). Columns and values as FOCUS 1.0 defines them
(Microsoft's FocusCost 1.0 metadata lists the same columns).
"""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path

COLUMNS = ["BilledCost", "EffectiveCost", "ListCost", "BillingAccountId", "BillingAccountName", "BillingCurrency",
           "BillingPeriodStart", "BillingPeriodEnd", "ChargeCategory", "ChargeClass", "ChargeDescription",
           "ChargeFrequency", "ChargePeriodStart", "ChargePeriodEnd", "ConsumedQuantity", "ConsumedUnit",
           "ProviderName", "PublisherName", "InvoiceIssuerName", "RegionId", "ResourceId", "ServiceCategory",
           "ServiceName", "SkuId", "Tags", "CommitmentDiscountStatus"]

MAPPING = """\
# Which bill lines are which line item of pretrain-7b (first matching rule wins; the rest is `unmapped`).
cost_column: BilledCost       # the invoiced amount (see README, "Budget vs actuals")
rules:
  - match: {provider: AWS, service: Amazon EC2, sku: "p5.*", charge_category: Usage}
    market: hyperscaler_commit
    item: compute
    workload: pretrain
    gpus_per_unit: 8          # a p5.48xlarge holds 8 H100: instance-hours x 8 = GPU-hours
  - match: {provider: AWS, charge_category: Purchase, service: AWS Savings Plans}
    market: hyperscaler_commit
    item: compute             # the block's monthly fee: the GPU-hours it holds, used or idle
  - match: {provider: AWS, service: AWS Savings Plans, charge_category: Usage}
    market: hyperscaler_commit
    item: commitment          # the unused part (CommitmentDiscountStatus Unused): billed 0, amortised > 0
  - match: {provider: AWS, service: Amazon S3}
    market: hyperscaler_commit
    item: storage_egress
  - match: {provider: AWS, service_category: Networking}
    market: hyperscaler_commit
    item: storage_egress
  - match: {provider: AWS, charge_category: Credit}
    market: hyperscaler_commit
    item: compute             # the credit was given against GPU spend
  - match: {provider: AWS, charge_category: Tax}
    market: hyperscaler_commit
    item: compute             # sales tax, carried with the GPU line it mostly taxes
"""

# 96 H100 reserved (pretrain-7b's commitment) x 730.5 hours a month x $3.80 committed
BLOCK_FEE = Decimal("266486.40")
COMMITTED_PER_INSTANCE_HOUR = Decimal("30.40")   # 8 x $3.80


def _period(month: str) -> tuple[str, str]:
    year, m = map(int, month.split("-"))
    nxt = f"{year + (m == 12):04d}-{m % 12 + 1:02d}"
    return f"{month}-01T00:00:00Z", f"{nxt}-01T00:00:00Z"


def focus_rows(months: dict[str, int] | None = None, description: str = "p5.48xlarge Linux, Savings Plan covered",
               days: int = 28) -> list[dict]:
    """`months`: month -> p5.48xlarge instances running each day. One row per day per usage kind (GPU
    instances covered by the Savings Plan: billed 0, amortised at the committed rate; S3; data transfer
    out), then the month's Savings Plan fee (Purchase), its unused part, a credit, tax and CloudWatch."""
    months = months or {"2026-01": 2, "2026-02": 11}
    rows = []
    for month, instances in months.items():
        start, end = _period(month)
        base = {"BillingAccountId": "123456789012", "BillingAccountName": "ml-lab", "BillingCurrency": "USD",
                "BillingPeriodStart": start, "BillingPeriodEnd": end, "ChargeClass": "",
                "ProviderName": "AWS", "PublisherName": "AWS", "InvoiceIssuerName": "AWS", "RegionId": "us-east-1",
                "CommitmentDiscountStatus": ""}
        used = Decimal(0)
        for day in range(1, days + 1):
            day_start, day_end = f"{month}-{day:02d}T00:00:00Z", f"{month}-{day:02d}T23:59:59Z"
            hours = Decimal(instances * 24)
            used += hours * COMMITTED_PER_INSTANCE_HOUR
            usage = [("Compute", "Amazon EC2", "p5.48xlarge", description, hours, "Hours", Decimal(0),
                      hours * COMMITTED_PER_INSTANCE_HOUR, {"project": "llm-7b", "team": "pretrain"}, "Used"),
                     ("Storage", "Amazon S3", "TimedStorage-ByteHrs", "$0.023 per GB-Month of storage",
                      Decimal("1680.5"), "GB-Mo", None, Decimal("1680.5") * Decimal("0.023") / 28,
                      {"project": "llm-7b"}, ""),
                     ("Networking", "AWS Data Transfer", "DataTransfer-Out-Bytes", "$0.09 per GB out to internet",
                      Decimal("310.25"), "GB", None, Decimal("310.25") * Decimal("0.09"), {}, "")]
            for category, service, sku, desc, qty, unit, billed, effective, tags, status in usage:
                effective = effective.quantize(Decimal("0.0000000001"))
                billed = effective if billed is None else billed
                rows.append(base | {
                    "BilledCost": billed, "EffectiveCost": effective, "ListCost": effective,
                    "ChargeCategory": "Usage", "ChargeDescription": desc, "ChargeFrequency": "Usage-Based",
                    "ChargePeriodStart": day_start, "ChargePeriodEnd": day_end, "ConsumedQuantity": qty,
                    "ConsumedUnit": unit, "ResourceId": f"i-{day:04d}" if service == "Amazon EC2" else "",
                    "ServiceCategory": category, "ServiceName": service, "SkuId": sku,
                    "Tags": json.dumps(tags) if tags else "", "CommitmentDiscountStatus": status})
        monthly = [("Purchase", "Compute", "AWS Savings Plans", "SP-Compute-1yr",
                    "1 year No Upfront Compute Savings Plan, monthly fee", BLOCK_FEE, Decimal(0), "Recurring", ""),
                   ("Usage", "Compute", "AWS Savings Plans", "SP-Compute-1yr", "Savings Plan unused commitment",
                    Decimal(0), BLOCK_FEE - used, "Usage-Based", "Unused"),
                   ("Credit", "Compute", "Amazon EC2", "", "AWS Activate credit", Decimal("-5000.00"),
                    Decimal("-5000.00"), "One-Time", ""),
                   ("Tax", "Compute", "Amazon EC2", "", "Sales tax", Decimal("1234.56"), Decimal("1234.56"),
                    "One-Time", ""),
                   ("Usage", "Management and Governance", "Amazon CloudWatch", "CW:MetricMonitorUsage",
                    "$0.30 per metric-month", Decimal("412.37"), Decimal("412.37"), "Usage-Based", "")]
        for category, service_category, service, sku, desc, billed, effective, freq, status in monthly:
            rows.append(base | {"BilledCost": billed, "EffectiveCost": effective, "ListCost": billed,
                                "ChargeCategory": category, "ChargeDescription": desc, "ChargeFrequency": freq,
                                "ChargePeriodStart": start, "ChargePeriodEnd": end, "ConsumedQuantity": "",
                                "ConsumedUnit": "", "ResourceId": "", "ServiceCategory": service_category,
                                "ServiceName": service, "SkuId": sku, "Tags": "",
                                "CommitmentDiscountStatus": status})
    return rows


PAYROLL = """\
date,market,item,amount,workload
2026-01-31,hyperscaler_commit,people,198500.00,
2026-02-28,hyperscaler_commit,people,203250.00,
"""


def write_focus(path: Path, rows: list[dict], columns: list[str] = COLUMNS) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def column_total(rows: list[dict], column: str = "BilledCost") -> Decimal:
    return sum((Decimal(str(r[column])) for r in rows), Decimal(0))


def write_sample_bills(folder: Path, rows: list[dict] | None = None) -> list[Path]:
    """The sample's mapping (`map.yaml`), payroll and AWS FOCUS bill in `folder`; the bills, AWS first."""
    (folder / "map.yaml").write_text(MAPPING)
    (folder / "payroll.csv").write_text(PAYROLL)
    write_focus(folder / "aws.csv", focus_rows() if rows is None else rows)
    return [folder / "aws.csv", folder / "payroll.csv"]
