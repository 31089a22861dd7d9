"""The workbook builder: a plan as an Excel workbook of live formulas (DESIGN.md section 5).

`build_workbook` / `write_workbook` make the .xlsx; `workbook_layout` lists
every named cell as generated (`CellSpec`), which `check` compares an edited
workbook against; `read_embedded_plan` gets back the plan a workbook came from.

Names are imported on first use: the line items import this package's grid and
styles, and the builder imports the line items.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "build_book": ".build", "build_workbook": ".build", "workbook_layout": ".build", "write_workbook": ".write",
    "read_embedded_plan": "..sheetkit.embed", "FORMAT_VERSION": "..sheetkit.embed", "EMBED_SHEET": "..sheetkit.embed",
    "CellSpec": "..sheetkit.grid", "KINDS": "..sheetkit.grid",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(_EXPORTS[name], __name__)
    return getattr(module, "SHEET" if name == "EMBED_SHEET" else name)
