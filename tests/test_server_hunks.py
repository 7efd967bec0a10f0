"""Hunks of the buffer as it is: composing a reply's changes, following typing, and
the smallest text replacement that applies a change."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from lsp_edit.positions import Point
from lsp_edit.server.hunks import BaseHunk, Composer, Splice, TrackedBuffer, replacement
from lsp_edit.text import LineEdit, Text

BASE = [f"line {n}" for n in range(10)]


def test_changes_on_separate_lines_are_independent_hunks_of_the_buffer() -> None:
    composer = Composer(BASE)
    first = composer.add("1", [LineEdit(2, 3, ("two",))])
    # Placed after the first, which added a line above it: its line 6 is base line 5.
    composer_view = composer.add(
        "2",
        [
            LineEdit(
                4,
                5,
                ("four",),
            )
        ],
    )
    assert first.hunks == (BaseHunk(2, 3, ("two",)),)
    assert first.depends_on == ()
    assert composer_view.hunks == (BaseHunk(4, 5, ("four",)),)
    assert composer_view.depends_on == ()


def test_a_change_after_an_insertion_maps_back_to_the_buffers_lines() -> None:
    composer = Composer(BASE)
    composer.add("1", [LineEdit(1, 1, ("new a", "new b"))])
    second = composer.add("2", [LineEdit(7, 8, ("five",))])  # base line 5
    assert second.hunks == (BaseHunk(5, 6, ("five",)),)
    assert second.depends_on == ()


def test_a_change_that_edits_lines_an_earlier_change_wrote_depends_on_it() -> None:
    composer = Composer(BASE)
    composer.add("1", [LineEdit(3, 5, ("three", "four"))])
    second = composer.add("2", [LineEdit(4, 5, ("FOUR",))])
    assert second.depends_on == ("1",)
    # Shown as one hunk over both changes' lines, with both applied.
    assert second.hunks == (BaseHunk(3, 5, ("three", "FOUR")),)


def test_dependencies_are_transitive() -> None:
    composer = Composer(BASE)
    composer.add("1", [LineEdit(3, 4, ("a",))])
    composer.add("2", [LineEdit(3, 4, ("b",))])
    third = composer.add("3", [LineEdit(3, 4, ("c",))])
    assert third.depends_on == ("1", "2")


def test_two_insertions_at_one_place_depend_in_order() -> None:
    composer = Composer(BASE)
    composer.add("1", [LineEdit(4, 4, ("first",))])
    second = composer.add("2", [LineEdit(5, 5, ("second",))])
    assert second.depends_on == ("1",)
    assert second.hunks == (BaseHunk(4, 4, ("first", "second")),)


def test_a_replacement_next_to_an_insertion_is_independent() -> None:
    composer = Composer(BASE)
    composer.add("1", [LineEdit(4, 4, ("inserted",))])
    second = composer.add("2", [LineEdit(5, 6, ("changed",))])
    assert second.depends_on == ()
    assert second.hunks == (BaseHunk(4, 5, ("changed",)),)


def test_a_change_is_cut_down_to_the_lines_it_really_changes() -> None:
    composer = Composer(BASE)
    placed = composer.add("1", [LineEdit(2, 6, ("line 2", "line 3", "THREE AND A HALF", "line 5"))])
    assert placed.hunks == (BaseHunk(4, 5, ("THREE AND A HALF",)),)


def test_a_new_file_is_one_insertion() -> None:
    composer = Composer([])
    placed = composer.add("1", [LineEdit(0, 0, ("a", "b"))])
    assert placed.hunks == (BaseHunk(0, 0, ("a", "b")),)


def _buffer(text: str) -> TrackedBuffer:
    return TrackedBuffer.of(Text.from_string(text))


def test_typing_a_character_changes_that_one_line() -> None:
    buffer = _buffer("a\nb\nc\n")
    assert buffer.edit(Point(1, 1), Point(1, 1), "x") == Splice(1, 2, 1)
    assert buffer.raw == ["a\n", "bx\n", "c\n"]


def test_a_new_line_typed_at_the_start_of_a_line_is_an_insertion_before_it() -> None:
    buffer = _buffer("a\nb\nc\n")
    assert buffer.edit(Point(1, 0), Point(1, 0), "new\n") == Splice(1, 1, 1)
    assert buffer.raw == ["a\n", "new\n", "b\n", "c\n"]


def test_deleting_whole_lines_is_a_splice_of_those_lines() -> None:
    buffer = _buffer("a\nb\nc\nd\n")
    assert buffer.edit(Point(1, 0), Point(3, 0), "") == Splice(1, 3, 0)
    assert buffer.raw == ["a\n", "d\n"]


def test_typing_at_the_end_of_a_file_without_final_newline() -> None:
    buffer = _buffer("a\nb")
    assert buffer.edit(Point(1, 1), Point(1, 1), "\nc") == Splice(1, 2, 2)
    assert buffer.raw == ["a\n", "b\n", "c"]


def test_a_whole_new_text_gives_the_splices_last_first() -> None:
    buffer = _buffer("a\nb\nc\nd\n")
    splices = buffer.replace_all(Text.from_string("a\nB\nc\nd\ne\n"))
    assert splices == [Splice(4, 4, 1), Splice(1, 2, 1)]


def _apply(text: str, replacements: list) -> str:  # type: ignore[type-arg]
    lines = text.split("\n")
    out = text
    for r in sorted(replacements, key=lambda r: (r.start.line, r.start.column), reverse=True):
        start = _offset(lines, r.start)
        end = _offset(lines, r.end)
        out = out[:start] + r.text + out[end:]
    return out


def _offset(lines: list[str], point: Point) -> int:
    return sum(len(line) + 1 for line in lines[: point.line]) + point.column


texts = st.lists(st.sampled_from(["a", "b", "", "c c"]), max_size=6).flatmap(
    lambda lines: st.tuples(st.just(lines), st.booleans())
)


@given(
    texts,
    st.integers(0, 6),
    st.integers(0, 3),
    st.lists(st.sampled_from(["x", "", "a"]), max_size=3),
    st.sampled_from([None, True, False]),
)
def test_a_replacement_gives_exactly_what_text_replace_gives(
    text: tuple[list[str], bool], start: int, length: int, new: list[str], final: bool | None
) -> None:
    lines, final_newline = text
    source = "\n".join(lines) + ("\n" if final_newline and lines else "")
    original = Text.from_string(source)
    start = min(start, original.line_count)
    end = min(start + length, original.line_count)
    edit = LineEdit(start, end, tuple(new))
    expected = original.replace([edit], final_newline=final).render()
    got = _apply(source, replacement(original.raw_lines, "\n", [edit], final_newline=final))
    assert got == expected


@given(
    texts,
    st.lists(
        st.tuples(st.integers(0, 6), st.integers(0, 2), st.lists(st.sampled_from(["x", ""]))),
        min_size=2,
        max_size=4,
    ),
    st.sampled_from([None, True, False]),
)
def test_replacements_of_several_edits_never_overlap_and_give_what_text_replace_gives(
    text: tuple[list[str], bool], wanted: list[tuple[int, int, list[str]]], final: bool | None
) -> None:
    # An editor refuses a WorkspaceEdit whose ranges overlap (LSP forbids it)
    lines, final_newline = text
    source = "\n".join(lines) + ("\n" if final_newline and lines else "")
    original = Text.from_string(source)
    edits: list[LineEdit] = []
    # Edits as the store makes them: in order, none overlapping the one before; one may
    # start where the one before ends (two insertions at one point, an insertion and a
    # replacement of the line below it).
    taken = 0
    for start, length, new in sorted(wanted):
        start = min(max(start, taken), original.line_count)
        end = min(start + length, original.line_count)
        edits.append(LineEdit(start, end, tuple(new)))
        taken = end
    expected = original.replace(edits, final_newline=final).render()
    got = replacement(original.raw_lines, "\n", edits, final_newline=final)
    ordered = sorted(got, key=lambda r: (r.start.line, r.start.column))
    for before, after in itertools.pairwise(ordered):
        assert (before.end.line, before.end.column) <= (after.start.line, after.start.column)
    assert _apply(source, got) == expected


def test_deleting_the_last_line_of_a_file_without_final_newline_beside_a_changed_line() -> None:
    # the deletion takes the newline of the line above, which the other edit rewrites
    raw = ("v0\r\n", "v54\r\n", "v5")
    edits = [LineEdit(1, 2, ("v0",)), LineEdit(2, 2, ("v60",)), LineEdit(2, 3, ())]
    got = replacement(raw, "\r\n", edits)
    assert len(got) == 1
    assert (got[0].start, got[0].end, got[0].text) == (Point(1, 0), Point(2, 2), "v0\r\nv60")


def test_a_replacement_keeps_crlf_and_untouched_lines() -> None:
    raw = ("a\r\n", "b\r\n", "c\r\n")
    (change,) = replacement(raw, "\r\n", [LineEdit(1, 2, ("B",))])
    assert (change.start, change.end, change.text) == (Point(1, 0), Point(2, 0), "B\r\n")


@given(
    st.text(alphabet="ab\n\r", max_size=12),
    st.integers(0, 4),
    st.integers(0, 3),
    st.integers(0, 4),
    st.integers(0, 3),
    st.text(alphabet="x\n", max_size=4),
)
def test_the_tracked_lines_stay_the_editors_text(
    text: str, line: int, column: int, end_line: int, end_column: int, typed: str
) -> None:
    buffer = _buffer(text)
    lines = Text.from_string(text).lines or [""]
    start = Point(min(line, len(lines)), column)
    end = Point(min(max(end_line, start.line), len(lines)), end_column)
    if (end.line, end.column) < (start.line, start.column):
        end = start
    # The editor's own view: offsets of the points, columns clamped to each line.
    raw = Text.from_string(text).raw_lines

    def offset(point: Point) -> int:
        if point.line >= len(raw):
            return len(text)
        content = raw[point.line].rstrip("\r\n")
        return sum(len(r) for r in raw[: point.line]) + min(point.column, len(content))

    expected = text[: offset(start)] + typed + text[max(offset(start), offset(end)) :]
    assert buffer.text().render() == text
    splice = buffer.edit(start, end, typed)
    assert "".join(buffer.raw) == expected
    assert buffer.text().render() == expected  # (not the text made before the edit)
    assert splice.count >= 0 and splice.start <= splice.end


@given(st.lists(st.text(alphabet="ab\n\r", max_size=6), max_size=5))
def test_text_added_at_the_end_is_in_the_buffers_text(parts: list[str]) -> None:
    buffer = TrackedBuffer(())
    for part in parts:
        buffer.text()
        buffer.append(part)
        assert buffer.text() == Text.from_string("".join(buffer.raw))
    assert buffer.text().render() == "".join(parts)


def test_a_whole_new_text_is_the_buffers_text() -> None:
    buffer = _buffer("a\nb\n")
    buffer.text()
    buffer.replace_all(Text.from_string("a\nc\n"))
    assert buffer.text().render() == "a\nc\n"
