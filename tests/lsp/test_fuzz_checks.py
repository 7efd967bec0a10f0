"""The server fuzz's answer key (tests/lsp/fuzz.py) is exact: what it calls a range
outside the document, and the texts it accepts as an accepted change's result."""

from __future__ import annotations

import pytest

from tests.lsp.fuzz import index_of, raw_lines, where_range_is, with_hunks


def _range(start: tuple[int, int], end: tuple[int, int]) -> dict[str, dict[str, int]]:
    return {
        "start": {"line": start[0], "character": start[1]},
        "end": {"line": end[0], "character": end[1]},
    }


@pytest.mark.parametrize(("encoding", "after_emoji"), [("utf-16", 2), ("utf-8", 4), ("utf-32", 1)])
def test_a_position_inside_a_character_is_refused_in_each_encoding(
    encoding: str, after_emoji: int
) -> None:
    text = "😀x\n"
    assert index_of(text, 0, after_emoji, encoding) == 1
    assert index_of(text, 0, after_emoji + 1, encoding) == 2
    if after_emoji > 1:
        assert index_of(text, 0, after_emoji - 1, encoding) is None
    assert index_of(text, 0, after_emoji + 2, encoding) is None  # past the line's end


def test_the_line_after_a_last_line_without_newline_is_its_own_kind() -> None:
    assert where_range_is("a\nb", _range((0, 0), (2, 0)), "utf-16") == "past-end"
    assert where_range_is("a\nb\n", _range((0, 0), (2, 0)), "utf-16") is None
    assert "not in the document" in str(where_range_is("a\n", _range((0, 0), (2, 0)), "utf-16"))
    assert "not in the document" in str(where_range_is("a\nb", _range((0, 0), (3, 0)), "utf-16"))
    assert where_range_is("a\nb", _range((1, 0), (0, 0)), "utf-16") == "it ends before it starts"


def test_lines_are_counted_as_the_server_counts_them() -> None:
    assert raw_lines("a\r\nb\rc\nd") == ["a\r\n", "b\r", "c\n", "d"]
    assert raw_lines("a\n") == ["a\n"]
    assert raw_lines("") == []


def test_an_accepted_change_may_keep_or_drop_the_final_newline_only_at_the_end() -> None:
    # Rewriting the last line of a file without a final newline: either is right.
    assert with_hunks("a\nb", [(1, 2, "c\n")]) == {"a\nc\n", "a\nc"}
    # Elsewhere the file keeps its lack of a final newline.
    assert with_hunks("a\nb", [(0, 1, "c\n")]) == {"c\nb"}
    # Inserting after a last line without a newline ends that line first.
    assert with_hunks("a\r\nb", [(2, 2, "c\r\n")]) == {"a\r\nb\r\nc\r\n", "a\r\nb\r\nc"}
    # Hunks are given against the same text and applied together.
    assert with_hunks("a\nb\nc\n", [(0, 1, ""), (2, 3, "z\n")]) == {"b\nz\n"}
