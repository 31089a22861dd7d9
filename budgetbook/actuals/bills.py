"""Bills read out of core: DuckDB scans the CSV and aggregates it by invoice, month and mapping rule in SQL.

Python never holds the rows: each file is scanned twice (once to validate, once to
aggregate), in a DuckDB bounded by `MEMORY_LIMIT` that spills to a private
temporary directory, so a year of exports costs a few hundred MB whatever its size.
Two formats, told apart by their header (a FOCUS export may also be Parquet, read alike):

- FOCUS (the FinOps Foundation's cost-and-usage export): the cost column of the
  mapping (`BilledCost` by default), `BillingCurrency`, `ChargePeriodStart`,
  `ChargeCategory`, `ProviderName`, `ServiceName`; optional `ServiceCategory`,
  `SkuId`, `ChargeDescription`, `ConsumedQuantity`, `Tags`, `BillingAccountId`,
  `BillingPeriodStart`, `InvoiceId`.
- generic: `date,market,item,amount[,quantity,unit,workload,currency,invoice]`, for GPU
  markets and payroll that export no FOCUS.
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..errors import BudgetbookError
from ..ledger.model import UNMAPPED, Batch, Charge
from ..lineitems.phasing import month_count
from ..lineitems.registry import development_lines
from ..output.plaintext import visible
from ..plan.model import Plan
from ..plan.timing import month_labels
from ..xlsx.limits import Limits
from .mapping import MATCH_COLUMNS, Mapping, Rule

MEMORY_LIMIT = "256MB"
THREADS = 2
HEADER_BYTES = 1_000_000
FOCUS_REQUIRED = ("BillingCurrency", "ChargePeriodStart", "ChargeCategory", "ProviderName", "ServiceName")
FOCUS_MARKERS = ("BilledCost", "EffectiveCost", "ChargePeriodStart", "BillingCurrency")
GENERIC_REQUIRED = ("date", "market", "item", "amount")
GENERIC_OPTIONAL = ("quantity", "unit", "workload", "currency", "invoice")
GPU_HOUR_UNIT = re.compile(r"^\s*gpu[-_ ]?(hours?|hrs?|h)\s*$", re.IGNORECASE)
PARQUET_MAGIC = b"PAR1"
# FOCUS 1.0-1.2 ChargeCategory values: a Purchase is a commitment's (or anything's) fee, a Credit is negative,
# Tax and Adjustment are charges as the invoice states them; each is mapped by the rules like any charge
CHARGE_CATEGORIES = ("Usage", "Purchase", "Tax", "Credit", "Adjustment")
MONTH = "[0-9]{4}-(0[1-9]|1[0-2])"


class BillError(BudgetbookError):
    """An unreadable or invalid bill file."""


@dataclass
class Imported:
    batches: list[Batch] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def read_bills(paths: list[Path], mapping: Mapping, plan: Plan) -> Imported:
    """Every file's batches, in order; one `BillError` line naming the file on the first bad one."""
    months = _plan_months(plan)
    out = Imported()
    with _duckdb() as con:
        for path in paths:
            source = str(path)
            try:
                header = _header(path)
                if _format(header) == "generic":
                    batches = _generic(con, path, header, mapping, plan, months, out.warnings)
                else:
                    batches = _focus(con, path, header, mapping, plan, months, out.warnings)
            except BudgetbookError as exc:
                raise exc.with_source(source) from None
            out.batches += batches
    return out


def sniff(paths: list[Path]) -> None:
    """Refuse, before any workbook is opened, a bill that is too big, empty, not UTF-8 or of neither format."""
    for path in paths:
        try:
            _format(_header(path))
        except BudgetbookError as exc:
            raise exc.with_source(str(path)) from None


def _format(header: list[str]) -> str:
    if all(col in header for col in GENERIC_REQUIRED):
        return "generic"
    if any(col in header for col in FOCUS_MARKERS):
        return "focus"
    raise BillError("is neither a FOCUS export (no BilledCost, ChargePeriodStart, ...) nor a generic "
                    f"bill (columns {','.join(GENERIC_REQUIRED)}); its header is {_clip(','.join(header))}")


def _plan_months(plan: Plan) -> list[str]:
    if plan.start is None:
        raise BillError("the plan gives no `start` month, so dated bills cannot be placed in its months: "
                        "add `start: YYYY-MM` to the plan", source=f"{plan.name} (plan)")
    return month_labels(plan.start, month_count(plan))


@contextlib.contextmanager
def _duckdb() -> Iterator[Any]:
    import duckdb

    spill = tempfile.mkdtemp(prefix="budgetbook-duckdb-")
    con = duckdb.connect(config={"memory_limit": MEMORY_LIMIT, "threads": THREADS, "temp_directory": spill,
                                 "preserve_insertion_order": False, "enable_external_access": True})
    try:
        with contextlib.suppress(duckdb.Error):  # Parquet timestamps with a time zone read as UTC, as FOCUS writes
            con.execute("SET TimeZone = 'UTC'")
        yield con
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)


def _header(path: Path) -> list[str]:
    if any(ch in str(path.resolve()) for ch in "*?[{"):  # DuckDB would read the name as a pattern of files
        raise BillError("has `*`, `?`, `[` or `{` in its path, which the CSV reader takes as a pattern of "
                        "files; rename or move it")
    try:
        size = path.stat().st_size
        limit = Limits().max_bill_bytes
        if size > limit:
            raise BillError(f"is {size:,} bytes; a bill file may be at most {limit:,} (split the export by month)")
        if not path.is_file():
            raise BillError("is not a regular file")
        with open(path, "rb") as f:
            head = f.read(HEADER_BYTES)
    except OSError as exc:
        raise BillError(f"cannot read: {exc.strerror or type(exc).__name__}") from None
    if head.startswith(PARQUET_MAGIC):
        return _parquet_header(path)
    first = head.split(b"\n", 1)[0].removeprefix(b"\xef\xbb\xbf").rstrip(b"\r")
    if not first.strip():
        raise BillError("is empty: expected a CSV header line")
    try:
        header = next(csv.reader(io.StringIO(first.decode("utf-8"))))
    except UnicodeDecodeError:
        raise BillError("is not UTF-8 text") from None
    header = [h.strip() for h in header]
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:
        raise BillError(f"has the column {twice[0]} twice")
    return header


def _parquet_header(path: Path) -> list[str]:
    import duckdb

    con = duckdb.connect(config={"memory_limit": MEMORY_LIMIT, "threads": 1})
    try:
        sql = f"DESCRIBE SELECT * FROM read_parquet({_lit(str(path.resolve()))})"
        return [row[0] for row in _run(con, sql, what="Parquet")]
    finally:
        con.close()


def _is_parquet(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(len(PARQUET_MAGIC)) == PARQUET_MAGIC


def _scan(path: Path, header: list[str]) -> str:
    """The `read_csv` (or `read_parquet`) of a file, every column text (numbers are cast, and refused, in SQL)."""
    if _is_parquet(path):  # typed columns as text too: a DECIMAL keeps its digits, a timestamp reads as UTC
        columns = ", ".join(f"CAST({_col(h, header)} AS VARCHAR) AS {_col(h, header)}" for h in header)
        return f"(SELECT {columns} FROM read_parquet({_lit(str(path.resolve()))}))"
    columns = ", ".join(f"{_lit(h)}: 'VARCHAR'" for h in header)
    return (f"read_csv({_lit(str(path.resolve()))}, header=true, auto_detect=false, delim=',', quote='\"', "
            f"escape='\"', columns={{{columns}}}, parallel=true)")


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _col(name: str, header: list[str]) -> str:
    return '"' + name.replace('"', '""') + '"' if name in header else "NULL"


def _clip(value: Any, width: int = 60) -> str:
    text = visible(str(value))
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def _run(con: Any, sql: str, params: list | None = None, what: str = "CSV") -> list[tuple]:
    import duckdb

    try:
        return con.execute(sql, params or []).fetchall()
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BillError(f"cannot be read as {what}: {_clip(first, 200)}") from None


def _validate(con: Any, scan: str, cost: str, date: str, currency: str, quantity: str, what: dict[str, str],
              plan: Plan, months: list[str], rates: Mapping, *, empty_currency_ok: bool = False) -> None:
    """Refuse non-numeric costs and quantities, undated rows, months outside the plan, unconvertible currencies."""
    row = _run(con, f"""
        SELECT count(*),
          count(*) FILTER (WHERE TRY_CAST(trim({cost}) AS DECIMAL(38,10)) IS NULL),
          min({cost}) FILTER (WHERE TRY_CAST(trim({cost}) AS DECIMAL(38,10)) IS NULL),
          count(*) FILTER (WHERE NOT regexp_full_match(coalesce(substr(trim({date}), 1, 7), ''), '{MONTH}')),
          min({date}) FILTER (WHERE NOT regexp_full_match(coalesce(substr(trim({date}), 1, 7), ''), '{MONTH}')),
          count(*) FILTER (WHERE nullif(trim({quantity}), '') IS NOT NULL
                           AND TRY_CAST(trim({quantity}) AS DECIMAL(38,10)) IS NULL),
          min({quantity}) FILTER (WHERE nullif(trim({quantity}), '') IS NOT NULL
                           AND TRY_CAST(trim({quantity}) AS DECIMAL(38,10)) IS NULL),
          list(DISTINCT coalesce(trim({currency}), '')),
          list(DISTINCT substr(trim({date}), 1, 7))
        FROM {scan}""")[0]
    rows, bad_cost, cost_example, bad_date, date_example, bad_qty, qty_example, currencies, seen = row
    if rows == 0:
        raise BillError("has a header but no charges")
    if bad_cost:
        raise BillError(f"{what['cost']} is not a number in {bad_cost:,} of {rows:,} rows (first: "
                        f"{_clip(cost_example if cost_example is not None else '')}); expected a decimal amount")
    if bad_date:
        raise BillError(f"{what['date']} is not a date (YYYY-MM or YYYY-MM-DD...) in {bad_date:,} rows (first: "
                        f"{_clip(date_example if date_example is not None else '')})")
    if bad_qty:
        raise BillError(f"{what['quantity']} is not a number in {bad_qty:,} rows (first: {_clip(qty_example)})")
    outside = sorted(m for m in seen if m not in months)
    if outside:
        raise BillError(f"has charges dated {', '.join(outside[:6])}{' ...' if len(outside) > 6 else ''}, outside "
                        f"the plan's months {months[0]} to {months[-1]}; give bills of the plan's months only")
    for cur in sorted(currencies):
        if cur == "" and not empty_currency_ok:
            raise BillError(f"{what['currency']} is empty on some rows; FOCUS gives every charge its currency")
        if cur and rates.rate(cur, plan.currency) is None:
            raise BillError(f"is billed in {_clip(cur)} but the plan is in {plan.currency}: add its rate to the "
                            f"mapping file (`rates: {{{cur}: <{plan.currency} per {cur}>}}`) or give bills in "
                            f"{plan.currency}")


def _rate_sql(currency: str, mapping: Mapping, plan: Plan) -> tuple[str, list]:
    cases, params = [], []
    for cur in sorted(mapping.rates):
        if cur != plan.currency:
            cases.append("WHEN ? THEN CAST(? AS DECIMAL(38,10))")
            params += [cur, str(Decimal(str(mapping.rates[cur])))]
    if not cases:
        return "CAST(1 AS DECIMAL(38,10))", []
    return f"(CASE trim({currency}) {' '.join(cases)} ELSE CAST(1 AS DECIMAL(38,10)) END)", params


def _like(glob: str) -> str:
    """A glob (`*`, `?`) as an ILIKE pattern with `\\` as its escape."""
    special = {"*": "%", "?": "_", "%": "\\%", "_": "\\_", "\\": "\\\\"}
    return "".join(special.get(ch, ch) for ch in glob)


def _rule_sql(rules: list[Rule], header: list[str]) -> tuple[str, list]:
    """`CASE WHEN <rule 0> THEN 0 ... END`: the first rule each charge matches, NULL when none does."""
    if not rules:
        return "CAST(NULL AS INTEGER)", []
    whens, params = [], []
    for i, rule in enumerate(rules):
        conds = []
        for key, column in MATCH_COLUMNS.items():
            pattern = getattr(rule.match, key)
            if pattern is not None:
                conds.append(f"coalesce(trim({_col(column, header)}), '') ILIKE ? ESCAPE '\\'")
                params.append(_like(pattern))
        for tag, pattern in sorted(rule.match.tags.items()):
            conds.append(f"coalesce(json_extract_string(TRY_CAST({_col('Tags', header)} AS JSON), ?), '') "
                         "ILIKE ? ESCAPE '\\'")
            params += ['$."' + tag.replace("\\", "\\\\").replace('"', '\\"') + '"', _like(pattern)]
        whens.append(f"WHEN {' AND '.join(conds) or 'true'} THEN {i}")
    return f"CASE {' '.join(whens)} END", params


def _focus(con: Any, path: Path, header: list[str], mapping: Mapping, plan: Plan, months: list[str],
           warnings: list[str]) -> list[Batch]:
    missing = [c for c in (mapping.cost_column, *FOCUS_REQUIRED) if c not in header]
    if missing:
        raise BillError(f"is a FOCUS export without the column{'s' if len(missing) > 1 else ''} "
                        f"{', '.join(missing)} (required: {mapping.cost_column}, {', '.join(FOCUS_REQUIRED)})")
    scan = _scan(path, header)
    col = lambda name: _col(name, header)
    cost, date, currency = col(mapping.cost_column), col("ChargePeriodStart"), col("BillingCurrency")
    _validate(con, scan, cost, date, currency, col("ConsumedQuantity"),
              {"cost": mapping.cost_column, "date": "ChargePeriodStart", "quantity": "ConsumedQuantity",
               "currency": "BillingCurrency"}, plan, months, mapping)
    rate, rate_params = _rate_sql(currency, mapping, plan)
    rule, rule_params = _rule_sql(mapping.rules, header)
    key = ("concat_ws('|', 'focus', coalesce(trim(" + col("ProviderName") + "), ''), coalesce(trim("
           + col("BillingAccountId") + "), ''), coalesce(substr(trim(" + col("BillingPeriodStart")
           + "), 1, 10), ''), coalesce(trim(" + col("InvoiceId") + "), ''))")
    detail = (f"concat_ws(' / ', coalesce(trim({col('ProviderName')}), ''), coalesce(trim({col('ServiceName')}), ''), "
              f"coalesce(trim({col('ChargeCategory')}), ''))")
    rows = _run(con, f"""
        SELECT batch, month, rule, CASE WHEN rule IS NULL THEN detail END AS what, category,
               sum(amount), sum(quantity), count(*)
        FROM (SELECT {key} AS batch, substr(trim({date}), 1, 7) AS month, {rule} AS rule, {detail} AS detail,
                     coalesce(trim({col('ChargeCategory')}), '') AS category,
                     CAST(TRY_CAST(trim({cost}) AS DECIMAL(38,10)) * {rate} AS DECIMAL(38,10)) AS amount,
                     coalesce(TRY_CAST(trim({col('ConsumedQuantity')}) AS DECIMAL(38,10)), 0) AS quantity
              FROM {scan})
        GROUP BY ALL ORDER BY ALL""", rule_params + rate_params)
    charges: dict[str, list[Charge]] = {}
    categories: dict[str, dict[str, Decimal]] = {}
    odd: set[str] = set()
    for batch, month, index, what, category, amount, quantity, count in rows:
        spent = categories.setdefault(batch, {})
        spent[category] = spent.get(category, Decimal(0)) + amount
        if category not in CHARGE_CATEGORIES:
            odd.add(category)
        if index is None:
            charge = Charge(month, "", UNMAPPED, "", amount, Decimal(0), count, what)
        else:
            r = mapping.rules[index]
            hours = quantity * Decimal(str(r.gpus_per_unit)) if r.gpus_per_unit is not None else Decimal(0)
            charge = Charge(month, r.market, r.item, r.workload, amount, hours, count)
        charges.setdefault(batch, []).append(charge)
    if odd:
        warnings.append(f"{path}: ChargeCategory {', '.join(_clip(c or '(empty)') for c in sorted(odd))} is not one "
                        f"FOCUS defines ({', '.join(CHARGE_CATEGORIES)}); those charges are mapped by the rules "
                        "like any other")
    _warn_formula_text(con, scan, header, path, warnings)
    return [_batch(key, path, "focus", mapping.cost_column, found, categories[key]) for key, found in charges.items()]


def _batch(key: str, path: Path, fmt: str, cost_column: str, charges: list[Charge],
           categories: dict[str, Decimal] | None = None) -> Batch:
    merged: dict[tuple, Charge] = {}
    for c in charges:  # a rule's charges of one month, whatever else they differed in, are one line
        k = (c.month, c.market, c.item, c.workload, c.detail)
        was = merged.get(k)
        merged[k] = c if was is None else Charge(c.month, c.market, c.item, c.workload, was.amount + c.amount,
                                                 was.gpu_hours + c.gpu_hours, was.rows + c.rows, c.detail)
    found = tuple(merged.values())
    return Batch(key, path.name, fmt, cost_column, sum(c.rows for c in found), sum((c.amount for c in found),
                 Decimal(0)), found, tuple(sorted((categories or {}).items())))


def _warn_formula_text(con: Any, scan: str, header: list[str], path: Path, warnings: list[str]) -> None:
    """List the text fields that a spreadsheet would run as a formula (CSV injection): they stay text."""
    texts = [h for h in ("ProviderName", "ServiceName", "ChargeCategory", "ChargeDescription", "SkuId", "market",
                         "item", "workload", "unit") if h in header]
    if not texts:
        return
    starts = " OR ".join(f"left(ltrim({_col(h, header)}), 1) IN ('=', '+', '@')" for h in texts)
    count = _run(con, f"SELECT count(*) FROM {scan} WHERE {starts}")[0][0]
    if count:
        warnings.append(f"{path}: {count:,} rows hold text starting with `=`, `+` or `@` (a CSV formula "
                        "injection such as =HYPERLINK(...)); it is written as text, never as a formula")


def _generic(con: Any, path: Path, header: list[str], mapping: Mapping, plan: Plan, months: list[str],
             warnings: list[str]) -> list[Batch]:
    unknown = [h for h in header if h not in GENERIC_REQUIRED + GENERIC_OPTIONAL]
    if unknown:
        raise BillError(f"is a generic bill with the unknown column {unknown[0]} (columns: "
                        f"{','.join(GENERIC_REQUIRED)}[,{','.join(GENERIC_OPTIONAL)}])")
    scan = _scan(path, header)
    col = lambda name: _col(name, header)
    _validate(con, scan, col("amount"), col("date"), col("currency"), col("quantity"),
              {"cost": "amount", "date": "date", "quantity": "quantity", "currency": "currency"}, plan, months, mapping,
              empty_currency_ok=True)
    rate, rate_params = _rate_sql(col("currency"), mapping, plan)
    rows = _run(con, f"""
        SELECT substr(trim({col('date')}), 1, 7), coalesce(trim({col('market')}), ''),
               coalesce(trim({col('item')}), ''), coalesce(trim({col('workload')}), ''),
               coalesce(trim({col('unit')}), ''), coalesce(trim({col('invoice')}), ''),
               sum(CAST(CAST(trim({col('amount')}) AS DECIMAL(38,10)) * {rate} AS DECIMAL(38,10))),
               sum(coalesce(TRY_CAST(trim({col('quantity')}) AS DECIMAL(38,10)), 0)), count(*)
        FROM {scan} GROUP BY ALL ORDER BY ALL""", rate_params)
    markets = {m.id for m in plan.markets}
    items = {line.id for line in development_lines(plan)}
    workloads = {w.id for w in plan.workloads}
    charges: dict[str, list[Charge]] = {}
    for month, market, item, workload, unit, invoice, amount, quantity, count in rows:
        # the invoice it names, else one per market, line item and month: a re-import replaces it
        key = f"generic|invoice|{invoice}" if invoice else f"generic|{market}|{item}|{month}"
        if market not in markets or item not in items:
            what = f"generic: market {market or '(none)'}, item {item or '(none)'} not in the plan"
            charge = Charge(month, "", UNMAPPED, "", amount, Decimal(0), count, what)
        else:
            if workload and workload not in workloads:
                warnings.append(f"{path}: workload `{workload}` is not in the plan; its charges count for "
                                f"{item} on {market} without a workload")
                workload = ""
            hours = quantity if item == "compute" and GPU_HOUR_UNIT.match(unit) else Decimal(0)
            charge = Charge(month, market, item, workload, amount, hours, count)
        charges.setdefault(key, []).append(charge)
    _warn_formula_text(con, scan, header, path, warnings)
    return [_batch(key, path, "generic", "amount", found) for key, found in charges.items()]
