"""The pending changes of every session, and their tracking against the buffers.

The store owns every change the server has proposed: where its hunks sit in the
buffer as the user has it now, what each depends on, and its state. Handlers ask
it questions (what touches this range, what does accepting this change send) and
tell it what happened (the user typed, the editor applied an edit, the user
rejected a change). No LSP types here: files are keyed by their absolute path and
positions are `Point`s.

How a change follows the buffer: a `Splice` above a hunk moves it; one inside it
is judged by the hunk's lines afterwards. The change's own new lines there mean
the editor applied it (a code action's edit); its old lines (with any change it
depends on applied) mean nothing of it moved; anything else means the user edited
its lines, and the change is placed again from its block when that is unambiguous,
and marked stale otherwise. A change is never applied at a position it no longer
holds.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from lsp_edit.blocks.model import (
    AnchoredEdit,
    AstTarget,
    ChunkDiff,
    CreateFile,
    DeleteFile,
    EditBlock,
    FencedEdit,
    Notice,
    ParseProblem,
    ReplyItem,
    ReplySpan,
)
from lsp_edit.changes import Change, Planner, Session, Status
from lsp_edit.positions import Point
from lsp_edit.resolve.model import Refused
from lsp_edit.server.hunks import Composer, Splice, TrackedBuffer
from lsp_edit.text import LineEdit, Text
from lsp_edit.values import field, record, value
from lsp_edit.workspace import FileRef

if TYPE_CHECKING:
    from lsp_edit.changes import FileSource

NOWHERE = Path()
"""The path of a failure that names no file: it is listed, never shown in a file."""


class ChangeKind(StrEnum):
    EDIT = "edit"
    CREATE = "create"
    DELETE = "delete"
    MOVE = "move"


@record
class Hunk:
    """Lines `start`..`end` of the buffer as it is now, which hold `old` and become
    `new` when the change is accepted."""

    start: int
    end: int
    old: tuple[str, ...]
    new: tuple[str, ...]
    # Its new lines are in the buffer already (the editor applied it).
    landed: bool = False

    @property
    def inserts_only(self) -> bool:
        return self.start == self.end

    def holds(self, other: Hunk) -> bool:
        """Whether `other` lies within these lines (a dependency's hunk does)."""
        return self.start <= other.start and other.end <= self.end

    def overlaps(self, other: Hunk) -> bool:
        """Whether the two cannot both be applied as they are: they share a line, or
        insert at one place (in an order nobody decided)."""
        if self.inserts_only and other.inserts_only:
            return self.start == other.start
        if self.inserts_only:
            return other.start < self.start < other.end
        if other.inserts_only:
            return self.start < other.start < self.end
        return self.start < other.end and other.start < self.end


@value
class ReplyBlock:
    """Where a change came from: a reply document and the block's lines in it."""

    uri: str
    span: ReplySpan


@record
class PendingChange:
    """One block's change as the editor shows it."""

    id: str
    session: str
    path: Path  # NOWHERE for a failure that names no file, with no default target
    display: str
    description: str
    status: Status
    kind: ChangeKind = ChangeKind.EDIT
    hunks: list[Hunk] = field(default_factory=list)
    depends_on: list[str] = field(default_factory=list)
    block: EditBlock | ParseProblem | None = None
    reply: ReplyBlock | None = None
    message: str | None = None
    detail: str | None = None
    code: str | None = None
    notes: tuple[str, ...] = ()
    final_newline: bool | None = None
    move_to: Path | None = None
    # The editor was asked to apply it and said yes, or showed its lines already.
    seen_applied: bool = False

    @property
    def pending(self) -> bool:
        return self.status is Status.PENDING

    @property
    def shown(self) -> bool:
        """Shown in the editor: pending, or stale (with a warning where it was)."""
        return self.status in (Status.PENDING, Status.STALE)

    @property
    def tracked(self) -> bool:
        return self.status in (Status.PENDING, Status.STALE, Status.REJECTED)

    def line_span(self) -> tuple[int, int] | None:
        if not self.hunks:
            return None
        return min(h.start for h in self.hunks), max(h.end for h in self.hunks)

    def counts(self) -> tuple[int, int]:
        """Lines it replaces and lines it writes."""
        return sum(h.end - h.start for h in self.hunks), sum(len(h.new) for h in self.hunks)


@record
class EditSession:
    """One conversation's proposals: the edit mode holds across them."""

    id: str
    mode: Session
    default_target: str | None = None


@value
class Acceptance:
    """What accepting a change sends: the changes it takes (those it depends on
    first) and, per file, the edits against the buffer as it is."""

    changes: tuple[PendingChange, ...]
    edits: dict[Path, tuple[LineEdit, ...]]
    final_newline: dict[Path, bool | None]


@value
class Landing:
    """Where a pending change's new lines are in the proposed text: lines
    `start`..`end` (0-based, end exclusive; `start == end` where it only deletes,
    before the line that followed what it deletes)."""

    change_id: str
    start: int
    end: int


@value
class Proposal:
    """A file with its pending changes applied, and where each one landed (a change
    built on by another lands within that one's lines, and is not listed)."""

    text: Text
    landings: tuple[Landing, ...]


class NotAccepted(Exception):
    """A change that cannot be accepted now, with the reason for the user."""


class Store:
    """Every session's changes and the buffers they are tracked in."""

    def __init__(self) -> None:
        self.changes: dict[str, PendingChange] = {}
        self.sessions: dict[str, EditSession] = {}
        self.buffers: dict[Path, TrackedBuffer] = {}
        self._by_path: dict[Path, dict[str, PendingChange]] = {}
        self._ids: Iterator[str] = (str(n) for n in itertools.count(1))
        self._session_ids: Iterator[str] = (f"s{n}" for n in itertools.count(1))
        self._rejected: list[str] = []
        # Counts every change of state, so that a reply notices decisions cheaply.
        self.decisions = 0

    # --- sessions and proposals -------------------------------------------------

    @property
    def ids(self) -> Iterator[str]:
        return self._ids

    def session(self, session_id: str | None, mode: str) -> EditSession:
        """The session to continue, or a new one in `mode`."""
        if session_id is not None and session_id in self.sessions:
            return self.sessions[session_id]
        new_id = session_id if session_id is not None else next(self._session_ids)
        session = self.sessions[new_id] = EditSession(new_id, Session(mode))
        return session

    def propose(
        self,
        session: EditSession,
        items: Sequence[ReplyItem],
        files: FileSource,
        default_target: Path | None = None,
    ) -> list[PendingChange]:
        """Places a whole reply's blocks in order, as `lsp-edit apply` does, and keeps
        each as a change of the buffers as they are."""
        return self.reply(session, files, default_target).add(items)

    def reply(
        self,
        session: EditSession,
        files: FileSource,
        default_target: Path | None = None,
        *,
        document: str | None = None,
        mark: Callable[[Path], object] = lambda path: None,
    ) -> Reply:
        """A reply whose blocks arrive over time (a reply document, a stream)."""
        if default_target is not None:
            session.default_target = str(default_target)
        return Reply(self, session, files, document, mark)

    def _add(self, change: PendingChange) -> None:
        self.changes[change.id] = change
        self._by_path.setdefault(change.path, {})[change.id] = change

    def _remove(self, change: PendingChange) -> None:
        del self.changes[change.id]
        del self._by_path[change.path][change.id]

    def _move(self, change: PendingChange, path: Path) -> None:
        if change.path != path:
            del self._by_path[change.path][change.id]
            change.path = path
            self._by_path.setdefault(path, {})[change.id] = change

    def _track(self, path: Path, text: Text) -> None:
        """Follows a buffer from the text a planner read of it."""
        if path in self.buffers:
            # The planner read the buffer as it is; changes tracked there follow it.
            self.replaced(path, text)
        else:
            self.buffers[path] = TrackedBuffer.of(text)

    def _withdraw_failures(
        self, session: str, document: str | None, items: Sequence[ReplyItem]
    ) -> None:
        """A new reply in a session replaces that session's failures for the files it
        names: they were the LLM's earlier attempts. (A reply document keeps its own
        failures: they are its blocks.)"""
        if document is not None:
            return
        again = {path for item in items if (path := getattr(item, "path", None))}
        for change in list(self.changes.values()):
            if (
                change.session == session
                and change.reply is None
                and change.status in (Status.FAILED, Status.SKIPPED)
                and (change.display in again or not change.display)
            ):
                self._remove(change)

    # --- questions ----------------------------------------------------------------

    def get(self, change_id: str) -> PendingChange | None:
        return self.changes.get(change_id)

    def in_file(self, path: Path) -> list[PendingChange]:
        return list(self._by_path.get(path, {}).values())

    def shown_in(self, path: Path) -> list[PendingChange]:
        return [c for c in self.in_file(path) if c.shown]

    def touching(self, path: Path, first: int, last: int) -> list[PendingChange]:
        """Shown changes with a hunk on lines `first`..`last` (inclusive)."""
        found = []
        for change in self.shown_in(path):
            for hunk in change.hunks:
                top = hunk.start
                bottom = max(hunk.end - 1, hunk.start)
                if top <= last and first <= bottom:
                    found.append(change)
                    break
        return found

    def select(
        self, *, session: str | None = None, path: Path | None = None
    ) -> list[PendingChange]:
        return [
            c
            for c in self.changes.values()
            if (session is None or c.session == session) and (path is None or c.path == path)
        ]

    def next_pending(
        self, path: Path | None, line: int | None, *, forward: bool = True
    ) -> PendingChange | None:
        """The review queue: the pending change after (or before) a place, by file and
        then by line, wrapping around; from the start when there is no place."""

        def where(change: PendingChange) -> tuple[str, int]:
            return (str(change.path), (change.line_span() or (0, 0))[0])

        queue = sorted((c for c in self.changes.values() if c.pending), key=where)
        if not queue:
            return None
        here = (str(path) if path is not None else "", line if line is not None else -1)
        if forward:
            return next((c for c in queue if where(c) > here), queue[0])
        return next((c for c in reversed(queue) if where(c) < here), queue[-1])

    def proposed(self, path: Path) -> Proposal | None:
        """The buffer with every pending change of the file applied (of changes that
        overlap without one building on the other, the earlier one), and where each
        change's new lines landed."""
        buffer = self.buffers.get(path)
        if buffer is None:
            return None
        pending = [c for c in self.in_file(path) if c.pending and c.kind is not ChangeKind.DELETE]
        taken = self.acceptance_of_all(pending)
        text = buffer.text()
        if path not in taken.edits:
            return Proposal(text, ())
        edits = taken.edits[path]
        new_text = text.replace(edits, final_newline=taken.final_newline[path])
        return Proposal(new_text, _landings(edits, [c for c in taken.changes if c.path == path]))

    # --- accepting ------------------------------------------------------------------

    def acceptance(self, change_id: str) -> Acceptance:
        """What accepting this change sends: it and, first, what it depends on."""
        change = self._decidable(change_id)
        taken = [self._decidable(d) for d in change.depends_on if self._still_pending(d)]
        return self._acceptance([*taken, change])

    def acceptance_of_all(self, changes: Sequence[PendingChange]) -> Acceptance:
        """Accepting many at once: those that overlap an earlier one without building
        on it are left for later (they are placed again once it lands)."""
        chosen: list[PendingChange] = []
        chosen_ids: set[str] = set()
        taken: dict[Path, _Occupied] = {}
        for change in sorted((c for c in changes if c.pending), key=_order):
            parts = [self.changes[d] for d in change.depends_on if self._still_pending(d)]
            parts.append(change)
            fresh = [part for part in parts if part.id not in chosen_ids]
            related = {part.id for part in parts}
            occupied = taken.setdefault(change.path, _Occupied())
            if any(occupied.clashes(h, related) for part in fresh for h in part.hunks):
                continue
            for part in fresh:
                for hunk in part.hunks:
                    occupied.take(hunk, part.id)
            chosen.extend(fresh)
            chosen_ids.update(part.id for part in fresh)
        return self._acceptance(chosen)

    def _acceptance(self, changes: list[PendingChange]) -> Acceptance:
        edits: dict[Path, tuple[LineEdit, ...]] = {}
        final_newline: dict[Path, bool | None] = {}
        for path in dict.fromkeys(c.path for c in changes):
            in_path = [c for c in changes if c.path == path]
            edits[path] = tuple(LineEdit(h.start, h.end, h.new) for h in _outermost(in_path))
            final_newline[path] = next(
                (c.final_newline for c in in_path if c.final_newline is not None), None
            )
        return Acceptance(tuple(changes), edits, final_newline)

    def _decidable(self, change_id: str) -> PendingChange:
        change = self.changes.get(change_id)
        if change is None:
            raise KeyError(change_id)
        if change.status is Status.STALE:
            raise NotAccepted(
                f"Change {change.id} is stale: {change.message} It cannot be applied; reject "
                "it, or ask the LLM for a new edit."
            )
        if change.status is not Status.PENDING:
            raise NotAccepted(f"Change {change.id} is {change.status.value}, not pending.")
        return change

    def _still_pending(self, change_id: str) -> bool:
        change = self.changes.get(change_id)
        return change is not None and change.pending

    def mark_applied(self, changes: Iterable[PendingChange]) -> None:
        """The editor applied these (it answered the edit with `applied: true`)."""
        for change in changes:
            if change.pending:
                change.status = Status.APPLIED
                self.decisions += 1
                change.seen_applied = True

    # --- rejecting and restoring ---------------------------------------------------------

    def reject(self, change_id: str) -> list[PendingChange]:
        """Rejects a pending or stale change (or dismisses a failure); returns the
        changes this affected, the rejected one first."""
        change = self.changes.get(change_id)
        if change is None:
            raise KeyError(change_id)
        return self.reject_all([change])

    def reject_all(self, changes: Sequence[PendingChange]) -> list[PendingChange]:
        """Rejects these changes at once; a pending change that built on one of them
        is placed again alone, or goes stale. Returns every change affected."""
        rejected: dict[str, PendingChange] = {}
        for change in changes:
            if change.status in (Status.APPLIED, Status.REJECTED):
                continue
            change.status = Status.REJECTED
            self.decisions += 1
            self._rejected.append(change.id)
            rejected[change.id] = change
        affected = list(changes)
        for path in {c.path for c in rejected.values()}:
            for other in self.in_file(path):
                built_on = [rejected[d] for d in other.depends_on if d in rejected]
                if other.pending and built_on:
                    what = ", ".join(f"{c.id} ({c.description})" for c in built_on)
                    self._place_again(other, f"It built on change {what}, which was rejected.")
                    affected.append(other)
        return affected

    def restore(self, change_id: str | None) -> PendingChange:
        """Brings a rejected change back (the last one rejected when no id)."""
        if change_id is None:
            if not self._rejected:
                raise KeyError("no rejected change")
            change_id = self._rejected[-1]
        change = self.changes.get(change_id)
        if change is None:
            raise KeyError(change_id)
        if change.status is not Status.REJECTED:
            raise NotAccepted(f"Change {change.id} is {change.status.value}, not rejected.")
        self._rejected = [r for r in self._rejected if r != change.id]
        change.status = Status.PENDING
        self.decisions += 1
        buffer = self.buffers.get(change.path)
        if buffer is not None and not all(
            buffer.lines(h.start, h.end) == h.old for h in change.hunks
        ):
            self._place_again(change, "Its lines changed while it was rejected.")
        elif change.depends_on and not all(self._still_pending(d) for d in change.depends_on):
            self._place_again(change, "A change it built on is no longer pending.")
        return change

    # --- following the buffer -----------------------------------------------------------

    def buffer_of(self, path: Path) -> TrackedBuffer | None:
        return self.buffers.get(path)

    def edited(self, path: Path, start: Point, end: Point, text: str) -> bool:
        """The editor changed the buffer between two points; returns whether any
        tracked change moved or changed state."""
        buffer = self.buffers.get(path)
        if buffer is None:
            return False
        return self._follow(path, [buffer.edit(start, end, text)])

    def replaced(self, path: Path, text: Text) -> bool:
        """The buffer's whole text is new (full sync, opened, read from disk)."""
        buffer = self.buffers.get(path)
        if buffer is None or (buffer.raw == list(text.raw_lines) and buffer.bom == text.bom):
            return False
        return self._follow(path, buffer.replace_all(text))

    def _follow(self, path: Path, splices: Sequence[Splice]) -> bool:
        moved = False
        for splice in splices:
            moved |= self._follow_one(path, splice)
        return moved

    def _follow_one(self, path: Path, splice: Splice) -> bool:
        touched: dict[str, list[tuple[Hunk, int, int]]] = {}
        moved = False
        top, bottom, delta = splice.start, splice.end, splice.delta
        for change in self.in_file(path):
            for hunk in change.hunks:
                if bottom <= hunk.start:  # above it (or lines inserted right before)
                    if delta:
                        hunk.start += delta
                        hunk.end += delta
                        moved = True
                    continue
                if top >= hunk.end:  # below it
                    continue
                before = (hunk.start, hunk.end)
                hunk.start = min(hunk.start, top)
                hunk.end = max(hunk.end, bottom) + delta
                touched.setdefault(change.id, []).append((hunk, *before))
                moved = True
        if touched:
            self._judge(path, touched)
        return moved

    def _judge(self, path: Path, touched: dict[str, list[tuple[Hunk, int, int]]]) -> None:
        buffer = self.buffers[path]
        for entries in touched.values():
            for hunk, _, _ in entries:
                hunk.landed = buffer.lines(hunk.start, hunk.end) == hunk.new
        # What the editor applied first: a dependent's hunk holds its dependencies'.
        for change_id in sorted(touched, key=_id_order, reverse=True):
            change = self.changes[change_id]
            if change.pending and all(h.landed for h in change.hunks):
                self._applied_by_editor(change)
        for change_id in sorted(touched, key=_id_order):
            change = self.changes[change_id]
            if change.status is Status.APPLIED:
                change.hunks = []
                continue
            for hunk, old_start, old_end in touched[change_id]:
                if not hunk.landed:
                    self._settle(change, hunk, old_start, old_end, touched)
            if change.pending and not self._intact(change):
                self._place_again(change, "You edited the lines it changes.")

    def _applied_by_editor(self, change: PendingChange) -> None:
        change.status = Status.APPLIED
        self.decisions += 1
        change.seen_applied = True
        change.hunks = []
        for dependency in change.depends_on:
            if self._still_pending(dependency):
                inner = self.changes[dependency]
                inner.status = Status.APPLIED
                self.decisions += 1
                inner.seen_applied = True
                inner.hunks = []

    def _settle(
        self,
        change: PendingChange,
        hunk: Hunk,
        old_start: int,
        old_end: int,
        touched: dict[str, list[tuple[Hunk, int, int]]],
    ) -> None:
        """A hunk whose lines changed still holds what it expects when the changes
        it depends on landed inside it: it then expects those lines from now on."""
        expected = list(hunk.old)
        inner = [
            (dep_start, dep_end, dep_hunk.new, dependency)
            for dependency in change.depends_on
            for dep_hunk, dep_start, dep_end in touched.get(dependency, [])
            if dep_hunk.landed and old_start <= dep_start and dep_end <= old_end
        ]
        for dep_start, dep_end, new, _ in sorted(inner, key=lambda i: i[0], reverse=True):
            expected[dep_start - old_start : dep_end - old_start] = list(new)
        now = self.buffers[change.path].lines(hunk.start, hunk.end)
        if tuple(expected) == now:
            hunk.old = now
            landed = {dependency for *_, dependency in inner}
            change.depends_on = [
                d for d in change.depends_on if d not in landed or self._still_pending(d)
            ]

    def _intact(self, change: PendingChange) -> bool:
        buffer = self.buffers.get(change.path)
        if buffer is None:
            return True
        return all(h.landed or buffer.lines(h.start, h.end) == h.old for h in change.hunks)

    def _place_again(self, change: PendingChange, why: str) -> None:
        """Places a change again from its block against the buffer as it is, when
        that is unambiguous and overlaps no other shown change; otherwise it is stale."""
        buffer = self.buffers.get(change.path)
        placed = (
            _place_block(change, buffer.text())
            if buffer is not None and change.kind is ChangeKind.EDIT
            else _cannot_place_again(change)
        )
        if isinstance(placed, str):
            self._mark_stale(change, f"{why} {placed}")
            return
        assert buffer is not None
        lines = buffer.text().lines
        hunks = [Hunk(e.start, e.end, tuple(lines[e.start : e.end]), e.new_lines) for e in placed]
        others = [
            h for other in self.shown_in(change.path) if other is not change for h in other.hunks
        ]
        clash = next(
            (o for h in hunks for o in others if h.overlaps(o)),
            None,
        )
        if clash is not None:
            self._mark_stale(
                change, f"{why} Placed again, it would overlap another pending change."
            )
            return
        was_rejected = change.status is Status.REJECTED
        change.hunks = hunks
        change.depends_on = []
        if not was_rejected:
            change.status = Status.PENDING
            self.decisions += 1
            change.notes += (f"{why} It was placed again from its block.",)

    def _mark_stale(self, change: PendingChange, why: str) -> None:
        if change.status is Status.REJECTED:
            return
        change.status = Status.STALE
        self.decisions += 1
        change.code = "stale"
        change.message = why


class _Ids:
    """Change ids for a planner: the ones queued (a change placed again keeps its
    id), else new ones."""

    def __init__(self, fresh: Iterator[str]) -> None:
        self.fresh = fresh
        self.queued: list[str] = []

    def __iter__(self) -> _Ids:
        return self

    def __next__(self) -> str:
        return self.queued.pop(0) if self.queued else next(self.fresh)


class Reply:
    """One reply's blocks, placed in order, each on the result of the ones before,
    as `lsp-edit apply` places them; each kept as a change of the buffers as they
    are.

    Blocks may arrive over time. When a buffer the reply was placed against changed
    since (the user typed, or accepted one of its changes), or a block was edited or
    withdrawn, its pending changes are placed again, in order, keeping their ids.
    """

    def __init__(
        self,
        store: Store,
        session: EditSession,
        files: FileSource,
        document: str | None,
        mark: Callable[[Path], object],
    ) -> None:
        self.store = store
        self.session = session
        self.files = files
        self.document = document
        self._mark = mark
        self.change_ids: list[str] = []
        self._ids = _Ids(store.ids)
        self._real_paths: dict[Path, Path] = {}
        self._located: dict[str, Path] = {}  # display path -> real path
        self._begin()

    def _begin(self) -> None:
        self._planner = Planner(
            self.files,
            self.session.mode,
            default_target=self.session.default_target,
            ids=self._ids,
        )
        self._composers: dict[str, Composer] = {}
        self._marks: dict[Path, object] = {}
        self._decided = {
            i for i in self.change_ids if (c := self.store.changes.get(i)) and not c.pending
        }
        self._seen_decisions = self.store.decisions

    # --- what arrives -------------------------------------------------------------------

    def add(self, items: Sequence[ReplyItem]) -> list[PendingChange]:
        """New blocks, after the ones so far."""
        self.store._withdraw_failures(self.session.id, self.document, items)
        if self._moved_on():
            self._place_all_again()
        added: list[PendingChange] = []
        for item in items:
            for change in self._planner.add([item]):
                pending = self._new_change(change, item)
                self.change_ids.append(pending.id)
                added.append(pending)
        return added

    def edit(self, change_id: str, item: EditBlock | ParseProblem) -> PendingChange | None:
        """The block of a change was edited in the reply: the change follows, unless
        the user decided it already."""
        change = self.store.changes.get(change_id)
        if change is None:
            return None
        change.block = item
        if change.reply is not None:
            change.reply = ReplyBlock(change.reply.uri, item.span)
        if change.status in (Status.APPLIED, Status.REJECTED):
            return change
        self._place_all_again(also=change_id)
        return change

    def reorder(self, change_ids: Sequence[str]) -> None:
        """The reply's blocks in their reply order, after one was added before the
        end: they are placed again in that order."""
        self.change_ids = list(change_ids)
        self._place_all_again()

    def set_default_target(self, target: str) -> None:
        """The file blocks that name none go to (taken when the first one arrives)."""
        self.session.default_target = target
        self._planner.default_target = target

    def move(self, change_id: str, span: ReplySpan) -> None:
        """The block is unchanged but sits elsewhere in the reply now."""
        change = self.store.changes.get(change_id)
        if change is not None and change.reply is not None:
            change.reply = ReplyBlock(change.reply.uri, span)

    def withdraw(self, change_id: str) -> PendingChange | None:
        """The block was deleted from the reply: its change goes, unless decided."""
        change = self.store.changes.get(change_id)
        if change_id in self.change_ids:
            self.change_ids.remove(change_id)
        if change is None or change.status in (Status.APPLIED, Status.REJECTED):
            return None
        was_pending = change.pending
        self.store._remove(change)
        self.store.decisions += 1
        if was_pending:
            self._place_all_again()
        return change

    # --- placing ----------------------------------------------------------------------------

    def _moved_on(self) -> bool:
        """Whether a file this reply read changed since, or one of its changes was
        decided: what the planner holds then no longer matches the buffers."""
        if any(self._mark(path) != mark for path, mark in self._marks.items()):
            return True
        if self.store.decisions == self._seen_decisions:
            return False
        self._seen_decisions = self.store.decisions
        return any(
            (c := self.store.changes.get(i)) is not None and not c.pending
            for i in self.change_ids
            if i not in self._decided
        )

    def _place_all_again(self, *, also: str | None = None) -> None:
        """Places the reply's pending changes again, in order, against the buffers as
        they are; each keeps its id. One that no longer places is stale."""
        self._begin()
        for change_id in self.change_ids:
            change = self.store.changes.get(change_id)
            if change is None or change.block is None:
                continue
            if not (change.pending or change_id == also):
                continue
            self._ids.queued.append(change_id)
            made = self._planner.add([change.block])
            self._ids.queued.clear()
            if not made:
                continue
            if made[0].status is Status.APPLIED:
                self._place(change, made[0])
            elif change_id == also:
                _take_outcome(change, made[0])
            else:
                self.store._mark_stale(
                    change, f"Placed again after its file changed, it fails: {made[0].message}"
                )
        self._decided = {
            i for i in self.change_ids if (c := self.store.changes.get(i)) and not c.pending
        }
        self._seen_decisions = self.store.decisions

    def _new_change(self, change: Change, item: ReplyItem) -> PendingChange:
        block = item if not isinstance(item, Notice) else None
        pending = PendingChange(
            id=change.id,
            session=self.session.id,
            path=self._path_of(change.file),
            display=change.file or "",
            description=change.description,
            status=change.status,
            block=block,
            reply=ReplyBlock(self.document, item.span) if self.document else None,
        )
        _take_outcome(pending, change)
        self.store._add(pending)
        if change.status is Status.APPLIED:
            self._place(pending, change)
        return pending

    def _place(self, pending: PendingChange, change: Change) -> None:
        """A placed block as hunks of the buffer the planner read."""
        assert change.file is not None
        outcome = self._planner.plan.files[change.file]
        path = self._real(outcome.ref.absolute)
        self.store._move(pending, path)
        pending.display = change.file
        pending.status = Status.PENDING
        pending.description = change.description
        pending.notes = change.notes
        pending.message = pending.code = None
        pending.final_newline = None
        if path not in self._marks:
            self._marks[path] = self._mark(path)
        pending.kind, pending.move_to = self._kind_of(pending.block, outcome.moved_to)
        base = outcome.before
        lines = base.lines if base is not None else []
        composer = self._composers.get(change.file)
        if composer is None:
            composer = self._composers[change.file] = Composer(lines)
        placement = composer.add(pending.id, change.edits)
        pending.hunks = [
            Hunk(h.start, h.end, tuple(lines[h.start : h.end]), h.new) for h in placement.hunks
        ]
        pending.depends_on = list(placement.depends_on)
        if base is not None:
            self.store._track(path, base)

    def _kind_of(
        self, block: EditBlock | ParseProblem | None, moved_to: str | None
    ) -> tuple[ChangeKind, Path | None]:
        if isinstance(block, CreateFile):
            return ChangeKind.CREATE, None
        if isinstance(block, DeleteFile):
            return ChangeKind.DELETE, None
        if moved_to is not None and isinstance(block, AnchoredEdit) and block.move_to:
            return ChangeKind.MOVE, self._real(self._planner.plan.files[moved_to].ref.absolute)
        return ChangeKind.EDIT, None

    def _real(self, path: Path) -> Path:
        found = self._real_paths.get(path)
        if found is None:
            found = self._real_paths[path] = _real(path)
        return found

    def _path_of(self, written: str | None) -> Path:
        if written:
            if written in self._located:
                return self._located[written]
            ref = self.files.locate(written, allow_tail_match=False)
            if isinstance(ref, FileRef):
                found = self._located[written] = self._real(ref.absolute)
                return found
        default = self.session.default_target
        return Path(default) if default else NOWHERE


def _take_outcome(pending: PendingChange, change: Change) -> None:
    """A block's outcome that is not a placement: a failure, or already applied."""
    pending.status = change.status
    pending.description = change.description
    pending.message = change.message
    pending.detail = change.detail
    pending.code = change.code
    pending.notes = change.notes
    pending.hunks = []
    pending.depends_on = []


def _place_block(change: PendingChange, text: Text) -> tuple[LineEdit, ...] | str:
    """The block's edits against `text`, or why it cannot be placed again."""
    block = change.block
    if not _can_place_again(block):
        return _cannot_place_again(change)
    assert block is not None and not isinstance(block, ParseProblem)
    ref = FileRef(change.display, change.path)
    planner = Planner(_OneFile(ref, text), Session("auto"), default_target=change.display)
    made = planner.add([block])
    if not made or made[0].status is not Status.APPLIED:
        reason = made[0].message if made else "It no longer places."
        return f"Placed again, it fails: {reason}"
    return made[0].edits


def _can_place_again(block: EditBlock | ParseProblem | None) -> bool:
    if isinstance(block, AnchoredEdit):
        return block.move_to is None
    if isinstance(block, FencedEdit):
        return isinstance(block.target, AstTarget)
    if isinstance(block, ChunkDiff):
        return block.symbol is not None
    return False


def _cannot_place_again(change: PendingChange) -> str:
    if isinstance(change.block, FencedEdit) and change.block.target is not None:
        return "Its line numbers no longer say where it goes."
    return "It cannot be placed again safely."


class _OneFile:
    """The one file a change is placed in again, whatever path its block wrote."""

    def __init__(self, ref: FileRef, text: Text) -> None:
        self.ref = ref
        self.text = text

    def locate(self, written: str, *, allow_tail_match: bool = True) -> FileRef | Refused:
        return self.ref

    def read(self, ref: FileRef) -> Text | Refused | None:
        return self.text

    def similar_files(self, written: str) -> list[str]:
        return []


class _Occupied:
    """The lines and insertion points of one file that chosen changes write, to find
    a change that overlaps them in time linear in its own lines."""

    def __init__(self) -> None:
        self.lines: dict[int, str] = {}
        self.insertions: dict[int, str] = {}

    def clashes(self, hunk: Hunk, related: set[str]) -> bool:
        def other(owner: str | None) -> bool:
            return owner is not None and owner not in related

        if hunk.inserts_only:
            at = hunk.start
            if other(self.insertions.get(at)):
                return True
            above, below = self.lines.get(at - 1), self.lines.get(at)
            return other(above) and above == below
        if any(other(self.lines.get(line)) for line in range(hunk.start, hunk.end)):
            return True
        return any(other(self.insertions.get(at)) for at in range(hunk.start + 1, hunk.end))

    def take(self, hunk: Hunk, owner: str) -> None:
        if hunk.inserts_only:
            self.insertions[hunk.start] = owner
        for line in range(hunk.start, hunk.end):
            self.lines[line] = owner


def _outermost(changes: Sequence[PendingChange]) -> list[Hunk]:
    """The hunks to apply for these changes: a dependent's hunk already holds the
    hunks of what it depends on inside it, so those are left out."""
    dependents: dict[str, list[PendingChange]] = {}
    for change in changes:
        for dependency in change.depends_on:
            dependents.setdefault(dependency, []).append(change)
    out: list[Hunk] = []
    for change in changes:
        for hunk in change.hunks:
            inside_dependent = any(
                outer.holds(hunk)
                for dependent in dependents.get(change.id, ())
                for outer in dependent.hunks
            )
            if not inside_dependent:
                out.append(hunk)
    return sorted(out, key=lambda h: (h.start, h.end))


def _landings(edits: Sequence[LineEdit], changes: Sequence[PendingChange]) -> tuple[Landing, ...]:
    """Where each of these edits (sorted, not overlapping) lands once all are applied,
    named by the change whose hunk it is."""
    owner = {(h.start, h.end, h.new): c.id for c in changes for h in c.hunks}
    landings: list[Landing] = []
    shift = 0
    for edit in edits:
        start = edit.start + shift
        change_id = owner[edit.start, edit.end, edit.new_lines]
        landings.append(Landing(change_id, start, start + len(edit.new_lines)))
        shift += len(edit.new_lines) - (edit.end - edit.start)
    return tuple(landings)


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _id_order(change_id: str) -> tuple[int, str]:
    return (int(change_id), change_id) if change_id.isdigit() else (0, change_id)


def _order(change: PendingChange) -> tuple[int, str]:
    return _id_order(change.id)
