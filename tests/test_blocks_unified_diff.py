"""Unified diffs: headers, hunks delimited by their counts, creations, deletions,
renames, several files, and the miscounts that are refused."""

from lsp_edit.blocks import parse_reply
from lsp_edit.blocks.model import (
    AnchoredEdit,
    CreateFile,
    DeleteFile,
    Hunk,
    ParseProblem,
    ReplySpan,
)

F = "```"


def test_one_hunk_with_prefixes_stripped_and_the_old_start_as_hint():
    reply = "--- a/src/x.py\n+++ b/src/x.py\n@@ -3,3 +3,3 @@ def f():\n a\n-b\n+c\n d\n"
    assert parse_reply(reply) == [
        AnchoredEdit(
            ReplySpan(1, 7),
            "src/x.py",
            "unified_diff",
            (Hunk(("a", "b", "d"), ("a", "c", "d"), 3),),
        )
    ]


def test_git_header_and_timestamps_are_read():
    reply = (
        "diff --git a/x.py b/x.py\nindex 83db48f..bf269f4 100644\n"
        "--- a/x.py\t2024-01-01 10:00:00\n+++ b/x.py\t2024-01-02 10:00:00\n@@ -1 +1 @@\n-a\n+b\n"
    )
    assert parse_reply(reply) == [
        AnchoredEdit(ReplySpan(1, 7), "x.py", "unified_diff", (Hunk(("a",), ("b",), 1),))
    ]


def test_insertion_at_line_zero_gets_hint_one():
    reply = "--- a/x.py\n+++ b/x.py\n@@ -0,0 +1,1 @@\n+first\n"
    assert parse_reply(reply)[0].hunks == (Hunk((), ("first",), 1),)


def test_several_hunks_and_several_files():
    reply = (
        "--- a/x.py\n+++ b/x.py\n@@ -1,1 +1,1 @@\n-a\n+b\n@@ -9,1 +9,1 @@\n-c\n+d\n"
        "--- a/y.py\n+++ b/y.py\n@@ -2,1 +2,1 @@\n-e\n+f\n"
    )
    first, second = parse_reply(reply)
    assert first.path == "x.py" and [h.hint_line for h in first.hunks] == [1, 9]
    assert second == AnchoredEdit(
        ReplySpan(9, 13), "y.py", "unified_diff", (Hunk(("e",), ("f",), 2),)
    )


def test_removed_line_that_looks_like_a_header_is_content_while_counts_remain():
    reply = "--- a/x.sql\n+++ b/x.sql\n@@ -1,2 +1,1 @@\n--- old comment\n-- keep\n+-- keep\n"
    assert parse_reply(reply)[0].hunks == (Hunk(("-- old comment", "- keep"), ("-- keep",), 1),)


def test_from_dev_null_creates_the_file():
    reply = "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+a\n+b\n"
    assert parse_reply(reply) == [CreateFile(ReplySpan(1, 5), "new.py", ("a", "b"), "unified_diff")]


def test_to_dev_null_deletes_the_file():
    reply = "--- a/old.py\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a\n"
    assert parse_reply(reply) == [DeleteFile(ReplySpan(1, 4), "old.py", "unified_diff")]


def test_rename_headers_give_move_to():
    reply = (
        "diff --git a/old.py b/new.py\nsimilarity index 90%\nrename from old.py\nrename to new.py\n"
        "--- a/old.py\n+++ b/new.py\n@@ -1 +1 @@\n-a\n+b\n"
    )
    (edit,) = parse_reply(reply)
    assert edit.path == "old.py" and edit.move_to == "new.py"


def test_no_newline_marker_after_both_sides_says_the_new_file_ends_without_one():
    reply = (
        "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n"
        "+b\n\\ No newline at end of file\n"
    )
    assert parse_reply(reply)[0].hunks == (Hunk(("a",), ("b",), 1, final_newline=False),)


def test_no_newline_marker_after_the_old_side_only_says_the_new_file_ends_with_one():
    reply = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
    assert parse_reply(reply)[0].hunks == (Hunk(("a", "b"), ("a", "b"), 1, final_newline=True),)


def test_no_newline_marker_after_a_context_line_holds_for_both_sides():
    reply = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n"
    assert parse_reply(reply)[0].hunks == (Hunk(("a", "b"), ("A", "b"), 1, final_newline=False),)


def test_a_file_from_dev_null_marked_without_final_newline_is_created_without_one():
    reply = "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n"
    assert parse_reply(reply) == [
        CreateFile(ReplySpan(1, 6), "new.py", ("a", "b"), "unified_diff", final_newline=False)
    ]


def test_diff_fence_with_miscounted_hunk_ending_at_the_fence_is_taken_as_written():
    reply = f"{F}diff\n--- a/x.py\n+++ b/x.py\n@@ -1,5 +1,5 @@\n a\n-b\n+c\n{F}\n"
    assert parse_reply(reply)[0].hunks == (Hunk(("a", "b"), ("a", "c"), 1),)


def test_hunk_without_counts_ends_at_the_first_unprefixed_line():
    reply = "--- a/x.py\n+++ b/x.py\n@@ @@\n-a\n+b\n\nThat is all.\n"
    assert parse_reply(reply)[0].hunks == (Hunk(("a",), ("b",)),)


def test_unprefixed_line_inside_a_counted_hunk_is_malformed():
    reply = "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n def f():\nreturn 1\n-x\n+y\n"
    problem = parse_reply(reply)[0]
    assert problem.code == "malformed_diff" and problem.path == "x.py"
    assert (
        "line 5 `return 1`" in problem.message
        and "declares 3 old and 3 new lines" in problem.message
    )


def test_changed_line_after_the_counts_are_used_up_is_malformed():
    reply = "--- a/x.py\n+++ b/x.py\n@@ -1,1 +1,1 @@\n-a\n+b\n-c\n+d\n"
    problem = parse_reply(reply)[0]
    assert problem.code == "malformed_diff" and "line 6 `-c`" in problem.message


def test_reply_ending_on_a_change_inside_a_counted_hunk_is_unclosed():
    (problem,) = parse_reply("--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n-b\n")
    assert problem.code == "unclosed_block" and "may be cut off" in problem.message


def test_reply_ending_on_context_in_a_miscounted_hunk_takes_the_hunk_as_written():
    (edit,) = parse_reply("--- a/x.py\n+++ b/x.py\n@@ -1,9 +1,9 @@\n a\n-b\n+B\n c")
    assert edit.hunks == (Hunk(("a", "b", "c"), ("a", "B", "c"), 1),)


def test_minus_line_without_plus_line_is_prose():
    assert parse_reply("--- not a diff\nJust text.\n") == []


def test_diff_fence_without_a_diff_is_malformed():
    (problem,) = parse_reply(f"{F}diff\n-old\n+new\n{F}\n")
    assert problem.code == "malformed_diff" and problem.span == ReplySpan(1, 4)


def test_diff_fence_may_hold_a_v4a_patch():
    reply = f"{F}patch\n*** Begin Patch\n*** Delete File: x.py\n*** End Patch\n{F}\n"
    assert parse_reply(reply) == [DeleteFile(ReplySpan(3, 3), "x.py", "v4a")]


def test_diff_in_a_python_fence_is_read_as_a_diff():
    reply = f"{F}python\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n{F}\n"
    assert parse_reply(reply)[0].hunks == (Hunk(("a",), ("b",), 1),)


def test_hunk_with_miscounted_header_ended_by_a_blank_line_and_prose_is_taken_as_written():
    reply = (
        "--- a/app.py\n+++ b/app.py\n@@ -90,7 +90,7 @@\n def reset(store):\n"
        "-    store.items = {}\n-    store.count = 0\n+    store.clear()\n\n"
        "That makes reset reuse clear.\n"
    )
    (edit,) = parse_reply(reply)
    assert isinstance(edit, AnchoredEdit)
    assert edit.hunks == (
        Hunk(
            ("def reset(store):", "    store.items = {}", "    store.count = 0"),
            ("def reset(store):", "    store.clear()"),
            hint_line=90,
        ),
    )


def test_prose_line_directly_inside_a_short_hunk_is_still_refused():
    reply = "--- a/app.py\n+++ b/app.py\n@@ -1,4 +1,4 @@\n a\n-b\n+c\nnot prefixed\n"
    (problem,) = [item for item in parse_reply(reply) if isinstance(item, ParseProblem)]
    assert problem.code == "malformed_diff"
    assert "declares 4 old and 4 new lines and has 2 and 2 so far" in problem.message


def test_a_diff_from_dev_null_whose_hunk_has_old_lines_edits_the_file():
    reply = "--- /dev/null\n+++ file.txt\n@@ -1 +1 @@\n-Original\n+Modified\n"
    assert parse_reply(reply) == [
        AnchoredEdit(
            ReplySpan(1, 5), "file.txt", "unified_diff", (Hunk(("Original",), ("Modified",), 1),)
        )
    ]


def test_hunks_without_file_headers_in_a_diff_fence_edit_the_file_named_before_it():
    reply = "src/f.txt\n```diff\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -5 +5 @@\n-e\n+E\n```\n"
    (edit,) = parse_reply(reply)
    assert isinstance(edit, AnchoredEdit)
    assert edit.path == "src/f.txt"
    assert [(h.old_lines, h.new_lines) for h in edit.hunks] == [
        (("a", "b", "c"), ("a", "B", "c")),
        (("e",), ("E",)),
    ]


def test_hunks_without_file_headers_and_no_path_go_to_the_default_target():
    (edit,) = parse_reply("Change it:\n\n```diff\n@@ -1 +1 @@\n-b\n+B\n```\n")
    assert isinstance(edit, AnchoredEdit) and edit.path is None
    assert edit.hunks[0].new_lines == ("B",)


def test_a_hunk_header_outside_a_diff_fence_is_prose():
    assert parse_reply("@@ -1 +1 @@\n-b\n+B\n") == []
