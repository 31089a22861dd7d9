"""Currency number formats that read the same in every locale (issue 25, item 1).

ECMA-376 leaves the built-in format ids 5-8 (`"$"#,##0_);("$"#,##0)` and its kin) to the reader's
locale, and openpyxl writes exactly those ids, without a `<numFmt>`, for the plain `"$"` formats: in
LibreOffice set to en-GB every whole-dollar cell then shows `£835,087`, in de-DE `49.275.779 €`. A
currency given with a locale tag (`[$$-409]`: the dollar of en-US) is a custom format, written with
its own `<numFmt>`, and every reader shows that symbol whatever its own locale; the digits' separators
stay the reader's (`$1.234.568` in de-DE), as they should.

The tag of each symbol is a locale whose currency that symbol is and whose symbol leads (en-IE for
the euro: `€1,234`, as an English-reading finance team writes it). A currency with no symbol here
is written as its code, `"CHF "`, a quoted literal, which no reader re-reads.

Zero shows as a dash (FAST), the `_)` keeping it in line with the figures above and below.
"""

from __future__ import annotations

# symbol, and the Windows locale id (LCID, hex) of a locale whose currency it is and where it leads
PINNED = {"USD": ("$", "409"), "EUR": ("€", "1809"), "GBP": ("£", "809"), "JPY": ("¥", "411"),
          "CNY": ("¥", "804"), "INR": ("₹", "4009")}
SYMBOLS = {code: symbol for code, (symbol, _) in PINNED.items()}
ZERO = '"-"_)'  # a zero as a dash, aligned as the positives are (`_)`)

# built-in ids that mean the same in every reader: General, 0, 0.00, #,##0, #,##0.00, 0%, 0.00%, 0.00E+00,
# the two fractions and @ (text); every other built-in id is the reader's locale's (ECMA-376 18.8.30)
LOCALE_FREE_BUILTINS = frozenset({0, 1, 2, 3, 4, 9, 10, 11, 12, 13, 49})


def prefix(currency: str) -> str:
    """The currency as a format writes it before the digits: `[$$-409]`, or `"CHF "`."""
    if currency in PINNED:
        symbol, lcid = PINNED[currency]
        return f"[${symbol}-{lcid}]"
    return f'"{currency} "'


def money(currency: str, decimals: int = 0) -> str:
    """Money, negatives in brackets, zero a dash: `[$$-409]#,##0_);([$$-409]#,##0);"-"_)`."""
    digits = "#,##0" + ("." + "0" * decimals if decimals else "")
    lead = prefix(currency)
    return f"{lead}{digits}_);({lead}{digits});{ZERO}"


def price(currency: str, digits: str) -> str:
    """A price per unit to `digits` (`#,##0.00##`), zero shown as a zero price (a free market is $0.00)."""
    lead = prefix(currency)
    return f"{lead}{digits}_);({lead}{digits})"


def axis_money(currency: str) -> str:
    """A chart axis in currency, scaled: $250K, $1.5M (two conditions, Excel's most)."""
    lead = prefix(currency)
    return f'[>=1000000]{lead}#,##0.0,,"M";[>=1000]{lead}#,##0,"K";{lead}#,##0'


def signed_axis_money(currency: str) -> str:
    """A chart axis in currency that crosses zero (the tornado's swings): -$60,000 ... $60,000."""
    lead = prefix(currency)
    return f"{lead}#,##0;-{lead}#,##0;{lead}0"
