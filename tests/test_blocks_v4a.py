"""V4A patches: updates as hunks with scope, adds, deletes, moves, and malformed
sections skipped without losing the other files."""

from lsp_edit.blocks import ReplyStream, parse_reply
from lsp_edit.blocks.model import AnchoredEdit, CreateFile, DeleteFile, Hunk, ReplySpan

F = "```"


def patch(body):
    return f"*** Begin Patch\n{body}*** End Patch\n"


def test_update_file_hunk_has_context_and_removed_as_old_and_context_and_added_as_new():
    reply = patch("*** Update File: src/app.py\n@@\n a\n-b\n+c\n d\n")
    assert parse_reply(reply) == [
        AnchoredEdit(
            ReplySpan(2, 7), "src/app.py", "v4a", (Hunk(("a", "b", "d"), ("a", "c", "d")),)
        )
    ]


def test_stacked_scope_lines_all_go_into_the_hunk_scope():
    reply = patch("*** Update File: a.py\n@@ class A\n@@     def f(self):\n-x\n+y\n")
    assert parse_reply(reply)[0].hunks == (Hunk(("x",), ("y",), None, ("class A", "def f(self):")),)


def test_each_at_at_section_is_its_own_hunk():
    reply = patch("*** Update File: a.py\n@@ def f\n-1\n+2\n@@ def g\n-3\n+4\n")
    assert parse_reply(reply)[0].hunks == (
        Hunk(("1",), ("2",), None, ("def f",)),
        Hunk(("3",), ("4",), None, ("def g",)),
    )


def test_lines_before_any_at_at_form_a_hunk_without_scope():
    assert parse_reply(patch("*** Update File: a.py\n-1\n+2\n"))[0].hunks == (Hunk(("1",), ("2",)),)


def test_blank_line_inside_a_hunk_is_an_empty_context_line_and_trailing_ones_are_dropped():
    reply = patch("*** Update File: a.py\n@@\n a\n\n-b\n+c\n\n\n")
    assert parse_reply(reply)[0].hunks == (Hunk(("a", "", "b"), ("a", "", "c")),)


def test_add_file_is_create_file_with_the_plus_lines():
    reply = patch("*** Add File: src/new.py\n+import os\n+\n+print(1)\n")
    assert parse_reply(reply) == [
        CreateFile(ReplySpan(2, 5), "src/new.py", ("import os", "", "print(1)"), "v4a")
    ]


def test_delete_file_is_delete_file():
    assert parse_reply(patch("*** Delete File: old.py\n")) == [
        DeleteFile(ReplySpan(2, 2), "old.py", "v4a")
    ]


def test_move_to_sets_the_new_path():
    reply = patch("*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n")
    assert parse_reply(reply)[0].move_to == "b.py"


def test_end_of_file_marker_marks_the_hunk_as_the_end_of_the_file():
    reply = patch("*** Update File: a.py\n@@\n-x\n+y\n*** End of File\n")
    assert parse_reply(reply)[0].hunks == (Hunk(("x",), ("y",), at_end=True),)


def test_markers_with_leading_spaces_are_markers():
    reply = "*** Begin Patch\n  *** Update File: a.py\n@@\n-x\n+y\n  *** End Patch\n"
    (edit,) = parse_reply(reply)
    assert edit.path == "a.py" and edit.hunks == (Hunk(("x",), ("y",)),)


def test_a_patch_without_its_begin_line_starts_at_its_first_file_header():
    (created,) = parse_reply("*** Add File: test.ts\n+content\n*** End Patch")
    assert created == CreateFile(ReplySpan(1, 2), "test.ts", ("content",), "v4a")


def test_a_patch_without_its_begin_line_in_a_fence_ends_with_the_fence():
    reply = "```\n*** Update File: a.py\n@@\n-x\n+y\n```\n"
    (edit,) = parse_reply(reply)
    assert edit.path == "a.py" and edit.hunks == (Hunk(("x",), ("y",)),)


def test_several_files_in_one_patch_in_order():
    reply = patch(
        "*** Update File: a.py\n@@\n-1\n+2\n*** Add File: b.py\n+b\n*** Delete File: c.py\n"
        "*** Update File: d.py\n@@\n-3\n+4\n"
    )
    assert [(type(item).__name__, item.path) for item in parse_reply(reply)] == [
        ("AnchoredEdit", "a.py"),
        ("CreateFile", "b.py"),
        ("DeleteFile", "c.py"),
        ("AnchoredEdit", "d.py"),
    ]


def test_each_file_is_reported_as_soon_as_the_next_header_arrives():
    stream = ReplyStream()
    assert stream.feed("*** Begin Patch\n*** Update File: a.py\n@@\n-1\n+2\n") == []
    (first,) = stream.feed("*** Update File: b.py\n")
    assert first.path == "a.py"


def test_unprefixed_line_makes_that_file_malformed_and_the_next_file_still_counts():
    reply = patch("*** Update File: a.py\n@@\n-x\ny\n+z\n*** Update File: b.py\n@@\n-1\n+2\n")
    problem, edit = parse_reply(reply)
    assert problem.code == "malformed_patch" and problem.path == "a.py"
    assert problem.span == ReplySpan(2, 6) and "line 5 `y`" in problem.message
    assert edit.path == "b.py"


def test_update_without_changes_is_malformed():
    (problem,) = parse_reply(patch("*** Update File: a.py\n"))
    assert problem.code == "malformed_patch" and "has no changes" in problem.message


def test_text_outside_a_file_section_is_malformed():
    (problem,) = parse_reply(patch("*** Modify File: a.py\n-x\n"))
    assert problem.code == "malformed_patch" and "outside any file section" in problem.message


def test_reply_ending_inside_a_section_reports_it_unclosed():
    (problem,) = parse_reply("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n")
    assert problem.code == "unclosed_block" and problem.span == ReplySpan(2, 5)


def test_closing_fence_ends_a_patch_without_end_patch():
    reply = f"{F}\n*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n{F}\nDone.\n"
    assert parse_reply(reply)[0].hunks == (Hunk(("x",), ("y",)),)


def test_fence_lines_inside_a_hunk_are_content():
    reply = patch(f"*** Update File: README.md\n@@\n {F}bash\n-ls\n+ls -la\n {F}\n")
    assert parse_reply(reply)[0].hunks == (Hunk((f"{F}bash", "ls", F), (f"{F}bash", "ls -la", F)),)


def test_a_patch_without_begin_or_end_lines_ending_on_context_is_whole():
    (edit,) = parse_reply("*** Update File: a.py\n@@\n x\n-y\n+z\n w\n")
    assert edit.hunks == (Hunk(("x", "y", "w"), ("x", "z", "w")),)


def test_a_patch_without_begin_or_end_lines_ending_on_a_change_may_be_cut_off():
    (problem,) = parse_reply("*** Update File: a.py\n@@\n x\n-y\n+z\n")
    assert problem.code == "unclosed_block"


def test_a_patch_with_its_begin_line_but_no_end_line_may_be_cut_off():
    (problem,) = parse_reply("*** Begin Patch\n*** Update File: a.py\n@@\n x\n-y\n+z\n w\n")
    assert problem.code == "unclosed_block"
