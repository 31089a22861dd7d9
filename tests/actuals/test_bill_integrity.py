"""Bills never lose a charge (issue 27 items 1, 2, 8, 9 for bills): generic bills keyed by their content, every
row counted over the file's bytes, calendar-true dates, messages that say what is wrong."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from cli_run import run, sha
from hypothesis import given, settings
from hypothesis import strategies as st

from budgetbook.actuals.api import import_actuals
from budgetbook.api import generate_workbook

PLAN = Path(__file__).parents[2] / "templates" / "pretrain-7b.yaml"
HEADER = "date,market,item,amount,workload\n"


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("integrity")
    generate_workbook(PLAN, d / "plan.xlsx")
    return d / "plan.xlsx"


def _vendors(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "vendor-a.csv", tmp_path / "vendor-b.csv"
    a.write_text(HEADER + "2026-01-31,neo_cloud,compute,1000.00,\n")
    b.write_text(HEADER + "2026-01-31,neo_cloud,compute,250.00,\n")
    return a, b


def test_two_generic_bills_of_one_market_item_and_month_both_count(book, tmp_path):
    a, b = _vendors(tmp_path)
    one = import_actuals(book, [a, b], tmp_path / "one.xlsx")
    assert one.actuals.amount("2026-01", "neo_cloud", "compute") == Decimal("1250.00")
    assert one.replaced == [] and len(one.actuals.batches) == 2
    lines = one.summary()
    assert lines[0].startswith("vendor-a.csv: generic|neo_cloud|compute|2026-01|d:") and lines[0].endswith("(added)")
    assert lines[-1] == ("2 batches added (1,250.00), 0 replaced (0.00 where they held 0.00); the book now holds "
                         "1,250.00")
    first = import_actuals(book, [a], tmp_path / "a.xlsx")
    second = import_actuals(tmp_path / "a.xlsx", [b], tmp_path / "ab.xlsx")  # across two imports
    assert second.actuals.amount("2026-01", "neo_cloud", "compute") == Decimal("1250.00")
    assert second.replaced == [] and first.actuals.batches[0].key != second.imported[0].key
    again = import_actuals(tmp_path / "ab.xlsx", [a], tmp_path / "aba.xlsx")  # the same bill again: replaces itself
    assert again.actuals.amount("2026-01", "neo_cloud", "compute") == Decimal("1250.00")
    assert again.replaced == [first.actuals.batches[0].key]
    assert "(replaces vendor-a.csv's 1,000.00)" in again.summary()[0]
    assert again.summary()[-1] == ("0 batches added (0.00), 1 replaced (1,000.00 where they held 1,000.00); the "
                                   "book now holds 1,250.00")
    copy = tmp_path / "copy-of-a.csv"  # the same rows under another name, in one import: one bill, counted once
    copy.write_bytes(a.read_bytes().replace(b"\n", b"\r\n"))
    twice = import_actuals(book, [a, copy], tmp_path / "aa.xlsx")
    assert twice.actuals.amount("2026-01", "neo_cloud", "compute") == Decimal("1000.00")
    lines = twice.summary()  # docs/bills.md: the same rows in one command are counted once (noted), not "replaced"
    assert lines[0].startswith("copy-of-a.csv: generic|neo_cloud|compute|2026-01|d:")
    assert lines[0].endswith(": the same 1 row as vendor-a.csv, counted once")
    assert lines[-1] == ("1 batch added (1,000.00), 0 replaced (0.00 where they held 0.00); the book now holds "
                         "1,000.00")


def test_generic_digest_ignores_row_order_but_not_content(book, tmp_path):
    rows = ["2026-01-31,neo_cloud,compute,100.00,\n", "2026-01-15,neo_cloud,compute,50.00,\n"]
    (tmp_path / "x.csv").write_text(HEADER + "".join(rows))
    (tmp_path / "y.csv").write_text(HEADER + "".join(reversed(rows)))
    (tmp_path / "z.csv").write_text(HEADER + rows[0] + rows[1].replace("50.00", "50.01"))
    keys = [import_actuals(book, [tmp_path / f"{n}.csv"], tmp_path / f"{n}.xlsx").imported[0].key for n in "xyz"]
    assert keys[0] == keys[1] != keys[2]
    assert re.fullmatch(r"generic\|neo_cloud\|compute\|2026-01\|d:[0-9a-f]{16}", keys[0])


def _refused(capsys, book: Path, bill: Path, *extra) -> str:
    before = sha(book)
    out = bill.with_suffix(".xlsx")
    code, _, err = run(capsys, "actuals", book, bill, "-o", out, *extra)
    assert code == 2 and not out.exists() and sha(book) == before, err
    assert err.startswith(f"Error: {bill}: ") and len(err.strip().splitlines()) == 1, err
    return err


def test_a_very_long_last_line_is_refused_not_skipped(capsys, book, tmp_path):
    # DuckDB 2.0's parallel reader (2 threads) returned 1 row of 2, exit 0, when the last line is about 32 MB or
    # more (20 MB is refused by DuckDB itself); 33 MB here
    bill = tmp_path / "long.csv"
    with open(bill, "wb") as f:
        f.write(HEADER.encode() + b"2026-01-31,neo_cloud,compute,100.00,\n")
        f.write(b"2026-01-31,neo_cloud,compute,200.00," + b"x" * 33_000_000 + b"\n")
    err = _refused(capsys, book, bill)
    assert "line 3 is over 1,000,000 bytes long; a bill's line may be at most that" in err
    bill.write_bytes(HEADER.encode() + b"2026-01-31,neo_cloud,compute,100.00," + b"y" * 1_000_000 + b"\n")
    assert "line 2 is over 1,000,000 bytes long" in _refused(capsys, book, bill)


def test_nul_padding_after_the_last_row_is_refused(capsys, book, tmp_path):
    # DuckDB 2.0 returned 1 row of 2, exit 0, with 40 MB of NUL bytes right after the last row (sparse here)
    bill = tmp_path / "padded.csv"
    with open(bill, "wb") as f:
        f.write(HEADER.encode() + b"2026-01-31,neo_cloud,compute,100.00,\n2026-01-31,neo_cloud,compute,200.00,")
        f.seek(40_000_000, 1)
        f.write(b"\0")
    assert "line 3 holds a NUL byte (zero padding or a binary file)" in _refused(capsys, book, bill)


def test_the_reader_is_held_to_the_rows_counted_over_the_bytes(book, tmp_path):
    from budgetbook.actuals.formats.records import count_records

    bill = tmp_path / "quoted.csv"  # a quoted line break, a blank line, CRLF: the pass counts as DuckDB reads
    bill.write_bytes(b'date,market,item,amount,workload\r\n2026-01-31,neo_cloud,compute,1.00,"pre\ntrain"\r\n'
                     b"\r\n2026-01-30,neo_cloud,compute,2.00,\r\n")
    records = count_records(bill)
    assert records.count == 2 and [records.line_of(0), records.line_of(1)] == [2, 5]
    result = import_actuals(book, [bill], tmp_path / "q.xlsx")
    assert result.imported[0].rows == 2 and result.imported[0].total == Decimal("3.00")


@pytest.mark.parametrize("date", ["2026-02-31T00:00:00Z", "2026-01-99garbage", "2026-01-31T24:00:00Z",
                                  "10000-01-01", "2026-13"])
def test_a_charge_date_that_is_not_a_calendar_date_is_refused(capsys, book, tmp_path, date):
    bill = tmp_path / "dates.csv"
    bill.write_text(HEADER + "2026-01-31,neo_cloud,compute,1.00,\n" + f"{date},neo_cloud,compute,2.00,\n")
    err = _refused(capsys, book, bill)
    assert f"line 3: date '{date}' is not a calendar date" in err


def test_a_latin1_bill_is_told_it_is_not_utf8(capsys, book, tmp_path):
    bill = tmp_path / "latin1.csv"
    bill.write_bytes((HEADER + "2026-01-31,neo_cloud,compute,1.00,\n2026-01-31,neo_cloud,compute,2.00,café\n")
                     .encode("latin-1"))
    err = _refused(capsys, book, bill)
    assert "line 3 is not UTF-8 (byte 0xe9)" in err and "save it as UTF-8" in err and "iconv" in err


def test_mapping_nan_rate_and_aliases_are_refused_in_the_mappings_words(capsys, book, tmp_path):
    bill = tmp_path / "ok.csv"
    bill.write_text(HEADER + "2026-01-31,neo_cloud,compute,1.00,\n")
    mapping = tmp_path / "map.yaml"
    mapping.write_text("rates: {EUR: .nan}\n")
    code, _, err = run(capsys, "actuals", book, bill, "--map", mapping, "-o", tmp_path / "o.xlsx")
    assert code == 2 and "rates.EUR" in err and "finite number" in err and "less than" not in err
    mapping.write_text("rules:\n  - match: &m {provider: AWS}\n    market: neo_cloud\n    item: compute\n"
                       "  - match: *m\n    market: neo_cloud\n    item: storage_egress\n")
    code, _, err = run(capsys, "actuals", book, bill, "--map", mapping, "-o", tmp_path / "o.xlsx")
    assert code == 2 and "line 5: YAML aliases (`*m`) are not allowed in mapping files" in err
    assert "in plans" not in err and len(err.strip().splitlines()) == 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.text(alphabet='ab,"\n\r é', max_size=6), min_size=2, max_size=2), max_size=12),
       st.sampled_from(["\n", "\r\n"]), st.booleans(), st.sampled_from([3, 7, 64, 1 << 20]))
def test_the_byte_count_agrees_with_duckdb_and_pythons_csv(tmp_path_factory, rows, newline, last_break, chunk):
    """Random rows (quoted fields with line breaks, `""`, commas, blank-looking rows) in any chunking: the pass over
    the bytes counts what DuckDB's reader returns, and where Python's csv module starts each row."""
    import csv
    import io

    import duckdb

    from budgetbook.actuals.formats import records

    out = io.StringIO()
    csv.writer(out, lineterminator=newline).writerows([["a", "b"], *[r for r in rows if r != ["", ""]]])
    body = out.getvalue() if last_break else out.getvalue().removesuffix(newline)
    bill = tmp_path_factory.mktemp("count") / "b.csv"
    bill.write_bytes(body.encode())
    old, records.CHUNK = records.CHUNK, chunk
    try:
        counted = records.count_records(bill)
    finally:
        records.CHUNK = old
    con = duckdb.connect()
    try:
        read = con.execute(f"SELECT count(*) FROM read_csv('{bill}', header=true, auto_detect=false, delim=',', "
                           "quote='\"', escape='\"', columns={'a': 'VARCHAR', 'b': 'VARCHAR'}, parallel=false)"
                           ).fetchone()[0]
    except duckdb.Error:  # DuckDB refuses a few (a lone \r in a quoted field): refused, not dropped
        read = None
    reader = csv.reader(io.StringIO(body, newline=""))
    starts, line = [], 1
    for n, row in enumerate(reader):
        if n and row:  # a blank line is no row (csv gives [], DuckDB skips it)
            starts.append(line)
        line = reader.line_num + 1
    assert counted.count == len(starts) and read in (None, counted.count)
    assert [counted.line_of(i) for i in range(counted.count)] == starts


def _focus_files(tmp_path: Path, **parts: list[dict]) -> dict[str, Path]:
    import csv

    from focus_bills import COLUMNS, MAPPING

    (tmp_path / "map.yaml").write_text(MAPPING)
    out = {}
    for name, rows in parts.items():
        out[name] = tmp_path / f"{name}.csv"
        with open(out[name], "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
    return out


def test_an_export_in_parts_counts_every_part(tmp_path):
    """AWS splits a month's FOCUS export into files of one invoice: part 2 replaced part 1 (411.62 of 263,953.81
    lost, exit 0). Now the parts are joined; a part given again counts once; a later re-export replaces them."""
    from focus_bills import focus_rows

    rows = focus_rows({"2026-01": 2})
    book = generate_workbook(PLAN, tmp_path / "b.xlsx")
    files = _focus_files(tmp_path, whole=rows, p1=rows[:44], p2=rows[44:], again=rows[::-1])
    whole = import_actuals(book, [files["whole"]], tmp_path / "w.xlsx", mapping=tmp_path / "map.yaml")
    parts = import_actuals(book, [files["p1"], files["p2"], files["p1"]], tmp_path / "p.xlsx",
                           mapping=tmp_path / "map.yaml")
    total = whole.imported[0].total
    assert f"{total:,.2f}" == "263,953.81" and len(parts.imported) == 1 and parts.replaced == []
    assert parts.imported[0].total == total and parts.imported[0].rows == 89
    assert sorted(parts.actuals.charges, key=repr) == sorted(whole.actuals.charges, key=repr)
    lines = parts.summary()
    assert lines[0] == "p1.csv: focus|AWS|123456789012|2026-01-01|: the same 44 rows as p1.csv, counted once"
    assert lines[1].startswith("p1.csv + p2.csv: focus|AWS|123456789012|2026-01-01|: 89 rows, BilledCost "
                               "263,953.81") and lines[1].endswith("(added)")
    again = import_actuals(tmp_path / "p.xlsx", [files["again"]], tmp_path / "a.xlsx", mapping=tmp_path / "map.yaml")
    assert again.replaced == [whole.imported[0].key] and again.actuals.batches[0].total == total
    copies = import_actuals(book, [files["whole"], files["again"]], tmp_path / "c.xlsx", mapping=tmp_path / "map.yaml")
    assert copies.actuals.batches[0].total == total and len(copies.actuals.batches) == 1  # the same rows: once
    assert copies.summary()[0] == ("again.csv: focus|AWS|123456789012|2026-01-01|: the same 89 rows as whole.csv, "
                                   "counted once")
    assert copies.summary()[1].endswith("(added)") and copies.replaced == []


def test_a_re_export_with_a_changed_row_in_one_command_is_joined_as_a_part(tmp_path):
    """docs/bills.md decides: other rows of one invoice in one command are a part of it, joined (every charge of
    each counted), the same rows again are counted once; a re-export goes alone, with --replace."""
    from focus_bills import focus_rows

    rows = focus_rows({"2026-01": 1})
    changed = [dict(r) for r in rows]
    changed[0]["BilledCost"] = str(Decimal(changed[0]["BilledCost"]) + 5)
    book = generate_workbook(PLAN, tmp_path / "b.xlsx")
    files = _focus_files(tmp_path, first=rows, second=changed)
    one = import_actuals(book, [files["first"]], tmp_path / "1.xlsx", mapping=tmp_path / "map.yaml")
    both = import_actuals(book, [files["first"], files["second"]], tmp_path / "2.xlsx", mapping=tmp_path / "map.yaml")
    assert len(both.imported) == 1 and both.replaced == [] and both.imported[0].rows == 2 * one.imported[0].rows
    assert both.imported[0].total == 2 * one.imported[0].total + 5
    assert both.summary()[0].startswith("first.csv + second.csv: ") and both.summary()[0].endswith("(added)")


def test_one_invoice_in_two_focus_versions_in_one_import_is_refused(capsys, book, tmp_path):
    from focus_bills import focus_rows

    rows = focus_rows({"2026-01": 2})
    newer = [dict(r, ContractApplied="") for r in rows[44:]]  # a 1.3 column: the file reads as FOCUS 1.3
    files = _focus_files(tmp_path, old=rows[:44])
    with open(tmp_path / "new.csv", "w", newline="") as f:
        import csv

        from focus_bills import COLUMNS
        writer = csv.DictWriter(f, fieldnames=[*COLUMNS, "ContractApplied", "ServiceProviderName"],
                                extrasaction="ignore")
        writer.writeheader()
        writer.writerows(dict(r, ServiceProviderName=r["ProviderName"]) for r in newer)
    code, out, err = run(capsys, "actuals", book, files["old"], tmp_path / "new.csv", "--map", tmp_path / "map.yaml",
                         "-o", tmp_path / "o.xlsx")
    assert (code, out) == (2, "") and len(err.strip().splitlines()) == 1 and not (tmp_path / "o.xlsx").exists()
    assert err.startswith(f"Error: {tmp_path / 'new.csv'}: holds invoice 'focus|AWS|123456789012|2026-01-01|' as "
                          f"{files['old']} does, but in focus-1.3 where that is focus-1.0"), err


def test_a_generic_invoice_in_two_files_counts_both_and_a_later_one_is_refused(capsys, book, tmp_path):
    """A generic bill's `invoice` spread over two files in one import: the second replaced the first (250.00 of
    1,250.00 kept, exit 0). Now they are joined; the same file again counts once; across imports the same rows
    replace themselves, other rows of the invoice are refused in one line unless `--replace`."""
    a, b = tmp_path / "jan-a.csv", tmp_path / "jan-b.csv"
    a.write_text("date,market,item,amount,invoice\n2026-01-31,neo_cloud,compute,1000.00,INV-7\n")
    b.write_text("date,market,item,amount,invoice\n2026-01-31,neo_cloud,storage_egress,250.00,INV-7\n")
    both = import_actuals(book, [a, b, a], tmp_path / "ab.xlsx")
    assert [bt.total for bt in both.actuals.batches] == [Decimal("1250.00")] and both.replaced == []
    assert both.summary()[0] == "jan-a.csv: generic|invoice|INV-7: the same 1 row as jan-a.csv, counted once"
    assert both.summary()[1].startswith("jan-a.csv + jan-b.csv: generic|invoice|INV-7: 2 rows, amount 1,250.00")
    assert both.summary()[1].endswith("(added)")
    first = import_actuals(book, [a], tmp_path / "a.xlsx")
    refused = _refused(capsys, tmp_path / "a.xlsx", b)  # the book holds INV-7 from jan-a.csv: b alone would drop it
    assert refused == (f"Error: {b}: holds invoice 'generic|invoice|INV-7' (1 row, 250.00), which "
                       f"{tmp_path / 'a.xlsx'} holds from jan-a.csv with other rows (1 row, 1,000.00): give an "
                       "export's parts in one command; to replace the invoice held with these rows (a re-export, or "
                       "all its parts given together), add --replace\n")
    code, out, err = run(capsys, "actuals", tmp_path / "a.xlsx", a, b, "--replace", "-o", tmp_path / "r.xlsx")
    assert (code, err) == (0, "") and "(replaces jan-a.csv's 1,000.00)" in out, out
    assert "the book now holds 1,250.00" in out
    again = import_actuals(tmp_path / "ab.xlsx", [b, a], tmp_path / "ba.xlsx")  # the same rows again: replaced
    assert again.replaced == ["generic|invoice|INV-7"] and again.actuals.batches[0].total == Decimal("1250.00")
    assert first.actuals.batches[0].digest and first.actuals.batches[0].digest != again.actuals.batches[0].digest


def test_a_later_part_of_an_export_is_refused_not_swapped(capsys, tmp_path):
    """A FOCUS export's parts imported one at a time: each later part replaced the one held (part 1's charges lost,
    exit 0). Now it is refused naming both files; all parts together with `--replace` replace the part held."""
    from focus_bills import focus_rows

    rows = focus_rows({"2026-01": 2})
    book = generate_workbook(PLAN, tmp_path / "b.xlsx")
    files = _focus_files(tmp_path, p1=rows[:44], p2=rows[44:])
    import_actuals(book, [files["p1"]], tmp_path / "p1.xlsx", mapping=tmp_path / "map.yaml")
    err = _refused(capsys, tmp_path / "p1.xlsx", files["p2"], "--map", tmp_path / "map.yaml")
    assert err.startswith(f"Error: {files['p2']}: holds invoice 'focus|AWS|123456789012|2026-01-01|' (45 rows, ")
    assert f"which {tmp_path / 'p1.xlsx'} holds from p1.csv with other rows (44 rows, " in err
    assert err.endswith("--replace\n")
    whole = import_actuals(tmp_path / "p1.xlsx", files.values(), tmp_path / "w.xlsx", mapping=tmp_path / "map.yaml",
                           replace=True)
    assert f"{whole.actuals.batches[0].total:,.2f}" == "263,953.81" and whole.actuals.batches[0].rows == 89
    assert "(replaces p1.csv's " in whole.summary()[0]
