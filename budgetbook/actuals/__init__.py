"""Budget vs actuals in: bills (FOCUS or a generic CSV) mapped onto the plan's markets and line items.

`mapping` reads the mapping file, `bills` reads exports out of core with DuckDB, `api` holds the
`actuals` and `variance` commands. It stands on top: what a workbook carries of the bills (the
imported facts, their hidden sheet, the Actuals and Variance sheets and the Variance reference) is
`ledger/`, below the workbook assembly and `review/`, which read it; `review/variance_check.py`
checks the Variance sheet.
"""
