"""Planning a reply: blocks placed per file in reply order, mode separation, skip
after a failure, line ranges against the document before the reply, and the
summary handed back to the LLM."""

import pytest

from lsp_edit.blocks import parse_reply
from lsp_edit.changes import Planner, Session, Status, check_mode, summary
from lsp_edit.workspace import Workspace

FENCE = "```"

CLIENT = """class Client:
    def chat(self):
        return "old"

    def close(self):
        pass
"""


@pytest.fixture
def workspace(tmp_path):
    (tmp_path / "client.py").write_text(CLIENT)
    (tmp_path / "notes.txt").write_text("one\ntwo\nthree\nfour\nfive\n")
    return Workspace(tmp_path)


def plan(workspace, reply, mode="auto", target=None):
    planner = Planner(workspace, Session(mode), default_target=target)
    planner.add(parse_reply(reply))
    return planner.plan


def after(result, name):
    outcome = result.files[name]
    assert outcome.after is not None
    return outcome.after.render()


def test_invalid_mode_names_the_three_modes():
    with pytest.raises(
        ValueError, match="edit_mode must be one of: auto, ast_path, line_numbers, complete_file"
    ):
        check_mode("lines")


def test_ast_path_block_after_line_number_mode_was_established_is_rejected(workspace):
    reply = (
        f"notes.txt\n{FENCE}text:2:3\nTWO\n{FENCE}\n\n"
        f"client.py\n{FENCE}python:Client-chat\n"
        f"    def chat(self):\n        return 'new'\n{FENCE}\n"
    )
    result = plan(workspace, reply)
    first, second = result.changes
    assert first.status is Status.APPLIED
    assert second.status is Status.FAILED and second.code == "mode_mismatch"
    assert second.description == "Change to `ast-path:Client-chat`"
    assert second.message == (
        "AST path format specified but line number mode is active. "
        "Use `type:startline:endline` format instead."
    )
    assert second.detail == "Active mode: Line numbers\nRequired format: `python:startline:endline`"
    assert after(result, "notes.txt") == "one\nTWO\nthree\nfour\nfive\n"
    assert "client.py" not in result.files


def test_line_number_block_after_ast_path_mode_was_established_is_rejected(workspace):
    reply = (
        f"client.py\n{FENCE}python:Client-close\n    def close(self):\n        self.closed = True\n"
        f"{FENCE}\n\nnotes.txt\n{FENCE}text:45:67\nx\n{FENCE}\n"
    )
    result = plan(workspace, reply)
    first, second = result.changes
    assert first.status is Status.APPLIED
    assert second.code == "mode_mismatch"
    assert f"{second.description} rejected: {second.message}" == (
        "Change at lines 45-66 rejected: Line number format specified but AST path mode is "
        "active. Use `type:Namespace-Class-Method` format instead."
    )
    assert second.detail == "Active mode: AST paths\nRequired format: `text:Namespace-Class-Method`"


def test_explicit_ast_path_mode_rejects_even_the_first_line_range(workspace):
    result = plan(workspace, f"notes.txt\n{FENCE}text:1:2\nONE\n{FENCE}\n", mode="ast_path")
    assert [c.code for c in result.changes] == ["mode_mismatch"]


def test_complete_file_mode_treats_a_tagged_block_as_a_format_error(workspace):
    reply = f"notes.txt\n{FENCE}text:1:2\nONE\n{FENCE}\n\nnotes.txt\n{FENCE}text\nonly\n{FENCE}\n"
    result = plan(workspace, reply, mode="complete_file")
    first, second = result.changes
    assert first.code == "mode_mismatch" and "complete file mode is active" in first.message
    assert second.status is Status.APPLIED
    assert after(result, "notes.txt") == "only\n"


def test_bare_fence_without_a_named_file_is_a_snippet_not_a_whole_file(workspace):
    result = plan(
        workspace, f"For example:\n{FENCE}python\nprint(1)\n{FENCE}\n", target="client.py"
    )
    assert result.changes == []


def test_line_ranges_refer_to_the_document_before_the_reply(workspace):
    reply = (
        f"notes.txt\n{FENCE}text:1:2\nONE\nUNO\n{FENCE}\n\n"
        f"notes.txt\n{FENCE}text:4:5\nFOUR\n{FENCE}\n"
    )
    result = plan(workspace, reply)
    assert [c.status for c in result.changes] == [Status.APPLIED, Status.APPLIED]
    assert after(result, "notes.txt") == "ONE\nUNO\ntwo\nthree\nFOUR\nfive\n"


def test_blocks_for_one_file_apply_in_order_each_on_the_previous_result(workspace):
    reply = (
        "notes.txt\n<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE\n\n"
        "notes.txt\n<<<<<<< SEARCH\n2\nthree\n=======\n2\n3\n>>>>>>> REPLACE\n"
    )
    result = plan(workspace, reply)
    assert [c.status for c in result.changes] == [Status.APPLIED, Status.APPLIED]
    assert after(result, "notes.txt") == "one\n2\n3\nfour\nfive\n"


def test_a_file_edited_by_search_replace_then_by_line_range_then_again_sees_each_edit(
    workspace,
):
    reply = (
        "notes.txt\n<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE\n\n"
        f"notes.txt\n{FENCE}text:5:6\nFIVE\n{FENCE}\n\n"
        "notes.txt\n<<<<<<< SEARCH\nFIVE\n=======\n5\n>>>>>>> REPLACE\n\n"
        "notes.txt\n<<<<<<< SEARCH\n2\nthree\n=======\n2\n3\n>>>>>>> REPLACE\n"
    )
    result = plan(workspace, reply)
    assert [c.status for c in result.changes] == [Status.APPLIED] * 4
    assert after(result, "notes.txt") == "one\n2\n3\nfour\n5\n"


def test_blocks_given_a_few_at_a_time_as_a_stream_gives_them_land_on_each_other(workspace):
    planner = Planner(workspace, Session("auto"))
    pieces = [
        "notes.txt\n<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE\n",
        "notes.txt\n<<<<<<< SEARCH\n2\n=======\nTWO\n>>>>>>> REPLACE\n",
        f"notes.txt\n{FENCE}text:1:2\nONE\n{FENCE}\n",
        "notes.txt\n<<<<<<< SEARCH\nONE\nTWO\n=======\n1\n2\n>>>>>>> REPLACE\n",
    ]
    for piece in pieces:
        planner.add(parse_reply(piece))
        assert planner.plan.changes[-1].status == Status.APPLIED
    assert after(planner.plan, "notes.txt") == "1\n2\nthree\nfour\nfive\n"


def test_after_a_failed_block_later_blocks_for_that_file_are_skipped(workspace):
    reply = (
        "notes.txt\n<<<<<<< SEARCH\none\n=======\n1\n>>>>>>> REPLACE\n\n"
        "notes.txt\n<<<<<<< SEARCH\nmissing\n=======\nx\n>>>>>>> REPLACE\n\n"
        "notes.txt\n<<<<<<< SEARCH\nfive\n=======\n5\n>>>>>>> REPLACE\n\n"
        "client.py\n<<<<<<< SEARCH\n        pass\n=======\n        return None\n>>>>>>> REPLACE\n"
    )
    result = plan(workspace, reply)
    assert [c.status for c in result.changes] == [
        Status.APPLIED,
        Status.FAILED,
        Status.SKIPPED,
        Status.APPLIED,
    ]
    assert result.changes[2].message == "Previous edit to this file failed"
    assert after(result, "notes.txt") == "1\ntwo\nthree\nfour\nfive\n"


def test_block_without_a_file_uses_the_default_target(workspace):
    reply = "<<<<<<< SEARCH\nthree\n=======\n3\n>>>>>>> REPLACE\n"
    result = plan(workspace, reply, target="notes.txt")
    assert result.changes[0].file == "notes.txt"
    assert after(result, "notes.txt") == "one\ntwo\n3\nfour\nfive\n"


def test_block_without_a_file_or_default_target_fails_with_a_reason(workspace):
    result = plan(workspace, "<<<<<<< SEARCH\nthree\n=======\n3\n>>>>>>> REPLACE\n")
    change = result.changes[0]
    assert change.code == "file_not_found" and "path on the line before" in change.message


def test_edit_of_a_missing_file_is_refused_with_similar_names(workspace):
    reply = "docs/notes.txt\n<<<<<<< SEARCH\nthree\n=======\n3\n>>>>>>> REPLACE\n"
    change = plan(workspace, reply).changes[0]
    assert change.status is Status.FAILED and change.code == "file_not_found"
    assert change.message == "File not found: docs/notes.txt. Did you mean `notes.txt`?"


def test_path_naming_no_file_resolves_to_the_one_file_it_is_the_tail_of(workspace, tmp_path):
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "util.py").write_text("X = 1\n")
    reply = "pkg/util.py\n<<<<<<< SEARCH\nX = 1\n=======\nX = 2\n>>>>>>> REPLACE\n"
    result = plan(workspace, reply)
    change = result.changes[0]
    assert change.file == "src/pkg/util.py" and change.status is Status.APPLIED
    assert any("resolved to `src/pkg/util.py`" in note for note in change.notes)
    assert after(result, "src/pkg/util.py") == "X = 2\n"


def test_editing_outside_the_workspace_is_refused_and_nothing_is_planned(workspace):
    reply = "../evil.txt\n<<<<<<< SEARCH\n=======\npwned\n>>>>>>> REPLACE\n"
    result = plan(workspace, reply)
    assert result.changes[0].code == "outside_workspace"
    assert result.files == {}


def test_new_file_from_an_empty_search_block(workspace):
    reply = "pkg/new.py\n<<<<<<< SEARCH\n=======\nVALUE = 1\n>>>>>>> REPLACE\n"
    result = plan(workspace, reply)
    assert result.changes[0].status is Status.APPLIED
    assert result.files["pkg/new.py"].before is None
    assert after(result, "pkg/new.py") == "VALUE = 1\n"


def test_summary_reports_updated_files_and_each_change_not_applied(workspace):
    reply = (
        "notes.txt\n<<<<<<< SEARCH\none\n=======\n1\n>>>>>>> REPLACE\n\n"
        f"client.py\n{FENCE}python:Client-chat\n"
        f"    def chat(self):\n        return 'new'\n{FENCE}\n\n"
        f"notes.txt\n{FENCE}text:2:3\nTWO\n{FENCE}\n"
    )
    text = summary(plan(workspace, reply))
    assert text.splitlines() == [
        "File 'notes.txt' has been updated. It now has 5 lines.",
        "File 'client.py' has been updated. It now has 6 lines.",
        "",
        "Some changes were applied.",
        "",
        "  • Change at line 2 was not applied: Line number format specified but AST path "
        "mode is active. Use `type:Namespace-Class-Method` format instead.",
    ]


def test_summary_when_every_change_applied(workspace):
    text = summary(plan(workspace, "notes.txt\n<<<<<<< SEARCH\none\n=======\n1\n>>>>>>> REPLACE\n"))
    assert (
        text
        == "File 'notes.txt' has been updated. It now has 5 lines.\n\nAll changes were applied."
    )


def test_summary_when_nothing_applied(workspace):
    text = summary(
        plan(workspace, "notes.txt\n<<<<<<< SEARCH\nnope\n=======\n1\n>>>>>>> REPLACE\n")
    )
    assert text.splitlines()[0] == "No changes were applied."
    assert text.splitlines()[2].startswith(
        "  • Change to `notes.txt` (SEARCH/REPLACE, reply line 2) was not applied: "
    )


def test_summary_of_a_reply_without_blocks(workspace):
    assert (
        summary(plan(workspace, "Just prose, no edits."))
        == "No edit blocks were found in the reply."
    )


def test_block_already_in_the_file_is_reported_not_applied_twice(workspace):
    reply = "notes.txt\n<<<<<<< SEARCH\nzero\n=======\none\n>>>>>>> REPLACE\n"
    result = plan(workspace, reply)
    change = result.changes[0]
    assert change.status is Status.SKIPPED and change.code == "already_applied"
    assert change.succeeded
    assert not result.files or not result.files["notes.txt"].changed


def test_malformed_block_becomes_a_failed_change_with_its_reason(workspace):
    result = plan(workspace, "notes.txt\n<<<<<<< SEARCH\none\n=======\n1\n")
    change = result.changes[0]
    assert change.status is Status.FAILED and change.code == "unclosed_block"


def test_shell_commands_are_collected_as_suggestions_never_changes(workspace):
    result = plan(workspace, f"{FENCE}bash\ngit add notes.txt\ngit commit -m x\n{FENCE}\n")
    assert result.changes == []
    assert [s.command for s in result.suggestions] == ["git add notes.txt", "git commit -m x"]


def test_v4a_delete_file_deletes(workspace):
    reply = "*** Begin Patch\n*** Delete File: notes.txt\n*** End Patch\n"
    result = plan(workspace, reply)
    assert result.changes[0].status is Status.APPLIED
    assert result.files["notes.txt"].after is None
    assert summary(result).splitlines()[0] == "File 'notes.txt' has been deleted."


def test_v4a_add_file_over_an_existing_file_is_refused(workspace):
    reply = "*** Begin Patch\n*** Add File: notes.txt\n+new\n*** End Patch\n"
    result = plan(workspace, reply)
    assert result.changes[0].code == "file_exists"


def test_v4a_move_to_updates_and_renames_the_file(workspace):
    reply = (
        "*** Begin Patch\n*** Update File: notes.txt\n*** Move to: docs/notes.md\n@@\n"
        "-two\n+2\n*** End Patch\n"
    )
    result = plan(workspace, reply)
    assert result.changes[0].status is Status.APPLIED
    assert result.files["notes.txt"].after is None
    assert result.files["docs/notes.md"].before is None
    assert after(result, "docs/notes.md") == "one\n2\nthree\nfour\nfive\n"
    assert summary(result).splitlines()[:2] == [
        "File 'notes.txt' has been moved to 'docs/notes.md'.",
        "File 'docs/notes.md' has been created. It now has 5 lines.",
    ]


def test_pure_rename_in_a_git_diff_moves_the_file_unchanged(workspace):
    reply = "diff --git a/notes.txt b/moved.txt\nrename from notes.txt\nrename to moved.txt\n"
    result = plan(workspace, reply)
    assert result.changes[0].status is Status.APPLIED
    assert after(result, "moved.txt") == "one\ntwo\nthree\nfour\nfive\n"
    assert result.files["notes.txt"].after is None


def test_move_onto_an_existing_file_is_refused(workspace):
    reply = "*** Begin Patch\n*** Update File: notes.txt\n*** Move to: client.py\n*** End Patch\n"
    result = plan(workspace, reply)
    change = result.changes[0]
    assert change.code == "file_exists" and "client.py" in change.message
    assert "notes.txt" not in result.files or not result.files["notes.txt"].changed


def test_prose_before_a_creating_block_does_not_become_a_new_file(workspace):
    reply = (
        "Here is the new helper module for you:\n<<<<<<< SEARCH\n=======\nX = 1\n>>>>>>> REPLACE\n"
    )
    result = plan(workspace, reply)
    change = result.changes[0]
    assert change.status is Status.FAILED and change.code == "file_not_found"
    assert "taken for prose" in change.message
    assert result.files == {}


def test_existing_file_with_spaces_in_its_path_is_edited(workspace, tmp_path):
    (tmp_path / "my notes.txt").write_text("a\n")
    reply = "my notes.txt\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"
    result = plan(workspace, reply)
    assert result.changes[0].status is Status.APPLIED
    assert after(result, "my notes.txt") == "b\n"


def test_v4a_add_file_may_name_a_path_with_spaces(workspace):
    reply = "*** Begin Patch\n*** Add File: docs/my notes.md\n+# Notes\n*** End Patch\n"
    result = plan(workspace, reply)
    assert result.changes[0].status is Status.APPLIED
    assert after(result, "docs/my notes.md") == "# Notes\n"


def test_prose_before_a_block_gives_way_to_the_default_target(workspace):
    reply = "Change the third line:\n<<<<<<< SEARCH\nthree\n=======\n3\n>>>>>>> REPLACE\n"
    result = plan(workspace, reply, target="notes.txt")
    change = result.changes[0]
    assert change.status is Status.APPLIED and change.file == "notes.txt"
    assert change.notes == (
        "`Change the third line` names no file; the block went to the default target `notes.txt`.",
    )
    assert after(result, "notes.txt") == "one\ntwo\n3\nfour\nfive\n"


LONG = "".join(f"line {n}\n" for n in range(1, 41))


def test_a_cut_off_whole_file_is_refused_in_every_mode(workspace, tmp_path):
    (tmp_path / "long.txt").write_text(LONG)
    reply = f"`long.txt`:\n{FENCE}text\nline 1\nline 2\nline 3\n{FENCE}\n"
    for mode in ("auto", "complete_file"):
        result = plan(workspace, reply, mode=mode)
        change = result.changes[0]
        assert change.status is Status.FAILED and change.code == "truncated_file"
        assert change.message.startswith(
            "The block holds only the first 3 of the 40 lines of `long.txt`, unchanged"
        )
        assert result.files == {}


def test_a_function_under_a_file_name_replaces_that_function_in_complete_file_mode(workspace):
    reply = f"client.py\n{FENCE}python\ndef close(self):\n    self.closed = True\n{FENCE}\n"
    for mode in ("auto", "complete_file"):
        result = plan(workspace, reply, mode=mode)
        change = result.changes[0]
        assert change.status is Status.APPLIED and change.strategy == "definitions"
        assert after(result, "client.py") == CLIENT.replace("pass", "self.closed = True")


def test_a_usage_snippet_never_overwrites_the_file_it_names(workspace):
    reply = f"Run it:\n\n{FENCE}python\npython client.py\n{FENCE}\n"
    result = plan(workspace, reply, mode="complete_file", target="client.py")
    change = result.changes[0]
    assert change.status is Status.FAILED and change.code == "not_whole_file"
    assert "it leaves out `Client` (class), which the reply does not mention" in change.message
    assert result.files == {}


def test_a_whole_file_that_drops_a_definition_the_reply_names_removes_it(workspace):
    reply = (
        f"I removed `close`, nothing calls it:\n\nclient.py\n{FENCE}python\n"
        f'class Client:\n    def chat(self):\n        return "new"\n{FENCE}\n'
    )
    planner = Planner(workspace, Session("auto"), reply=reply)
    planner.add(parse_reply(reply))
    assert planner.plan.changes[0].strategy == "complete_file"
    assert after(planner.plan, "client.py") == (
        'class Client:\n    def chat(self):\n        return "new"\n'
    )
    # without the reply's prose nothing is mentioned: `close` stays, and a note says why
    result = plan(workspace, reply)
    assert after(result, "client.py") == CLIENT.replace('"old"', '"new"')
    assert result.changes[0].notes == (
        "Taken as definitions, not as the whole file (it leaves out `Client-close` (method), "
        "which the reply does not mention): replaced `Client-chat`",
    )


def test_complete_file_mode_takes_a_short_block_as_the_whole_file(workspace, tmp_path):
    (tmp_path / "long.txt").write_text(LONG)
    reply = f"long.txt\n{FENCE}text\nline 1\nLINE 2\n{FENCE}\n"
    result = plan(workspace, reply, mode="complete_file")
    assert result.changes[0].status is Status.APPLIED
    assert after(result, "long.txt") == "line 1\nLINE 2\n"


def test_a_file_created_from_dev_null_without_final_newline_has_none(workspace):
    reply = (
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n"
    )
    assert after(plan(workspace, reply), "new.txt") == "one\ntwo"


@pytest.mark.parametrize(
    ("tag", "description"),
    [
        ("text:17:19", "Change at lines 17-18"),
        ("text:17", "Change at line 17"),
        ("text:17:18", "Change at line 17"),
        ("text:17:17", "Insertion before line 17"),
    ],
)
def test_a_line_range_is_described_with_its_end_excluded(workspace, tag, description):
    reply = f"notes.txt\n{FENCE}{tag}\nx\n{FENCE}\n"
    assert plan(workspace, reply).changes[0].description == description


def test_summary_does_not_call_an_already_applied_change_not_applied(workspace):
    reply = "notes.txt\n<<<<<<< SEARCH\nzero\n=======\none\n>>>>>>> REPLACE\n"
    assert summary(plan(workspace, reply)).splitlines() == [
        "Nothing to do: every change was already in the file.",
        "",
        "  • Change to `notes.txt` (SEARCH/REPLACE, reply line 2) was already in the file: "
        "The replacement is already in `notes.txt` at line 1.",
    ]


def test_summary_says_no_change_was_applied_when_one_was_already_in_and_one_failed(workspace):
    reply = (
        "notes.txt\n<<<<<<< SEARCH\nzero\n=======\none\n>>>>>>> REPLACE\n\n"
        "client.py\n<<<<<<< SEARCH\nnothing like it\n=======\nx\n>>>>>>> REPLACE\n"
    )
    lines = summary(plan(workspace, reply)).splitlines()
    assert lines[0] == "No changes were applied."


def test_summary_counts_one_line_in_the_singular(workspace, tmp_path):
    (tmp_path / "one.txt").write_text("a\n")
    reply = "one.txt\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"
    assert summary(plan(workspace, reply)).splitlines()[0] == (
        "File 'one.txt' has been updated. It now has 1 line."
    )


def test_a_word_that_is_not_a_path_before_an_empty_search_never_becomes_a_file(workspace):
    reply = "Next:\n<<<<<<< SEARCH\n=======\nprint(1)\n>>>>>>> REPLACE\n"
    (change,) = plan(workspace, reply).changes
    assert change.status is Status.FAILED and change.code == "file_not_found"
    assert not (workspace.root / "Next").exists()


def test_an_existing_file_without_extension_named_before_a_block_is_edited(workspace):
    (workspace.root / "run").write_text("echo old\n")
    result = plan(workspace, "run\n<<<<<<< SEARCH\necho old\n=======\necho new\n>>>>>>> REPLACE\n")
    assert after(result, "run") == "echo new\n"


def test_a_reply_without_edits_names_each_block_it_ignored(workspace):
    reply = (
        f"Run:\n{FENCE}bash\nmake test\n{FENCE}\n\nFor example:\n{FENCE}python\nprint(1)\n{FENCE}\n"
    )
    assert summary(plan(workspace, reply)) == (
        "No edit blocks were found in the reply.\n"
        f"  • The {FENCE}bash block at reply lines 2-4 was not read as an edit: shell "
        "commands are never run.\n"
        f"  • The {FENCE}python block at reply lines 7-9 was not read as an edit: it names no "
        "file, so it was read as an example; to replace a whole file, put the file's path on "
        "the line before the fence."
    )


def test_a_heading_underline_in_search_replace_is_read_where_the_search_text_is_found(workspace):
    (workspace.root / "doc.rst").write_text("Intro\n\nTitle\n=======\n\nold text\n")
    reply = (
        "doc.rst\n<<<<<<< SEARCH\nTitle\n=======\n\nold text\n"
        "=======\nTitle\n=======\n\nnew text\n>>>>>>> REPLACE\n"
    )
    result = plan(workspace, reply)
    assert after(result, "doc.rst") == "Intro\n\nTitle\n=======\n\nnew text\n"
    assert "the one after its first 4 lines was read as the divider" in result.changes[0].notes[0]


def test_a_heading_underline_ending_both_halves_is_kept_not_dropped_as_a_stray_marker(workspace):
    # sphinx-copybutton 0.2.10 -> 0.2.11, doc/index.rst: both halves end at `Usage` / `=====`
    (workspace.root / "doc.rst").write_text("Link old\n\nUsage\n=====\n\nText\n")
    reply = (
        "doc.rst\n<<<<<<< SEARCH\nLink old\n\nUsage\n=====\n"
        "=======\nLink new\n\nUsage\n=====\n>>>>>>> REPLACE\n"
    )
    assert after(plan(workspace, reply), "doc.rst") == "Link new\n\nUsage\n=====\n\nText\n"


def test_an_underline_ending_both_halves_then_a_stray_divider_keeps_the_underline(workspace):
    (workspace.root / "doc.rst").write_text("Title\n=====\n\nText\n")
    reply = (
        "doc.rst\n<<<<<<< SEARCH\nTitle\n=====\n"
        "=======\nNew title\n=====\n=======\n>>>>>>> REPLACE\n"
    )
    assert after(plan(workspace, reply), "doc.rst") == "New title\n=====\n\nText\n"


def test_a_title_overlined_with_another_run_of_equals_opens_the_new_text(workspace):
    # attrs 16.1.0 fills an empty docs/overview.rst with a title over- and underlined
    (workspace.root / "overview.rst").write_text("")
    reply = (
        "overview.rst\n<<<<<<< SEARCH\n=======\n========\nOverview\n========\n\n"
        "Text.\n>>>>>>> REPLACE\n"
    )
    result = plan(workspace, reply)
    assert after(result, "overview.rst") == "========\nOverview\n========\n\nText.\n"


def test_a_divider_written_again_with_a_word_before_the_closer_is_a_stray_marker(workspace):
    reply = "notes.txt\n<<<<<<< SEARCH\ntwo\n=======\nTWO\n======= end\n>>>>>>> REPLACE\n"
    assert after(plan(workspace, reply), "notes.txt") == "one\nTWO\nthree\nfour\nfive\n"


def test_a_doubled_divider_before_the_closer_deletes_the_lines_not_writes_the_marker(workspace):
    reply = "notes.txt\n<<<<<<< SEARCH\ntwo\n=======\n=======\n>>>>>>> REPLACE\n"
    assert after(plan(workspace, reply), "notes.txt") == "one\nthree\nfour\nfive\n"


def test_a_byte_order_mark_copied_at_the_start_of_search_still_matches(workspace):
    reply = "notes.txt\n<<<<<<< SEARCH\n\ufeffone\n=======\n1\n>>>>>>> REPLACE\n"
    assert after(plan(workspace, reply), "notes.txt") == "1\ntwo\nthree\nfour\nfive\n"


def test_aider_whole_file_layout_a_path_line_then_an_untagged_fence_replaces_the_file(workspace):
    reply = f"notes.txt\n{FENCE}\none\nTWO\nthree\nfour\nfive\n{FENCE}\n"
    assert after(plan(workspace, reply), "notes.txt") == "one\nTWO\nthree\nfour\nfive\n"


def test_an_existing_file_without_extension_named_before_a_fence_is_its_file(workspace):
    (workspace.root / "tmpa1b2").write_text("one\ntwo\n")
    reply = f"Do this:\n\ntmpa1b2\n{FENCE}\nnew\ntwo\n{FENCE}\n"
    assert after(plan(workspace, reply), "tmpa1b2") == "new\ntwo\n"


def test_a_word_before_a_fence_that_names_no_existing_file_is_prose(workspace):
    result = plan(workspace, f"Example\n{FENCE}python\nprint(1)\n{FENCE}\n")
    assert result.changes == [] and [item.block for item in result.ignored] == [
        f"{FENCE}python block"
    ]


def test_a_file_named_in_backticks_before_a_fence_is_replaced_only_when_it_exists(workspace):
    reply = (
        f"Here is the new `notes.txt`:\n\n{FENCE}\n1\n2\n{FENCE}\n\n"
        f"And `missing.txt`:\n\n{FENCE}\nx\n{FENCE}\n"
    )
    result = plan(workspace, reply)
    assert after(result, "notes.txt") == "1\n2\n"
    assert not (workspace.root / "missing.txt").exists() and len(result.ignored) == 1


def test_a_new_file_named_like_an_existing_one_is_created_with_a_note_naming_that_file(
    workspace,
):
    (workspace.root / "sample.txt").write_text("Original content\n")
    result = plan(workspace, f"path/to/sample.txt\n{FENCE}\nUpdated content\n{FENCE}\n")
    assert after(result, "path/to/sample.txt") == "Updated content\n"
    (change,) = result.changes
    assert change.notes == (
        "`path/to/sample.txt` does not exist; `sample.txt` has the same name. If the block "
        "meant an existing file, name it by its path from the workspace root.",
    )


def test_a_status_is_its_name_as_a_string_and_one_object_per_status() -> None:
    assert Status.APPLIED == "applied" and Status("applied") == Status.APPLIED
    assert Status.FAILED.value == "failed" and type(Status.FAILED.value) is str
    assert [Status.PENDING, Status.STALE] == ["pending", "stale"]
    assert repr(Status.SKIPPED) == "<Status.SKIPPED: 'skipped'>"
    assert Status.REJECTED is Status.REJECTED and f"{Status.REJECTED}" == "rejected"


# A file is never called by a language it is not.


def test_an_ast_path_block_for_a_markdown_file_says_the_languages_do_not_match(workspace, tmp_path):
    (tmp_path / "README.md").write_text("# Client\n\nUse `Client.chat`.\n")
    reply = f"{FENCE}python:Client-chat\ndef chat(self):\n    return 'new'\n{FENCE}\n"
    change = plan(workspace, reply, target="README.md").changes[0]
    assert change.status is Status.FAILED and change.code == "language_mismatch"
    assert change.message.startswith(
        "The block is tagged `python`, but `README.md` is not a python file"
    )
    assert "this python file" not in change.message


def test_an_ast_path_block_tagged_with_another_language_than_its_file_is_refused_naming_both(
    workspace,
):
    reply = f"client.py\n{FENCE}rust:Client-chat\nfn chat() {{}}\n{FENCE}\n"
    change = plan(workspace, reply).changes[0]
    assert change.code == "language_mismatch"
    assert change.message.startswith("The block is tagged `rust`, but `client.py` is a python file")


def test_a_missing_symbol_is_reported_in_the_files_own_language(workspace, tmp_path):
    (tmp_path / "app.ts").write_text("export function run(): number {\n  return 1;\n}\n")
    reply = f"app.ts\n{FENCE}js:stop\nfunction stop() {{}}\n{FENCE}\n"
    change = plan(workspace, reply).changes[0]
    assert change.code == "symbol_not_found"
    assert "in this typescript file" in change.message


def test_a_cpp_block_reads_a_c_header_as_cpp(workspace, tmp_path):
    (tmp_path / "shape.h").write_text("class Shape {\n public:\n  int area() { return 0; }\n};\n")
    reply = f"shape.h\n{FENCE}cpp:Shape-area\n  int area() {{ return 1; }}\n{FENCE}\n"
    result = plan(workspace, reply)
    assert result.changes[0].status is Status.APPLIED
    assert "return 1;" in after(result, "shape.h")


def test_a_file_without_a_suffix_is_read_in_the_blocks_language(workspace, tmp_path):
    (tmp_path / "tool").write_text("def run():\n    return 1\n")
    reply = f"tool\n{FENCE}python:run\ndef run():\n    return 2\n{FENCE}\n"
    result = plan(workspace, reply)
    assert result.changes[0].status is Status.APPLIED
    assert after(result, "tool") == "def run():\n    return 2\n"


def test_a_whole_file_block_tagged_with_another_language_is_not_read_as_that_language(
    workspace, tmp_path
):
    (tmp_path / "notes.md").write_text("# Notes\n\ndef a():\n    pass\n")
    reply = f"notes.md\n{FENCE}python\n# Notes\n\nSee below.\n{FENCE}\n"
    result = plan(workspace, reply)
    assert result.changes[0].status is Status.APPLIED
    assert after(result, "notes.md") == "# Notes\n\nSee below.\n"


def test_a_refusals_lines_are_mapped_back_to_the_file_as_it_was_before_the_reply(workspace):
    reply = (
        "notes.txt\n<<<<<<< SEARCH\none\n=======\nzero\none\n>>>>>>> REPLACE\n\n"
        "notes.txt\n<<<<<<< SEARCH\nfour\nfiv\n=======\nFOUR\n>>>>>>> REPLACE\n"
    )
    planner = Planner(workspace, Session("auto"))
    planner.add(parse_reply(reply))
    first, second = planner.plan.changes
    assert first.status is Status.APPLIED
    assert second.code == "not_found" and "The most similar lines are 5-6" in second.message
    assert second.lines == ((5, 6),)
    assert planner.lines_as_read(second) == ((4, 5),)


def test_a_missing_file_one_edit_away_from_an_existing_one_asks_did_you_mean(workspace):
    reply = (
        "clientt.py\n<<<<<<< SEARCH\n    def chat(self):\n=======\n    def talk(self):\n"
        ">>>>>>> REPLACE\n"
    )
    change = plan(workspace, reply).changes[0]
    assert change.code == "file_not_found"
    assert change.message == "File not found: clientt.py. Did you mean `client.py`?"
