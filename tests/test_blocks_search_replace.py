"""SEARCH/REPLACE blocks: markers, paths, aider's fenced layout, and every
malformed shape skipped with a problem while parsing continues."""

from lsp_edit.blocks import parse_reply
from lsp_edit.blocks.model import AnchoredEdit, Hunk, ParseProblem, ReplySpan

F = "```"


def block(path, old, new):
    return f"{path}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"


def test_single_block_gives_one_hunk_with_both_halves():
    assert parse_reply(block("src/x.py", "a\n", "b\n")) == [
        AnchoredEdit(ReplySpan(2, 6), "src/x.py", "search_replace", (Hunk(("a",), ("b",)),))
    ]


def test_blocks_among_prose_are_found_in_reply_order():
    reply = "Intro.\n\n" + block("a.py", "1\n", "2\n") + "\nThen:\n\n" + block("b.py", "3\n", "4\n")
    assert [item.path for item in parse_reply(reply)] == ["a.py", "b.py"]


def test_path_with_spaces_is_the_whole_stripped_line():
    assert parse_reply(block("  docs/my notes.md  ", "a\n", "b\n"))[0].path == "docs/my notes.md"


def test_prose_line_before_the_marker_is_taken_as_the_path():
    assert parse_reply(block("Change this:", "a\n", "b\n"))[0].path == "Change this"


def test_block_at_the_start_of_the_reply_has_no_path():
    reply = "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"
    assert parse_reply(reply)[0].path is None


def test_prose_across_a_blank_line_is_not_a_path_and_the_next_block_still_parses():
    reply = (
        "Fix:\n\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"
        + "x.py\n"
        + ("<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n")
    )
    first, second = parse_reply(reply)
    assert first.path is None and first.span == ReplySpan(3, 7)
    assert second.path == "x.py" and second.hunks == (Hunk(("c",), ("d",)),)


def test_a_path_line_across_a_blank_line_names_the_file():
    reply = "src/x.py\n\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"
    assert parse_reply(reply)[0].path == "src/x.py"


def test_empty_search_creates_a_file():
    assert parse_reply(block("new.py", "", "print(1)\n"))[0].hunks == (Hunk((), ("print(1)",)),)


def test_empty_replace_deletes_the_lines():
    assert parse_reply(block("a.py", "x\n", ""))[0].hunks == (Hunk(("x",), ()),)


def test_marker_lengths_from_five_to_nine_and_trailing_words_are_accepted():
    reply = "a.py\n<<<<< SEARCH\nx\n========= divider\ny\n>>>>>>>>> REPLACE\n"
    assert parse_reply(reply)[0].hunks == (Hunk(("x",), ("y",)),)


def test_git_conflict_opener_with_another_word_is_not_a_block():
    assert parse_reply("<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> main\n") == []


def test_marker_in_the_middle_of_a_line_is_content():
    reply = block("a.py", "x = '<<<<<<< SEARCH'\ny ======= z\n", "w\n")
    assert parse_reply(reply)[0].hunks[0].old_lines == ("x = '<<<<<<< SEARCH'", "y ======= z")


def test_indentation_and_internal_blank_lines_are_kept():
    reply = block("a.py", "    if x:\n\n        go()\n", "\tdone()\n")
    assert parse_reply(reply)[0].hunks == (Hunk(("    if x:", "", "        go()"), ("\tdone()",)),)


def test_aider_layout_path_then_fence_then_markers():
    reply = f"src/x.py\n{F}python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n{F}\n"
    assert parse_reply(reply) == [
        AnchoredEdit(ReplySpan(3, 7), "src/x.py", "search_replace", (Hunk(("a",), ("b",)),))
    ]


def test_path_as_the_first_line_inside_the_fence():
    reply = f"{F}\nsrc/x.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n{F}\n"
    assert parse_reply(reply)[0].path == "src/x.py"


def test_following_block_without_its_own_path_line_keeps_the_previous_path():
    reply = (
        f"src/x.py\n{F}python\n"
        + (
            "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n\n"
            "<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n"
        )
        + f"{F}\n"
    )
    assert [item.path for item in parse_reply(reply)] == ["src/x.py", "src/x.py"]


def test_fences_inside_the_halves_are_content():
    reply = (
        f"README.md\n{F}markdown\n<<<<<<< SEARCH\n{F}bash\nls\n{F}\n"
        f"=======\n{F}sh\nls\n{F}\n>>>>>>> REPLACE\n{F}\n"
    )
    assert parse_reply(reply)[0].hunks == (Hunk((f"{F}bash", "ls", F), (f"{F}sh", "ls", F)),)


def test_missing_divider_is_missing_separator_and_parsing_continues():
    reply = "a.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n" + block("b.py", "1\n", "2\n")
    problem, edit = parse_reply(reply)
    assert problem == ParseProblem(ReplySpan(2, 4), "missing_separator", problem.message, "a.py")
    assert "no `=======` line" in problem.message and "line 4" in problem.message
    assert edit.path == "b.py"


def test_unclosed_block_followed_by_a_complete_one_reports_the_first_and_keeps_the_second():
    reply = "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n\nb.py\n" + (
        "<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n"
    )
    problem, edit = parse_reply(reply)
    assert problem.code == "unclosed_block" and problem.span == ReplySpan(2, 7)
    assert "new block opened at line 8" in problem.message
    assert edit == AnchoredEdit(ReplySpan(8, 12), "b.py", "search_replace", (Hunk(("1",), ("2",)),))


def test_unclosed_block_at_the_end_of_the_reply_is_reported_at_finish():
    (problem,) = parse_reply("a.py\n<<<<<<< SEARCH\nx\n")
    assert problem.code == "unclosed_block" and problem.span == ReplySpan(2, 3)
    assert "expected `=======` and `>>>>>>> REPLACE`" in problem.message


def test_nested_opener_inside_the_search_half_is_content_and_the_outer_block_wins():
    reply = block("a.py", "x\n<<<<<<< SEARCH\ny\n", "z\n")
    assert parse_reply(reply)[0].hunks == (Hunk(("x", "<<<<<<< SEARCH", "y"), ("z",)),)


def test_markers_inside_a_fence_with_an_edit_target_are_never_written():
    reply = f"a.py\n{F}python:A-f\n<<<<<<< SEARCH\nx\n=======\n{F}\n"
    (problem,) = parse_reply(reply)
    assert problem.code == "markers_in_content" and "`<<<<<<< SEARCH`" in problem.message


def test_block_after_a_fence_of_output_names_no_file():
    reply = f"{F}\nout\n{F}\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"
    _, edit = parse_reply(reply)
    assert edit.path is None


def test_a_divider_right_before_the_closer_is_a_stray_marker():
    (edit,) = parse_reply(block("a.py", "x\n", "y\n=======\n"))
    assert edit.hunks == (Hunk(("x",), ("y",)),) and edit.splits == ()


def test_two_dividers_then_the_closer_mean_an_empty_replacement():
    (edit,) = parse_reply(block("a.py", "x\n", "=======\n"))
    assert edit.hunks == (Hunk(("x",), ()),) and edit.splits == ()


def test_a_divider_where_the_closer_should_be_ends_the_block_before_the_fence():
    reply = f"a.py\n{F}python\n<<<<<<< SEARCH\nx\n=======\ny\n=======\n{F}\n"
    (edit,) = parse_reply(reply)
    assert edit.hunks == (Hunk(("x",), ("y",)),) and edit.span == ReplySpan(3, 7)


def test_a_divider_where_the_closer_should_be_ends_the_block_before_the_next_one():
    reply = "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n=======\n\n" + block("b.py", "z\n", "w\n")
    first, second = parse_reply(reply)
    assert first.hunks == (Hunk(("x",), ("y",)),) and first.span == ReplySpan(2, 6)
    assert second.path == "b.py"


def test_a_block_with_dividers_inside_keeps_each_other_split_for_the_resolver():
    (edit,) = parse_reply(block("a.rst", "Title\n=======\ntext\n", "Title\n=======\nnew\n"))
    assert edit.hunks == (Hunk(("Title",), ("text", "=======", "Title", "=======", "new")),)
    assert edit.splits == (
        Hunk(("Title", "=======", "text"), ("Title", "=======", "new")),
        Hunk(("Title", "=======", "text", "=======", "Title"), ("new",)),
    )


def test_a_fence_closing_the_wrapper_after_a_second_divider_ends_the_block_with_any_line_ending():
    reply = "```python\nsrc/x.py\n<<<<<<< SEARCH\na\n=======\nb\n=======\n```\n>>>>>>> REPLACE\n"
    for ending in ("\n", "\r\n", "\r"):
        (block, *_) = parse_reply(reply.replace("\n", ending))
        assert isinstance(block, AnchoredEdit)
        assert block.hunks == (Hunk(("a",), ("b",)),)
        assert block.span == ReplySpan(3, 7)


def test_an_opener_and_a_closer_longer_than_nine_are_markers_with_their_word():
    reply = "f.txt\n<<<<<<<<<<< SEARCH\ncontent\n=====\nnew content\n>>>>>>>>>>>> REPLACE\n"
    (block,) = parse_reply(reply)
    assert isinstance(block, AnchoredEdit)
    assert block.hunks == (Hunk(("content",), ("new content",)),)


def test_a_long_run_of_angle_brackets_without_the_word_is_not_an_opener():
    assert parse_reply("f.txt\n<<<<<<<<<<<<\ncontent\n=====\nx\n>>>>>>> REPLACE\n") == []
