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
           "ServiceName", "SkuId", "Tags"]

MAPPING = """\
# Which bill lines are which line item of pretrain-7b (first matching rule wins).
cost_column: BilledCost       # the invoiced amount; see README "Budget vs actuals"
rules:
  - match: {provider: AWS, service: Amazon EC2, sku: "p5.*", charge_category: Usage}
    market: hyperscaler_commit
    item: compute
    workload: pretrain
    gpus_per_unit: 8          # a p5.48xlarge holds 8 H100: instance-hours x 8 = GPU-hours
  - match: {provider: AWS, charge_category: Purchase, description: "*Savings Plan*"}
    market: hyperscaler_commit
    item: commitment
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
    item: compute             # sales tax on the invoice, carried with the GPU line it mostly taxes
"""


def _period(month: str) -> tuple[str, str]:
    year, m = map(int, month.split("-"))
    nxt = f"{year + (m == 12):04d}-{m % 12 + 1:02d}"
    return f"{month}-01T00:00:00Z", f"{nxt}-01T00:00:00Z"


def focus_rows(months: tuple[str, ...] = ("2026-01", "2026-02"), instances_per_day: int = 12,
               description: str = "p5.48xlarge On Demand Linux") -> list[dict]:
    """One row per day per usage kind, plus the month's purchase, credit, tax and CloudWatch."""
    rows = []
    for month in months:
        start, end = _period(month)
        base = {"BillingAccountId": "123456789012", "BillingAccountName": "ml-lab", "BillingCurrency": "USD",
                "BillingPeriodStart": start, "BillingPeriodEnd": end, "ChargeClass": "",
                "ProviderName": "AWS", "PublisherName": "AWS", "InvoiceIssuerName": "AWS", "RegionId": "us-east-1"}
        for day in range(1, 29):
            day_start, day_end = f"{month}-{day:02d}T00:00:00Z", f"{month}-{day:02d}T23:59:59Z"
            hours = Decimal(instances_per_day * 24)
            usage = [("Compute", "Amazon EC2", "p5.48xlarge", description, hours, "Hours",
                      hours * Decimal("30.4000000000"), {"project": "llm-7b", "team": "pretrain"}),
                     ("Storage", "Amazon S3", "TimedStorage-ByteHrs", "$0.023 per GB-Month of storage",
                      Decimal("1680.5"), "GB-Mo", Decimal("1680.5") * Decimal("0.023") / 28, {"project": "llm-7b"}),
                     ("Networking", "AWS Data Transfer", "DataTransfer-Out-Bytes", "$0.09 per GB out to internet",
                      Decimal("310.25"), "GB", Decimal("310.25") * Decimal("0.09"), {})]
            for category, service, sku, desc, qty, unit, cost, tags in usage:
                cost = cost.quantize(Decimal("0.0000000001"))
                rows.append(base | {
                    "BilledCost": cost, "EffectiveCost": cost, "ListCost": cost, "ChargeCategory": "Usage",
                    "ChargeDescription": desc, "ChargeFrequency": "Usage-Based", "ChargePeriodStart": day_start,
                    "ChargePeriodEnd": day_end, "ConsumedQuantity": qty, "ConsumedUnit": unit,
                    "ResourceId": f"i-{day:04d}" if service == "Amazon EC2" else "", "ServiceCategory": category,
                    "ServiceName": service, "SkuId": sku, "Tags": json.dumps(tags) if tags else ""})
        monthly = [("Purchase", "Compute", "AWS Savings Plans", "SP-Compute-1yr",
                    "1 year No Upfront Compute Savings Plan, monthly fee", Decimal("216611.25"), "One-Time"),
                   ("Credit", "Compute", "Amazon EC2", "", "AWS Activate credit", Decimal("-5000.00"), "One-Time"),
                   ("Tax", "Compute", "Amazon EC2", "", "Sales tax", Decimal("1234.56"), "One-Time"),
                   ("Usage", "Management and Governance", "Amazon CloudWatch", "CW:MetricMonitorUsage",
                    "$0.30 per metric-month", Decimal("412.37"), "Usage-Based")]
        for category, service_category, service, sku, desc, cost, freq in monthly:
            rows.append(base | {"BilledCost": cost, "EffectiveCost": Decimal(0) if category == "Purchase" else cost,
                                "ListCost": cost, "ChargeCategory": category, "ChargeDescription": desc,
                                "ChargeFrequency": freq, "ChargePeriodStart": start, "ChargePeriodEnd": end,
                                "ConsumedQuantity": "", "ConsumedUnit": "", "ResourceId": "",
                                "ServiceCategory": service_category, "ServiceName": service, "SkuId": sku, "Tags": ""})
    return rows


def write_focus(path: Path, rows: list[dict], columns: list[str] = COLUMNS) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def column_total(rows: list[dict], column: str = "BilledCost") -> Decimal:
    return sum((Decimal(str(r[column])) for r in rows), Decimal(0))
