"""The matching ladder: each strategy, the order, the index and ambiguity."""

from __future__ import annotations

import gc
import weakref
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_edit.blocks.model import AnchoredEdit, Hunk, ReplySpan
from lsp_edit.resolve import ladder
from lsp_edit.resolve.anchored import resolve_anchored
from lsp_edit.resolve.ladder import (
    LADDER,
    LineIndex,
    Reindent,
    detect_reindent,
    index_for,
    search,
)
from lsp_edit.resolve.model import Placed, Refused, Resolution
from lsp_edit.text import Draft, LineEdit, Text


def place(
    source: str, old: tuple[str, ...], new: tuple[str, ...], hint: int | None = None
) -> tuple[Resolution, str]:
    text = Text.from_string(source)
    block = AnchoredEdit(ReplySpan(1, 3), "src/x.py", "search_replace", (Hunk(old, new, hint),))
    result = resolve_anchored(block, text)
    if isinstance(result, Placed):
        return result, text.replace(result.edits, final_newline=result.final_newline).render()
    return result, source


def test_the_ladder_is_ordered_strictest_first() -> None:
    assert [s.name for s in LADDER] == [
        "exact",
        "trailing_whitespace",
        "indentation",
        "blank_edges",
        "unicode_punctuation",
    ]


def test_exact_match_says_exact() -> None:
    result, after = place("a = 1\nb = 2\n", ("b = 2",), ("b = 3",))
    assert isinstance(result, Placed) and result.strategy == "exact"
    assert after == "a = 1\nb = 3\n"


def test_trailing_whitespace_in_the_file_is_ignored_and_kept_on_kept_lines() -> None:
    result, after = place("if x:  \n    y()\n", ("if x:", "    y()"), ("if x:", "    z()"))
    assert isinstance(result, Placed) and result.strategy == "trailing_whitespace"
    assert after == "if x:  \n    z()\n"


def test_dropped_indentation_is_found_and_the_new_lines_are_reindented() -> None:
    source = "class A:\n    def f(self):\n        return 1\n"
    result, after = place(
        source, ("def f(self):", "    return 1"), ("def f(self):", "    return 2")
    )
    assert isinstance(result, Placed) and result.strategy == "indentation"
    assert after == "class A:\n    def f(self):\n        return 2\n"


def test_extra_indentation_in_the_block_is_removed_from_new_lines() -> None:
    result, after = place("x = 1\ny = 2\n", ("    x = 1", "    y = 2"), ("    x = 1", "    y = 3"))
    assert isinstance(result, Placed) and result.strategy == "indentation"
    assert after == "x = 1\ny = 3\n"


def test_spaces_written_for_tabs_are_converted_back_to_tabs() -> None:
    source = "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n"
    old = ("func f() {", "    if x {", "        return 1", "    }", "}")
    new = ("func f() {", "    if x {", "        return 2", "    }", "}")
    result, after = place(source, old, new)
    assert isinstance(result, Placed) and result.strategy == "indentation"
    assert after == "func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n"


def test_non_uniform_indentation_is_not_a_match() -> None:
    result, _ = place("a:\n    b\n        c\n", ("a:", "b", "    c"), ("a:", "b", "    d"))
    assert isinstance(result, Refused) and result.code == "not_found"


def test_blank_lines_at_the_edges_of_the_search_text_are_ignored() -> None:
    result, after = place("a\nb\nc\n", ("", "b", ""), ("", "B", ""))
    assert isinstance(result, Placed) and result.strategy == "blank_edges"
    assert after == "a\nB\nc\n"


def test_curly_quotes_and_dashes_match_their_ascii_forms() -> None:
    source = 'print("it’s done — ok")\n'
    result, after = place(source, ('print("it\'s done - ok")',), ('print("finished")',))
    assert isinstance(result, Placed) and result.strategy == "unicode_punctuation"
    assert after == 'print("finished")\n'


def test_a_stricter_strategy_wins_over_a_looser_one_even_with_more_matches_below() -> None:
    source = "x = 1\n    x = 1\n"
    result, after = place(source, ("x = 1",), ("x = 2",))
    assert isinstance(result, Placed) and result.strategy == "exact"
    assert after == "x = 2\n    x = 1\n"


def test_two_matches_are_refused_with_every_line_number() -> None:
    result, _ = place("x\na\nx\nb\nx\n", ("x",), ("y",))
    assert result == Refused(
        "ambiguous",
        "The SEARCH text matches 3 places (lines 1, 3 and 5); "
        "add surrounding lines to make it unique.",
        ((1, 1), (3, 3), (5, 5)),
    )


def test_a_hint_line_picks_the_uniquely_nearest_match() -> None:
    result, after = place("x\na\nx\nb\nx\n", ("x",), ("y",), hint=5)
    assert isinstance(result, Placed)
    assert after == "x\na\nx\nb\ny\n"
    assert "nearest to the hint line 5" in result.notes[0]


def test_a_hint_line_halfway_between_two_matches_is_still_ambiguous() -> None:
    result, _ = place("x\na\nx\n", ("x",), ("y",), hint=2)
    assert isinstance(result, Refused) and result.code == "ambiguous"
    assert "lines 1 and 3" in result.message


def test_the_index_finds_a_block_through_its_rarest_line() -> None:
    lines = ["}"] * 500 + ["unique()", "}"] + ["}"] * 500
    matches = search(LineIndex(lines), ["unique()", "}"])
    assert [(m.start, m.end, m.strategy) for m in matches] == [(500, 502, "exact")]


def test_reindent_detection_names_the_added_prefix() -> None:
    assert detect_reindent(["a", "  b"], ["    a", "      b"]) == Reindent("add", prefix="    ")
    assert detect_reindent(["a", "  b"], ["    a", "   b"]) is None


def test_lines_that_each_repeat_many_times_are_found_where_they_stand_together() -> None:
    # Each line of the block occurs eleven times, but together only once, at the end:
    # however the search picks the line it starts from, every place is checked.
    lines = ["a = 1", "pad"] * 10 + ["b = 2", "pad"] * 10 + ["a = 1", "b = 2"]
    index = LineIndex(lines)
    assert [(m.start, m.end) for m in search(index, ["a = 1", "b = 2"])] == [(40, 42)]


_LINES = ("a", "b", "c", "d", "")


@settings(max_examples=300)
@given(
    lines=st.lists(st.sampled_from(["a", "b", "c", ""]), min_size=1, max_size=12),
    edits=st.lists(
        st.tuples(
            st.integers(0, 20),
            st.integers(0, 2),
            st.lists(st.sampled_from(["a", "b", "d", ""]), max_size=3),
            st.lists(st.sampled_from(_LINES), max_size=3),
        ),
        max_size=10,
    ),
    scans=st.sampled_from([0, 1, 16]),
    recount=st.sampled_from([0, 2, 256]),
    sought=st.sets(st.sampled_from(["a", "b", "d", "e", ""]), max_size=4),
    passes=st.sampled_from([0, 1, 16]),
)
def test_a_drafts_index_finds_every_line_where_a_fresh_index_of_its_text_does(
    lines, edits, scans, recount, sought, passes
):
    """Whatever the lines said to be sought (`Draft.sought`), and however many passes
    for them the index makes before it counts every line."""
    draft = Draft(Text.from_lines(lines))
    draft.sought = sought
    with (
        mock.patch.object(ladder, "_SCANS_BEFORE_INDEXING", scans),
        mock.patch.object(ladder, "_EDITS_BEFORE_RECOUNT", recount),
        mock.patch.object(ladder, "_PASSES_BEFORE_COUNTING", passes),
    ):
        index = index_for(draft)
        exact = LADDER[0].key
        for start, length, new_lines, asked in edits:
            start = start % (len(draft.lines) + 1)
            end = min(start + length, len(draft.lines))
            draft.replace([LineEdit(start, end, tuple(new_lines))])
            # asked between edits, for some lines, or not: the answers are the same
            fresh = LineIndex(list(draft.lines))
            for line in asked:
                assert index.count(exact, line) >= len(fresh.positions(exact, line))
                assert index.positions(exact, line) == fresh.positions(exact, line)
        fresh = LineIndex(list(draft.lines))
        for strategy in LADDER:
            for line in (*_LINES, " a"):
                assert index.positions(strategy.key, line) == fresh.positions(strategy.key, line)


def test_a_draft_and_its_index_are_freed_once_the_draft_is_no_longer_used() -> None:
    """The language server places every reply in drafts: one kept alive by its own
    index would hold a copy of its file's lines for as long as the server runs."""
    draft = Draft(Text.from_string("a\nb\n"))
    index = index_for(draft)
    assert index_for(draft) is index  # kept with the draft while it is used
    freed = weakref.ref(draft), weakref.ref(index)
    del draft, index
    gc.collect()
    assert [ref() for ref in freed] == [None, None]


def test_blocks_placed_one_after_another_in_a_draft_land_where_they_do_in_texts() -> None:
    source = Text.from_string(
        "".join(f"def f{n}():\n    total = {n}\n    return total\n" for n in range(60))
    )
    blocks = [
        AnchoredEdit(
            ReplySpan(1, 1),
            "a.py",
            "search_replace",
            (
                Hunk(
                    (f"    total = {n}", "    return total"),
                    (f"    total = {n} + 1", "    return total"),
                ),
            ),
        )
        for n in range(0, 60, 7)
    ]
    text, draft = source, Draft(source)
    for block in blocks:
        in_text, in_draft = resolve_anchored(block, text), resolve_anchored(block, draft)
        assert in_text == in_draft
        assert isinstance(in_text, Placed)
        text = text.replace(in_text.edits)
        draft.replace(in_draft.edits)
    assert draft.text() == text
    assert "    total = 56 + 1" in text.lines
