"""Number formats that mean the same in every reader (issue 25, item 1), read from the written package.

openpyxl writes `"$"#,##0_);("$"#,##0)` as built-in id 5 with no `<numFmt>`, and ECMA-376 leaves
ids 5-8 (and the dates, times and accounting ids) to the reader's locale. Every format a budgetbook
cell uses must be one of the locale-free built-ins or a `<numFmt>` of the package's own; every
currency in a format (cells and chart axes) is pinned to a locale (`[$$-409]`).
"""

from __future__ import annotations

import re
import zipfile
from xml.etree import ElementTree

import pytest

from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.sheetkit.formats import LOCALE_FREE_BUILTINS, PINNED, money, prefix
from budgetbook.workbook.write import write_workbook

MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


def _book(tmp_path, template: str, currency: str = "USD"):
    text = resolve(template)[1].replace("currency: USD", f"currency: {currency}")
    return write_workbook(plan_from_text(text, template), text, tmp_path / f"{template}.xlsx")


@pytest.mark.parametrize("template, currency", [(t, "USD") for t in template_names()] + [("pretrain-7b", "EUR"),
                                                                                         ("pretrain-7b", "CHF")])
def test_every_format_is_the_packages_own_or_locale_free(tmp_path, template, currency):
    with zipfile.ZipFile(_book(tmp_path, template, currency)) as z:
        styles = ElementTree.fromstring(z.read("xl/styles.xml"))
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    own = {int(f.get("numFmtId")): f.get("formatCode") for f in styles.iter(f"{MAIN}numFmt")}
    used = {int(xf.get("numFmtId", 0)) for xf in styles.find(f"{MAIN}cellXfs")}
    assert used - LOCALE_FREE_BUILTINS <= set(own), f"built-in ids a locale re-reads: {used - set(own)}"
    codes = [own[i] for i in used if i in own]
    currency_codes = [c for c in codes if prefix(currency) in c]
    assert len(currency_codes) >= 3  # money, money with cents, prices
    for code in codes:  # a currency only as the plan's, pinned: never a bare "$" a reader may re-read
        bare = code.replace(prefix(currency), "")
        assert not re.search(r'"[$€£¥]"|\[\$[^\]-]*\]', bare), code
    axes = re.findall(r'formatCode="([^"]*)"', "".join(charts))
    assert axes and all(prefix(currency).replace('"', "&quot;") in a for a in axes if "#,##0" in a), axes


def test_money_pins_the_symbol_to_a_locale_where_it_leads_and_dashes_zero():
    assert money("USD") == '[$$-409]#,##0_);([$$-409]#,##0);"-"_)'
    assert money("EUR", 2) == '[$€-1809]#,##0.00_);([$€-1809]#,##0.00);"-"_)'  # en-IE: €1,234.50
    assert money("CHF") == '"CHF "#,##0_);("CHF "#,##0);"-"_)'  # no symbol: the code, a literal
    assert set(PINNED) >= {"USD", "EUR", "GBP", "JPY"}


def _row_format(path, sheet: str, label: str) -> str:
    import openpyxl

    ws = openpyxl.load_workbook(path)[sheet]
    row = next(r for r in ws.iter_rows() if r[0].value == label or str(r[0].value).startswith(label + " ("))
    return row[2].number_format


def test_a_count_row_is_whole_where_its_values_are_and_shows_decimals_where_not(tmp_path):
    """"Saves per run" was `600.0` and the extra engineering days `2.0`: a count whose every value (low, base,
    high) is whole is written whole; one that can take a fraction keeps two decimals."""
    book = _book(tmp_path, "pretrain-7b")
    assert _row_format(book, "Storage & egress", "Saves per run") == "#,##0"
    assert _row_format(book, "People", "Extra engineering days") == "#,##0"
    text = resolve("pretrain-7b")[1]
    assert "save_every_steps: 2000 " in text  # 1,200,000 steps: 600 saves
    fractional = text.replace("save_every_steps: 2000 ", "save_every_steps: 7000 ")  # 171.43 saves
    path = write_workbook(plan_from_text(fractional, "pretrain-7b"), fractional, tmp_path / "fraction.xlsx")
    assert _row_format(path, "Storage & egress", "Saves per run") == "#,##0.0#"
