"""The Actuals sheet reconciles on its own (issue 30 item 4): per invoice, per file and in all, in both FOCUS cost
columns (billed and effective), mapped + unmapped = total as live formulas over the invoice rows, tied to the
months' facts and on the Checks sheet's master check; after a LibreOffice recalculation too. The effective
totals are held to the bill's own EffectiveCost column, summed here in Python."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
from focus_bills import column_total, focus_rows, write_sample_bills
from libreoffice import needs_libreoffice, recalculated_values

from budgetbook.actuals.api import import_actuals
from budgetbook.api import check_workbook, generate_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

PLAN = Path(__file__).parents[2] / "templates" / "pretrain-7b.yaml"


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    d = tmp_path_factory.mktemp("reconcile")
    generate_workbook(PLAN, d / "plan.xlsx")
    result = import_actuals(d / "plan.xlsx", write_sample_bills(d, _rows()), d / "imported.xlsx",
                            mapping=d / "map.yaml")
    return d / "imported.xlsx", result


def _rows() -> list[dict]:
    """The test export, CloudWatch effective at a discount (billed 412.37, effective 400.00 a month): the two
    cost columns' totals differ."""
    return [r | {"EffectiveCost": Decimal("400.00")} if r["ServiceName"] == "Amazon CloudWatch" else r
            for r in focus_rows()]


def _parts(name: str, total: Decimal, unmapped: Decimal) -> dict[str, float]:
    return {f"{name}_total": float(total), f"{name}_mapped": float(total - unmapped),
            f"{name}_unmapped": float(unmapped)}


def _expected(result) -> dict[str, float]:
    out: dict[str, float] = {}
    files: dict[str, list] = {}
    for n, batch in enumerate(result.actuals.batches, 1):
        unmapped = sum((c.amount for c in batch.charges if c.item == "unmapped"), Decimal(0))
        out |= {f"act_inv{n}_mapped": float(batch.total - unmapped), f"act_inv{n}_unmapped": float(unmapped)}
        if batch.other is not None:
            out |= _parts(f"act_inv{n}_other", batch.other[1], batch.other[2])
        files.setdefault(batch.source, []).append(batch)
    for k, batches in enumerate(files.values(), 1):
        total = sum((b.total for b in batches), Decimal(0))
        out |= _parts(f"act_file{k}", total, sum((b.unmapped for b in batches), Decimal(0)))
        if any(b.other for b in batches):
            out |= _parts(f"act_file{k}_other", sum((b.other[1] for b in batches if b.other), Decimal(0)),
                          sum((b.other[2] for b in batches if b.other), Decimal(0)))
    total = sum((b.total for b in result.actuals.batches), Decimal(0))
    unmapped = sum((c.amount for c in result.actuals.charges if c.item == "unmapped"), Decimal(0))
    other = [b.other for b in result.actuals.batches if b.other]
    return out | _parts("act_inv", total, unmapped) | _parts(
        "act_inv_other", sum((o[1] for o in other), Decimal(0)), sum((o[2] for o in other), Decimal(0)))


def test_the_effective_totals_are_the_bills_effective_cost(imported):
    """The other column (EffectiveCost: the mapping maps BilledCost) is the file's, per invoice and in all; its
    unmapped part is CloudWatch's (the service no rule maps)."""
    _, result = imported
    rows = _rows()
    focus = [b for b in result.actuals.batches if b.format == "focus"]
    assert len(focus) == 2 and all(b.other[0] == "EffectiveCost" for b in focus)
    for batch in focus:
        month = next(c.month for c in batch.charges)
        mine = [r for r in rows if r["BillingPeriodStart"].startswith(month)]
        assert batch.other[1] == column_total(mine, "EffectiveCost") == batch.total - Decimal("12.37")
        assert batch.total == column_total(mine)
        assert batch.other[2] == sum((r["EffectiveCost"] for r in mine if r["ServiceName"] == "Amazon CloudWatch"),
                                     Decimal(0))
    assert sum((b.other[1] for b in focus), Decimal(0)) == column_total(rows, "EffectiveCost")


def test_every_invoice_and_all_reconcile_on_the_master_check(imported):
    book, result = imported
    values = evaluate_workbook(book)
    assert len(result.actuals.batches) == 4 and values["act_inv_unmapped"] == pytest.approx(824.74)
    for name, expected in _expected(result).items():
        assert values[name] == pytest.approx(expected, rel=1e-12, abs=1e-9), name
    assert all(values[f"act_inv{n}_ok"] is True for n in range(1, 5))
    assert values["act_file1_ok"] is True and values["act_file2_ok"] is True and values["act_file1_other_ok"]
    assert values["act_inv_ok"] is True and values["chk_act_invoices"] is True and values["checks_ok"] is True
    assert check_workbook(book).ok


def test_an_invoice_typed_over_fails_the_master_check(imported, tmp_path):
    book, _ = imported
    wb = openpyxl.load_workbook(book)
    sheet, ref = next(iter(wb.defined_names["act_inv2_unmapped"].destinations))
    wb[sheet][ref] = 0.0  # its unmapped charges gone: the invoice no longer adds up, nor do all of them
    wb.save(tmp_path / "typed.xlsx")
    values = evaluate_workbook(tmp_path / "typed.xlsx")
    assert values["act_inv2_ok"] is False and values["act_inv1_ok"] is True
    assert values["act_inv_ok"] is False and values["checks_ok"] is False
    report = check_workbook(tmp_path / "typed.xlsx")
    assert ("structure", "act_inv2_unmapped") in {(f.kind, f.name) for f in report.findings} and not report.ok


@needs_libreoffice
def test_the_grand_total_is_the_bills_after_a_libreoffice_recalculation(imported, tmp_path):
    book, result = imported
    values = recalculated_values(book, tmp_path / "lo")
    for name, expected in _expected(result).items():
        assert values[name] == pytest.approx(expected, rel=1e-12, abs=1e-9), name
    assert values["act_inv_ok"] is True and values["checks_ok"] is True
