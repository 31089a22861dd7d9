"""The Actuals sheet reconciles on its own (issue 30 item 4): per invoice and in all, mapped + unmapped = total as
live formulas, tied to the months' facts and on the Checks sheet's master check; after a LibreOffice
recalculation too."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
from focus_bills import MAPPING, PAYROLL, focus_rows, write_focus
from libreoffice import needs_libreoffice, recalculated_values

from budgetbook.actuals.api import import_actuals
from budgetbook.api import check_workbook, generate_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

PLAN = Path(__file__).parents[2] / "templates" / "pretrain-7b.yaml"


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    d = tmp_path_factory.mktemp("reconcile")
    generate_workbook(PLAN, d / "plan.xlsx")
    (d / "map.yaml").write_text(MAPPING)
    (d / "payroll.csv").write_text(PAYROLL)
    write_focus(d / "aws.csv", focus_rows())
    result = import_actuals(d / "plan.xlsx", [d / "aws.csv", d / "payroll.csv"], d / "imported.xlsx",
                            mapping=d / "map.yaml")
    return d / "imported.xlsx", result


def _expected(result) -> dict[str, float]:
    out = {}
    for n, batch in enumerate(result.actuals.batches, 1):
        unmapped = sum((c.amount for c in batch.charges if c.item == "unmapped"), Decimal(0))
        out |= {f"act_inv{n}_mapped": float(batch.total - unmapped), f"act_inv{n}_unmapped": float(unmapped)}
    total = sum((b.total for b in result.actuals.batches), Decimal(0))
    unmapped = sum((c.amount for c in result.actuals.charges if c.item == "unmapped"), Decimal(0))
    return out | {"act_inv_total": float(total), "act_inv_mapped": float(total - unmapped),
                  "act_inv_unmapped": float(unmapped)}


def test_every_invoice_and_all_reconcile_on_the_master_check(imported):
    book, result = imported
    values = evaluate_workbook(book)
    assert len(result.actuals.batches) == 4 and values["act_inv_unmapped"] == pytest.approx(824.74)
    for name, expected in _expected(result).items():
        assert values[name] == pytest.approx(expected, rel=1e-12, abs=1e-9), name
    assert all(values[f"act_inv{n}_ok"] is True for n in range(1, 5))
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
