"""The plan as a FOCUS-shaped forecast: `budgetbook export PLAN|BOOK --format focus-forecast`.

FOCUS has no forecast dataset yet (FOCUS_Spec issues #650 and #1029 ask for one:
"structurally compatible with the FOCUS Cost and Usage dataset", "forecast data is
clearly distinguishable"), so the rows are Cost and Usage rows of FOCUS 1.4: every
column that version makes mandatory (the FinOps Foundation's FOCUS 1.4 data model,
https://focus.finops.org, as `focus-data-toolkit` 0.14.1 ships it in
`model/focus_1_4_model.json`; read 2026-12-02), and custom `x_` columns (FOCUS
allows columns prefixed `x_` beside its own) that mark each row a forecast and say
which plan, market and line item it is:

- one row per market, development line item and month of the reference model
  (`reference.compute_monthly`, base case, the expense view: the Cash flow's
  months), so a market's rows of a month add up to its total development cost of
  that month;
- every cost column (`BilledCost`, `EffectiveCost`, `ListCost`, `ContractedCost`)
  holds the planned amount, written as the exact decimal of the model's value;
- `x_Forecast` is `true` on every row, `ChargeDescription` starts `Forecast:`;
- each market is an alternative way to run the whole plan (its rows are a complete
  budget), so a reader sums one `x_Market`'s rows, never every row;
- a text cell a spreadsheet would run as a formula (a market label starting `=`, `+`,
  `-`, `@`, a tab or a carriage return) starts with `'` (`output.plaintext.csv_text`).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from .. import __version__
from ..errors import PlanError, UsageError
from ..lineitems.base import TOTAL
from ..output.plaintext import csv_text
from ..plan.model import Plan
from ..plan.timing import _month_text
from ..planfile.loader import DEFAULT_TEMPLATE
from ..reference import compute_monthly

FORMAT = "focus-forecast"
FOCUS_VERSION = "1.4"
# FOCUS 1.4 Cost and Usage's mandatory columns (the data model above), then the ones that name the forecast
COLUMNS = ("BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency", "BillingPeriodEnd",
           "BillingPeriodStart", "ChargeCategory", "ChargeClass", "ChargeDescription", "ChargePeriodEnd",
           "ChargePeriodStart", "ContractedCost", "EffectiveCost", "HostProviderName", "InvoiceIssuerName",
           "ListCost", "PricingQuantity", "PricingUnit", "ServiceCategory", "ServiceName", "ServiceProviderName")
CUSTOM = ("x_Forecast", "x_ForecastSource", "x_PlanName", "x_Scenario", "x_Market", "x_LineItem")
COST_COLUMNS = ("BilledCost", "EffectiveCost", "ListCost", "ContractedCost")
# a line item's FOCUS ServiceCategory (one of the values FOCUS allows); a plan's further items are "Other"
SERVICE_CATEGORY = {"compute": "Compute", "failed_runs": "Compute", "commitment": "Compute",
                    "stage_pretraining": "Compute", "stage_post_training": "Compute",
                    "stage_experiments": "Compute", "stage_evals": "Compute", "final_run": "Compute",
                    "reliability": "Compute", "owned_depreciation": "Compute", "owned_energy": "Compute",
                    "owned_facility": "Compute", "owned_maintenance": "Compute", "owned_financing": "Compute",
                    "owned_overflow": "Compute", "storage_egress": "Storage", "people": "Other",
                    "contingency": "Other", "adjustments": "Other"}
OTHER = "Other"
SCENARIO = "base"


@dataclass(frozen=True)
class ForecastRow:
    market: str
    item: str
    month: str        # YYYY-MM
    amount: float


def forecast_rows(plan: Plan) -> list[ForecastRow]:
    """The plan's months per market and development line item (the total left out: it is their sum)."""
    monthly = compute_monthly(plan, SCENARIO)
    return [ForecastRow(r.market, r.item, month, value) for r in monthly.rows if r.item != TOTAL.id
            for month, value in zip(monthly.months, r.values, strict=True)]


def _amount(value: float) -> str:
    """The float's exact shortest decimal, never in exponent notation (some FOCUS readers refuse `1e-05`)."""
    text = format(Decimal(repr(value)), "f")
    return "0" if text in ("0", "-0", "0.0", "-0.0") else text


def _period(month: str) -> tuple[str, str]:
    year, m = int(month[:4]), int(month[5:7])
    return f"{month}-01T00:00:00Z", f"{year + (m == 12):04d}-{m % 12 + 1:02d}-01T00:00:00Z"


def dated(plan: Plan, start: str | None, spec: str | Path | None) -> Plan:
    """The plan with its first month: its own `start`, else `start` (`--start`); FOCUS rows are dated. `spec`
    (its file, template or workbook; None the default template) names the plan in the refusal."""
    if start is None:
        if plan.start is None:
            raise PlanError("has no `start:` month, and FOCUS rows are dated: add `start: YYYY-MM` (the plan's "
                            "first month) or pass --start YYYY-MM", source=str(spec or DEFAULT_TEMPLATE))
        return plan
    try:
        month = _month_text(start)
    except ValueError as exc:
        raise UsageError(f"--start: {exc}") from None
    if plan.start is not None and plan.start != month:
        raise UsageError(f"--start {month}: the plan starts {plan.start} already (`start:`); --start dates a plan "
                         "that gives no start")
    return plan.model_copy(update={"start": month})


def forecast_csv(plan: Plan) -> str:
    """The FOCUS-shaped forecast of a dated `plan` (`dated`) as CSV text (header, then one row per market, line
    item and month)."""
    labels = {m.id: csv_text(m.label or m.id) for m in plan.markets}  # text a spreadsheet might run: as text
    items = {r.item: csv_text(r.label) for r in compute_monthly(plan, SCENARIO).rows}
    source = f"budgetbook {__version__} plan {plan.name}" + (f", prices as of {plan.as_of}" if plan.as_of else "")
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS + CUSTOM, lineterminator="\n")
    writer.writeheader()
    for row in forecast_rows(plan):
        start, end = _period(row.month)
        amount = _amount(row.amount)
        writer.writerow({**dict.fromkeys(COST_COLUMNS, amount),
                         "BillingAccountId": plan.name, "BillingAccountName": plan.name,
                         "BillingCurrency": plan.currency, "BillingPeriodStart": start, "BillingPeriodEnd": end,
                         "ChargePeriodStart": start, "ChargePeriodEnd": end, "ChargeCategory": "Usage",
                         "ChargeClass": "", "ChargeDescription": f"Forecast: {items[row.item]}, {labels[row.market]}",
                         "HostProviderName": "", "InvoiceIssuerName": labels[row.market], "PricingQuantity": "",
                         "PricingUnit": "", "ServiceCategory": SERVICE_CATEGORY.get(row.item, OTHER),
                         "ServiceName": items[row.item], "ServiceProviderName": labels[row.market],
                         "x_Forecast": "true", "x_ForecastSource": source, "x_PlanName": plan.name,
                         "x_Scenario": SCENARIO, "x_Market": row.market, "x_LineItem": row.item})
    return out.getvalue()
