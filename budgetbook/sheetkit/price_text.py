"""A price as a live market label shows it, built from whole numbers and `&`: the same text in every locale.

`TEXT(x, "#,##0.00##")` reads its format code in the reader's locale: LibreOffice in de-DE shows
$2 as "00.02" (`.` is its thousands separator there), and HyperFormula's TEXT differs again. A
whole number joined to text (`2&""`) is "2" in every engine and every locale, so the label's digits
are made from whole numbers only:

    units  = ROUND(ROUND(price, k_price_digits) * k_price_units, k_whole_digits)   ten-thousandths
    whole  = INT(units / k_price_units)     its thousands joined with "," (1,234)
    cents  = INT(MOD(units, k_price_units) / k_cents), always two digits
    extra  = MOD(units, k_cents): one or two digits more where they are not zero

which is the Inputs sheet's price format (`style.PRICE_DIGITS`, "#,##0.00##"): "2.00", "0.023",
"1,234.50". ROUND to the format's decimals first, as before: at a half-way fifth decimal each engine
rounds its own way, and after it all agree. `shown` is the same rule in Python (`extract` writes an
edited price back into the plan's label as the header reads it).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from .style import PRICE_DECIMALS as PRICE_DIGITS

THOUSAND = 1000
UNITS = 10 ** PRICE_DIGITS  # a currency unit in a label's smallest digit (`k_price_units`)

GROUPS = 1  # thousands separators a label shows: every price per unit below 1,000,000 (above: "1234,567.00")


def _pad(number: str, below: tuple[str, ...]) -> str:
    """`number` as text with leading zeros to len(below)+1 digits: `below` are the names it is compared with."""
    zeros = "".join(f'IF({number}<{name},"0","")&' for name in below)
    return f"{zeros}{number}"


def _whole(whole: str, groups: int = GROUPS) -> str:
    """The whole units with a "," every three digits (`groups` of them at most: up to 999,999,999)."""
    if not groups:
        return f'{whole}&""'
    group = _pad(f"MOD({whole},k_thousand)", ("k_cents", "k_ten"))
    head = _whole(f"INT({whole}/k_thousand)", groups - 1)
    return f'IF({whole}<k_thousand,{whole}&"",{head}&","&{group})'


def price_text(price: str) -> str:
    """The formula text (no `=`) showing `price` (a name or reference) to the price format's digits."""
    units = f"ROUND(ROUND({price},k_price_digits)*k_price_units,k_whole_digits)"
    fraction = f"MOD({units},k_price_units)"
    cents = _pad(f"INT({fraction}/k_cents)", ("k_ten",))
    extra = f"MOD({units},k_cents)"
    one_more = f'INT({extra}/k_ten)&""'  # a tenth of a cent: its one digit
    more = f'IF({extra}=k_whole_digits,"",IF(MOD({extra},k_ten)=k_whole_digits,{one_more},{_pad(extra, ("k_ten",))}))'
    return f'{_whole(f"INT({units}/k_price_units)")}&"."&{cents}&{more}'


def shown(price: float) -> str:
    """`price` as `price_text` shows it (its ROUND half up, as `formulas` rounds): 2 -> "2.00"."""
    scaled = Decimal(abs(price) * UNITS).quantize(Decimal(0), rounding=ROUND_HALF_UP)
    whole, fraction = divmod(int(scaled), UNITS)
    digits = f"{fraction:0{PRICE_DIGITS}d}"
    return f"{_grouped(whole, GROUPS)}.{digits[:2]}{digits[2:].rstrip('0')}"


def _grouped(whole: int, groups: int) -> str:
    """As `_whole` joins the digits: a "," before each of the last `groups` groups of three."""
    if not groups or whole < THOUSAND:
        return str(whole)
    return f"{_grouped(whole // THOUSAND, groups - 1)},{whole % THOUSAND:03d}"
