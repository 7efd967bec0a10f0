"""LineNumber / LineRange / ColumnNumber invariants (the LineRange ADR) and the
conversion to LSP positions in each encoding."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lsp_edit.positions import (
    ColumnNumber,
    LineNumber,
    LineRange,
    LineTail,
    LspPosition,
    Point,
    PositionEncoding,
    PositionError,
    from_lsp_character,
    lsp_to_point,
    parse_line_tail,
    point_to_lsp,
    tail_as_range,
    to_lsp_character,
)

UTF16, UTF8, UTF32 = PositionEncoding.UTF16, PositionEncoding.UTF8, PositionEncoding.UTF32


def test_line_number_one_is_the_first_line():
    line = LineNumber.try_create(1)
    assert line == LineNumber(1)
    assert isinstance(line, LineNumber) and line.index == 0


@pytest.mark.parametrize("bad", [0, -3])
def test_line_number_below_one_is_an_error_value_not_an_exception(bad):
    result = LineNumber.try_create(bad)
    assert isinstance(result, PositionError)
    assert str(bad) in result.message


@pytest.mark.parametrize("bad", [True, "3", 2.0, None])
def test_line_number_that_is_not_an_integer_is_an_error(bad):
    assert isinstance(LineNumber.try_create(bad), PositionError)


def test_line_number_constructor_enforces_the_invariant():
    with pytest.raises(ValueError):
        LineNumber(0)


def test_line_numbers_compare_by_value():
    assert LineNumber(2) < LineNumber(10)
    assert max(LineNumber(3), LineNumber(7)) == LineNumber(7)
    assert LineNumber.from_index(4) == LineNumber(5)


def test_column_number_is_one_based():
    assert isinstance(ColumnNumber.try_create(0), PositionError)
    column = ColumnNumber.try_create(1)
    assert isinstance(column, ColumnNumber) and column.index == 0
    assert ColumnNumber(2) < ColumnNumber(3)


def test_line_range_requires_start_not_after_end():
    result = LineRange.try_create(LineNumber(7), LineNumber(3))
    assert isinstance(result, PositionError)
    assert "before start" in result.message
    assert LineRange.try_create(LineNumber(3), LineNumber(3)) == LineRange(
        LineNumber(3), LineNumber(3)
    )


def test_line_range_of_plain_integers_validates_both():
    assert isinstance(LineRange.of(0, 4), PositionError)
    assert isinstance(LineRange.of(4, 2), PositionError)
    found = LineRange.of(2, 4)
    assert isinstance(found, LineRange) and found.count == 3
    assert LineNumber(3) in found and LineNumber(5) not in found
    assert str(found) == "lines 2-4" and str(LineRange.of(6, 6)) == "line 6"


def test_tail_with_one_number_is_one_line_same_as_n_to_n():
    tail = parse_line_tail("7")
    assert tail == LineTail(LineNumber(7), None)
    assert isinstance(tail, LineTail)
    assert tail_as_range(tail) == tail_as_range(LineTail(LineNumber(7), LineNumber(7)))


def test_tail_with_two_numbers_reads_start_and_end():
    assert parse_line_tail("3:7") == LineTail(LineNumber(3), LineNumber(7))


def test_inverted_tail_normalises_where_the_grammar_says_so():
    assert parse_line_tail("7:3", normalise_inverted=True) == LineTail(LineNumber(3), LineNumber(7))


def test_inverted_tail_is_an_error_by_default():
    result = parse_line_tail("7:3")
    assert isinstance(result, PositionError) and "after end line" in result.message


@pytest.mark.parametrize("bad", ["", "x", "3:", ":4", "0", "3:0", "1:2:3", "-1"])
def test_malformed_tails_are_errors(bad):
    assert isinstance(parse_line_tail(bad), PositionError)


# "a😀b": the emoji is one code point, two UTF-16 units, four UTF-8 bytes.
EMOJI_LINE = "a😀b"
# "é" written as e + combining acute: two code points, each one UTF-16 unit.
COMBINING_LINE = "cafe\u0301 ok"


@pytest.mark.parametrize(
    ("encoding", "expected"),
    [(UTF16, [0, 1, 3, 4]), (UTF8, [0, 1, 5, 6]), (UTF32, [0, 1, 2, 3])],
)
def test_astral_character_columns_in_each_encoding(encoding, expected):
    assert [to_lsp_character(EMOJI_LINE, i, encoding) for i in range(4)] == expected


@pytest.mark.parametrize("encoding", [UTF16, UTF8, UTF32])
def test_columns_round_trip_through_lsp(encoding):
    for line in (EMOJI_LINE, COMBINING_LINE, "plain ascii"):
        for index in range(len(line) + 1):
            assert (
                from_lsp_character(line, to_lsp_character(line, index, encoding), encoding) == index
            )


def test_combining_mark_counts_as_its_own_code_unit():
    assert to_lsp_character(COMBINING_LINE, 5, UTF16) == 5
    assert to_lsp_character(COMBINING_LINE, 5, UTF8) == 6  # U+0301 is two bytes


def test_lsp_character_inside_a_surrogate_pair_rounds_down_to_the_character():
    assert from_lsp_character(EMOJI_LINE, 2, UTF16) == 1


def test_lsp_character_past_the_end_clamps_to_the_line_end():
    assert from_lsp_character("abc", 99, UTF16) == 3


def test_points_convert_to_and_from_lsp_positions():
    lines = ["x = 1", EMOJI_LINE]
    assert point_to_lsp(lines, Point(1, 2), UTF16) == LspPosition(1, 3)
    assert lsp_to_point(lines, LspPosition(1, 3), UTF16) == Point(1, 2)
    assert point_to_lsp(lines, Point(5, 0), UTF16) == LspPosition(2, 0)
    assert lsp_to_point(lines, LspPosition(9, 4), UTF16) == Point(2, 0)


def test_encoding_negotiation_prefers_utf32_then_utf8_else_utf16():
    assert PositionEncoding.negotiate(["utf-16", "utf-32"]) is UTF32
    assert PositionEncoding.negotiate(["utf-8", "utf-16"]) is UTF8
    assert PositionEncoding.negotiate(None) is UTF16
    assert PositionEncoding.negotiate(["utf-7"]) is UTF16


@given(st.text(), st.sampled_from([UTF16, UTF8, UTF32]))
def test_lsp_character_equals_the_encoded_length_of_the_prefix(line, encoding):
    line = line.replace("\r", "").replace("\n", "")
    codec = {UTF16: "utf-16-le", UTF8: "utf-8", UTF32: "utf-32-le"}[encoding]
    width = {UTF16: 2, UTF8: 1, UTF32: 4}[encoding]
    for index in range(len(line) + 1):
        prefix = line[:index].encode(codec, "surrogatepass")
        assert to_lsp_character(line, index, encoding) == len(prefix) // width
