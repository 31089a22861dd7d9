// Reads budgetbook workbooks with real JavaScript readers; prints one JSON report on stdout.
// Usage: node read.mjs BOOK.xlsx ... -> {"BOOK.xlsx": {"exceljs": {...}, "sheetjs": {...}, "hyperformula": {...}}}
// exceljs, sheetjs: "Sheet!A1" -> the cell's cached value, for every formula cell (a figure as that reader sees it);
// hyperformula: every formula cell recalculated from the book's own inputs, and those whose value differs
// from the cached one. HyperFormula 2.7 fails to build a book whose formulas read workbook-scoped named
// expressions ("Value of the formula cell is not computed"), so each name is replaced by its reference.
import { readFileSync } from "node:fs";
import ExcelJS from "exceljs";
import XLSX from "xlsx";
import { HyperFormula } from "hyperformula";

async function exceljs(path) {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(path);
  const out = {};
  wb.eachSheet((ws) => ws.eachRow((row) => row.eachCell((cell) => {
    if (cell.formula || cell.sharedFormula) out[`${ws.name}!${cell.address}`] = cell.result ?? null;
  })));
  return out;
}

function sheetjs(path) {
  const wb = XLSX.read(readFileSync(path), { cellFormula: true, cellNF: true });
  const out = {};
  for (const name of wb.SheetNames) {
    const ws = wb.Sheets[name];
    for (const [address, cell] of Object.entries(ws)) {
      if (!address.startsWith("!") && cell.f !== undefined) out[`${name}!${address}`] = cell.v ?? null;
    }
  }
  return { wb, values: out };
}

// numbers agree to 1e-9 relative or 1e-6 absolute, as the Gnumeric test allows: Sensitivity's swings are
// differences of large totals (HyperFormula's swing of -1.12 differed by 3.7e-9)
function same(a, b) {
  if (typeof a === "number" && typeof b === "number") {
    return Math.abs(a - b) <= Math.max(1e-9 * Math.max(1, Math.abs(b)), 1e-6);
  }
  return a === b;
}

function hyperformula(wb) {
  const names = {};
  for (const n of wb.Workbook?.Names ?? []) if (n.Sheet === undefined) names[n.Name.toUpperCase()] = n.Ref;
  // a name (not a function, a sheet or a cell reference) outside string literals becomes its reference
  const inline = (f) => f.split('"').map((part, i) => (i % 2 ? part : part.replace(
    /(?<![A-Za-z0-9_.!$'])([A-Za-z_][A-Za-z0-9_.]*)(?![A-Za-z0-9_.(!'])/g, (m) => names[m.toUpperCase()] ?? m)))
    .join('"');
  const sheets = {};
  const formulas = [];
  for (const name of wb.SheetNames) {
    const ws = wb.Sheets[name];
    const range = ws["!ref"] ? XLSX.utils.decode_range(ws["!ref"]) : { e: { r: -1, c: -1 } };
    const rows = [];
    for (let r = 0; r <= range.e.r; r++) {
      const row = [];
      for (let c = 0; c <= range.e.c; c++) {
        const cell = ws[XLSX.utils.encode_cell({ r, c })];
        if (!cell) row.push(null);
        else if (cell.f !== undefined) { row.push("=" + inline(cell.f)); formulas.push([name, r, c, cell.v]); }
        else if (cell.t === "s" && /^[=+'-]/.test(cell.v)) row.push("'" + cell.v);  // plan text stays text
        else row.push(cell.v);
      }
      rows.push(row);
    }
    sheets[name] = rows;
  }
  const hf = HyperFormula.buildFromSheets(sheets, { licenseKey: "gpl-v3" });
  const differ = [];
  for (const [name, r, c, cached] of formulas) {
    let got = hf.getCellValue({ sheet: hf.getSheetId(name), row: r, col: c });
    if (got && typeof got === "object") got = `#${got.type}`;
    if (!same(got, cached)) differ.push([`${name}!${XLSX.utils.encode_cell({ r, c })}`, got, cached]);
  }
  return { cells: formulas.length, differ };
}

const report = {};
for (const path of process.argv.slice(2)) {
  const { wb, values } = sheetjs(path);
  report[path] = { exceljs: await exceljs(path), sheetjs: values, hyperformula: hyperformula(wb) };
}
process.stdout.write(JSON.stringify(report));
