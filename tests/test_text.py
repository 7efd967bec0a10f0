"""A document's text: line endings detected and kept, final newline kept, untouched
lines byte-identical."""

import itertools

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from lsp_edit.text import (
    Draft,
    LineEdit,
    Text,
    detect_line_ending,
    split_content,
    split_lines,
    strip_ending,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\r\nb\nc\r", "\r\n"),
        ("a\nb\rc", "\n"),
        ("a\rb\r", "\r"),
        ("no ending", "\n"),
        ("", "\n"),
    ],
)
def test_line_ending_detection_prefers_crlf_then_lf_then_cr_then_falls_back_to_lf(text, expected):
    assert detect_line_ending(text) == expected


def test_split_keeps_each_lines_own_ending():
    assert split_lines("a\r\nb\nc\rd") == ["a\r\n", "b\n", "c\r", "d"]
    assert split_lines("") == []
    assert split_lines("\n") == ["\n"]


def test_split_does_not_break_lines_on_form_feed_or_unicode_separators():
    assert split_content("a\x0cb\u2028c\x85d\n") == ["a\x0cb\u2028c\x85d"]


def test_replacing_a_line_in_a_crlf_file_writes_crlf():
    text = Text.from_string("a\r\nb\r\nc\r\n")
    assert text.replace([LineEdit(1, 2, ("X", "Y"))]).render() == "a\r\nX\r\nY\r\nc\r\n"


def test_file_without_final_newline_keeps_lacking_one_after_editing_its_last_line():
    text = Text.from_string("a\nb")
    assert text.replace([LineEdit(1, 2, ("B",))]).render() == "a\nB"


def test_appending_after_a_last_line_without_newline_separates_the_lines():
    text = Text.from_string("a\r\nb\r\nc")
    assert text.replace([LineEdit(3, 3, ("Z",))]).render() == "a\r\nb\r\nc\r\nZ"


def test_deleting_the_last_line_leaves_no_stray_newline():
    assert Text.from_string("a\nb").replace([LineEdit(1, 2, ())]).render() == "a"
    assert Text.from_string("a\nb\n").replace([LineEdit(1, 2, ())]).render() == "a\n"


def test_deleting_every_line_leaves_an_empty_file():
    assert Text.from_string("a\nb\n").replace([LineEdit(0, 2, ())]).render() == ""


def test_new_file_content_gets_a_final_newline():
    assert Text(()).replace([LineEdit(0, 0, ("x", "y"))]).render() == "x\ny\n"


def test_final_newline_override_decides_the_ending():
    text = Text.from_string("a\nb")
    assert text.replace([LineEdit(2, 2, ("c",))], final_newline=True).render() == "a\nb\nc\n"


def test_mixed_endings_of_untouched_lines_stay_as_they_were():
    text = Text.from_string("a\r\nb\nc\r\nd\n")
    assert text.eol == "\r\n"
    assert text.replace([LineEdit(2, 3, ("C",))]).render() == "a\r\nb\nC\r\nd\n"


def test_bom_is_kept():
    text = Text.from_string("\ufeffa\nb\n")
    assert text.lines == ["a", "b"]
    assert text.replace([LineEdit(0, 1, ("A",))]).render() == "\ufeffA\nb\n"


def test_overlapping_edits_are_a_bug_and_raise():
    with pytest.raises(ValueError):
        Text.from_string("a\nb\nc\n").replace([LineEdit(0, 2, ()), LineEdit(1, 3, ())])


def test_several_edits_apply_against_the_same_original():
    text = Text.from_string("1\n2\n3\n4\n")
    result = text.replace([LineEdit(3, 4, ("four",)), LineEdit(0, 1, ("one", "uno"))])
    assert result.render() == "one\nuno\n2\n3\nfour\n"


@given(st.text(alphabet="ab \t\r\n\u2028"))
def test_rendering_an_unedited_text_gives_back_the_same_string(source):
    assert Text.from_string(source).render() == source


@given(
    st.lists(st.text(alphabet="ab \t"), max_size=6),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
)
def test_lines_and_ending_survive_a_no_op_edit(lines, eol, final):
    source = eol.join(lines) + (eol if final and lines else "")
    text = Text.from_string(source)
    if text.line_count:
        kept = text.replace([LineEdit(0, 1, (text.lines[0],))])
        assert kept.render() == source


@given(st.text(alphabet="ab\r\n\u2028"))
def test_lines_are_the_raw_lines_without_their_endings(source):
    text = Text.from_string(source)
    assert text.lines == [strip_ending(line) for line in text.raw_lines]


@given(
    st.lists(st.text(alphabet="ab"), max_size=5),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
    st.integers(0, 6),
    st.integers(0, 3),
    st.lists(st.text(alphabet="xy"), max_size=3),
)
def test_lines_after_an_edit_match_a_fresh_split_of_the_result(
    lines, eol, final, start, length, new
):
    # One ending per file: a lone CR line followed by an inserted empty LF line
    # would read back as one CRLF line, which no real file mixes.
    text = Text.from_string(eol.join(lines) + (eol if final else ""))
    start = min(start, text.line_count)
    end = min(start + length, text.line_count)
    edited = text.replace([LineEdit(start, end, tuple(new))])
    assert edited.lines == Text.from_string(edited.render()).lines


# Edits one after another, each given against the text the one before left:
# (start, end, new lines, final newline wanted) with positions taken modulo the size.
_EDITS = st.lists(
    st.tuples(
        st.integers(0, 50),
        st.integers(0, 3),
        st.lists(st.sampled_from(["", "x", "y", "  z"]), max_size=3),
        st.sampled_from([None, None, True, False]),
    ),
    max_size=8,
)


@given(
    content=st.lists(st.sampled_from(["a\n", "b\r\n", "\n", "c", "a\r"]), max_size=8).map("".join),
    bom=st.booleans(),
    edits=_EDITS,
)
def test_a_draft_changed_edit_after_edit_reads_as_the_same_edits_made_to_a_text(
    content, bom, edits
):
    text = Text.from_string(("\ufeff" if bom else "") + content)
    draft = Draft(text)
    for start, length, new_lines, final_newline in edits:
        start = start % (text.line_count + 1)
        edit = LineEdit(start, min(start + length, text.line_count), tuple(new_lines))
        text = text.replace([edit], final_newline=final_newline)
        draft.replace([edit], final_newline=final_newline)
        assert draft.lines == text.lines
    result = draft.text()
    assert (result.raw_lines, result.bom, result.eol) == (text.raw_lines, text.bom, text.eol)
    assert result.lines == text.lines


@given(
    lines=st.lists(st.sampled_from(["", "a", "b b"]), max_size=6),
    eol=st.sampled_from(["\n", "\r\n", "\r"]),
    final=st.booleans(),
    bom=st.booleans(),
    edits=_EDITS,
)
# a file emptied keeps its ending for lines written next; an empty one gets LF
@example(lines=["a"], eol="\r", final=True, bom=False, edits=[(0, 1, [], None), (0, 0, [], None)])
@example(
    lines=["a"], eol="\r", final=True, bom=False, edits=[(0, 1, [], None), (0, 0, ["x"], None)]
)
def test_a_file_whose_lines_end_alike_edits_as_the_same_text_given_line_by_line(
    lines, eol, final, bom, edits
):
    source = eol.join(lines) + (eol if final and lines else "")
    read = Text.from_string(("\ufeff" if bom else "") + source)
    given_raw = Text(read.raw_lines, bom)
    assert read == given_raw and hash(read) == hash(given_raw)
    draft = Draft(read)
    for start, length, new_lines, final_newline in edits:
        start = start % (read.line_count + 1)
        edit = LineEdit(start, min(start + length, read.line_count), tuple(new_lines))
        read = read.replace([edit], final_newline=final_newline)
        given_raw = given_raw.replace([edit], final_newline=final_newline)
        draft.replace([edit], final_newline=final_newline)
        for text in (read, draft.text()):
            assert text == given_raw
            assert (text.render(), text.lines, text.eol) == (
                given_raw.render(),
                given_raw.lines,
                given_raw.eol,
            )
            assert (text.final_newline, text.line_count) == (
                given_raw.final_newline,
                given_raw.line_count,
            )


def test_a_draft_keeps_the_text_it_was_made_from_unchanged() -> None:
    text = Text.from_string("one\r\ntwo\r\nthree")
    draft = Draft(text)
    draft.replace([LineEdit(1, 2, ("TWO", "2"))])
    assert text.render() == "one\r\ntwo\r\nthree"
    assert draft.text().render() == "one\r\nTWO\r\n2\r\nthree"


@given(st.text(alphabet="a\r\n\x0b\x0c\x1c\x85\u2028"))
def test_a_line_ends_only_at_a_line_feed_a_carriage_return_or_both(source):
    lines = split_lines(source)
    assert "".join(lines) == source
    assert all(line for line in lines)
    for line in lines:
        body = strip_ending(line)
        assert "\r" not in body and "\n" not in body
    for line, after in itertools.pairwise(lines):
        assert line.endswith(("\n", "\r"))
        assert not (line.endswith("\r") and after.startswith("\n"))  # CRLF is one ending


@given(st.text(alphabet="ab\r\n\ufeff", max_size=20), st.integers(0, 4), st.integers(0, 4))
def test_a_slice_of_lines_and_the_lines_joined_are_those_of_the_whole_text(
    content: str, start: int, end: int
) -> None:
    text = Text.from_string(content)
    edited = text.replace([LineEdit(0, min(1, text.line_count), ("x",))])
    for each in (text, edited):
        assert each.raw_slice(start, end) == list(each.raw_lines[start:end])
        assert each.lines_joined() == "\n".join(each.lines)
