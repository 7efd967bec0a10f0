"""Chunk diffs inside one symbol: the pure core stage by stage, then placement in a file."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lsp_edit.blocks.model import Chunk, ChunkDiff, ReplySpan
from lsp_edit.resolve.chunk_diff import (
    apply_chunks,
    lines_match,
    position_chunk,
    resolve_chunk_diff,
)
from lsp_edit.resolve.model import AlreadyApplied, Placed, Refused
from lsp_edit.text import Text, detect_line_ending

TOTAL = (
    "def total(items):",
    "    result = 0",
    "    for item in items:",
    "        result += item",
    "    return result",
)

BRACES = (
    "function total(items) {",
    "  let result = 0;",
    "  return result;",
    "}",
)


def chunk(
    before: tuple[str, ...] = (),
    old: tuple[str, ...] = (),
    new: tuple[str, ...] = (),
    after: tuple[str, ...] = (),
) -> Chunk:
    return Chunk(context_before=before, old_lines=old, new_lines=new, context_after=after)


# Stage 0: line endings and line matching


@pytest.mark.parametrize(
    ("text", "ending"),
    [
        ("a\nb\r\nc\rd", "\r\n"),
        ("a\nb\rc", "\n"),
        ("a\rb\r", "\r"),
        ("no ending", "\n"),
    ],
)
def test_line_ending_detection_prefers_crlf_then_lf_then_cr_and_falls_back_to_lf(
    text: str, ending: str
) -> None:
    assert detect_line_ending(text) == ending


def test_lines_match_ignores_trailing_whitespace() -> None:
    assert lines_match(["x = 1  ", "y\t"], ["x = 1", "y"])


def test_lines_match_does_not_ignore_leading_whitespace() -> None:
    assert not lines_match(["  x = 1"], ["x = 1"])


def test_lines_match_needs_the_same_number_of_lines() -> None:
    assert not lines_match(["x = 1", "y = 2"], ["x = 1"])


def test_lines_match_rejects_different_content() -> None:
    assert not lines_match(["x = 1"], ["x = 2"])


# Stage 1: one chunk, positioned and applied


def test_position_is_the_index_of_the_last_context_before_line() -> None:
    c = chunk(before=("def total(items):", "    result = 0"), old=("    for item in items:",))
    assert position_chunk(TOTAL, c, "\n") == 1


def test_position_is_minus_one_when_old_lines_start_at_the_symbols_first_line() -> None:
    c = chunk(old=("def total(items):",), new=("def total(items, start=0):",))
    assert position_chunk(TOTAL, c, "\n") == -1


def test_empty_context_before_lets_old_lines_anchor_the_chunk_anywhere() -> None:
    c = chunk(old=("        result += item",), new=("        result += item * 2",))
    assert position_chunk(TOTAL, c, "\n") == 2


def test_single_chunk_replaces_the_old_lines_after_context_before() -> None:
    c = chunk(
        before=("    result = 0",),
        old=("    for item in items:", "        result += item"),
        new=("    result = sum(items)",),
        after=("    return result",),
    )
    assert apply_chunks(TOTAL, [c], "\n") == (
        "def total(items):",
        "    result = 0",
        "    result = sum(items)",
        "    return result",
    )


def test_insertion_puts_new_lines_between_the_contexts() -> None:
    c = chunk(
        before=("    result = 0",),
        new=("    items = list(items)",),
        after=("    for item in items:",),
    )
    assert apply_chunks(TOTAL, [c], "\n") == (
        "def total(items):",
        "    result = 0",
        "    items = list(items)",
        "    for item in items:",
        "        result += item",
        "    return result",
    )


def test_deletion_removes_the_old_lines() -> None:
    c = chunk(before=("    result = 0",), old=("    for item in items:", "        result += item"))
    assert apply_chunks(TOTAL, [c], "\n") == (
        "def total(items):",
        "    result = 0",
        "    return result",
    )


def test_context_before_not_in_the_symbol_is_refused_with_the_symbols_file_lines() -> None:
    c = chunk(before=("    total = 0",), old=("    for item in items:",))
    assert position_chunk(TOTAL, c, "\n", first_line=10) == (
        "context_before's first line `    total = 0` was not found in the symbol (lines 10-14)"
    )


def test_old_lines_mismatch_is_refused_with_file_line_expected_and_found() -> None:
    c = chunk(before=("    result = 0",), old=("    for x in items:",), new=("    pass",))
    assert position_chunk(TOTAL, c, "\n", first_line=10) == (
        "context_before found at line 11, but the chunk does not fit there: at line 11: "
        "old_lines did not match at line 12: expected `    for x in items:`, "
        "found `    for item in items:`"
    )


def test_context_before_whose_later_lines_differ_is_refused_saying_where_it_differs() -> None:
    c = chunk(before=("    result = 0", "    while True:"), old=("        result += item",))
    assert position_chunk(TOTAL, c, "\n") == (
        "context_before's first line `    result = 0` occurs at line 2, but the lines after it "
        "differ from context_before: at line 3: expected `    while True:`, "
        "found `    for item in items:`"
    )


def test_context_before_running_past_the_symbols_end_is_refused() -> None:
    c = chunk(before=("    return result", "def total(items):"), new=("    pass",))
    assert position_chunk(TOTAL, c, "\n") == (
        "context_before's first line `    return result` occurs at line 5, but the lines after "
        "it differ from context_before: it runs past the end of the symbol"
    )


def test_empty_context_before_with_unknown_old_lines_is_refused() -> None:
    c = chunk(old=("    return total",), new=("    return result",))
    assert position_chunk(TOTAL, c, "\n") == (
        "context_before is empty, so the chunk was looked for anywhere in the symbol "
        "(lines 1-5), but old_lines' first line `    return total` is not in it"
    )


# Stage 2: the seven validations


def test_validation_1_context_after_must_match_the_lines_after_old_lines() -> None:
    c = chunk(
        before=("    result = 0",),
        old=("    for item in items:",),
        new=("    for item in sorted(items):",),
        after=("        result -= item",),
    )
    result = position_chunk(TOTAL, c, "\n")
    assert result == (
        "context_before found at line 2, but the chunk does not fit there: at line 2: "
        "context_after did not match at line 4: expected `        result -= item`, "
        "found `        result += item`"
    )


def test_validation_2_old_lines_must_follow_context_before_directly() -> None:
    c = chunk(before=("def total(items):",), old=("    for item in items:",), new=("    pass",))
    result = position_chunk(TOTAL, c, "\n")
    assert isinstance(result, str)
    assert "old_lines did not match at line 2: expected `    for item in items:`" in result


def test_validation_3_insertion_without_any_context_is_refused() -> None:
    result = position_chunk(TOTAL, chunk(new=("    pass",)), "\n")
    assert result == (
        "old_lines is empty (an insertion) and so are context_before and context_after, so "
        "there is no position to insert at; give the lines the new lines go after as "
        "context_before"
    )


def test_validation_3_insertion_after_the_symbols_last_line_is_refused() -> None:
    c = chunk(before=("    return result",), new=("    # done",))
    result = position_chunk(TOTAL, c, "\n")
    assert isinstance(result, str)
    assert "the insertion point is after its last line (line 5), outside the symbol" in result


def test_validation_3_insertion_before_the_symbols_first_line_is_refused() -> None:
    c = chunk(new=("@cache",), after=("def total(items):",))
    result = position_chunk(TOTAL, c, "\n")
    assert isinstance(result, str)
    assert "the insertion point is before its first line (line 1), outside the symbol" in result


def test_validation_3_chunk_with_no_old_and_no_new_lines_is_refused() -> None:
    result = position_chunk(TOTAL, chunk(before=("    result = 0",)), "\n")
    assert result == "old_lines and new_lines are both empty, so the chunk changes nothing"


def test_validation_4_deleting_every_line_of_the_symbol_is_refused() -> None:
    result = position_chunk(TOTAL, chunk(old=TOTAL), "\n")
    assert isinstance(result, str)
    assert "the chunk deletes every line of the symbol" in result
    assert "`:remove`" in result


def test_validation_4_deleting_the_last_body_line_is_allowed() -> None:
    c = chunk(before=("        result += item",), old=("    return result",))
    assert apply_chunks(TOTAL, [c], "\n") == TOTAL[:4]


def test_validation_5_old_lines_running_past_the_symbols_end_are_refused() -> None:
    c = chunk(before=("        result += item",), old=("    return result", ""), new=("    pass",))
    result = position_chunk(TOTAL, c, "\n")
    assert isinstance(result, str)
    assert (
        "old_lines run past the end of the symbol: 2 lines from line 5, "
        "but the symbol ends at line 5"
    ) in result


def test_validation_6_context_after_past_the_symbols_end_is_refused() -> None:
    c = chunk(
        before=("        result += item",),
        old=("    return result",),
        new=("    return int(result)",),
        after=("",),
    )
    result = position_chunk(TOTAL, c, "\n")
    assert isinstance(result, str)
    assert "context_after runs past the end of the symbol at line 5" in result


def test_validation_6_replacing_the_closing_brace_without_keeping_it_is_refused() -> None:
    c = chunk(before=("  let result = 0;",), old=("  return result;", "}"), new=("  return 0;",))
    result = position_chunk(BRACES, c, "\n", first_line=20)
    assert isinstance(result, str)
    assert (
        "old_lines include the symbol's closing line `}` (line 23) but new_lines do not end "
        "with it, which would leave the symbol unterminated; end new_lines with `}`"
    ) in result


def test_validation_6_replacing_the_closing_brace_while_keeping_it_is_allowed() -> None:
    c = chunk(
        before=("  let result = 0;",),
        old=("  return result;", "}"),
        new=("  return 0;", "}"),
    )
    assert apply_chunks(BRACES, [c], "\n") == (
        "function total(items) {",
        "  let result = 0;",
        "  return 0;",
        "}",
    )


def test_validation_6_a_deeper_closing_bracket_is_not_the_symbols_end() -> None:
    symbol = ("def f():", "    return g(", "        1,", "    )")
    c = chunk(before=("def f():",), old=symbol[1:], new=("    return g(1)",))
    assert apply_chunks(symbol, [c], "\n") == ("def f():", "    return g(1)")


def test_validation_7_a_line_break_inside_a_chunk_line_is_refused_naming_the_ending() -> None:
    c = chunk(before=("    result = 0",), old=("    for item in items:",), new=("    x = 1\r",))
    assert position_chunk(TOTAL, c, "\r\n") == (
        "new_lines item 1 contains a line break (`\\r`); give each line as its own list item "
        "without its ending (the symbol's lines end with CRLF and new lines get the same)"
    )


def test_ambiguous_context_before_is_resolved_by_the_full_validation() -> None:
    symbol = ("def f():", "    x = 1", "    a()", "    x = 1", "    b()")
    c = chunk(before=("    x = 1",), old=("    b()",), new=("    c()",))
    assert position_chunk(symbol, c, "\n") == 3
    assert apply_chunks(symbol, [c], "\n") == (
        "def f():",
        "    x = 1",
        "    a()",
        "    x = 1",
        "    c()",
    )


def test_every_candidate_that_fails_is_listed_with_its_reason() -> None:
    symbol = ("def f():", "    x = 1", "    a()", "    x = 1", "    b()")
    c = chunk(before=("    x = 1",), old=("    c()",), new=("    d()",))
    assert position_chunk(symbol, c, "\n") == (
        "context_before found at lines 2, 4, but the chunk does not fit any of them: "
        "at line 2: old_lines did not match at line 3: expected `    c()`, found `    a()`; "
        "at line 4: old_lines did not match at line 5: expected `    c()`, found `    b()`"
    )


def test_a_chunk_that_fits_at_two_places_is_refused_naming_both() -> None:
    symbol = ("def f():", "    x = 1", "    a()", "    x = 1", "    a()", "    return")
    c = chunk(before=("    x = 1",), old=("    a()",), new=("    b()",))
    assert position_chunk(symbol, c, "\n", first_line=7) == (
        "the chunk fits at 2 places (context_before found at lines 8, 10); add context_before "
        "or context_after lines that tell them apart"
    )


def test_old_lines_matching_ignores_trailing_whitespace_in_the_symbol() -> None:
    symbol = ("def f():  ", "    a()\t", "    return")
    c = chunk(before=("def f():",), old=("    a()",), new=("    b()",))
    assert apply_chunks(symbol, [c], "\n") == ("def f():  ", "    b()", "    return")


def test_a_line_repeated_from_old_lines_keeps_its_exact_bytes() -> None:
    symbol = ("def f():", "    a()   ", "    return")
    c = chunk(before=("def f():",), old=("    a()",), new=("    a()", "    b()"))
    assert apply_chunks(symbol, [c], "\n") == ("def f():", "    a()   ", "    b()", "    return")


@given(
    body=st.lists(st.sampled_from(["    a()", "    b()", "    c()", ""]), min_size=1, max_size=12),
    data=st.data(),
)
def test_a_chunk_cut_from_the_symbol_lands_where_it_was_cut_or_is_refused_as_ambiguous(
    body: list[str], data: st.DataObject
) -> None:
    symbol = ["def f():", *body, "    return"]
    old_start = data.draw(st.integers(1, len(symbol) - 1))
    old_end = data.draw(st.integers(old_start, len(symbol) - 1))
    context = data.draw(st.integers(1, old_start))
    new = ("    new()",)
    c = chunk(
        before=tuple(symbol[old_start - context : old_start]),
        old=tuple(symbol[old_start:old_end]),
        new=new,
        after=tuple(symbol[old_end : old_end + 1]),
    )
    result = apply_chunks(symbol, [c], "\n")
    if isinstance(result, str):
        assert "the chunk fits at" in result
    else:
        assert result == (*symbol[:old_start], *new, *symbol[old_end:])


# Stage 3: several chunks, atomically


def test_multiple_chunks_all_apply() -> None:
    chunks = [
        chunk(old=("def total(items):",), new=("def total(items, start=0):",)),
        chunk(before=("    for item in items:",), old=("        result += item",), new=()),
        chunk(
            before=("        result += item",), old=("    return result",), new=("    return 0",)
        ),
    ]
    assert apply_chunks(TOTAL, chunks, "\n") == (
        "def total(items, start=0):",
        "    result = 0",
        "    for item in items:",
        "    return 0",
    )


def test_one_failing_chunk_fails_the_whole_diff_naming_that_chunk() -> None:
    chunks = [
        chunk(old=("def total(items):",), new=("def total(items, start=0):",)),
        chunk(before=("    result = 0",), old=("    while items:",), new=("    pass",)),
    ]
    result = apply_chunks(TOTAL, chunks, "\n")
    assert isinstance(result, str)
    assert result.startswith(
        "Chunk 2 validation failed: context_before found at line 2, but the chunk does not "
        "fit there: at line 2: old_lines did not match at line 3: expected `    while items:`"
    )


def test_chunks_are_positioned_on_the_original_lines_whatever_their_order() -> None:
    # The first chunk inserts two lines near the top; if it were applied first,
    # the second chunk's position would be off by two.
    chunks = [
        chunk(
            before=("def total(items):",),
            new=("    '''Sum.'''", "    # fast"),
            after=("    result = 0",),
        ),
        chunk(
            before=("        result += item",),
            old=("    return result",),
            new=("    return -result",),
        ),
    ]
    assert apply_chunks(TOTAL, chunks, "\n") == (
        "def total(items):",
        "    '''Sum.'''",
        "    # fast",
        "    result = 0",
        "    for item in items:",
        "        result += item",
        "    return -result",
    )


def test_a_later_chunk_may_use_lines_an_earlier_chunk_replaces_as_context() -> None:
    chunks = [
        chunk(
            before=("    result = 0",),
            old=("    for item in items:",),
            new=("    for i in items:",),
        ),
        chunk(
            before=("    for item in items:",),
            old=("        result += item",),
            new=("        result += i",),
        ),
    ]
    assert apply_chunks(TOTAL, chunks, "\n") == (
        "def total(items):",
        "    result = 0",
        "    for i in items:",
        "        result += i",
        "    return result",
    )


def test_chunks_replacing_overlapping_lines_are_refused() -> None:
    chunks = [
        chunk(
            before=("    result = 0",),
            old=("    for item in items:", "        result += item"),
            new=("    pass",),
        ),
        chunk(
            before=("    for item in items:",),
            old=("        result += item", "    return result"),
            new=("    return 0",),
        ),
    ]
    assert apply_chunks(TOTAL, chunks, "\n", first_line=10) == (
        "Chunks 1 and 2 overlap: chunk 1 replaces lines 12-13 and chunk 2 replaces lines "
        "13-14; merge them into one chunk"
    )


def test_two_insertions_at_the_same_point_are_refused_as_overlapping() -> None:
    chunks = [
        chunk(before=("    result = 0",), new=("    a()",)),
        chunk(new=("    b()",), after=("    for item in items:",)),
    ]
    assert apply_chunks(TOTAL, chunks, "\n") == (
        "Chunks 1 and 2 overlap: chunk 1 inserts before line 3 and chunk 2 inserts before "
        "line 3; merge them into one chunk"
    )


def test_an_insertion_inside_another_chunks_old_lines_is_refused_as_overlapping() -> None:
    chunks = [
        chunk(
            before=("    result = 0",),
            old=("    for item in items:", "        result += item"),
            new=("    result = sum(items)",),
        ),
        chunk(before=("    for item in items:",), new=("        print(item)",)),
    ]
    result = apply_chunks(TOTAL, chunks, "\n")
    assert result == (
        "Chunks 1 and 2 overlap: chunk 1 replaces lines 3-4 and chunk 2 inserts before line 4; "
        "merge them into one chunk"
    )


def test_an_insertion_right_after_another_chunks_old_lines_is_not_an_overlap() -> None:
    chunks = [
        chunk(
            before=("    result = 0",),
            old=("    for item in items:", "        result += item"),
            new=("    result = sum(items)",),
        ),
        chunk(new=("    print(result)",), after=("    return result",)),
    ]
    assert apply_chunks(TOTAL, chunks, "\n") == (
        "def total(items):",
        "    result = 0",
        "    result = sum(items)",
        "    print(result)",
        "    return result",
    )


# Placing a chunk diff in a file (needs the symbol index)

SOURCE = (
    "import os\r\n"
    "\r\n"
    "\r\n"
    "class Client:\r\n"
    "    def chat(self, text):\r\n"
    "        reply = self.send(text)\r\n"
    "        return reply\r\n"
    "\r\n"
    "    def close(self):\r\n"
    "        self.open = False\r\n"
    "        return None"
)


def diff(*chunks: Chunk, symbol: str | None = None, line: int | None = None) -> ChunkDiff:
    return ChunkDiff(
        span=ReplySpan(1, 1),
        path="client.py",
        symbol=symbol,
        line=line,
        column=None,
        chunks=chunks,
    )


def test_chunk_diff_by_ast_path_edits_only_inside_that_symbol_keeping_crlf() -> None:
    text = Text.from_string(SOURCE)
    block = diff(
        chunk(
            before=("        reply = self.send(text)",),
            old=("        return reply",),
            new=("        self.log(reply)", "        return reply"),
        ),
        symbol="Client.chat",
    )
    placed = resolve_chunk_diff(block, text, "python")
    assert isinstance(placed, Placed)
    assert placed.strategy == "chunk_diff"
    assert text.replace(placed.edits).render() == SOURCE.replace(
        "        return reply\r\n", "        self.log(reply)\r\n        return reply\r\n"
    )


def test_chunk_diff_by_line_uses_the_innermost_symbol_and_keeps_the_missing_final_newline() -> None:
    text = Text.from_string(SOURCE)
    block = diff(
        chunk(
            before=("        self.open = False",),
            old=("        return None",),
            new=("        return self",),
        ),
        line=10,
    )
    placed = resolve_chunk_diff(block, text, "python")
    assert isinstance(placed, Placed)
    assert text.replace(placed.edits).render() == SOURCE.replace("return None", "return self")


def test_chunk_diff_that_does_not_fit_is_refused_and_names_chunk_and_symbol() -> None:
    text = Text.from_string(SOURCE)
    block = diff(chunk(old=("        return None",), new=("        pass",)), symbol="Client-chat")
    refused = resolve_chunk_diff(block, text, "python")
    assert refused == Refused(
        "chunk_validation_failed",
        "Chunk 1 validation failed: context_before is empty, so the chunk was looked for "
        "anywhere in the symbol (lines 5-7), but old_lines' first line `        return None` "
        "is not in it (in symbol `Client-chat`, lines 5-7)",
        ((5, 7),),
    )


def test_chunk_diff_without_chunks_is_an_invalid_operation() -> None:
    refused = resolve_chunk_diff(diff(symbol="Client-chat"), Text.from_string(SOURCE), "python")
    assert isinstance(refused, Refused)
    assert refused.code == "invalid_operation"


def test_chunk_diff_on_an_unknown_symbol_is_refused_as_not_found() -> None:
    block = diff(chunk(old=("x",), new=("y",)), symbol="Client-send")
    refused = resolve_chunk_diff(block, Text.from_string(SOURCE), "python")
    assert isinstance(refused, Refused)
    assert refused.code == "symbol_not_found"


def test_chunk_diff_on_a_line_outside_any_symbol_is_refused_as_not_found() -> None:
    block = diff(chunk(old=("import os",), new=("import sys",)), line=1)
    refused = resolve_chunk_diff(block, Text.from_string(SOURCE), "python")
    assert isinstance(refused, Refused)
    assert refused.code == "symbol_not_found"
    assert "No symbol contains line 1 (`import os`)" in refused.message


def test_chunk_diff_whose_new_lines_are_already_there_is_already_applied() -> None:
    block = diff(
        chunk(
            before=("        self.open = False",),
            old=("        return self",),
            new=("        return None",),
        ),
        symbol="Client-close",
    )
    result = resolve_chunk_diff(block, Text.from_string(SOURCE), "python")
    assert isinstance(result, AlreadyApplied)


def test_chunk_diff_writes_an_ellipsis_line_as_it_is() -> None:
    text = Text.from_string(SOURCE)
    block = diff(
        chunk(
            before=("    def close(self):",),
            old=("        self.open = False",),
            new=("        ...",),
        ),
        symbol="Client.close",
    )
    placed = resolve_chunk_diff(block, text, "python")
    assert isinstance(placed, Placed)
    assert text.replace(placed.edits).render() == SOURCE.replace("self.open = False", "...")
