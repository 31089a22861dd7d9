"""Definitions, not assumptions: the reference rules use them as numbers, the workbook as named constants.

The workbook writes each on the Inputs sheet under its defined name, so no
formula carries a bare number (FAST standard).
"""

from __future__ import annotations

from ..plan.timing import DAYS_PER_MONTH, SETUP_MONTHS
from ..sheetkit.price_text import THOUSAND
from ..sheetkit.price_text import UNITS as PRICE_UNITS
from ..sheetkit.style import PRICE_DECIMALS

SECONDS_PER_HOUR = 3600
HOURS_PER_DAY = 24
FLOP_PER_TFLOP = 1e12
BYTES_PER_GB = 1e9
TOKENS_PER_MILLION = 1e6
KV_TENSORS = 2  # a key and a value per layer, per KV head
NONE = 0
HOURS_PER_MONTH = HOURS_PER_DAY * DAYS_PER_MONTH
MONTHS_PER_YEAR = 12
GPUS_PER_SERVER = 8         # an HGX/DGX server holds 8 GPUs: a server's price / 8
WATTS_PER_KW = 1000
CHECK_TOLERANCE = 1e-9
EXACT_MATCH = 0
PRICE_DIGITS = PRICE_DECIMALS  # the decimals of the Inputs price format (`sheetkit.style.PRICE_DIGITS`, "#,##0.00##")
# a live label's digits from whole numbers (`sheetkit/price_text.py`): the same in every locale
CENTS, TEN, WHOLE_DIGITS = 100, 10, 0
HALF_INTERVAL = 0.5  # an interruption loses, on average, half a checkpoint interval of work (saves evenly spaced)
ONE = 1  # the whole of the paid hours: goodput = ONE - the share lost
EXPERIMENT_BUDGET = 10_000  # seed 000 counts experiments a budget buys: "you run twelve of them instead of five"

# (defined name, label, value, unit, source)
CONSTANTS = (
    ("k_hours_per_day", "Hours per day", HOURS_PER_DAY, "hours", "definition"),
    ("k_seconds_per_hour", "Seconds per hour", SECONDS_PER_HOUR, "seconds", "definition"),
    ("k_flop_per_tflop", "FLOP per TFLOP", FLOP_PER_TFLOP, "FLOP", "SI prefix tera = 1e12"),
    ("k_bytes_per_gb", "Bytes per GB", BYTES_PER_GB, "bytes", "decimal gigabyte, SI giga = 1e9"),
    ("k_tokens_per_million", "Tokens per million", TOKENS_PER_MILLION, "tokens", "definition"),
    ("k_kv_tensors", "KV-cache tensors per layer (a key and a value)", KV_TENSORS, "tensors",
     "attention caches one key and one value per KV head per token"),
    ("k_days_per_month", "Days per month (average)", DAYS_PER_MONTH, "days", "365.25 days / 12"),
    ("k_hours_per_month", "Hours per month (average)", HOURS_PER_MONTH, "hours", "24 x 365.25 / 12"),
    ("k_setup_months", "Months at the plan's start that take set-up costs", SETUP_MONTHS, "months",
     "a market's extra engineering days and the further items fall in the plan's first month"),
    ("k_none", "Nothing (a line with no entries)", NONE, "", "used where a plan has no entries for a line"),
    ("k_tolerance", "Check tolerance (relative)", CHECK_TOLERANCE, "share", "sums may differ by rounding only"),
    ("k_exact_match", "Exact match (MATCH's match type)", EXACT_MATCH, "", "MATCH(value, range, 0) finds the "
     "value itself, not the nearest"),
    ("k_price_digits", "Decimals a live market label shows a price to", PRICE_DIGITS, "digits",
     "a price's cents and up to two digits more, as the Inputs sheet shows a price"),
    ("k_price_units", "A currency unit in a live label's smallest digit", PRICE_UNITS, "", "10^k_price_digits"),
    ("k_thousand", "A thousand (a live label puts a comma before each three digits)", THOUSAND, "", "definition"),
    ("k_cents", "Cents per currency unit", CENTS, "", "definition"),
    ("k_ten", "Ten (one decimal digit)", TEN, "", "definition"),
    ("k_whole_digits", "Decimals of a whole number (ROUND's digits)", WHOLE_DIGITS, "digits", "definition"),
    ("k_half_interval", "Share of a checkpoint interval an interruption loses (on average)", HALF_INTERVAL,
     "share", "interruptions fall uniformly between evenly spaced saves: half an interval is redone on average"),
    ("k_one", "All of the paid hours", ONE, "share", "definition: goodput = 1 - the share lost"),
    ("k_experiment_budget", "Budget experiments are counted per", EXPERIMENT_BUDGET, "currency",
     "seed 000: experiments a budget buys (\"twelve of them instead of five\")"),
    ("k_months_per_year", "Months per year", MONTHS_PER_YEAR, "months", "definition"),
    ("k_gpus_per_server", "GPUs per 8-GPU server", GPUS_PER_SERVER, "GPUs",
     "an HGX/DGX server holds 8 GPUs (NVIDIA DGX H100 datasheet)"),
    ("k_watts_per_kw", "Watts per kilowatt", WATTS_PER_KW, "watts", "SI prefix kilo = 1e3"),
)
