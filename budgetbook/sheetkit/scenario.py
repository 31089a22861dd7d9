"""The live `scenario` switch on Inputs: one drop-down (best, base, worst) that moves the whole workbook.

Each ranged input keeps its three typed inputs (value = base, low, high) and gains a *used* value
beside them, a formula choosing one of the three by the scenario:

    =IF(scenario_best, <cheap end>, IF(scenario_worst, <dear end>, <base>))

where the ends are MIN and MAX of the three typed cells, so a value typed outside its Low-High widens
the range the switch uses, as `check` and `extract` read it (`review/widen.py`).

The cheap end is declared per input kind (`lowers_cost` on the plan key's bounds, `plan/numbers.py`):
for MFU and throughput it is the high end, for everything else the low end; so `best` is the
reference model's `low` scenario and `worst` its `high` (`Num.at`). Every calculation reads the used
value (`Inputs.by_path` in `names.py` hands out its name), so the typed inputs stay plain numbers and
`check` and `extract` read them as before.
"""

from __future__ import annotations

from ..plan.inputs import InputCell
from .grid import Blueprint, Sheet, a1

NAME = "scenario"
CHOICES = ("best", "base", "worst")
PLAN_SCENARIO = {"best": "low", "base": "base", "worst": "high"}  # the reference model's name for each
DEFAULT = "base"
ROW = 3                 # above the header row, so the choice stays in sight (the sheet freezes rows 1-4)
VALUE_COL = 3
BEST_COL, WORST_COL = 9, 10  # technical columns, off the printed page (Inputs prints A-G)
USED_COL = 12
USED_HEADER = "Used (scenario)"
USED = "=IF(scenario_best,{best},IF(scenario_worst,{worst},{base}))"
# the cheap and dear ends of the range covering all three typed cells: a value typed below its Low (a better
# quote) is a fair edit that widens the range, as `check` and `extract` read it (`review/widen.py`)
SPAN = "{fn}({low},{base},{high})"


def used_name(cell: InputCell) -> str:
    """The defined name of the value the calculations read: the used value of a range, else the input."""
    return f"{cell.name}_used" if cell.num.ranged else cell.name


def add_scenario(book: Blueprint, sheet: Sheet, header_row: int) -> None:
    """The scenario input (a drop-down) and its two flags, in the row above the header."""
    sheet.put(ROW, 1, "Scenario", "section")
    sheet.put(ROW, 2, "Which end of every range the workbook uses", "label")
    sheet.put(ROW, VALUE_COL, DEFAULT, "input", text=True)
    book.name(NAME, sheet, ROW, VALUE_COL, "input")
    sheet.put(ROW, 4, " / ".join(CHOICES), "unit")
    at = a1(ROW, VALUE_COL)
    for col, choice, name in ((BEST_COL, "best", "scenario_best"), (WORST_COL, "worst", "scenario_worst")):
        book.formula(sheet, ROW, col, f'={NAME}="{choice}"', name)
    sheet.put(ROW, 7, "best: each range at the end that lowers the total (high MFU, low waste and prices); "
                      f"worst: the other end; base: the values. Column {_letter(USED_COL)} holds the value used.",
              "wrapped_note")
    sheet.heights[ROW] = 45.0  # three lines of the note, which wraps inside the printed columns
    sheet.put(header_row, USED_COL, USED_HEADER, "header")
    sheet.validations.append((at, {"type": "list", "formula1": '"' + ",".join(CHOICES) + '"',
                                   "message": "Scenario: best, base or worst"}))
    sheet.widths.setdefault(USED_COL, 14)


def add_used(book: Blueprint, sheet: Sheet, row: int, cell: InputCell, fmt: str | None) -> None:
    """A ranged input's used value: the scenario's end of its range."""
    ends = {"low": f"{cell.name}_low", "base": cell.name, "high": f"{cell.name}_high"}
    least, most = SPAN.format(fn="MIN", **ends), SPAN.format(fn="MAX", **ends)
    best, worst = (most, least) if cell.num.lowers_cost else (least, most)
    book.formula(sheet, row, USED_COL, USED.format(best=best, worst=worst, base=cell.name), used_name(cell),
                 fmt=fmt)


def _letter(col: int) -> str:
    return "ABCDEFGHIJKLMNOP"[col - 1]
