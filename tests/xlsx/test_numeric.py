"""The numeric engine gives exactly what `formulas` gives, wherever it answers, on random formulas and values."""

from __future__ import annotations

import math

import formulas
import numpy as np
import pytest
import schedula as sh
from formulas.cell import format_output
from formulas.functions import replace_empty
from formulas.ranges import Ranges
from formulas.tokens.operand import Error
from hypothesis import given, settings
from hypothesis import strategies as st

from budgetbook.sheetkit.price_text import price_text, shown
from budgetbook.xlsx.numeric import compile_numeric
from budgetbook.xlsx.values import plain

VALUES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.sampled_from([0, 0.0, -0.0, 1, 2, 3, -1, 0.1, 0.2, 1e308, -1e308, 5e-324, 1e15, 7]),
    st.integers(-10**6, 10**6),
    st.booleans(),
    st.sampled_from(["text", "3", "", sh.EMPTY, Error.errors["#DIV/0!"], Error.errors["#N/A"]]),
)
LEAVES = st.one_of(
    st.sampled_from(["PH0!A1", "PH1!A1", "PH2!A1", "PH3!A1", "PH4!A1"]),
    st.sampled_from(["0", "1", "2", "0.5", "100", "1E+3", "1E-05", "TRUE", "FALSE", '"at $"', '"say ""hi"""', '""']),
)


def _formula(children):
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "=", "<>", "<", ">", "<=", ">=", "^", "&"]),
                       children).map(lambda t: f"{t[0]}{t[1]}{t[2]}")
    unary = st.one_of(children.map(lambda x: f"-{x}"), children.map(lambda x: f"{x}%"),
                      children.map(lambda x: f"({x})"), children.map(lambda x: f"+{x}"))
    calls = st.one_of(
        st.lists(children, min_size=1, max_size=10).map(lambda a: f"SUM({','.join(a)})"),
        st.lists(children, min_size=1, max_size=4).map(lambda a: f"AND({','.join(a)})"),
        st.lists(children, min_size=1, max_size=4).map(lambda a: f"OR({','.join(a)})"),
        children.map(lambda x: f"ISNUMBER({x})"),
        children.map(lambda x: f"ABS({x})"),
        st.tuples(children, children, children).map(lambda t: f"IF({t[0]},{t[1]},{t[2]})"),
        st.tuples(children, children).map(lambda t: f"IF({t[0]},{t[1]})"),
        st.lists(children, min_size=1, max_size=4).map(lambda a: f"MAX({','.join(a)})"),
        st.lists(children, min_size=1, max_size=4).map(lambda a: f"MIN({','.join(a)})"),
        st.lists(children, min_size=2, max_size=5).map(lambda a: f"CHOOSE({','.join(a)})"),
        children.map(lambda x: f"ROUND({x},1)"),
        st.tuples(children, st.sampled_from([0, 2, 4, -1])).map(lambda t: f"ROUND({t[0]},{t[1]})"),
        children.map(lambda x: f"INT({x})"),
        st.tuples(children, children).map(lambda t: f"MOD({t[0]},{t[1]})"),
    )
    return st.one_of(binary, unary, calls)


FORMULAS = st.recursive(LEAVES, _formula, max_leaves=12).map(lambda f: "=" + f)
_CELL = Ranges.get_range("'S'!A1")


def by_formulas(text: str, values: list) -> object:
    """What fasteval's formulas path gives: the compiled shape, fed 1x1 ranges, filtered like a cell."""
    func = formulas.Parser().ast(text)[1].compile()
    args = []
    for key in func.inputs:
        index = int(key[2:key.index("!")])
        args.append(format_output(_CELL, [[values[index]]]))
    try:
        out = func(*args)
    except Exception:  # noqa: BLE001  a formula that raises has no value in ExcelModel either
        return "raised"
    return plain(format_output(_CELL, replace_empty(out)).value[0, 0])


def by_numeric(text: str, values: list):
    shape = compile_numeric(text)
    if shape is None:
        return None
    got, ok = shape.run({i: [v] for i, v in enumerate(values)}, 1)
    return ("ok", plain(got[0])) if ok[0] else None


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b and (not isinstance(a, float) or math.copysign(1, a) == math.copysign(1, b))


@settings(max_examples=600, deadline=None)
@given(FORMULAS, st.lists(VALUES, min_size=5, max_size=5))
def test_numeric_equals_formulas_wherever_it_answers(text, values):
    mine = by_numeric(text, values)
    if mine is None:
        return  # left to formulas
    want = by_formulas(text, values)
    assert same(mine[1], want), (text, values, mine[1], want)


@pytest.mark.parametrize("text, values, want", [
    ("=PH0!A1*PH1!A1", [3, 2.5], 7.5),
    ("=-PH0!A1^2", [3, 0], None),  # ^ is formulas' (0^0, negative bases)
    ("=PH0!A1/PH1!A1", [1, 0], None),  # #DIV/0! is formulas' answer
    ("=AND(ISNUMBER(PH0!A1),PH0!A1>=PH1!A1,PH0!A1<=PH2!A1)", [5, 1, 10], True),
    ("=IF(PH0!A1=PH1!A1,PH1!A1,PH2!A1/PH0!A1)", [2, 2, 8], 2),
    ("=PH0!A1", [7, 0], 7),
    ("=PH0!A1", ["text", 0], "text"),  # a header linking to a live market label
    ("=PH0!A1", ["", 0], None),
    ('="Market: "&PH0!A1', ["H800 at $2.00", 0], "Market: H800 at $2.00"),
    ('=TEXT(PH0!A1,"0.00")', [0.023, 0], None),  # TEXT reads its format in the reader's locale: not ours
    ('="at $"&INT(PH0!A1)&"."&MOD(PH1!A1,100)', [2.5, 25, 0], "at $2.25"),  # a live label's digits
    ('=PH0!A1&"x"', [2.0, 0], "2x"),  # a whole number joined: its digits
    ('=PH0!A1&"x"', [2.5, 0], None),  # a fraction joined: formulas' decimal point
    ('=PH0!A1&""', [-0.0, 0], "0"),
    ('=IF(PH0!A1<10,"0","")&PH0!A1', [7, 0], "07"),
    ('=IF(PH0!A1,"","x")', [1, 0], None),  # a cell's result "": formulas' empty
    ("=MOD(PH0!A1,PH1!A1)", [7, 0], None),  # #DIV/0!
    ("=INT(PH0!A1)", [-2.5, 0], -3),
    ("=ROUND(PH0!A1,4)", [2.00005, 0], 2.0001),
    ('=IF(PH0!A1,"a","b")', [True, 0], "a"),
    ("=SUM(PH0!A1,PH1!A1,PH2!A1)", [0.1, 0.2, 0.3], float(np.sum([0.1, 0.2, 0.3]))),
    ("=PH0!A1*2", [True, 0], None),
    ("=PH0!A1*10", [1e308, 0], None),
    ("=IF(PH0!A1>PH1!A1,MAX(PH1!A1,MIN(PH2!A1,PH3!A1+PH0!A1)-MAX(PH4!A1,PH3!A1))/PH0!A1,PH1!A1)",
     [2, 0, 5, 1, 0], 1.0),  # the Cash flow sheet's timing flag
    ("=MAX(PH0!A1,PH1!A1)", [0, 0.0], 0),  # overflows to inf: #NUM! is formulas' answer
    ("=PH0!A1*CHOOSE(PH1!A1,PH2!A1,PH3!A1,PH2!A1)", [10, 2, 1.5, 2.25], 22.5),  # a market's price by number
    ("=CHOOSE(PH0!A1,PH1!A1,PH2!A1)", [3, 1.5, 2.25], None),  # past the end: #VALUE! is formulas' answer
    ("=CHOOSE(PH0!A1,PH1!A1,PH2!A1)", [1.5, 1.5, 2.25], None),  # truncated index: formulas' rules
    ("=CHOOSE(PH0!A1,PH1!A1,PH2!A1)", [1, 4, "text"], 4),  # the choice not taken is never read
    ("=ROUND(PH0!A1,PH1!A1)", [2.00005, 4], 2.0001),  # digits by name (`k_price_digits`)
    ("=ROUND(PH0!A1,PH1!A1)", [2.00005, 3.5], None),  # a fraction of digits: formulas' int()
])
def test_worked_cases(text, values, want):
    got = by_numeric(text, values)
    if want is None:
        assert got is None
    else:
        assert got == ("ok", want) and same(got[1], by_formulas(text, values))


def test_ranges_skip_blanks_like_formulas():
    shape = compile_numeric("=AND(PH0!A1:A4)")
    column = [np.array([[True], [sh.EMPTY], [True], [1.0]], object)]
    got, ok = shape.run({0: column}, 1)
    assert ok[0] and got[0] is True or got[0] == np.True_
    shape = compile_numeric("=SUM(PH0!A1:A4)")
    got, ok = shape.run({0: [np.array([[0.1], [sh.EMPTY], [0.2], [0.3]], object)]}, 1)
    assert ok[0] and got[0] == np.sum([0.1, 0.2, 0.3])


def test_columns_of_cells_in_one_call():
    shape = compile_numeric("=PH0!A1*PH1!A1/(1-PH2!A1)")
    assert shape.elementwise
    got, ok = shape.run({0: [1.0, 2.0, "x"], 1: [3, 4, 5], 2: [0.5, 1, 0.25]}, 3)
    assert list(ok) == [True, False, False]  # 2*4/0 is #DIV/0!, "x" is formulas'
    assert got[0] == 6.0


@settings(max_examples=150, deadline=None)  # formulas compiles this long shape each time (~70 ms)
@given(st.one_of(st.floats(0, 1e9), st.sampled_from([0.0, 0.023, 0.02345, 2.00005, 999.99995, 9999.99995,
                                                     123456.78905, 999999.99995])))
def test_the_price_text_of_a_live_label_is_formulas_text(x):
    text = "=" + price_text("PH0!A1").replace("k_price_digits", "4").replace("k_price_units", "10000") \
        .replace("k_whole_digits", "0").replace("k_thousand", "1000").replace("k_cents", "100").replace("k_ten", "10")
    mine = by_numeric(text, [x])
    assert mine is not None and same(mine[1], by_formulas(text, [x])), (x, mine)
    assert mine[1] == shown(x)  # the Python rule `extract` writes into a label


CRITERIA = st.sampled_from(["mkt_a", "mkt_b", "MKT_A", "true", "e5", "a*", "<1", "1", "", 1, 2, 1.0, 0, True,
                            sh.EMPTY, Error.errors["#N/A"]])
CELLS = st.one_of(CRITERIA, st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from(["lots", "Mkt_A", "1.0"]))
_COLUMN = Ranges.get_range("'S'!A1:A4")


def _by_formulas_over_ranges(text: str, values: list) -> object:
    """`by_formulas`, a list of four values standing for a range of four cells (the SUMIF family's)."""
    func = formulas.Parser().ast(text)[1].compile()
    args = []
    for key in func.inputs:
        value = values[int(key[2:key.index("!")])]
        args.append(format_output(_COLUMN, np.array(value, object).reshape(-1, 1)) if isinstance(value, list)
                    else format_output(_CELL, [[value]]))
    try:
        out = func(*args)
    except Exception:  # noqa: BLE001  a formula that raises has no value in ExcelModel either
        return "raised"
    return plain(format_output(_CELL, replace_empty(out)).value[0, 0])


@settings(max_examples=400, deadline=None)
@given(st.lists(CELLS, min_size=4, max_size=4), st.lists(CELLS, min_size=4, max_size=4),
       st.lists(CELLS, min_size=4, max_size=4), CRITERIA, CRITERIA, st.booleans())
def test_sumif_and_sumifs_equal_formulas_wherever_computed(sums, tests, more, criterion, other, two):
    """The Adjustments table's sums (issue 31): SUMIF over a market column, SUMIFS by market and month."""
    if two:
        text, values = "=SUMIFS(PH0!A1:A4,PH1!A1:A4,PH2!A1,PH3!A1:A4,PH4!A1)", [sums, tests, criterion, more, other]
    else:
        text, values = "=SUMIF(PH0!A1:A4,PH1!A1,PH2!A1:A4)", [tests, criterion, sums]
    shape = compile_numeric(text)
    assert shape is not None and not shape.elementwise
    columns = {i: [np.array(v, object).reshape(-1, 1) if isinstance(v, list) else v] for i, v in enumerate(values)}
    got, ok = shape.run(columns, 1)
    if ok[0]:
        want = _by_formulas_over_ranges(text, values)
        assert same(plain(got[0]), want), (text, values, got[0], want)


def test_the_adjustments_tables_sums_are_computed_here():
    """A blank table, and one with a row of each market: numeric answers, as `formulas` does."""
    blank = [sh.EMPTY] * 4
    for tests, sums, want in [(blank, blank, 0.0), (["mkt_a", "mkt_b", sh.EMPTY, "Mkt_A"], [-5000, 7, sh.EMPTY, 0.5],
                                                    -4999.5)]:
        values = [tests, "mkt_a", sums]
        shape = compile_numeric("=SUMIF(PH0!A1:A4,PH1!A1,PH2!A1:A4)")
        got, ok = shape.run({i: [np.array(v, object).reshape(-1, 1) if isinstance(v, list) else v]
                             for i, v in enumerate(values)}, 1)
        assert ok[0] and got[0] == want == _by_formulas_over_ranges("=SUMIF(PH0!A1:A4,PH1!A1,PH2!A1:A4)", values)
    assert by_numeric("=MAX(PH0!A1,PH1!A1)", [sh.EMPTY, 1]) == ("ok", 1)  # a blank month: the first
