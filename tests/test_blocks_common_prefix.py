"""`««« EDIT` blocks (edit format v3): both layouts, the parser test list of the
format's document, and malformed blocks skipped while parsing continues."""

from lsp_edit.blocks import parse_reply
from lsp_edit.blocks.model import AnchoredEdit, Hunk, ReplySpan


def edit(path, old, new):
    return f"{path}\n««« EDIT\n{old}═══════ REPL\n{new}»»» EDIT END\n"


def anchored(lead, old, new, trail):
    return f"a.py\n««« EDIT\n{lead}───────\n{old}═══════\n{new}───────\n{trail}»»»\n"


def test_parse_single_block_keeps_both_halves_whole():
    assert parse_reply(
        edit("src/x.py", "def f():\n    return 1\n", "def f():\n    return 2\n")
    ) == [
        AnchoredEdit(
            ReplySpan(2, 8),
            "src/x.py",
            "common_prefix",
            (Hunk(("def f():", "    return 1"), ("def f():", "    return 2")),),
        )
    ]


def test_parse_multiple_blocks():
    reply = edit("a.py", "1\n", "2\n") + edit("b.py", "3\n", "4\n")
    assert [item.path for item in parse_reply(reply)] == ["a.py", "b.py"]


def test_parse_with_surrounding_text():
    reply = "I will change it.\n\n" + edit("a.py", "1\n", "2\n") + "\nDone.\n"
    (item,) = parse_reply(reply)
    assert item.hunks == (Hunk(("1",), ("2",)),)


def test_parse_file_path_with_spaces():
    assert parse_reply(edit("my dir/my file.py", "1\n", "2\n"))[0].path == "my dir/my file.py"


def test_prose_across_a_blank_line_names_no_file():
    reply = "Text\n   \n««« EDIT\n1\n═══════ REPL\n2\n»»» EDIT END\n" + edit("b.py", "3\n", "4\n")
    first, second = parse_reply(reply)
    assert first.path is None and second.path == "b.py"


def test_skip_unclosed_block():
    reply = "a.py\n««« EDIT\n1\n═══════ REPL\n2\n" + edit("b.py", "3\n", "4\n")
    problem, item = parse_reply(reply)
    assert problem.code == "unclosed_block" and problem.span == ReplySpan(2, 6)
    assert item.path == "b.py" and item.hunks == (Hunk(("3",), ("4",)),)


def test_skip_missing_content_separator():
    reply = "a.py\n««« EDIT\n1\n2\n»»» EDIT END\n" + edit("b.py", "3\n", "4\n")
    problem, item = parse_reply(reply)
    assert problem.code == "missing_separator" and "`═══════ REPL`" in problem.message
    assert problem.span == ReplySpan(2, 5) and item.path == "b.py"


def test_skip_missing_second_anchor_separator():
    reply = "a.py\n««« EDIT\nlead\n───────\nold\n═══════\nnew\n»»»\n"
    (problem,) = parse_reply(reply)
    assert problem.code == "missing_separator" and "second `───────`" in problem.message


def test_marker_mid_line_not_recognized():
    reply = edit("a.py", "x ═══════ REPL y\n", "»»» EDIT END here\n")
    assert parse_reply(reply)[0].hunks == (Hunk(("x ═══════ REPL y",), ("»»» EDIT END here",)),)


def test_explicit_anchors_surround_both_halves():
    assert parse_reply(anchored("a\n", "b\n", "c\n", "d\n"))[0].hunks == (
        Hunk(("a", "b", "d"), ("a", "c", "d")),
    )


def test_empty_leading_anchor():
    assert parse_reply(anchored("", "b\n", "c\n", "d\n"))[0].hunks == (
        Hunk(("b", "d"), ("c", "d")),
    )


def test_empty_old_lines():
    assert parse_reply(anchored("a\n", "", "c\n", "d\n"))[0].hunks == (
        Hunk(("a", "d"), ("a", "c", "d")),
    )


def test_empty_new_lines():
    assert parse_reply(anchored("a\n", "b\n", "", "d\n"))[0].hunks == (
        Hunk(("a", "b", "d"), ("a", "d")),
    )


def test_empty_trailing_anchor():
    assert parse_reply(anchored("a\n", "b\n", "c\n", ""))[0].hunks == (
        Hunk(("a", "b"), ("a", "c")),
    )


def test_all_sections_empty_except_new():
    assert parse_reply(anchored("", "", "print(1)\n", ""))[0].hunks == (Hunk((), ("print(1)",)),)


def test_all_lines_matching_keeps_both_halves_for_the_resolver():
    assert parse_reply(edit("a.py", "x\ny\n", "x\ny\nz\n"))[0].hunks == (
        Hunk(("x", "y"), ("x", "y", "z")),
    )


def test_preserves_internal_blank_lines():
    assert parse_reply(edit("a.py", "a\n\nb\n", "a\n\n\nb\n"))[0].hunks == (
        Hunk(("a", "", "b"), ("a", "", "", "b")),
    )


def test_preserves_indentation():
    assert parse_reply(edit("a.py", "    x\n\ty\n", "        x\n"))[0].hunks == (
        Hunk(("    x", "\ty"), ("        x",)),
    )


def test_nested_opener_in_the_old_half_is_content():
    reply = "a.py\n««« EDIT\nouter\n««« EDIT\ninner\n═══════ REPL\nnew\n»»» EDIT END\n"
    assert parse_reply(reply)[0].hunks == (Hunk(("outer", "««« EDIT", "inner"), ("new",)),)


def test_bare_separator_and_closer_variants():
    reply = "a.py\n««« EDIT\n1\n═══════\n2\n»»»\n"
    assert parse_reply(reply)[0].hunks == (Hunk(("1",), ("2",)),)


def test_empty_response_and_response_without_blocks_give_nothing():
    assert parse_reply("") == []
    assert parse_reply("Just an explanation.\nNo edits here.\n") == []
