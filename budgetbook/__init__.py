"""budgetbook: an ML training budget as an Excel workbook of live formulas."""

__version__ = "0.1.0"
