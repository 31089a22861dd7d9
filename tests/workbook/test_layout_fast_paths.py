"""The layout's fast paths answer as the slow ones they stand in for.

`sheetkit.rows` asks whether a row's column texts are one formula in R1C1 (FAST). For texts of plain
operands (names, addresses, perhaps on a quoted sheet, joined by `,` or `+`) it answers without
openpyxl, so loading a plan (every command) does not load it; these tests hold that answer to the
tokenizer's (`xlsx.r1c1`) on drawn texts, including names that look like addresses (`m0`, `abc12x`).
`sheetkit.grid` checks a defined name with one pattern, then with its three rules where it fails (to
say which): the one accepts exactly what the three accept.
(benchmarks/bench_layout.py digests whole layouts, to compare two checkouts cell by cell.)
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from budgetbook.sheetkit.grid import _CELL_LIKE, _ESCAPE_LIKE, _GOOD_NAME, _NAME
from budgetbook.sheetkit.rows import _PLAIN, _one_shape, _plain_r1c1
from budgetbook.xlsx.r1c1 import r1c1

_letters = st.text("ABCXYZabcmxz", min_size=1, max_size=4)
_address = st.builds(lambda a, n: f"{a}{n}", _letters, st.integers(0, 1_100_000))
_name = st.builds(lambda head, tail: head + tail, st.sampled_from(["mkt_", "cmp_", "_", "x", "m", "TRUE", "inf"]),
                  st.text("abz_019.", max_size=8))
_sheet = st.sampled_from(["", "'Compute'!", "'Storage & egress'!", "'A b.c'!"])
_operand = st.builds(lambda sheet, body: sheet + body, _sheet, st.one_of(_address, _name))
_text = st.builds(lambda first, rest: first + "".join(sep + op for sep, op in rest),
                  _operand, st.lists(st.tuples(st.sampled_from([",", "+"]), _operand), max_size=5))


@given(_text, st.integers(1, 2000), st.integers(1, 40))
def test_plain_texts_read_as_the_tokenizer_reads_them(text, row, col):
    assert _PLAIN.fullmatch(text)
    assert _plain_r1c1(text, row, col) == r1c1(f"=F({text})", row, col)


@given(st.lists(_text, min_size=2, max_size=4), st.integers(1, 2000))
def test_one_shape_as_before(texts, row):
    cols = list(range(3, 3 + len(texts)))
    assert _one_shape(texts, row, cols) == (len({r1c1(f"=F({t})", row, c) for t, c in zip(texts, cols)}) <= 1)


def test_other_texts_are_not_plain():
    for text in ("$C$5", "C5:C9", "SUM(C5,C6)", "C5*2", "'It''s'!C5", '"text"', "1.5", "a b", "#REF!", "1E+5"):
        assert not _PLAIN.fullmatch(text), text


def test_columns_of_one_row_are_one_shape():
    assert _one_shape(["C15,C52", "D15,D52", "E15,E52"], 9, [3, 4, 5])
    assert _one_shape(["'Compute'!C933", "'Compute'!D933"], 9, [3, 4])
    assert not _one_shape(["mkt_m0_price", "mkt_m1_price"], 9, [3, 4])
    assert not _one_shape(["C15", "C15"][:1] + ["C15"], 9, [3, 4])


_name_text = st.one_of(st.text("Rrc019_xAF", max_size=9), st.text(max_size=6),
                       st.builds(lambda a, b: f"{a}_x{b}_", st.text("ab_", max_size=3), st.text("0aF9g", min_size=4,
                                                                                               max_size=4)),
                       st.builds(lambda a: a + "\n", st.text("abc1", min_size=1, max_size=4)))


@given(_name_text)
def test_one_name_pattern_is_the_three_rules(name):
    three = bool(_NAME.match(name)) and not _CELL_LIKE.match(name) and not _ESCAPE_LIKE.search(name)
    assert bool(_GOOD_NAME.match(name)) == three


def test_names_the_rules_refuse():
    for name in ("A1", "XFD1048576", "R", "rc", "R1C1", "C12", "c", "_x0041_a", "a_x00Ff_", "1a", "a b", "", "a" * 256):
        assert not _GOOD_NAME.match(name), name
    for name in ("mkt_aws_price", "cmp_w0_mfu_m1", "XFDA1", "_x004", "k_none", "a" * 255):
        assert _GOOD_NAME.match(name), name
