"""Finance conventions (FAST / ICAEW): inputs look like inputs, everything else stays plain."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from . import formats

if TYPE_CHECKING:  # line items read the number formats here at import: `show` must not pay for openpyxl
    from openpyxl.styles import Font

BLUE = "0000FF"            # the universal "you may type here" colour
INPUT_FILL = "FFF2CC"      # pale yellow
HEADER_FILL = "D9E1F2"
TAB_COLOURS = {"inputs": "FFC000", "calc": "5B9BD5", "output": "70AD47", "about": "A5A5A5",
               "hidden": "A5A5A5"}

FONT = "Calibri"  # named everywhere: a Font without a name renders in LibreOffice's serif default
STYLE_NAMES = ("text", "title", "subtitle", "header", "section", "label", "unit", "note", "input", "constant",
               "calc", "figure", "total", "check", "wrapped_label", "wrapped_note",
               "wrapped_section", "mechanism")


def font(**kw) -> Font:
    from openpyxl.styles import Font

    return Font(name=FONT, size=kw.pop("size", 11), **kw)


@cache
def cell_styles() -> dict[str, dict[str, Any]]:
    """Each cell style's openpyxl attributes (font, fill, alignment, border), by the names in STYLE_NAMES."""
    from openpyxl.styles import Alignment, Border, PatternFill, Side

    thin = Side(style="thin", color="808080")
    return {
        "text": {"font": font()},
        "title": {"font": font(bold=True, size=14)},
        "subtitle": {"font": font(italic=True, color="595959")},
        "header": {"font": font(bold=True), "fill": PatternFill("solid", fgColor=HEADER_FILL),
                   "alignment": Alignment(horizontal="center", wrap_text=True)},
        "section": {"font": font(bold=True, color="1F3864")},
        "label": {"font": font()},
        "unit": {"font": font(color="595959")},
        "note": {"font": font(italic=True, color="595959"), "alignment": Alignment(wrap_text=False)},
        "input": {"font": font(color=BLUE), "fill": PatternFill("solid", fgColor=INPUT_FILL)},
        "constant": {"font": font(color="000000")},
        "calc": {"font": font()},
        "figure": {"font": font(bold=True)},
        "total": {"font": font(bold=True), "border": Border(top=thin, bottom=Side(style="double", color="808080"))},
        "check": {"alignment": Alignment(horizontal="center")},
        # Inputs' labels and sources: wrapped in their column, never cut off on screen or paper
        "wrapped_label": {"font": font(), "alignment": Alignment(wrap_text=True)},
        "wrapped_note": {"font": font(italic=True, color="595959"), "alignment": Alignment(wrap_text=True)},
        "wrapped_section": {"font": font(bold=True, color="1F3864"), "alignment": Alignment(wrap_text=True)},
        # mechanism, not a figure (the market-number row the CHOOSEs read): small and grey, out of the way
        "mechanism": {"font": font(italic=True, color="A6A6A6", size=8)},
    }


SYMBOLS = formats.SYMBOLS
money = formats.money  # locale-pinned currency formats (`sheetkit/formats.py`): never a built-in locale id
axis_money = formats.axis_money
signed_axis_money = formats.signed_axis_money


PRICE_DIGITS = "#,##0.00##"  # a price's digits (also the live market labels', `market_labels`)
PRICE_DECIMALS = 4  # the decimals PRICE_DIGITS shows at most (`k_price_digits`, which a live label rounds to)


def price(currency: str) -> str:
    """A price per unit: always its cents, and up to two digits more where typed (`$3.00`, `$0.023`)."""
    return formats.price(currency, PRICE_DIGITS)


HOURS = "#,##0"
COUNT = "#,##0.0#"       # a count: 300.0, 2.2 runs, 0.75 months; not "#,##0.##" (Excel shows "300.") nor General
# (LibreOffice gives a General formula cell the format of the cells it reads, and saves that)
SHARE = "0.0%"
SHARE_OR_DASH = '0.0%;-0.0%;"-"'  # a share where 0 means none (a break-even never reached, a column it is not for)
PERCENT = "0.0%"
MULTIPLIER = '0.00"x"'
GB = '#,##0" GB"'
VOLUME_GB = '[>=1000000]#,##0.0,," PB";[>=1000]#,##0.0," TB";#,##0" GB"'
BIG = "0.00E+00"
NUMBER = "#,##0.####"
WHOLE = "#,##0"            # a count typed whole
DECIMALS = "#,##0.0#"      # a count with a fraction (0.75 months): never a bare trailing `.`


def count_of(values: list[float]) -> str:
    """A count row's format from the values it can take: WHOLE when all are whole (600 saves, 2 days, not
    "600.0"), else COUNT (2.25 runs). Chosen when the book is written, as an input's own format is."""
    return WHOLE if values and all(float(v).is_integer() for v in values) else COUNT
FRACTION = "#,##0.0###"    # a constant with a fraction (30.4375 days a month)
# a big count in a readable scale: 7.0 B parameters, 5.0 T tokens (two conditions: Excel's most)
SCALED = '[>=1000000000000]#,##0.0,,,," T";[>=1000000000]#,##0.0,,," B";#,##0'


def input_format(unit: str, currency: str, value: float) -> str:
    """A number format for an input from its unit (see plan.py's `num(..., unit=...)`)."""
    if unit.startswith("money"):
        return money(currency, 2 if abs(value) < 1000 and value != int(value) else 0) if abs(value) >= 1 \
            else money(currency, 3)
    if unit in ("share", "share of compute", "share of peak"):
        return SHARE
    if unit == "x ideal hours":
        return MULTIPLIER
    if unit in ("parameters", "tokens", "FLOP") and abs(value) >= 1e6:
        return BIG
    if unit == "GB":
        return GB
    if abs(value) >= 1e9:
        return BIG
    return NUMBER
