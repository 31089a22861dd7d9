"""Regenerate the sample workbooks of every template, and PNG pages of their Inputs, Summary, Procurement, Cash flow,
Sensitivity; and pretrain-7b with two months of the sample bills imported (`pretrain-7b-actuals.xlsx`, PNGs of its
Actuals and Variance pages).

    python samples/regenerate.py            # workbooks and PNGs (needs soffice and pdftoppm)
    python samples/regenerate.py --no-png   # workbooks only

`tests/test_workbook_samples.py` fails, with a readable diff, when the builder's
output drifts from the committed workbooks: rerun this script and review the diff.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import openpyxl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from budgetbook.planfile.loader import plan_from_text, resolve, template_names  # noqa: E402
from budgetbook.workbook.write import write_workbook  # noqa: E402

PAGES = ("Inputs", "Summary", "Procurement", "Cash flow", "Sensitivity")  # printed in tab order: Inputs first
ACTUALS_PAGES = ("Actuals", "Variance")
BILLS = ("focus-aws-2026-01-02.csv", "payroll-2026.csv")  # mapped by focus-mapping.yaml onto pretrain-7b


def dump(path: Path) -> list[str]:
    """A normalised, diffable view: sheet, cell, formula or value, number format (no generation date, no digest)."""
    wb = openpyxl.load_workbook(path)
    lines = []
    for ws in wb:
        for row in ws.iter_rows():
            for cell in row:
                if cell.value is None:
                    continue
                if ws.title == "About" and ws.cell(cell.row, 1).value == "Generated":
                    continue
                if ws.title == "_budgetbook" and ws.cell(cell.row, 4).value in ("digest", "generated") \
                        and cell.column == 5:
                    continue  # the stamp's digest and date: they change with the generation date
                lines.append(f"{ws.title}!{cell.coordinate}\t{cell.value!r}\t{cell.number_format}")
    lines += [f"name {name} -> {dn.attr_text}" for name, dn in sorted(wb.defined_names.items())]
    return lines


def generate(template: str, out_dir: Path) -> Path:
    source, text = resolve(template)
    return write_workbook(plan_from_text(text, source), text, out_dir / f"{template}.xlsx")


def generate_actuals(out_dir: Path) -> Path:
    """pretrain-7b's sample (in `out_dir`) with the sample bills imported, as `budgetbook actuals` writes it."""
    from budgetbook.actuals.api import import_actuals

    book = out_dir / "pretrain-7b.xlsx"
    if not book.exists():
        generate("pretrain-7b", out_dir)
    return import_actuals(book, [HERE / bill for bill in BILLS], out_dir / "pretrain-7b-actuals.xlsx",
                          mapping=HERE / "focus-mapping.yaml", force=True).written


def render_pngs(book: Path, out_dir: Path, pages: tuple[str, ...] = PAGES) -> list[Path]:
    """PNGs of the `pages` (the Inputs, Summary, Procurement, Cash flow and Sensitivity pages), as LibreOffice
    prints them (recalculated), named by sheet: `pretrain-7b-summary.png`, a sheet's further pages
    `pretrain-7b-cash-flow-2.png` (page numbers move whenever a sheet grows a page; names do not)."""
    from libreoffice import make_profile

    with tempfile.TemporaryDirectory(prefix="budgetbook-samples-") as tmp:
        tmp = Path(tmp)
        wb = openpyxl.load_workbook(book)
        for ws in wb:
            ws.sheet_state = "visible" if ws.title in pages else "hidden"
            if ws.title not in pages:
                ws.print_area = None  # LibreOffice prints a hidden sheet that has a print area
        wb.active = wb.sheetnames.index(pages[0])
        only = tmp / book.name
        wb.save(only)
        profile = make_profile(tmp / "profile")
        subprocess.run([shutil.which("soffice"), "--headless", "--norestore",
                        f"-env:UserInstallation={profile.as_uri()}", "--convert-to", "pdf",
                        "--outdir", str(tmp), str(only)], check=True, capture_output=True, timeout=300)
        pdf = only.with_suffix(".pdf")
        subprocess.run(["pdftoppm", "-png", "-r", "60", str(pdf), str(tmp / "page")], check=True, timeout=300)
        for old in [*out_dir.glob(f"{book.stem}-[0-9]*.png"),
                    *(p for page in pages for p in out_dir.glob(f"{book.stem}-{_slug(page)}*.png"))]:
            old.unlink()
        written, seen = [], {}
        for number, png in enumerate(sorted(tmp.glob("page-*.png"), key=lambda p: int(p.stem.split("-")[-1])), 1):
            sheet = _slug(_page_sheet(pdf, number))
            seen[sheet] = seen.get(sheet, 0) + 1
            name = f"{book.stem}-{sheet}" + (f"-{seen[sheet]}" if seen[sheet] > 1 else "") + ".png"
            written.append(Path(shutil.move(png, out_dir / name)))
    return written


def _page_sheet(pdf: Path, number: int) -> str:
    """The sheet a printed page is of: the right of its header (`&A`, `openpyxl_book._print_setup`)."""
    text = subprocess.run(["pdftotext", "-f", str(number), "-l", str(number), "-layout", str(pdf), "-"],
                          check=True, capture_output=True, text=True, timeout=60).stdout
    header = next(line for line in text.splitlines() if line.strip())
    return re.split(r"\s{2,}", header.strip())[-1]


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def main(argv: list[str]) -> int:
    for template in template_names():
        book = generate(template, HERE)
        print(f"wrote {book.relative_to(HERE.parent)}")
        if "--no-png" not in argv:
            for png in render_pngs(book, HERE):
                print(f"wrote {png.relative_to(HERE.parent)}")
    book = generate_actuals(HERE)
    print(f"wrote {book.relative_to(HERE.parent)}")
    if "--no-png" not in argv:
        for png in render_pngs(book, HERE, ACTUALS_PAGES):
            print(f"wrote {png.relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
