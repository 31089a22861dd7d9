"""The workbook builder: a plan as an Excel workbook of live formulas (DESIGN.md section 5).

`build_workbook` / `write_workbook` make the .xlsx; `workbook_layout` lists
every named cell as generated (`CellSpec`), which `check` compares an edited
workbook against; `read_embedded_plan` gets back the plan a workbook came from.
"""

from __future__ import annotations

from .build import build_book, build_workbook, workbook_layout
from .embed import FORMAT_VERSION, SHEET as EMBED_SHEET, read_embedded_plan
from .grid import KINDS, CellSpec
from .write import write_workbook

__all__ = ["build_book", "build_workbook", "write_workbook", "workbook_layout", "read_embedded_plan", "CellSpec",
           "KINDS", "FORMAT_VERSION", "EMBED_SHEET"]
