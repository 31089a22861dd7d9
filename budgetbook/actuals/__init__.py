"""Budget vs actuals: bills (FOCUS or a generic CSV) mapped onto the plan's markets and line items.

`mapping` reads the mapping file, `bills` reads exports out of core with DuckDB,
`model` holds the imported facts (batches keyed by invoice identity, so a
re-import replaces instead of adding), `embed` keeps them inside the workbook,
`sheets` writes the `Actuals` (values) and `Variance` (live formulas) sheets,
`variance` is the reference model of the Variance sheet, `api` the commands.
"""
