// Reads budgetbook workbooks with real JavaScript readers; prints one JSON report on stdout.
// Usage: node read.mjs BOOK.xlsx ... -> {"BOOK.xlsx": {"exceljs": {...}, "sheetjs": {...}}}
// each: "Sheet!A1" -> the cell's cached value, for every formula cell (a figure as that reader sees it).
import { readFileSync } from "node:fs";
import ExcelJS from "exceljs";
import XLSX from "xlsx";

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

const report = {};
for (const path of process.argv.slice(2)) {
  const { values } = sheetjs(path);
  report[path] = { exceljs: await exceljs(path), sheetjs: values };
}
process.stdout.write(JSON.stringify(report));
