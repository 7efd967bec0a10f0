"""How pending changes read in the editor: messages in the user's words, faded
deletions, the tags clients ask for."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from lsprotocol.converters import get_converter

from lsp_edit.changes import Status
from lsp_edit.positions import Point, PositionEncoding
from lsp_edit.server import render
from lsp_edit.server.hunks import TrackedBuffer
from lsp_edit.server.store import ChangeKind, Hunk, PendingChange
from lsp_edit.text import Text

FILE = Path("/project/app.py")
BUFFER = TrackedBuffer.of(Text.from_string("a\nb\nc\nd\n"))
VIEW = render.View(PositionEncoding.UTF16, lambda path: path.as_uri(), lambda path: BUFFER)


def change(*hunks: Hunk, kind: ChangeKind = ChangeKind.EDIT) -> PendingChange:
    return PendingChange(
        id="1",
        session="s1",
        path=FILE,
        display="app.py",
        description="Change to `app.py` (SEARCH/REPLACE, reply line 3)",
        status=Status.PENDING,
        kind=kind,
        hunks=list(hunks),
    )


def test_a_replacement_says_how_many_lines_become_how_many() -> None:
    (diagnostic,) = render.diagnostics([change(Hunk(1, 3, ("b", "c"), ("B",)))], VIEW)
    assert (
        diagnostic.message
        == "Replace 2 lines with 1: Change to `app.py` (SEARCH/REPLACE, reply line 3)"
    )
    assert diagnostic.tags == [types.DiagnosticTag.Unnecessary]
    assert (diagnostic.range.start.line, diagnostic.range.end.line) == (1, 3)


def test_an_insertion_sits_on_the_line_it_inserts_before_and_fades_nothing() -> None:
    (diagnostic,) = render.diagnostics([change(Hunk(2, 2, (), ("x", "y")))], VIEW)
    assert diagnostic.message.startswith("Insert 2 lines: ")
    assert diagnostic.tags is None
    assert (diagnostic.range.start.line, diagnostic.range.end.line) == (2, 3)


def test_a_deletion_says_so() -> None:
    (diagnostic,) = render.diagnostics([change(Hunk(0, 1, ("a",), ()))], VIEW)
    assert diagnostic.message.startswith("Delete 1 line: ")


def test_a_change_in_several_places_is_one_diagnostic_per_place() -> None:
    found = render.diagnostics(
        [change(Hunk(0, 1, ("a",), ("A",)), Hunk(3, 4, ("d",), ("D",)))], VIEW
    )
    assert [d.message.endswith(f"(part {n} of 2)") for n, d in enumerate(found, 1)] == [True, True]


def test_a_new_file_says_how_long_it_will_be() -> None:
    (diagnostic,) = render.diagnostics(
        [change(Hunk(0, 0, (), ("x",) * 12), kind=ChangeKind.CREATE)], VIEW
    )
    assert diagnostic.message.startswith("Create this file (12 lines): ")


def test_code_actions_are_tagged_llm_generated_only_when_the_client_asks() -> None:
    pending = change(Hunk(1, 2, ("b",), ("B",)))
    for asked in (True, False):
        actions = render.code_actions(
            [pending], [pending], VIEW, FILE.as_uri(), edit_for=lambda c: None, llm_tag=asked
        )
        tags = {tuple(a.tags or ()) for a in actions}
        assert tags == ({(types.CodeActionTag.LlmGenerated,)} if asked else {()})


def test_the_summary_for_the_llm_never_contradicts_itself() -> None:
    accepted = change(Hunk(0, 1, ("a",), ("A",)))
    accepted.status = Status.APPLIED
    rejected = change(Hunk(1, 2, ("b",), ("B",)))
    rejected.id, rejected.status = "2", Status.REJECTED
    text = render.review_summary([accepted, rejected], lambda path: BUFFER)
    assert text.splitlines() == [
        "File 'app.py' has been updated. It now has 4 lines.",
        "",
        "Some changes were applied.",
        "",
        "  • Change to `app.py` (SEARCH/REPLACE, reply line 3) was rejected by the user.",
    ]
    rejected.status = Status.APPLIED
    assert "All changes were applied." in render.review_summary(
        [accepted, rejected], lambda p: BUFFER
    )


def test_diagnostics_kept_between_publications_follow_every_move_and_state() -> None:
    """A reply streaming in publishes the same changes again and again from a cache:
    what it sends must always be what rendering them afresh gives."""
    buffer = TrackedBuffer.of(Text.from_string("a\nb\nc\nd"))
    view = render.View(PositionEncoding.UTF16, lambda path: path.as_uri(), lambda path: buffer)
    shown = render.ShownDiagnostics()
    near_end = change(Hunk(3, 4, ("d",), ("D",)))
    middle = PendingChange(
        id="2",
        session="s1",
        path=FILE,
        display="app.py",
        description="Change to `app.py` (SEARCH/REPLACE, reply line 9)",
        status=Status.PENDING,
        hunks=[Hunk(1, 2, ("b",), ("B",))],
    )

    def fresh() -> list[object]:
        converter = get_converter()
        return [converter.unstructure(d) for d in render.diagnostics([near_end, middle], view)]

    assert shown.of_file(FILE, [near_end, middle], view) == fresh()
    # The last line, which the first change reaches, grows: its range ends further.
    buffer.edit(Point(3, 1), Point(3, 1), "dd")
    assert shown.of_file(FILE, [near_end, middle], view) == fresh()
    assert shown.of_file(FILE, [near_end, middle], view)[0]["range"]["end"]["character"] == 3
    # A line typed above both: they move down.
    buffer.edit(Point(0, 0), Point(0, 0), "new\n")
    near_end.hunks = [Hunk(4, 5, ("ddd",), ("D",))]
    middle.hunks = [Hunk(2, 3, ("b",), ("B",))]
    assert shown.of_file(FILE, [near_end, middle], view) == fresh()
    # One goes stale: a warning with the reason replaces the pending note.
    middle.status, middle.code, middle.message = Status.STALE, "stale", "its lines changed"
    assert shown.of_file(FILE, [near_end, middle], view) == fresh()
    assert shown.of_file(FILE, [near_end, middle], view)[1]["severity"] == 2


def failed(number: int) -> PendingChange:
    return PendingChange(
        id=str(number),
        session="s1",
        path=FILE,
        display="app.py",
        description=f"Change to `app.py` (SEARCH/REPLACE, reply line {number})",
        status=Status.FAILED,
        message="SEARCH text not found in `app.py`.",
        code="not_found",
    )


def test_the_summary_of_a_reply_with_thousands_of_failures_lists_the_first_few() -> None:
    text = render.proposal_summary([failed(n) for n in range(1, 19_108)])
    lines = text.splitlines()
    assert len(lines) == 2 + render.SUMMARY_ITEMS + 1
    assert lines[0] == "No change is pending review."
    assert lines[2] == (
        "  • Change to `app.py` (SEARCH/REPLACE, reply line 1) was not applied: "
        "SEARCH text not found in `app.py`."
    )
    assert lines[-1] == "  • … and 19,097 more blocks (not applied, or already in the file)."


def test_the_summary_of_changes_in_many_files_names_the_first_few() -> None:
    many = [
        PendingChange(
            id=str(n),
            session="s1",
            path=Path(f"/project/f{n}.py"),
            display=f"f{n}.py",
            description=f"Change to `f{n}.py`",
            status=Status.PENDING,
        )
        for n in range(12)
    ]
    assert render.proposal_summary(many) == (
        "12 changes are pending review: "
        + ", ".join(f"1 in 'f{n}.py'" for n in range(10))
        + " and 2 other files."
    )


def test_a_short_summary_lists_every_failure() -> None:
    text = render.proposal_summary([failed(n) for n in range(1, 11)])
    assert len(text.splitlines()) == 2 + 10
    assert "more block" not in text


def test_the_accept_action_says_the_editor_applies_its_edit() -> None:
    pending = change(Hunk(1, 2, ("b",), ("B",)))
    edit = types.WorkspaceEdit(changes={})
    actions = render.code_actions(
        [pending], [pending], VIEW, FILE.as_uri(), edit_for=lambda c: edit, llm_tag=False
    )
    accept = actions[0]
    assert isinstance(accept, types.CodeAction) and accept.command is not None
    assert accept.edit is edit
    assert accept.command.arguments == [{"id": "1", "action": True}]


def test_a_client_without_code_action_literals_gets_commands_that_send_the_edit() -> None:
    pending = change(Hunk(1, 2, ("b",), ("B",)))
    found = render.code_actions(
        [pending],
        [pending],
        VIEW,
        FILE.as_uri(),
        edit_for=lambda c: types.WorkspaceEdit(changes={}),
        llm_tag=False,
        literals=False,
    )
    assert all(isinstance(item, types.Command) for item in found)
    assert found[0].command == "lspEdit.accept"
    assert found[0].arguments == [{"id": "1"}]


def test_no_range_ends_past_a_last_line_without_a_newline() -> None:
    buffer = TrackedBuffer.of(Text.from_string("a\nb\nc\nd🙂"))
    view = render.View(PositionEncoding.UTF16, lambda path: path.as_uri(), lambda path: buffer)
    appended = change(Hunk(4, 4, (), ("e",)))
    replaced = change(Hunk(3, 4, ("d🙂",), ("D",)))
    end = {"line": 3, "character": 3}
    appended_json = render.change_json(appended, view)
    assert appended_json["range"] == {"start": end, "end": end}
    assert appended_json["hunks"] == [
        {"range": {"start": {"line": 3, "character": 0}, "end": end}, "newText": "d🙂\ne"}
    ]
    replaced_json = render.change_json(replaced, view)
    assert replaced_json["range"]["end"] == end
    assert replaced_json["hunks"][0]["newText"] == "D"
    (diagnostic,) = render.diagnostics([appended], view)
    assert (diagnostic.range.end.line, diagnostic.range.end.character) == (3, 3)
