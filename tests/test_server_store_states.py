"""The store under any sequence of edits, accepts, undos, rejects and full-text
changes: its changes never lie about the buffer. A pending change holds the lines it
expects where it says they are; every hunk lies inside the buffer."""

from __future__ import annotations

import contextlib

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from lsp_edit.changes import Status
from lsp_edit.server.hunks import Replacement
from lsp_edit.server.store import Store
from lsp_edit.text import Text
from tests.test_server_store import FILE, buffer_text, propose, search_replace
from tests.test_server_store_edits import SHAPES, _position, editor_applies

LINES = ["def one():", "    return 1", "", "    return 1", "x = 1", "x = 1", "", "end"]
SOURCE = "".join(line + "\n" for line in LINES)
TYPED = st.sampled_from(["", "x", "\n", "x = 1\n", "    return 1\n", "# 🙂\n", "\n\n", "end"])


class StoreStates(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.store = Store()
        self.texts: list[str] = [SOURCE]  # what undo goes back to
        self.disk = SOURCE
        reply = (
            search_replace("    return 1\nx = 1\n", "    return 11\nx = 1\n")
            + "\n"
            + search_replace("x = 1\nx = 1\n", "x = 1\n")
            + "\n"
            + search_replace("end\n", "end\n# after\n")
            + "\n"
            + search_replace("def one():\n", "def one():\n    '''One.'''\n")
        )
        self.changes = propose(self.store, reply, SOURCE)
        assert all(c.pending for c in self.changes)

    def _edit(self, batch: list[Replacement | Text]) -> None:
        self.texts.append(buffer_text(self.store))
        self.store.edited(FILE, batch)

    @rule(data=st.data(), typed=TYPED)
    def type_somewhere(self, data: st.DataObject, typed: str) -> None:
        text = buffer_text(self.store)
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, min(len(text), start + 12)))
        edit = Replacement(_position(text, start), _position(text, end), typed)
        self._edit([edit])

    @rule(data=st.data(), typed=TYPED)
    def replace_the_whole_text(self, data: st.DataObject, typed: str) -> None:
        text = buffer_text(self.store)
        start = data.draw(st.integers(0, len(text)))
        self._edit([Text.from_string(text[:start] + typed + text[start:])])

    @rule(data=st.data(), shape=st.sampled_from(sorted(SHAPES)))
    def accept_one(self, data: st.DataObject, shape: str) -> None:
        pending = [c for c in self.changes if c.pending]
        if not pending:
            return
        change = data.draw(st.sampled_from(pending))
        self.texts.append(buffer_text(self.store))
        editor_applies(self.store, self.store.acceptance(change.id), SHAPES[shape])
        assert change.status is Status.APPLIED

    @rule(shape=st.sampled_from(sorted(SHAPES)))
    def accept_all(self, shape: str) -> None:
        pending = [c for c in self.changes if c.pending]
        if not pending:
            return
        acceptance = self.store.acceptance_of_all(pending)
        self.texts.append(buffer_text(self.store))
        self.store.sending(acceptance)
        editor_applies(self.store, acceptance, SHAPES[shape])
        self.store.sent(acceptance, applied=True)
        assert all(c.status is Status.APPLIED for c in acceptance.changes)

    @precondition(lambda self: len(self.texts) > 1)
    @rule()
    def undo(self) -> None:
        text = self.texts.pop()
        self.store.edited(FILE, [Text.from_string(text)])

    @rule()
    def save(self) -> None:
        self.disk = buffer_text(self.store)

    @rule()
    def close_without_saving(self) -> None:
        """The buffer is what the disk holds again (one whole text)."""
        self._edit([Text.from_string(self.disk)])

    @rule(data=st.data())
    def reject_one(self, data: st.DataObject) -> None:
        shown = [c for c in self.changes if c.shown]
        if shown:
            self.store.reject(data.draw(st.sampled_from(shown)).id)

    @rule()
    def restore(self) -> None:
        with contextlib.suppress(KeyError):  # nothing rejected
            self.store.restore(None)

    @invariant()
    def hunks_lie_inside_the_buffer(self) -> None:
        buffer = self.store.buffer_of(FILE)
        assert buffer is not None
        for change in self.changes:
            for hunk in change.hunks:
                assert 0 <= hunk.start <= hunk.end <= buffer.line_count, (change, buffer.raw)

    @invariant()
    def a_pending_change_holds_the_lines_it_replaces(self) -> None:
        buffer = self.store.buffer_of(FILE)
        assert buffer is not None
        for change in self.changes:
            if change.pending:
                for hunk in change.hunks:
                    assert hunk.landed or buffer.lines(hunk.start, hunk.end) == hunk.old, (
                        change,
                        buffer.raw,
                    )

    @invariant()
    def a_decided_change_shows_nothing(self) -> None:
        for change in self.changes:
            if change.status is Status.APPLIED:
                assert change.hunks == [] or change.seen_applied


StoreStates.TestCase.settings = settings(max_examples=100, stateful_step_count=30, deadline=None)
test_the_store_never_lies_about_the_buffer = StoreStates.TestCase
