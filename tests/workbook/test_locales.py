"""The workbook reads the same in every locale (issue 25): LibreOffice set to en-GB, de-DE and ja-JP.

One template with a live label (deepseek-v3, USD) and a EUR plan whose labels cite euro prices are
converted to CSV (every sheet, the cells as LibreOffice shows them, after its own recalculation) once
per locale. Every money cell must show the plan's currency symbol (a zero its dash) and no other
currency's; every live label must read its price exactly as budgetbook caches it. Before the
formats were pinned, en-GB showed `£835,087` and de-DE `49.275.779 €`, and the label built with
TEXT read "H800 rental at $00.02/GPU-hour" in de-DE.
"""

from __future__ import annotations

import csv
import re
import subprocess
from pathlib import Path

import openpyxl
import pytest
from libreoffice import CONVERT_TIMEOUT, make_profile, needs_libreoffice, soffice_available

from budgetbook.planfile.loader import plan_from_text, resolve
from budgetbook.workbook.build import workbook_layout
from budgetbook.workbook.write import write_workbook

pytestmark = needs_libreoffice

LOCALES = ("en-GB", "de-DE", "ja-JP")
SYMBOLS = {"USD": "$", "EUR": "€"}
FOREIGN = "£¥$€"  # any currency symbol but the plan's is a locale's own

_LOCALE_XCU = """<item oor:path="/org.openoffice.Setup/L10N"><prop oor:name="ooSetupSystemLocale" oor:op="fuse">\
<value>{locale}</value></prop></item>
<item oor:path="/org.openoffice.Setup/L10N"><prop oor:name="ooLocale" oor:op="fuse"><value>{locale}</value></prop>\
</item>
</oor:items>"""
# every sheet (-1), cells as shown (token 9), UTF-8 (76), comma-separated, quoted text
CSV_FILTER = "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1"


def _euro_plan() -> str:
    text = resolve("finetune-13b-lora")[1].replace("currency: USD", "currency: EUR")
    text = text.replace("label: Hyperscaler (on-demand)", "label: Hyperscaler at €3.00/GPU-hour")
    return text.replace("label: Decentralized market", "label: Decentralized market at €1.80/GPU-hour")


def _locale_profile(directory: Path, locale: str) -> Path:
    """A private LibreOffice profile in `locale` (its UI and its default cell locale) that recalculates on load."""
    make_profile(directory)
    xcu = directory / "user" / "registrymodifications.xcu"
    xcu.write_text(xcu.read_text().replace("</oor:items>", _LOCALE_XCU.format(locale=locale)), encoding="utf-8")
    return directory


def _as_shown(books: list[Path], out: Path, locale: str, root: Path) -> dict[tuple[str, str], list[list[str]]]:
    """(book stem, sheet) -> the sheet's rows as LibreOffice in `locale` shows them."""
    profile = _locale_profile(root / f"profile-{locale}", locale)
    subprocess.run(["soffice", "--headless", "--norestore", "--nologo",
                    f"-env:UserInstallation={profile.resolve().as_uri()}", "--convert-to", CSV_FILTER,
                    "--outdir", str(out), *map(str, books)], check=True, capture_output=True,
                   timeout=CONVERT_TIMEOUT * len(books))
    shown = {}
    for book in books:
        for sheet in openpyxl.load_workbook(book, read_only=True).sheetnames:
            with open(out / f"{book.stem}-{sheet}.csv", encoding="utf-8", newline="") as f:
                shown[(book.stem, sheet)] = list(csv.reader(f))
    return shown


@pytest.fixture(scope="module")
def books(tmp_path_factory) -> list[tuple[Path, object]]:
    root = tmp_path_factory.mktemp("locales")
    made = []
    for stem, text in (("deepseek-v3", resolve("deepseek-v3")[1]), ("euro", _euro_plan())):
        plan = plan_from_text(text, stem)
        made.append((write_workbook(plan, text, root / f"{stem}.xlsx"), plan))
    return made


@pytest.fixture(scope="module")
def shown(books, tmp_path_factory) -> dict[str, dict]:
    if not soffice_available():
        pytest.skip("LibreOffice is not installed")
    root = tmp_path_factory.mktemp("shown")
    return {locale: _as_shown([book for book, _ in books], root / locale, locale, root) for locale in LOCALES}


def _text(rows: list[list[str]], row: int, col: int) -> str:
    return rows[row - 1][col - 1] if row <= len(rows) and col <= len(rows[row - 1]) else ""


@pytest.mark.parametrize("locale", LOCALES)
def test_money_shows_the_plans_currency_in_every_locale(books, shown, locale):
    for book, plan in books:
        symbol = SYMBOLS[plan.currency]
        wb = openpyxl.load_workbook(book, data_only=True)
        money = 0
        for ws in wb.worksheets:
            rows = shown[locale][(book.stem, ws.title)]
            for row in ws.iter_rows():
                for cell in row:
                    if not isinstance(cell.value, (int, float)) or isinstance(cell.value, bool):
                        continue
                    text = _text(rows, cell.row, cell.column)
                    # no number anywhere shows another currency (a locale's own)
                    assert not set(text) & (set(FOREIGN) - {symbol}), (book.stem, ws.title, cell.coordinate, text)
                    if f"[{symbol}" not in cell.number_format.replace("[$", "["):
                        continue
                    money += 1
                    if cell.value == 0 and '"-"' in cell.number_format:  # money's zero: a dash; a price's $0.00
                        assert text.strip() == "-", (book.stem, ws.title, cell.coordinate, text)
                    else:
                        assert symbol in text and re.search(r"\d", text), (book.stem, ws.title, cell.coordinate, text)
        assert money > 200, (book.stem, money)  # the money cells of every sheet were read


@pytest.mark.parametrize("locale", LOCALES)
def test_every_live_label_reads_its_price_exactly(books, shown, locale):
    for book, plan in books:
        wb = openpyxl.load_workbook(book, data_only=True)
        labels = [spec for spec in workbook_layout(plan) if spec.name.endswith("_label") and not
                  spec.name.startswith("adj_") or spec.name.startswith(("hdr_", "dec_label_"))]  # adj_: typed
        assert len(labels) >= 5, book.stem
        for spec in labels:
            cell = wb[spec.sheet][spec.cell.replace("$", "")]
            cached = cell.value  # budgetbook's own value: "H800 rental at $2.00/GPU-hour"
            assert re.search(r"[$€]\d+\.\d\d", cached), (spec.name, cached)
            assert _text(shown[locale][(book.stem, spec.sheet)], cell.row, cell.column) == cached, spec.name


def test_no_number_is_wider_than_its_column(books, shown):
    """No `###`: every number's shown text (en-GB; de-DE's and ja-JP's are as long) fits its column's width
    (in characters of the default font; a merged or spilling cell is not a number)."""
    from openpyxl.utils import get_column_letter

    for book, _ in books:
        wb = openpyxl.load_workbook(book)
        for ws in wb.worksheets:
            if ws.sheet_state != "visible":
                continue
            rows = shown["en-GB"][(book.stem, ws.title)]
            wide = []
            for row in ws.iter_rows():
                for cell in row:
                    if cell.data_type not in ("n", "f") or cell.value is None:
                        continue
                    text = _text(rows, cell.row, cell.column).strip()
                    width = ws.column_dimensions[get_column_letter(cell.column)].width or 8.43
                    bold = 1.05 if cell.font and cell.font.b else 1.0
                    # a digit or a symbol is one character of the width, a separator half, the `_)` pad half
                    needed = (sum(0.5 if ch in ",. " else 1 for ch in text) + 0.5) * bold
                    if re.fullmatch(r"[-($€£¥\d.,)% A-Za-z]+", text or "-") and re.search(r"\d", text) \
                            and needed > width:
                        wide.append((cell.coordinate, text, width))
            assert wide == [], (book.stem, ws.title, wide[:5])
