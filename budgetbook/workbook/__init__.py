"""The workbook assembly: a plan as an Excel workbook of live formulas (DESIGN.md section 5).

Above the line items: `build` lays out Inputs, every line item's sheet in registry order, Summary,
Procurement, Cash flow, Sensitivity, Checks and About as plain data (`workbook_layout` lists every
named cell as generated, which `check` compares an edited workbook against), `openpyxl_book`
renders it, `write` saves it. What the line items build their sheets with is `sheetkit/`, below.
"""
