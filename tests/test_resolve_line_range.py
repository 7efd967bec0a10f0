"""Fenced line-range blocks: 1-based, end exclusive, and mapping through earlier edits."""

from __future__ import annotations

from lsp_edit.blocks.model import LineRangeTarget
from lsp_edit.resolve.line_range import resolve_line_range, shift_line_target
from lsp_edit.resolve.model import AlreadyApplied, Placed, Refused
from lsp_edit.text import LineEdit, Text

SOURCE = "one\ntwo\nthree\nfour\n"


def rendered(target: LineRangeTarget, content: tuple[str, ...], source: str = SOURCE) -> str:
    text = Text.from_string(source)
    result = resolve_line_range(target, content, text)
    assert isinstance(result, Placed), result
    return text.replace(result.edits, final_newline=result.final_newline).render()


def test_the_end_line_is_exclusive() -> None:
    assert rendered(LineRangeTarget(2, 4), ("TWO", "THREE")) == "one\nTWO\nTHREE\nfour\n"


def test_an_empty_range_inserts_before_its_line() -> None:
    assert rendered(LineRangeTarget(2, 2), ("new",)) == "one\nnew\ntwo\nthree\nfour\n"


def test_a_range_starting_after_the_last_line_appends() -> None:
    assert rendered(LineRangeTarget(5, 5), ("five",)) == SOURCE + "five\n"


def test_a_range_through_the_last_line_of_a_crlf_file_without_final_newline() -> None:
    assert rendered(LineRangeTarget(2, 3), ("two",), "1\r\n2\r\n3") == "1\r\ntwo\r\n3"
    assert rendered(LineRangeTarget(3, 4), ("III", "IV"), "1\r\n2\r\n3") == "1\r\n2\r\nIII\r\nIV"


def test_only_changed_lines_are_edited() -> None:
    result = resolve_line_range(
        LineRangeTarget(1, 5), ("one", "2", "three", "four"), Text.from_string(SOURCE)
    )
    assert isinstance(result, Placed)
    assert result.edits == (LineEdit(1, 2, ("2",)),)


def test_a_range_past_the_end_is_out_of_range() -> None:
    result = resolve_line_range(LineRangeTarget(45, 67), ("x",), Text.from_string(SOURCE))
    assert result == Refused(
        "line_out_of_range", "Lines 45-67 are outside the file, which has 4 lines."
    )


def test_a_range_ending_before_it_starts_is_invalid() -> None:
    result = resolve_line_range(LineRangeTarget(3, 2), ("x",), Text.from_string(SOURCE))
    assert isinstance(result, Refused) and result.code == "invalid_line_range"


def test_content_equal_to_the_range_is_already_applied() -> None:
    result = resolve_line_range(LineRangeTarget(2, 3), ("two",), Text.from_string(SOURCE))
    assert result == AlreadyApplied("Line 2 holds this content already.")


def test_shift_moves_a_range_below_an_earlier_insertion() -> None:
    earlier = [(LineEdit(0, 0, ("a", "b")),)]
    assert shift_line_target(LineRangeTarget(3, 4), earlier) == LineRangeTarget(5, 6)


def test_shift_leaves_a_range_above_an_earlier_edit() -> None:
    earlier = [(LineEdit(5, 7, ()),)]
    assert shift_line_target(LineRangeTarget(1, 3), earlier) == LineRangeTarget(1, 3)


def test_shift_refuses_a_range_overlapping_an_earlier_edit() -> None:
    earlier = [(LineEdit(1, 3, ("x",)),)]
    result = shift_line_target(LineRangeTarget(3, 5), earlier)
    assert isinstance(result, Refused) and result.code == "overlapping_line_range"


def test_a_stub_body_written_in_a_range_with_nothing_left_out_stays() -> None:
    source = "class A:\n    def a(self):\n        return 1\n"
    content = ("    def a(self):", "        return 1", "", "    def b(self):", "        ...")
    assert rendered(LineRangeTarget(2, 4), content, source) == (
        "class A:\n    def a(self):\n        return 1\n\n    def b(self):\n        ...\n"
    )


def test_a_line_of_dots_where_the_range_holds_a_longer_one_is_written_as_it_is() -> None:
    # a benchmark's progress dots in reStructuredText (attrs' how-does-it-work.rst)
    source = "Before:\n\n  ....................\n  Mean: 250 ns\n"
    new = ("  .........................................", "  Mean: 228 ns")
    assert rendered(LineRangeTarget(3, 5), new, source) == (
        "Before:\n\n  .........................................\n  Mean: 228 ns\n"
    )


def test_a_commented_dots_placeholder_still_keeps_lines_where_the_range_holds_bare_dots() -> None:
    source = "class P:\n    def a(self):\n        ...\n    x = 1\n    y = 2\n"
    new = ("class P:", "    # ...", "    y = 3")
    assert rendered(LineRangeTarget(1, 6), new, source) == (
        "class P:\n    def a(self):\n        ...\n    x = 1\n    y = 3\n"
    )


def test_a_range_replaced_by_a_line_of_dots_alone_gets_that_line() -> None:
    # colorama's README.rst: the underline of the title above the range became dots
    source = "Usage\n-----\n\nText.\n"
    assert rendered(LineRangeTarget(2, 3), (".....",), source) == "Usage\n.....\n\nText.\n"
    stub = "def f():\n    return 1\n"
    assert rendered(LineRangeTarget(2, 3), ("    ...",), stub) == "def f():\n    ...\n"
