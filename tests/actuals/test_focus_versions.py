"""FOCUS 1.0 to 1.4 (issue 30 item 2) over exports made by a public FOCUS generator (tests/fixtures/focus/,
made by make_fixtures.sh with focus-data-toolkit 0.14.1; the tests need neither the toolkit nor the network).

Each export's version is detected from its columns; each imports and reconciles to the cent: per invoice, the
file's BilledCost (summed here in Python) is the batch's total, and mapped + unmapped is that total, the mapped
part being what the rules select (selected here in Python, a second implementation of the matching)."""

from __future__ import annotations

import csv
import fnmatch
import json
from decimal import Decimal
from pathlib import Path

import pytest
from cli_run import run

from budgetbook.actuals.api import import_actuals
from budgetbook.actuals.formats.registry import detect
from budgetbook.actuals.formats.source import open_source
from budgetbook.api import generate_workbook

PLAN = Path(__file__).parents[2] / "templates" / "pretrain-7b.yaml"
FIXTURES = Path(__file__).parents[1] / "fixtures" / "focus"
PROVIDER = {"aws": "AWS", "azure": "Microsoft Azure", "gcp": "Google Cloud"}
EXPORTS = [("aws", "1.0"), ("aws", "1.1")] + [(p, v) for p in PROVIDER for v in ("1.2", "1.3", "1.4")]
# a rule per kind of match: the provider (ProviderName to 1.2, ServiceProviderName after), a service category,
# a charge category, a commitment discount; the rest is unmapped
RULES = [({"provider": "{provider}", "service_category": "Compute", "charge_category": "Usage"}, "compute"),
         ({"provider": "{provider}", "charge_category": "Purchase"}, "commitment"),
         ({"service_category": "Storage"}, "storage_egress")]
MATCH = {"provider": ("ServiceProviderName", "ProviderName"), "service_category": ("ServiceCategory",),
         "charge_category": ("ChargeCategory",), "contract_commitment": ("ContractApplied",)}


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("focus")
    generate_workbook(PLAN, d / "plan.xlsx")
    return d / "plan.xlsx"


def _rows(name: str) -> list[dict]:
    with open(FIXTURES / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _mapping(path: Path, provider: str, rules=RULES) -> Path:
    lines = ["rules:"]
    for match, item in rules:
        lines.append(f"  - match: {json.dumps({k: v.format(provider=provider) for k, v in match.items()})}")
        lines += ["    market: hyperscaler_commit", f"    item: {item}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def _value(row: dict, key: str) -> str:
    if key == "contract_commitment":
        applied = row.get("ContractApplied") or ""
        return json.loads(applied)["Elements"][0]["ContractCommitmentId"] if applied else ""
    return next((row[c].strip() for c in MATCH[key] if row.get(c, "").strip()), "")


def _rule_of(row: dict, rules: list, provider: str) -> str | None:
    for match, item in rules:
        if all(fnmatch.fnmatchcase(_value(row, k).lower(), v.format(provider=provider).lower())
               for k, v in match.items()):
            return item
    return None


def _cents(amount: Decimal) -> Decimal:
    return amount.quantize(Decimal("0.01"))


@pytest.mark.parametrize(("provider", "version"), EXPORTS)
def test_each_focus_version_is_detected_imports_and_reconciles_to_the_cent(book, tmp_path, provider, version):
    name = f"{provider}-{version}.csv"
    assert detect(open_source(FIXTURES / name).header).name == f"focus-{version}"
    rows = _rows(name)
    result = import_actuals(book, [FIXTURES / name], tmp_path / "out.xlsx",
                            mapping=_mapping(tmp_path / "map.yaml", PROVIDER[provider]))
    by_account: dict[str, list[dict]] = {}
    for row in rows:
        by_account.setdefault(row["BillingAccountId"], []).append(row)
    assert sorted(b.key.split("|")[2] for b in result.imported) == sorted(by_account)  # one batch per invoice
    assert all(b.key.split("|")[1] == PROVIDER[provider] for b in result.imported)
    for batch in result.imported:
        own = by_account[batch.key.split("|")[2]]
        billed = sum((Decimal(r["BilledCost"]) for r in own), Decimal(0))
        assert _cents(batch.total) == _cents(billed) and batch.rows == len(own)
        mapped = sum((c.amount for c in batch.charges if c.item != "unmapped"), Decimal(0))
        unmapped = sum((c.amount for c in batch.charges if c.item == "unmapped"), Decimal(0))
        assert mapped + unmapped == batch.total  # every dollar accounted for, exactly
        for item in ("compute", "commitment", "storage_egress"):
            expected = sum((Decimal(r["BilledCost"]) for r in own if _rule_of(r, RULES, PROVIDER[provider]) == item),
                           Decimal(0))
            got = sum((c.amount for c in batch.charges if c.item == item), Decimal(0))
            assert _cents(got) == _cents(expected), (item, got, expected)
        assert mapped > 0 and unmapped > 0


def test_a_focus_1_4_export_without_provider_name_imports(capsys, book, tmp_path):
    # the old reader refused it: "is a FOCUS export without the column ProviderName"
    assert "ProviderName" not in open_source(FIXTURES / "aws-1.4.csv").header
    code, out, err = run(capsys, "actuals", book, FIXTURES / "aws-1.4.csv", "-o", tmp_path / "o.xlsx")
    assert code == 0, err
    assert "focus|AWS|100000000001|2026-05-01|INV-2026-05-0001: 43 rows, BilledCost 1,346.36" in out


@pytest.mark.parametrize("provider", PROVIDER)
def test_the_1_4_conversion_replaces_its_1_3_export(book, tmp_path, provider):
    first = import_actuals(book, [FIXTURES / f"{provider}-1.3.csv"], tmp_path / "a.xlsx")
    again = import_actuals(tmp_path / "a.xlsx", [FIXTURES / f"{provider}-1.4.csv"], tmp_path / "b.xlsx")
    assert sorted(again.replaced) == sorted(b.key for b in first.imported)  # the same invoices: replaced
    assert [(b.key, b.total, b.rows) for b in again.actuals.batches] == \
        [(b.key, b.total, b.rows) for b in first.actuals.batches]


@pytest.mark.parametrize("provider", PROVIDER)
def test_contract_applied_and_the_contract_commitment_dataset(book, tmp_path, provider):
    """`contract_commitment` matches the commitment a charge drew on (ContractApplied); `contract_commitment_type`
    that commitment's type, from the Contract Commitment dataset imported alongside (listed first or not)."""
    rows, terms = _rows(f"{provider}-1.3.csv"), _rows(f"{provider}-1.3-contract-commitment.csv")
    kinds = {t["ContractCommitmentId"]: t["ContractCommitmentType"] for t in terms}
    applied = [_value(r, "contract_commitment") for r in rows if r["ContractApplied"]]
    first_id = applied[0]
    kind = next(kinds[i] for i in applied if i != first_id and i in kinds)
    rules = [({"contract_commitment": first_id}, "commitment"), ({"contract_commitment_type": kind}, "compute")]
    mapping = tmp_path / "map.yaml"
    mapping.write_text("rules:\n" + "".join(
        f"  - match: {json.dumps(m)}\n    market: hyperscaler_commit\n    item: {item}\n" for m, item in rules))
    files = [FIXTURES / f"{provider}-1.3.csv", FIXTURES / f"{provider}-1.3-contract-commitment.csv"]
    result = import_actuals(book, files, tmp_path / "o.xlsx", mapping=mapping)
    charges = [c for b in result.imported for c in b.charges]
    drew = [r for r in rows if _value(r, "contract_commitment") == first_id]
    assert drew and _cents(sum((c.amount for c in charges if c.item == "commitment"), Decimal(0))) == \
        _cents(sum((Decimal(r["BilledCost"]) for r in drew), Decimal(0)))
    typed = [r for r in rows if _value(r, "contract_commitment") != first_id
             and kinds.get(_value(r, "contract_commitment")) == kind]
    assert typed and _cents(sum((c.amount for c in charges if c.item == "compute"), Decimal(0))) == \
        _cents(sum((Decimal(r["BilledCost"]) for r in typed), Decimal(0)))
    assert f"{provider}-1.3-contract-commitment.csv: FOCUS 1.3 Contract Commitment dataset: {len(terms)} " \
        "commitments" in result.summary()[0]
    alone = import_actuals(book, [FIXTURES / f"{provider}-1.3.csv"], tmp_path / "p.xlsx", mapping=mapping)
    assert not any(c.item == "compute" for b in alone.imported for c in b.charges)  # no dataset: no type to match
    assert any("`contract_commitment_type`" in w and "Contract Commitment dataset" in w for w in alone.warnings)


def test_a_folder_of_focus_1_4_datasets_imports_whole(book, tmp_path):
    files = sorted(FIXTURES.glob("aws-1.4*.csv"))
    assert [detect(open_source(f).header).name for f in files] == [
        "focus-billing-period", "focus-contract-commitment", "focus-invoice-detail", "focus-1.4"]
    result = import_actuals(book, files, tmp_path / "o.xlsx")
    only = import_actuals(book, [FIXTURES / "aws-1.4.csv"], tmp_path / "p.xlsx")
    assert [(b.key, b.total) for b in result.actuals.batches] == [(b.key, b.total) for b in only.actuals.batches]
    notes = result.summary()
    assert len(notes) == 3 + 2 + 2 + 1  # 3 datasets, 2 invoices held to the rows, 2 batches, the totals
    assert notes[0].startswith("aws-1.4-billing-period.csv: FOCUS 1.4 Billing Period dataset (1 row)")
    assert notes[1].startswith("aws-1.4-contract-commitment.csv: FOCUS 1.4 Contract Commitment dataset: 9 commitments")
    assert notes[2].startswith("aws-1.4-invoice-detail.csv: FOCUS 1.4 Invoice Detail dataset (6 rows)")


def test_the_invoice_detail_dataset_holds_the_cost_and_usage_rows_to_the_cent(book, tmp_path):
    details = _rows("aws-1.4-invoice-detail.csv")
    invoiced = {}
    for row in details:
        invoiced[row["InvoiceId"]] = invoiced.get(row["InvoiceId"], Decimal(0)) + Decimal(row["BilledCost"])
    result = import_actuals(book, [FIXTURES / "aws-1.4-invoice-detail.csv", FIXTURES / "aws-1.4.csv"],
                            tmp_path / "o.xlsx")
    notes = [n for n in result.summary() if "invoiced" in n]
    assert notes == [f"aws-1.4-invoice-detail.csv: invoice '{i}' of account '{a}': invoiced {invoiced[i]:,.2f} = "
                     f"its Cost and Usage rows {invoiced[i]:,.2f}"
                     for a, i in (("100000000001", "INV-2026-05-0001"), ("100000000002", "INV-2026-05-0002"))]
    assert not result.warnings
    rows = (FIXTURES / "aws-1.4.csv").read_text().splitlines(keepends=True)
    lost = next(n for n, line in enumerate(rows) if n and "INV-2026-05-0002" in line and ",Usage," in line)
    (tmp_path / "short.csv").write_text("".join(rows[:lost] + rows[lost + 1:]))  # one charge missing
    short = import_actuals(book, [FIXTURES / "aws-1.4-invoice-detail.csv", tmp_path / "short.csv"],
                           tmp_path / "s.xlsx")
    missing = Decimal(next(csv.DictReader([rows[0], rows[lost]]))["BilledCost"])
    assert len(short.warnings) == 1 and "invoice 'INV-2026-05-0002' of account '100000000002': invoiced " \
        f"{invoiced['INV-2026-05-0002']:,.2f} but its Cost and Usage rows come to " \
        f"{invoiced['INV-2026-05-0002'] - missing:,.2f} ({-missing:+,.2f})" in short.warnings[0]
