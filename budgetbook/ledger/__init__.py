"""The actuals a workbook carries, below the workbook assembly: the imported facts (`model`), their
hidden sheet (`embed`), the Actuals and Variance sheets (`sheets`) and the Variance sheet's
reference model (`variance`). Reading bills in (mapping, DuckDB, the commands) is `actuals/`, above."""
