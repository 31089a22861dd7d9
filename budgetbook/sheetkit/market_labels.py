"""How a market's label reads in the workbook: as written, or live where it cites the market's own price.

A label is plan text, and it heads every calculation sheet's market column, Summary's decision
block and chart. Labels cite prices ("H800 rental at $2/GPU-hour"); written as text, that header
goes stale the moment finance types $3 into the price input. So, per market:

- an amount the label cites (a number beside a currency: `$2`, `$2.00`, `2 USD`, `USD 2`, `€1.80`)
  that equals the base value of one of the market's own priced inputs (its GPU-hour prices, storage
  per GB-month, egress per GB) becomes that input's *used* value, spliced into the text with the
  workbook's price digits. The label is then one formula, in one cell on Inputs at the top of the
  market's section (`mkt_<market>_label`), and every header that shows it links to that cell
  (`hdr_<sheet>_<market>`): one formula per market, following edits and the
  scenario switch;
- an amount matching none of them stays text, and `physics.sanity` warns that the label states a price
  the plan does not use (`stray_amounts`);
- a label citing no amount is written as text, exactly as before (no label cell, no header formulas).

The number is matched as typed in the label against the input's base value (what the plan says);
the first matching input, in plan order, wins. Scaled amounts (`$5.6M`, `$2k`) are never spliced:
a market's prices are per-unit prices, so such an amount is a total the label quotes, and warned of.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache

from ..plan.inputs import InputCell
from ..plan.model import Market, Plan
from . import style as st
from .grid import Blueprint, LinkedText, Sheet
from .input_labels import is_price
from .price_text import price_text, shown
from .scenario import used_name

_CODES = sorted(set(st.SYMBOLS) | {"USD", "EUR", "GBP", "CHF", "JPY", "CNY", "INR", "CAD", "AUD"})
_SYMBOL_CLASS = "[" + re.escape("".join(sorted(set(st.SYMBOLS.values())))) + "]"


def _number(tag: str) -> str:
    """A number, `1,234.50` or `2`, and a scale right after it (`$5.6M`); its group names end in `tag`."""
    return (rf"(?P<num{tag}>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)"
            rf"(?P<scale{tag}>(?:bn|[kKmMbB])(?![A-Za-z]))?")


@cache
def _amount(currency: str) -> re.Pattern[str]:
    """A number beside a currency: `$2`, `$ 2.50`, `USD 2` (before), `2 USD`, `2€` (after)."""
    codes = "|".join(sorted(set(_CODES) | {currency}, key=len, reverse=True))
    before = rf"(?:{_SYMBOL_CLASS}|\b(?:{codes})\b)\s?{_number('b')}"
    after = rf"(?<![\w.,]){_number('a')}\s?(?:{_SYMBOL_CLASS}|(?:{codes})\b)"
    return re.compile(f"{before}|{after}")


_SCALES = {"k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "b": 1e9, "B": 1e9, "bn": 1e9}
# Excel and LibreOffice decode `_x0041_` in stored text, formulas included: such a label stays text
_ESCAPE_LIKE = re.compile(r"_x[0-9A-Fa-f]{4}_")
LITERAL_MAX = 255  # Excel's longest string constant inside a formula

# The price digits of the Inputs format (`style.PRICE_DIGITS`: cents, up to two digits more), made from
# whole numbers in a cell beside the price (`price_text`: TEXT reads its format in the reader's locale)
DECIMALS = st.PRICE_DECIMALS  # `k_price_digits`, the named constant the formula rounds to: the format's decimals
SHOWN_COL = 13  # on Inputs, beside the used value: the price as a label shows it (technical, off the page)
SHOWN_HEADER = "As a label shows it"


def shown_name(cell: InputCell) -> str:
    return f"{cell.name}_shown"


LABEL_ROW_TITLE = "Label in every sheet's headers (follows the price it cites)"
SECTION = '="Market: "&{label}'


@dataclass(frozen=True)
class Cited:
    """An amount a label cites: where its digits are in the label, as typed, and its value."""

    start: int
    end: int
    typed: str      # the amount with its currency, as written (`$2`)
    value: float
    scaled: bool    # `$5.6M`: never a per-unit price


@dataclass(frozen=True)
class Splice:
    """A cited amount that is one of the market's priced inputs: its digits become that input's used value."""

    cited: Cited
    cell: InputCell


@dataclass(frozen=True)
class MarketLabel:
    """How one market's label reads: `splices` empty means plain text; `stray` amounts match no price."""

    index: int
    market: Market
    splices: tuple[Splice, ...]
    stray: tuple[Cited, ...]

    @property
    def live(self) -> bool:
        return bool(self.splices)


def cited_amounts(label: str, currency: str) -> list[Cited]:
    """Every amount `label` cites beside a currency symbol or code, in order."""
    found = []
    for match in _amount(currency).finditer(label):
        tag = "b" if match.group("numb") else "a"
        scale = match.group("scale" + tag)
        value = float(match.group("num" + tag).replace(",", "")) * _SCALES.get(scale or "", 1.0)
        found.append(Cited(match.start("num" + tag), match.end("num" + tag), match.group().strip(), value,
                           bool(scale)))
    return found


def priced_inputs(index: int, cells: list[InputCell]) -> list[InputCell]:
    """The market's own priced inputs, in plan order (a hybrid has none: it pays other markets' prices)."""
    return [cell for cell in cells if cell.path[:2] == ("markets", index) and is_price(cell)]


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def market_labels(plan: Plan, cells: list[InputCell]) -> list[MarketLabel]:
    """Each market's label decision, in plan order."""
    out = []
    for index, market in enumerate(plan.markets):
        splices, stray = [], []
        prices = priced_inputs(index, cells)
        for cited in cited_amounts(market.label, plan.currency):
            cell = None if cited.scaled else next((c for c in prices if _same(c.num.base, cited.value)), None)
            if cell is None:
                stray.append(cited)
            else:
                splices.append(Splice(cited, cell))
        if _ESCAPE_LIKE.search(market.label):
            splices = []
        out.append(MarketLabel(index, market, tuple(splices), tuple(stray)))
    return out


def _literal(text: str) -> list[str]:
    """`text` as formula string constants, each within Excel's 255 characters, quotes doubled."""
    return ['"' + text[i:i + LITERAL_MAX].replace('"', '""') + '"' for i in range(0, len(text), LITERAL_MAX)]


def label_formula(label: MarketLabel) -> str:
    """`="H800 rental at $"&mkt_h800_price_h800_shown&"/GPU-hour"`: the label, its prices live."""
    text, parts, at = label.market.label, [], 0
    for splice in label.splices:
        parts += _literal(text[at:splice.cited.start])
        parts.append(shown_name(splice.cell))
        at = splice.cited.end
    parts += _literal(text[at:])
    return "=" + "&".join(parts)


def label_text(label: MarketLabel, bases: dict[tuple, float]) -> str:
    """The label as its header reads at these base prices (`extract` writes edited prices back into it):
    an amount whose price is unchanged keeps its spelling (`$2`), a changed one reads as the header
    does (`$2.75`)."""
    text, parts, at = label.market.label, [], 0
    for splice in label.splices:
        base = bases.get(splice.cell.path, splice.cell.num.base)
        digits = None if base == splice.cell.num.base else shown(base)
        parts += [text[at:splice.cited.start], digits or text[splice.cited.start:splice.cited.end]]
        at = splice.cited.end
    return "".join(parts) + text[at:]


def label_name(market: Market) -> str:
    return f"mkt_{market.id}_label"


def write_label_row(book: Blueprint, sheet: Sheet, row: int, label: MarketLabel, value_col: int,
                    note_col: int) -> tuple[str, str]:
    """On Inputs, the market's first row: its section heading and its label, both live; returns the
    row's title and note (the caller sizes the row to them)."""
    book.formula(sheet, row, 1, SECTION.format(label=label_name(label.market)), f"mkt_{label.market.id}_section",
                 style="wrapped_section")
    sheet.put(row, 2, LABEL_ROW_TITLE, "wrapped_label", text=True)
    book.formula(sheet, row, value_col, label_formula(label), label_name(label.market), market=label.market.id)
    keys = ", ".join(splice.cell.key_path for splice in label.splices)
    note = (f"The plan's label, its price live: {keys}, as the scenario uses it. Every sheet's market header "
            "shows this cell.")
    sheet.put(row, note_col, note, "wrapped_note", text=True)
    return LABEL_ROW_TITLE, note


def write_shown(book: Blueprint, sheet: Sheet, row: int, cell: InputCell) -> None:
    """On Inputs, beside a price a live label cites: the price as the label shows it ("2.00")."""
    book.formula(sheet, row, SHOWN_COL, "=" + price_text(used_name(cell)), shown_name(cell))


def write_header(book: Blueprint, sheet: Sheet, row: int, col: int, market: Market, text: str,
                 style: str = "header", name: str = "", column: Market | None = None) -> None:
    """A cell showing `market`'s label: a link to its live label where it has one (named `name`, by
    default `hdr_<sheet>_<market>`), else `text`. `column`: the market whose column holds the cell."""
    live = label_name(market)
    if live not in book.specs:
        sheet.put(row, col, text, style, text=True)
        return
    name = name or book.per_sheet_name("hdr", sheet, market.id)
    book.formula(sheet, row, col, f"={live}", name, style=style, market=(column or market).id)


def series_title(book: Blueprint, market: Market) -> str | LinkedText:
    """A chart series' title for `market`: read from its live label's cell, else its label as text."""
    live = label_name(market)
    return LinkedText(book.absolute(live), market.label) if live in book.specs else market.label or market.id
