#!/usr/bin/python3
"""Edit a workbook in a running LibreOffice through UNO, as a user would.

Run with the SYSTEM python (Debian's python3-uno is built for it), never a
venv. Reads one JSON job on stdin:

    {"port": 2002, "input": "file:///...", "output": "file:///...",
     "ops": [{"op": "insert_rows", "sheet": "Compute", "index": 3, "count": 1}, ...]}

Ops: insert_rows / delete_rows / insert_columns (0-based index, like the UNO API; a protected
sheet is unprotected first, as a user must),
move_sheet (to a 0-based tab position), set_value, type (a user typing `text`
into a cell: refused on a locked cell of a protected sheet), unprotect (a sheet, or the workbook's
structure when no sheet is given, with `password`),
set_formula (Excel syntax: `=SUM(C5:C7)`, `='Failed runs'!C5`, commas),
insert_sheet (a new empty sheet `sheet` at 0-based tab `index`, default last) and delete_sheet.
Then calculateAll() and store as xlsx. Exits non-zero with the
reason on stderr.
"""

import json
import sys
import time

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.sheet.AddressConvention import XL_OOX

# css.sheet.FormulaLanguage.OOXML: Excel function names and separators.
FORMULA_LANGUAGE_OOXML = 5


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def connect(port, deadline):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext(
        "com.sun.star.bridge.UnoUrlResolver", local
    )
    url = "uno:socket,host=127.0.0.1,port=%d;urp;StarOffice.ComponentContext" % port
    while True:
        try:
            return resolver.resolve(url)
        except Exception:
            # The socket accepts before the office finishes starting.
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def excel_parser(doc):
    """A FormulaParser reading Excel (OOXML) formula text, as typed in Excel."""
    parser = doc.createInstance("com.sun.star.sheet.FormulaParser")
    mapper = doc.createInstance("com.sun.star.sheet.FormulaOpCodeMapper")
    parser.FormulaConvention = XL_OOX
    parser.CompileEnglish = True
    parser.OpCodeMap = mapper.getAvailableMappings(FORMULA_LANGUAGE_OOXML, 0x3FFFFFFF)
    return parser


def cell_of(doc, op):
    return doc.Sheets.getByName(op["sheet"]).getCellRangeByName(op["cell"])


CONTEXT = []  # the office's component context, for the dispatcher of `type`


def unprotected(sheet, op):
    """A protected sheet (every generated one) refuses rows and columns inserted or deleted, through the API
    too: as a user does, unprotect it first (no password unless the op gives the book's)."""
    if sheet.isProtected():
        sheet.unprotect(op.get("password", ""))
    return sheet


def apply(doc, op, parser_holder):
    kind = op["op"]
    if kind in ("insert_rows", "delete_rows", "insert_columns"):
        unprotected(doc.Sheets.getByName(op["sheet"]), op)
    if kind == "insert_rows":
        doc.Sheets.getByName(op["sheet"]).Rows.insertByIndex(op["index"], op.get("count", 1))
    elif kind == "delete_rows":
        doc.Sheets.getByName(op["sheet"]).Rows.removeByIndex(op["index"], op.get("count", 1))
    elif kind == "insert_columns":
        doc.Sheets.getByName(op["sheet"]).Columns.insertByIndex(op["index"], op.get("count", 1))
    elif kind == "move_sheet":
        doc.Sheets.moveByName(op["sheet"], op["index"])
    elif kind == "set_value":
        cell = cell_of(doc, op)
        value = op["value"]
        if isinstance(value, str):
            cell.setString(value)
        else:
            cell.setValue(float(value))
    elif kind == "set_formula":
        cell = cell_of(doc, op)
        if not parser_holder:
            parser_holder.append(excel_parser(doc))
        parser = parser_holder[0]
        address = cell.CellAddress
        text = op["formula"]
        tokens = parser.parseFormula(text[1:] if text.startswith("=") else text, address)
        cell.setTokens(tokens)
    elif kind == "insert_sheet":
        doc.Sheets.insertNewByName(op["sheet"], op.get("index", doc.Sheets.getCount()))
    elif kind == "delete_sheet":
        doc.Sheets.removeByName(op["sheet"])
    elif kind == "type":
        # as a user types: select the cell and enter the text through the UI's dispatcher, which honours
        # sheet protection (set_value, the API, does not); a locked cell of a protected sheet is left as it was
        sheet = doc.Sheets.getByName(op["sheet"])
        controller = doc.getCurrentController()
        controller.setActiveSheet(sheet)
        controller.select(sheet.getCellRangeByName(op["cell"]))
        helper = CONTEXT[0].ServiceManager.createInstanceWithContext("com.sun.star.frame.DispatchHelper",
                                                                     CONTEXT[0])
        helper.executeDispatch(controller.getFrame(), ".uno:EnterString", "", 0,
                               (prop("StringName", str(op["text"])),))
    elif kind == "unprotect":
        # a sheet, or (no sheet given) the workbook's structure; a wrong password raises
        target = doc.Sheets.getByName(op["sheet"]) if op.get("sheet") else doc
        if not target.isProtected():
            raise ValueError("not protected")
        target.unprotect(op.get("password", ""))
        if target.isProtected():
            raise ValueError("still protected after unprotect")
    else:
        raise ValueError("unknown op %r" % kind)


def main():
    job = json.load(sys.stdin)
    deadline = time.monotonic() + job.get("connect_timeout", 120)
    ctx = connect(job["port"], deadline)
    CONTEXT.append(ctx)
    desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    doc = desktop.loadComponentFromURL(job["input"], "_blank", 0, (prop("Hidden", True),))
    if doc is None:
        sys.exit("LibreOffice could not open %s" % job["input"])
    try:
        parser_holder = []
        for op in job["ops"]:
            try:
                apply(doc, op, parser_holder)
            except Exception as exc:
                sys.exit("op %s failed: %s" % (json.dumps(op), exc))
        doc.calculateAll()
        doc.storeToURL(job["output"], (prop("FilterName", "Calc MS Excel 2007 XML"),))
    finally:
        doc.close(True)


if __name__ == "__main__":
    main()
