"""The store of pending changes: placing a reply against the buffer, following the
user's typing, dependencies between changes, rejecting and restoring."""

from __future__ import annotations

from pathlib import Path

from lsp_edit.blocks import parse_reply
from lsp_edit.changes import Status
from lsp_edit.positions import Point
from lsp_edit.resolve.model import Refused
from lsp_edit.server.hunks import Replacement
from lsp_edit.server.store import NotAccepted, PendingChange, Store
from lsp_edit.text import Text
from lsp_edit.workspace import FileRef

ROOT = Path("/project")
FILE = ROOT / "app.py"

SOURCE = """\
def one():
    return 1


def two():
    return 2


def three():
    return 3
"""


class Files:
    """One file in memory, as the editor's buffer."""

    def __init__(self, text: str) -> None:
        self.text = Text.from_string(text)

    def locate(self, written: str, *, allow_tail_match: bool = True) -> FileRef | Refused:
        return FileRef("app.py", FILE)

    def read(self, ref: FileRef) -> Text | Refused | None:
        return self.text

    def similar_files(self, written: str) -> list[str]:
        return []


def search_replace(search: str, replace: str) -> str:
    return f"app.py\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"


def propose(store: Store, reply: str, text: str = SOURCE) -> list[PendingChange]:
    session = store.session(None, "auto")
    return store.propose(session, parse_reply(reply), Files(text))


def type_into(store: Store, line: int, column: int, typed: str) -> None:
    store.edited(FILE, [Replacement(Point(line, column), Point(line, column), typed)])


def buffer_text(store: Store) -> str:
    buffer = store.buffer_of(FILE)
    assert buffer is not None
    return "".join(buffer.raw)


def accept(store: Store, change: PendingChange) -> None:
    """Applies the change to the tracked buffer as the editor would, line by line."""
    acceptance = store.acceptance(change.id)
    buffer = store.buffer_of(FILE)
    assert buffer is not None
    for edit in sorted(acceptance.edits[FILE], key=lambda e: e.start, reverse=True):
        new = "".join(line + "\n" for line in edit.new_lines)
        end = Point(edit.end, 0)
        store.edited(FILE, [Replacement(Point(edit.start, 0), end, new)])


def test_a_placed_block_is_pending_on_the_lines_it_changes() -> None:
    store = Store()
    (change,) = propose(store, search_replace("    return 2\n", "    return 22\n"))
    assert change.status is Status.PENDING
    assert [(h.start, h.end, h.new) for h in change.hunks] == [(5, 6, ("    return 22",))]


def test_typing_above_a_change_moves_it_down() -> None:
    store = Store()
    (change,) = propose(store, search_replace("    return 2\n", "    return 22\n"))
    type_into(store, 0, 0, "import os\n\n")
    assert change.pending
    assert (change.hunks[0].start, change.hunks[0].end) == (7, 8)


def test_typing_below_a_change_leaves_it_alone() -> None:
    store = Store()
    (change,) = propose(store, search_replace("    return 2\n", "    return 22\n"))
    type_into(store, 9, 0, "    # three\n")
    assert (change.hunks[0].start, change.hunks[0].end) == (5, 6)


def test_editing_a_changes_own_lines_places_it_again_by_its_anchor_when_it_can() -> None:
    store = Store()
    reply = search_replace("def two():\n    return 2\n", "def two():\n    return 22\n")
    (change,) = propose(store, reply)
    # The user adds a blank line at the end of `return 2`: whitespace the ladder forgives.
    type_into(store, 5, 12, "  ")
    assert change.pending
    assert [(h.start, h.end) for h in change.hunks] == [(5, 6)]


def test_editing_a_changes_own_lines_makes_it_stale_when_the_anchor_is_gone() -> None:
    store = Store()
    (change,) = propose(store, search_replace("    return 2\n", "    return 22\n"))
    type_into(store, 5, 11, "0")  # `return 20`
    assert change.status is Status.STALE
    assert "You edited the lines it changes" in (change.message or "")
    try:
        store.acceptance(change.id)
    except NotAccepted as error:
        assert "stale" in str(error)
    else:
        raise AssertionError("a stale change was accepted")


def test_an_ast_path_change_follows_its_symbol_after_the_user_edits_it() -> None:
    store = Store()
    reply = "app.py\n```python:two\ndef two():\n    return 22\n```\n"
    (change,) = propose(store, reply)
    type_into(store, 5, 12, "  # was two")
    assert change.pending
    assert change.hunks[0].new == ("    return 22",)


def test_a_change_that_builds_on_an_earlier_one_depends_on_it() -> None:
    store = Store()
    first, second = propose(
        store,
        search_replace("    return 2\n", "    return 22\n")
        + "\n"
        + search_replace("    return 22\n", "    return 222\n"),
    )
    assert second.depends_on == [first.id]
    acceptance = store.acceptance(second.id)
    assert [c.id for c in acceptance.changes] == [first.id, second.id]
    assert [e.new_lines for e in acceptance.edits[FILE]] == [("    return 222",)]


def test_accepting_what_a_change_depends_on_keeps_it_pending_and_right() -> None:
    store = Store()
    first, second = propose(
        store,
        search_replace("    return 2\n", "    return 22\n")
        + "\n"
        + search_replace("    return 22\n", "    return 222\n"),
    )
    accept(store, first)
    assert first.status is Status.APPLIED
    assert second.pending
    assert second.depends_on == []
    accept(store, second)
    assert second.status is Status.APPLIED
    assert "return 222" in buffer_text(store)


def test_rejecting_what_a_change_depends_on_makes_it_stale_when_it_cannot_stand_alone() -> None:
    store = Store()
    first, second = propose(
        store,
        search_replace("    return 2\n", "    return 22\n")
        + "\n"
        + search_replace("    return 22\n", "    return 222\n"),
    )
    store.reject(first.id)
    assert second.status is Status.STALE
    assert "which was rejected" in (second.message or "")


def test_rejecting_what_a_change_depends_on_places_it_alone_when_it_can() -> None:
    store = Store()
    first, second = propose(
        store,
        search_replace("    return 3\n", "    return 33\n")
        + "\napp.py\n```python:three\ndef three():\n    return 333\n```\n",
    )
    assert second.depends_on == [first.id]
    store.reject(first.id)
    assert second.pending
    assert second.depends_on == []
    assert [(h.start, h.end, h.new) for h in second.hunks] == [(9, 10, ("    return 333",))]


def test_accepting_one_change_keeps_the_others_in_the_file_exactly_right() -> None:
    store = Store()
    first, second, third = propose(
        store,
        search_replace("    return 1\n", "    x = 1\n    return x\n")
        + "\n"
        + search_replace("    return 2\n", "    return 22\n")
        + "\n"
        + search_replace("    return 3\n", "    return 33\n"),
    )
    accept(store, first)
    assert [(h.start, h.end) for h in second.hunks] == [(6, 7)]
    assert [(h.start, h.end) for h in third.hunks] == [(10, 11)]
    accept(store, third)
    accept(store, second)
    assert buffer_text(store) == SOURCE.replace(
        "    return 1\n", "    x = 1\n    return x\n"
    ).replace("return 2", "return 22").replace("return 3", "return 33")


def test_a_change_the_editor_applied_itself_is_recorded_as_applied() -> None:
    store = Store()
    (change,) = propose(store, search_replace("    return 2\n", "    return 22\n"))
    store.edited(FILE, [Replacement(Point(5, 0), Point(6, 0), "    return 22\n")])
    assert change.status is Status.APPLIED


def test_a_rejected_change_comes_back_where_it_was() -> None:
    store = Store()
    (change,) = propose(store, search_replace("    return 2\n", "    return 22\n"))
    store.reject(change.id)
    type_into(store, 0, 0, "# top\n")
    restored = store.restore(None)
    assert restored is change and change.pending
    assert [(h.start, h.end) for h in change.hunks] == [(6, 7)]


def test_a_new_reply_in_the_same_session_replaces_its_failures_for_that_file() -> None:
    store = Store()
    session = store.session(None, "auto")
    failed = store.propose(session, parse_reply(search_replace("nope\n", "x\n")), Files(SOURCE))
    assert failed[0].status is Status.FAILED
    store.propose(
        session, parse_reply(search_replace("    return 2\n", "    return 22\n")), Files(SOURCE)
    )
    assert store.get(failed[0].id) is None


def test_the_proposed_text_has_every_pending_change_applied() -> None:
    store = Store()
    propose(
        store,
        search_replace("    return 1\n", "    return 11\n")
        + "\n"
        + search_replace("    return 3\n", "    return 33\n"),
    )
    proposed = store.proposed(FILE)
    assert proposed is not None
    assert proposed.text.render() == SOURCE.replace("return 1\n", "return 11\n").replace(
        "return 3\n", "return 33\n"
    )


def test_the_same_reply_twice_is_pending_once() -> None:
    store = Store()
    reply = search_replace("    return 2\n", "    return 22\n")
    (first,) = propose(store, reply)
    (second,) = propose(store, reply)
    assert first.pending
    assert second.status is Status.SKIPPED
    assert second.code == "already_pending"
    assert second.message == f"The same change is already pending review (change {first.id})."
    assert second.hunks == []


def test_a_reply_like_one_already_decided_is_pending_again() -> None:
    store = Store()
    reply = search_replace("    return 2\n", "    return 22\n")
    (first,) = propose(store, reply)
    store.reject(first.id)
    (second,) = propose(store, reply)
    assert second.pending


def test_a_block_after_a_failed_one_is_pending_with_a_note() -> None:
    store = Store()
    failed, later = propose(
        store,
        search_replace("    return 9\n", "    return 99\n")
        + "\n"
        + search_replace("    return 2\n", "    return 22\n"),
    )
    assert failed.status is Status.FAILED
    assert later.pending
    assert any("An earlier block for this file failed" in note for note in later.notes)


def test_restoring_never_brings_back_a_dismissed_failure() -> None:
    store = Store()
    failed, later = propose(
        store,
        search_replace("    return 9\n", "    return 99\n")
        + "\n"
        + search_replace("    return 2\n", "    return 22\n"),
    )
    store.reject_all([failed, later])
    assert store.restore(None) is later
    try:
        store.restore(failed.id)
    except NotAccepted as error:
        assert "cannot be restored" in str(error)
    else:
        raise AssertionError("a dismissed failure came back")
    try:
        store.restore(None)
    except KeyError:
        pass
    else:
        raise AssertionError("a dismissed failure came back")
    assert failed.status is Status.REJECTED


def test_a_restored_stale_change_stays_stale_while_its_lines_are_edited() -> None:
    store = Store()
    (change,) = propose(store, search_replace("    return 2\n", "    return 22\n"))
    type_into(store, 5, 11, "0")
    assert change.status is Status.STALE
    store.reject(change.id)
    assert store.restore(None) is change
    assert change.status is Status.STALE  # its lines are still not what it replaces


def test_stale_changes_and_failures_are_found_on_their_line_to_dismiss() -> None:
    store = Store()
    failed, stale = propose(
        store,
        search_replace("    return 9\n", "    return 99\n")
        + "\n"
        + search_replace("    return 2\n", "    return 22\n"),
    )
    type_into(store, 5, 11, "0")
    assert stale.status is Status.STALE
    assert store.touching(FILE, 5, 5) == [stale]
    assert store.touching(FILE, 0, 0) == []
    assert store.touching(FILE, 0, 0, failures=True) == [failed]


def test_a_whole_file_refused_as_cut_off_is_pending_once_taken_anyway() -> None:
    store = Store()
    head = "".join(SOURCE.splitlines(keepends=True)[:6])
    (change,) = propose(store, f"app.py\n```python\n{head}```\n")
    assert change.status is Status.FAILED and change.can_take_anyway
    store.take_anyway(change.id, Text.from_string(SOURCE))
    assert change.pending and change.code is None
    accept(store, change)
    assert change.status is Status.APPLIED
    assert buffer_text(store) == head


def test_the_proposed_text_says_where_each_change_lands_a_dependency_inside_its_dependent() -> None:
    store = Store()
    first, second, third = propose(
        store,
        search_replace("    return 1\n", "    return 11\n")
        + "\n"
        + search_replace("    return 11\n", "    x = 1\n    return x\n")
        + "\n"
        + search_replace("    return 3\n", "    return 33\n"),
    )
    assert second.depends_on == [first.id]
    proposed = store.proposed(FILE)
    assert proposed is not None
    lines = proposed.text.render().splitlines()
    # The dependent's two lines hold the first change too; the third moved one down.
    assert [(at.change_id, at.start, at.end) for at in proposed.landings] == [
        (second.id, 1, 3),
        (third.id, 10, 11),
    ]
    assert lines[1:3] == ["    x = 1", "    return x"]
    assert lines[10] == "    return 33"
