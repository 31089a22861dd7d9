"""A chart's categories as text (`<c:strRef>`): market labels, line items, months and inputs are words.

openpyxl's `set_categories` writes every category range as a `<c:numRef>`, a promise of numbers
that ExcelJS, SheetJS and HyperFormula-based readers take at its word; LibreOffice and Excel
look at the cells and cope. Every budgetbook chart is labelled by text, so it says so.
"""

from __future__ import annotations

from typing import Any


def text_categories(chart: Any, ref: Any) -> None:
    """Label every series of `chart` by the text cells of `ref` (an openpyxl `Reference`)."""
    from openpyxl.chart.data_source import AxDataSource, StrRef  # openpyxl: only when a book is written

    for series in chart.series:
        series.cat = AxDataSource(strRef=StrRef(f=str(ref)))
