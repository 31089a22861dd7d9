"""Drawing and chart parts with their DrawingML prefixes (`xdr:wsDr`, `c:chartSpace`), as Excel writes them.

openpyxl writes `xl/drawings/drawingN.xml` with SpreadsheetDrawing as the default namespace
(`<wsDr xmlns="...spreadsheetDrawing">`) and the chart parts with the chart namespace as default.
That is valid XML, but ExcelJS matches the element names with their prefixes (`xdr:wsDr`,
exceljs#2591) and cannot open such a book at all ("Cannot read properties of undefined (reading
'anchors')"), nor can anything built on it. Each such part is re-serialised with every element and
attribute prefixed the way Excel spells them. The rewrite is a function of the part's bytes alone,
so a regenerated book is byte-identical.
"""

from __future__ import annotations

import io
import zipfile
from xml.etree import ElementTree

PREFIXES = {
    "xdr": "http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing",
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "c": "http://schemas.openxmlformats.org/drawingml/2006/chart",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
}
_DECLARATION = b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'


def prefixed(xml: bytes) -> bytes:
    """One part re-serialised with Excel's prefixes (ElementTree never writes a default namespace)."""
    for prefix, uri in PREFIXES.items():
        ElementTree.register_namespace(prefix, uri)
    root = ElementTree.fromstring(xml)
    return _DECLARATION + ElementTree.tostring(root, encoding="utf-8", xml_declaration=False)


def is_drawing_part(name: str) -> bool:
    return name.startswith(("xl/drawings/drawing", "xl/charts/chart")) and name.endswith(".xml")


def prefix_drawings(package: bytes) -> bytes:
    """The saved workbook `package` with its drawing and chart parts prefixed; every other part as it was."""
    source = zipfile.ZipFile(io.BytesIO(package))
    if not any(is_drawing_part(info.filename) for info in source.infolist()):
        return package
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info)
            if is_drawing_part(info.filename):
                data = prefixed(data)
            target.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()
