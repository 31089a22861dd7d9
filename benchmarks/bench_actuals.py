"""Import of big FOCUS exports (issue 12): time and peak RSS of `budgetbook actuals`, by rows.

    python benchmarks/bench_actuals.py [--rows 100000,1000000] [--repeat 1]

Writes each FOCUS CSV with DuckDB (realistic columns and values: GPU instances,
storage, egress, a Savings Plan fee, credits, tax, unmapped services, over the
plan's months; text columns as long as real exports'), generates pretrain-7b's
workbook, then runs `budgetbook actuals BOOK BILL --map MAP -o OUT` in a fresh
interpreter per run and reads its peak RSS (VmHWM) and wall time. The import
streams: DuckDB scans the file twice (validate, aggregate) in a 256 MB memory
limit, so peak RSS should not grow with the file. `count s` is the pass over the
file's bytes alone (`actuals/formats/records.py`, part of the import's time); `bad
row` imports the same bill with its last charge dated 2026-02-31 (refused naming
its line, by a third, ordered scan: the error path's time and peak RSS).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from focus_bills import COLUMNS, MAPPING  # noqa: E402

CHILD = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    t = time.perf_counter()
    from budgetbook.cli import main
    code = main(["actuals", {book!r}, {bill!r}, "--map", {mapping!r}, "-o", {out!r}, "--force"])
    took = time.perf_counter() - t
    hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM"))
    print(code, took, int(hwm.split()[1]) // 1024)
""")

# one row per charge: a mix of kinds weighted as a GPU account's export is (instances dominate)
SQL = """
COPY (
  SELECT
    CASE WHEN k < 70 THEN '0' ELSE cast(round(random() * 50, 10) AS VARCHAR) END AS BilledCost,
    cast(round(random() * 50, 10) AS VARCHAR) AS EffectiveCost,
    cast(round(random() * 60, 10) AS VARCHAR) AS ListCost,
    '123456789012' AS BillingAccountId, 'ml-lab production account' AS BillingAccountName,
    'USD' AS BillingCurrency,
    month || '-01T00:00:00Z' AS BillingPeriodStart, month || '-28T00:00:00Z' AS BillingPeriodEnd,
    CASE WHEN k < 97 THEN 'Usage' WHEN k < 98 THEN 'Credit' WHEN k < 99 THEN 'Tax' ELSE 'Adjustment' END
      AS ChargeCategory,
    '' AS ChargeClass,
    CASE WHEN k < 70 THEN 'p5.48xlarge Linux, Savings Plan covered, us-east-1, per instance-hour'
         ELSE 'Usage charge for a service, with a long description as providers write them' END
      AS ChargeDescription,
    'Usage-Based' AS ChargeFrequency,
    month || '-' || lpad(cast(1 + i % 28 AS VARCHAR), 2, '0') || 'T' || lpad(cast(i % 24 AS VARCHAR), 2, '0')
      || ':00:00Z' AS ChargePeriodStart,
    month || '-' || lpad(cast(1 + i % 28 AS VARCHAR), 2, '0') || 'T23:59:59Z' AS ChargePeriodEnd,
    cast(round(random() * 24, 6) AS VARCHAR) AS ConsumedQuantity,
    CASE WHEN k < 70 THEN 'Hours' WHEN k < 85 THEN 'GB-Mo' ELSE 'GB' END AS ConsumedUnit,
    'AWS' AS ProviderName, 'AWS' AS PublisherName, 'AWS' AS InvoiceIssuerName, 'us-east-1' AS RegionId,
    'arn:aws:ec2:us-east-1:123456789012:instance/i-' || lpad(cast(i % 100000 AS VARCHAR), 17, '0') AS ResourceId,
    CASE WHEN k < 70 THEN 'Compute' WHEN k < 85 THEN 'Storage' WHEN k < 95 THEN 'Networking'
         ELSE 'Management and Governance' END AS ServiceCategory,
    CASE WHEN k < 70 THEN 'Amazon EC2' WHEN k < 85 THEN 'Amazon S3' WHEN k < 95 THEN 'AWS Data Transfer'
         ELSE 'Amazon CloudWatch' END AS ServiceName,
    CASE WHEN k < 70 THEN 'p5.48xlarge' WHEN k < 85 THEN 'TimedStorage-ByteHrs' ELSE 'SKU-' || (i % 500) END
      AS SkuId,
    '{{"project": "llm-7b", "team": "pretrain", "run": "r' || (i % 1000) || '"}}' AS Tags,
    CASE WHEN k < 70 THEN 'Used' ELSE '' END AS CommitmentDiscountStatus
  FROM (SELECT i, (i * 7919) % 100 AS k, CASE WHEN i % 2 = 0 THEN '2026-01' ELSE '2026-02' END AS month
        FROM range({rows}) t(i))
) TO '{path}' (HEADER, DELIMITER ',')
"""


def write_bill(path: Path, rows: int) -> None:
    import duckdb

    con = duckdb.connect()
    con.execute(SQL.format(rows=rows, path=str(path).replace("'", "''")))
    con.close()
    header = path.open().readline().strip().split(",")
    assert header == COLUMNS, header


def _bad_last_row(bill: Path) -> Path:
    """The bill with one more row, a copy of its last with ChargePeriodStart 2026-02-31 (not a calendar date)."""
    import csv
    import io

    with open(bill, newline="") as f:
        header = next(csv.reader(f))
        f.seek(max(0, bill.stat().st_size - 4096))
        last = f.read().splitlines()[-1]
    row = next(csv.reader([last]))
    row[header.index("ChargePeriodStart")] = "2026-02-31T00:00:00Z"
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(row)
    bad = bill.with_name("bad-" + bill.name)
    with open(bad, "wb") as f, open(bill, "rb") as src:
        while chunk := src.read(1 << 24):
            f.write(chunk)
        f.write(out.getvalue().encode())
    return bad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="100000,1000000")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    sizes = [int(s) for s in args.rows.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        from budgetbook.api import generate_workbook

        generate_workbook(ROOT / "templates" / "pretrain-7b.yaml", d / "plan.xlsx")
        (d / "map.yaml").write_text(MAPPING)
        print(f"python benchmarks/bench_actuals.py --rows {args.rows} --repeat {args.repeat}")
        print(f"({os.cpu_count()}-core machine, {time.strftime('%Y-%m-%d')}; fresh process per run, "
              "wall time and peak RSS of `budgetbook actuals`, best of the repeats)\n")
        print(f"{'rows':>10} {'file MB':>9} {'write s':>8} | {'import s':>9} {'peak RSS MB':>12} | {'count s':>8} | "
              f"{'bad row s':>9} {'peak RSS MB':>12}")
        for rows in sizes:
            bill = d / f"focus-{rows}.csv"
            t = time.perf_counter()
            write_bill(bill, rows)
            wrote = time.perf_counter() - t
            best = None
            for _ in range(args.repeat):
                code = CHILD.format(root=str(ROOT), book=str(d / "plan.xlsx"), bill=str(bill),
                                    mapping=str(d / "map.yaml"), out=str(d / "out.xlsx"))
                done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=1800)
                status, took, rss = done.stdout.split()[-3:]
                if status != "0":
                    raise SystemExit(f"import failed: {done.stderr.strip()}")
                best = min(best or (1e9, 0), (float(took), int(rss)))
            assert best is not None
            from budgetbook.actuals.formats.records import count_records

            t = time.perf_counter()
            assert count_records(bill).count == rows
            counted = time.perf_counter() - t
            bad = _bad_last_row(bill)
            code = CHILD.format(root=str(ROOT), book=str(d / "plan.xlsx"), bill=str(bad),
                                mapping=str(d / "map.yaml"), out=str(d / "out.xlsx"))
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=1800)
            status, bad_took, bad_rss = done.stdout.split()[-3:]
            if status != "2" or "2026-02-31" not in done.stderr:
                raise SystemExit(f"the bad row was not refused: {done.stderr.strip()}")
            print(f"{rows:>10,} {bill.stat().st_size / 1e6:>9,.0f} {wrote:>8.1f} | {best[0]:>9.2f} {best[1]:>12,} | "
                  f"{counted:>8.2f} | {float(bad_took):>9.2f} {int(bad_rss):>12,}")
            bill.unlink()
            bad.unlink()


if __name__ == "__main__":
    main()
