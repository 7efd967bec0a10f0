"""What the editor's edits mean to the store: an accept the editor applied, however it
reports it (ranged changes last first or first to last, trimmed to the characters
that differ, one whole text), before or after the server hears of it; an undo of an
accept; and typing, which the other changes follow."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence

import pytest

from lsp_edit.changes import Status
from lsp_edit.positions import Point
from lsp_edit.server.hunks import Replacement, replacement
from lsp_edit.server.store import Acceptance, PendingChange, Store
from lsp_edit.text import Text
from tests.test_server_store import FILE, buffer_text, propose, search_replace, type_into

SOURCE = """\
def one():
    return 1


def two():
    return 2
    return 2


def three():
    return 3
"""

# Each kind of change, with the text once it is applied.
INSERTION = (
    search_replace("    return 1\n", "    return 1\n    # one\n"),
    SOURCE.replace("    return 1\n", "    return 1\n    # one\n"),
)
# The first of two identical lines: the smallest edit that deletes it slides onto
# its neighbour.
DELETION = (
    search_replace("def two():\n    return 2\n", "def two():\n"),
    SOURCE.replace("    return 2\n    return 2\n", "    return 2\n"),
)
REPLACEMENT = (
    search_replace("    return 3\n", "    return 33\n"),
    SOURCE.replace("return 3\n", "return 33\n"),
)
KINDS = {"insertion": INSERTION, "deletion": DELETION, "replacement": REPLACEMENT}


def _position(text: str, index: int) -> Point:
    before = text[:index]
    return Point(before.count("\n"), index - (before.rfind("\n") + 1))


def _offsets(text: str, change: Replacement) -> tuple[int, int]:
    lines = text.splitlines(keepends=True)

    def offset(point: Point) -> int:
        if point.line >= len(lines):
            return len(text)
        return sum(len(line) for line in lines[: point.line]) + point.column

    return offset(change.start), offset(change.end)


Shape = Callable[[str, list[Replacement]], list[Replacement | Text]]


def last_first(text: str, edits: list[Replacement]) -> list[Replacement | Text]:
    """VS Code: every change against the text before the edit, the last first."""
    return list(reversed(edits))


def first_to_last(text: str, edits: list[Replacement]) -> list[Replacement | Text]:
    """Each change against the text the one before left, the first first."""
    out: list[Replacement | Text] = []
    shift = 0
    current = text
    for edit in edits:
        start, end = _offsets(text, edit)
        start, end = start + shift, end + shift
        out.append(Replacement(_position(current, start), _position(current, end), edit.text))
        current = current[:start] + edit.text + current[end:]
        shift += len(edit.text) - (end - start)
    return out


def characters(text: str, edits: list[Replacement]) -> list[Replacement | Text]:
    """Trimmed to the characters that differ (as an editor's minimal edits are),
    the last first."""
    new = _apply(text, edits)
    matcher = difflib.SequenceMatcher(None, text, new, autojunk=False)
    ops = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    return [
        Replacement(_position(text, i1), _position(text, i2), new[j1:j2])
        for _, i1, i2, j1, j2 in reversed(ops)
    ]


def whole_text(text: str, edits: list[Replacement]) -> list[Replacement | Text]:
    """One full-text change (full sync, a buffer closed unsaved, a file changed on disk)."""
    return [Text.from_string(_apply(text, edits))]


SHAPES: dict[str, Shape] = {
    "last-first": last_first,
    "first-to-last": first_to_last,
    "characters": characters,
    "whole-text": whole_text,
}


def _apply(text: str, edits: Sequence[Replacement]) -> str:
    for edit in reversed(edits):
        start, end = _offsets(text, edit)
        text = text[:start] + edit.text + text[end:]
    return text


def sent_edit(store: Store, acceptance: Acceptance) -> list[Replacement]:
    """The text edits the server sends (or puts in a code action) for an accept."""
    buffer = store.buffer_of(FILE)
    assert buffer is not None
    return replacement(
        buffer.raw,
        buffer.text().eol,
        acceptance.edits[FILE],
        final_newline=acceptance.final_newline[FILE],
    )


def editor_applies(store: Store, acceptance: Acceptance, shape: Shape) -> None:
    """The editor applies the accept's edit and reports it in one `didChange`."""
    text = buffer_text(store)
    store.edited(FILE, shape(text, sent_edit(store, acceptance)))


def undo(store: Store, text: str) -> None:
    """The editor's undo: the buffer is `text` again, reported as the smallest change."""
    now = buffer_text(store)
    head = 0
    while head < min(len(now), len(text)) and now[head] == text[head]:
        head += 1
    tail = 0
    while tail < min(len(now), len(text)) - head and now[-1 - tail] == text[-1 - tail]:
        tail += 1
    edit = Replacement(
        _position(now, head), _position(now, len(now) - tail), text[head : len(text) - tail]
    )
    store.edited(FILE, [edit])


def one_change(reply: str, text: str = SOURCE) -> tuple[Store, PendingChange]:
    store = Store()
    (change,) = propose(store, reply, text)
    assert change.pending
    return store, change


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", KINDS)
def test_a_code_actions_edit_applied_by_the_editor_applies_the_change(
    kind: str, shape: str
) -> None:
    reply, expected = KINDS[kind]
    store, change = one_change(reply)
    editor_applies(store, store.acceptance(change.id), SHAPES[shape])
    assert buffer_text(store) == expected
    assert change.status is Status.APPLIED
    assert change.hunks == []


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("answered_first", [False, True], ids=["didChange-first", "answer-first"])
def test_an_accept_the_server_sent_is_the_change_applied_whatever_the_order(
    kind: str, shape: str, answered_first: bool
) -> None:
    reply, expected = KINDS[kind]
    store, change = one_change(reply)
    acceptance = store.acceptance(change.id)
    store.sending(acceptance)
    if answered_first:  # Neovim: its didChange waits for a debounce
        store.sent(acceptance, applied=True)
    editor_applies(store, acceptance, SHAPES[shape])
    if not answered_first:
        store.sent(acceptance, applied=True)
    assert buffer_text(store) == expected
    assert change.status is Status.APPLIED
    assert change.hunks == []
    with pytest.raises(Exception, match="applied, not pending"):
        store.acceptance(change.id)  # accepting again sends nothing


THREE = (
    search_replace("    return 1\n", "    return 1\n    # one\n")
    + "\n"
    + search_replace("def two():\n    return 2\n", "def two():\n")
    + "\n"
    + search_replace("    return 3\n", "    return 33\n")
)
THREE_APPLIED = (
    SOURCE.replace("    return 1\n", "    return 1\n    # one\n")
    .replace("    return 2\n    return 2\n", "    return 2\n")
    .replace("return 3\n", "return 33\n")
)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("answered_first", [False, True], ids=["didChange-first", "answer-first"])
def test_accept_all_applies_every_change_and_none_goes_stale(
    shape: str, answered_first: bool
) -> None:
    store = Store()
    changes = propose(store, THREE, SOURCE)
    acceptance = store.acceptance_of_all(changes)
    store.sending(acceptance)
    if answered_first:
        store.sent(acceptance, applied=True)
    editor_applies(store, acceptance, SHAPES[shape])
    # The didChange that shows the edit reads as the accept, before any answer.
    assert [(c.status, c.message, c.hunks) for c in changes] == [(Status.APPLIED, None, [])] * 3
    if not answered_first:
        store.sent(acceptance, applied=True)
    assert buffer_text(store) == THREE_APPLIED
    assert [c.status for c in changes] == [Status.APPLIED] * 3


CART = """\
class Cart:
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)

    def total(self):
        return sum(item.price for item in self.items)
"""
CART_REPLY = (
    search_replace(
        "        self.items = []\n", "        self.items = []\n        self.discount = 0\n"
    )
    + "\n"
    + search_replace(
        "        self.items.append(item)\n",
        "        if item not in self.items:\n            self.items.append(item)\n",
    )
    + "\n"
    + search_replace(
        "        return sum(item.price for item in self.items)\n",
        "        return sum(item.price * item.quantity for item in self.items)\n",
    )
)


@pytest.mark.parametrize("shape", SHAPES)
def test_accept_all_of_a_whole_reply_reported_in_any_shape_applies_it(shape: str) -> None:
    store = Store()
    changes = propose(store, CART_REPLY, CART)
    editor_applies(store, store.acceptance_of_all(changes), SHAPES[shape])
    assert [(c.status, c.message) for c in changes] == [(Status.APPLIED, None)] * 3
    assert "self.discount = 0" in buffer_text(store)


@pytest.mark.parametrize("shape", SHAPES)
def test_accepting_the_first_change_keeps_the_ones_below_exactly_in_place(shape: str) -> None:
    store = Store()
    first, second, third = propose(store, THREE, SOURCE)
    editor_applies(store, store.acceptance(first.id), SHAPES[shape])
    assert first.status is Status.APPLIED
    assert second.pending and third.pending
    assert [(h.start, h.end) for h in second.hunks] == [(6, 7)]
    assert [(h.start, h.end) for h in third.hunks] == [(11, 12)]
    editor_applies(store, store.acceptance_of_all([second, third]), SHAPES[shape])
    assert buffer_text(store) == THREE_APPLIED
    assert [c.status for c in (second, third)] == [Status.APPLIED] * 2


@pytest.mark.parametrize("kind", KINDS)
def test_undo_right_after_accepting_makes_the_change_pending_again(kind: str) -> None:
    reply, expected = KINDS[kind]
    store, change = one_change(reply)
    hunks = [(h.start, h.end, h.old, h.new) for h in change.hunks]
    editor_applies(store, store.acceptance(change.id), last_first)
    assert change.status is Status.APPLIED
    undo(store, SOURCE)
    assert change.pending
    assert [(h.start, h.end, h.old, h.new) for h in change.hunks] == hunks
    editor_applies(store, store.acceptance(change.id), last_first)  # and redo
    assert change.status is Status.APPLIED
    assert buffer_text(store) == expected


def test_undo_after_typing_elsewhere_makes_the_change_pending_again_where_it_is() -> None:
    store, change = one_change(REPLACEMENT[0])
    editor_applies(store, store.acceptance(change.id), last_first)
    accepted = buffer_text(store)
    type_into(store, 0, 0, "import os\n\n")
    undo(store, accepted)  # the typing
    assert change.status is Status.APPLIED
    undo(store, SOURCE)  # the accept
    assert change.pending
    assert [(h.start, h.end, h.new) for h in change.hunks] == [(10, 11, ("    return 33",))]


def test_typing_above_after_accepting_then_undoing_the_accept_finds_the_change_moved() -> None:
    store, change = one_change(REPLACEMENT[0])
    editor_applies(store, store.acceptance(change.id), last_first)
    type_into(store, 0, 0, "# top\n")
    undo(store, "# top\n" + SOURCE)
    assert change.pending
    assert [(h.start, h.end) for h in change.hunks] == [(11, 12)]


def test_undo_of_accept_all_makes_every_change_pending_again() -> None:
    store = Store()
    changes = propose(store, THREE, SOURCE)
    before = [[(h.start, h.end, h.new) for h in c.hunks] for c in changes]
    acceptance = store.acceptance_of_all(changes)
    store.sending(acceptance)
    editor_applies(store, acceptance, whole_text)
    store.sent(acceptance, applied=True)
    undo(store, SOURCE)
    assert all(c.pending for c in changes)
    assert [[(h.start, h.end, h.new) for h in c.hunks] for c in changes] == before


def test_typing_the_lines_of_an_insertion_where_it_goes_applies_it() -> None:
    store, change = one_change(INSERTION[0])
    type_into(store, 2, 0, "    # one\n")
    assert change.status is Status.APPLIED


def test_typing_other_lines_where_an_insertion_goes_keeps_it_pending_below_them() -> None:
    store, change = one_change(INSERTION[0])
    type_into(store, 2, 0, "    # not this\n")
    assert change.pending
    assert [(h.start, h.end) for h in change.hunks] == [(3, 3)]


def test_an_edit_refused_by_the_editor_leaves_the_change_pending_and_exact() -> None:
    store, change = one_change(REPLACEMENT[0])
    acceptance = store.acceptance(change.id)
    store.sending(acceptance)
    store.sent(acceptance, applied=False)
    type_into(store, 0, 0, "# top\n")
    assert change.pending
    assert [(h.start, h.end) for h in change.hunks] == [(11, 12)]


def test_closing_an_edited_buffer_unsaved_puts_every_change_back_inside_the_text() -> None:
    """The buffer goes back to the disk's text as one whole text: changes are judged
    once every line has moved, never at a place that has not moved yet."""
    store, change = one_change(REPLACEMENT[0])
    store.edited(FILE, [Replacement(Point(0, 0), Point(4, 0), "")])  # the user deletes 4 lines
    type_into(store, 6, 12, "  ")  # and adds spaces after `return 3`: it places again
    assert change.pending
    store.edited(FILE, [Text.from_string(SOURCE)])  # closed unsaved: the disk's text again
    assert change.pending
    assert [(h.start, h.end) for h in change.hunks] == [(10, 11)]
