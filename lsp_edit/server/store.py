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
from lsp_edit.resolve.model import Placed, Refused
from lsp_edit.server.hunks import (
    Before,
    Composer,
    Region,
    Replacement,
    Splice,
    TrackedBuffer,
    regions,
    shows,
)
from lsp_edit.text import LineEdit, Text
from lsp_edit.values import field, record, replace, value
from lsp_edit.workspace import FileRef

if TYPE_CHECKING:
    from lsp_edit.changes import FileSource
    from lsp_edit.symbols import SymbolIndex

NOWHERE = Path()
"""The path of a failure that names no file: it is listed, never shown in a file."""
# How many accepts of a file an undo can still take back.
_UNDOABLE = 16
# Skipped blocks that are no problem: shown nowhere, only listed.
QUIET_CODES = frozenset({"already_applied", "already_pending"})
# Whole-file refusals the user may overrule ("Accept anyway").
ANYWAY_CODES = frozenset({"truncated_file", "not_whole_file"})


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
    # Not placed: the lines its refusal is about (1-based, inclusive), in the buffer
    # as the reply read it (`Change.lines`).
    lines: tuple[tuple[int, int], ...] = ()
    # What it was when the user rejected it (a failure is dismissed, for good).
    rejected_from: Status | None = None

    @property
    def pending(self) -> bool:
        return self.status is Status.PENDING

    @property
    def shown(self) -> bool:
        """Shown in the editor: pending, or stale (with a warning where it was)."""
        return self.status in (Status.PENDING, Status.STALE)

    @property
    def shown_as_failure(self) -> bool:
        """A block that failed (or was skipped), reported in its file: a reply
        document's failures are reported on the reply."""
        return (
            self.status in (Status.FAILED, Status.SKIPPED)
            and self.code not in QUIET_CODES
            and self.reply is None
        )

    @property
    def can_take_anyway(self) -> bool:
        """A whole-file block refused for what it leaves out: the user may take it as
        the whole file all the same."""
        return (
            self.status is Status.FAILED
            and self.code in ANYWAY_CODES
            and isinstance(self.block, FencedEdit)
            and self.block.target is None
            and self.path != NOWHERE
        )

    @property
    def restorable(self) -> bool:
        """A rejected change that was pending (or stale), not a dismissed failure."""
        return self.status is Status.REJECTED and self.rejected_from in (
            Status.PENDING,
            Status.STALE,
        )

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


@record
class Spot:
    """Raw lines `start`..`end` of the buffer that an accept wrote, and the raw lines
    they replaced."""

    start: int
    end: int
    original: tuple[str, ...]


@record
class Accepted:
    """An accept the buffer can go back from (undo): where the lines it wrote are
    now, the accept itself (against the text before it), and each change it applied
    as it was then."""

    spots: list[Spot]
    regions: tuple[Region, ...]
    changes: tuple[tuple[PendingChange, tuple[Hunk, ...], tuple[str, ...]], ...]

    def inverse(self) -> list[Region]:
        """The undo, against the buffer as it is."""
        return [Region(s.start, s.end, s.original) for s in self.spots]

    def follow(self, splice: Splice) -> bool:
        """Moves with a splice above it; False when the splice touched what it wrote
        (no undo gives the text back then)."""
        for spot in self.spots:
            if splice.end <= spot.start:
                spot.start += splice.delta
                spot.end += splice.delta
            elif splice.start < spot.end:
                return False
        return True


@value
class _Reading:
    """What an edit of the editor may be: these changes accepted (`edits` against
    the text before it), or an earlier accept taken back."""

    changes: tuple[PendingChange, ...] = ()
    edits: tuple[LineEdit, ...] = ()
    final_newline: bool | None = None
    undoes: Accepted | None = None


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


@value
class AlreadyPending:
    """A rejected change not restored: the same change is pending review already."""

    change: PendingChange
    twin: PendingChange

    @property
    def message(self) -> str:
        return f"The same change is already pending review (change {self.twin.id})."


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
        # Per file, the accepts sent to the editor and not answered yet.
        self._sending: dict[Path, list[tuple[PendingChange, ...]]] = {}
        # The changes of each block (by its text, wherever it sat in its reply).
        self._by_block: dict[tuple[Path, object], list[str]] = {}
        # Per file, the dominant line ending of its buffer, once asked for.
        self._eols: dict[Path, str] = {}
        # Per file, the recent accepts an undo can take back, the last last.
        self._accepted: dict[Path, list[Accepted]] = {}
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
        symbols: SymbolIndex | None = None,
    ) -> list[PendingChange]:
        """Places a whole reply's blocks in order, as `lsp-edit apply` does, and keeps
        each as a change of the buffers as they are. `symbols` is an index kept
        between proposals (an agent's, one call after another in the same files)."""
        return self.reply(session, files, default_target, symbols=symbols).add(items)

    def reply(
        self,
        session: EditSession,
        files: FileSource,
        default_target: Path | None = None,
        *,
        document: str | None = None,
        mark: Callable[[Path], object] = lambda path: None,
        symbols: SymbolIndex | None = None,
    ) -> Reply:
        """A reply whose blocks arrive over time (a reply document, a stream)."""
        if default_target is not None:
            session.default_target = str(default_target)
        return Reply(self, session, files, document, mark, symbols)

    def _add(self, change: PendingChange) -> None:
        self.changes[change.id] = change
        self._by_path.setdefault(change.path, {})[change.id] = change

    def _pending_twin(
        self, change: PendingChange, same_reply: Sequence[str]
    ) -> PendingChange | None:
        """A change still pending from another reply that is this one: the same block,
        placed at the same lines of the same file (a reply applied twice). Remembers
        this one for the replies to come when there is none."""
        if change.block is None:
            return None
        found = self._twin(change, {*same_reply, change.id})
        if found is None:
            key = (change.path, _block_text(change.block))
            known = self._by_block.setdefault(key, [])
            known[:] = [i for i in known if i in self.changes] + [change.id]
        return found

    def _twin(self, change: PendingChange, besides: set[str]) -> PendingChange | None:
        """A pending change, none of `besides`, that is this one (see `_pending_twin`)."""
        if change.block is None:
            return None
        text = _block_text(change.block)
        for other_id in self._by_block.get((change.path, text), ()):
            other = self.changes.get(other_id)
            if (
                other is not None
                and other.pending
                and other.id not in besides
                and other.path == change.path
                and other.hunks == change.hunks
                and other.block is not None
                and _block_text(other.block) == text
            ):
                return other
        return None

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

    def touching(
        self, path: Path, first: int, last: int, *, failures: bool = False
    ) -> list[PendingChange]:
        """Shown changes with a hunk on lines `first`..`last` (inclusive); with
        `failures`, also the failures shown there (where their diagnostic is: the
        first lines their refusal is about, else line 1), which the user may dismiss."""
        found = []
        for change in self.in_file(path):
            if change.shown:
                hunks = change.hunks
            elif failures and change.shown_as_failure:
                hunks = change.hunks[:1] or [self._failure_place(change)]
            else:
                continue
            for hunk in hunks:
                top = hunk.start
                bottom = max(hunk.end - 1, hunk.start)
                if top <= last and first <= bottom:
                    found.append(change)
                    break
        return found

    def _failure_place(self, change: PendingChange) -> Hunk:
        """The lines a failure without hunks is shown on: the first lines its refusal
        is about (kept inside the buffer, as its diagnostic is), else line 1."""
        if not change.lines:
            return Hunk(0, 1, (), ())
        buffer = self.buffers.get(change.path)
        count = buffer.line_count if buffer is not None else None
        first, last = change.lines[0][0] - 1, change.lines[0][1]
        if count is not None:
            first, last = min(first, max(count - 1, 0)), min(last, count)
        return Hunk(first, max(first + 1, last), (), ())

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
        if change.kind is ChangeKind.EDIT and not change.hunks:
            raise NotAccepted(f"Change {change.id} has no lines to change.")
        return change

    def _still_pending(self, change_id: str) -> bool:
        change = self.changes.get(change_id)
        return change is not None and change.pending

    def mark_applied(self, changes: Iterable[PendingChange]) -> None:
        """The editor applied these (it answered the edit with `applied: true`)."""
        for change in changes:
            if change.pending:
                self._now_applied(change)

    def _now_applied(self, change: PendingChange) -> None:
        """The change is in the buffer. A message an earlier attempt left (the editor
        refused its edit once) no longer describes it."""
        change.status = Status.APPLIED
        self.decisions += 1
        change.seen_applied = True
        change.message = None

    def take_anyway(self, change_id: str, text: Text) -> PendingChange:
        """A whole-file block refused as cut off (or as not the whole file), placed as
        the whole of `text` after all, as the user chose: pending, like any change."""
        change = self.changes.get(change_id)
        if change is None:
            raise KeyError(change_id)
        if not change.can_take_anyway:
            raise NotAccepted(
                f"Change {change.id} is {change.status.value}; only a whole-file block refused "
                "for what it leaves out can be accepted anyway."
            )
        assert isinstance(change.block, FencedEdit)
        from lsp_edit.resolve.complete_file import resolve_complete_file

        placed = resolve_complete_file(change.block.content, text)
        if isinstance(placed, Refused):
            raise NotAccepted(placed.message)
        self._track(change.path, text)
        if not isinstance(placed, Placed):  # already the file's text
            change.status = Status.SKIPPED
            change.code, change.message = "already_applied", placed.message
            self.decisions += 1
            return change
        lines = text.lines
        change.hunks = [
            Hunk(e.start, e.end, tuple(lines[e.start : e.end]), e.new_lines) for e in placed.edits
        ]
        change.depends_on = []
        change.status = Status.PENDING
        change.code = change.message = change.detail = None
        change.notes += ("Taken as the whole file, as you chose.",)
        self.decisions += 1
        return change

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
            change.rejected_from = change.status
            change.status = Status.REJECTED
            self.decisions += 1
            if change.restorable:
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

    def restore(self, change_id: str | None) -> PendingChange | AlreadyPending:
        """Brings a rejected change back (the last one rejected when no id), unless
        the same change is pending again already (its reply was proposed again)."""
        if change_id is None:
            if not self._rejected:
                raise KeyError("no rejected change")
            change_id = self._rejected[-1]
        change = self.changes.get(change_id)
        if change is None:
            raise KeyError(change_id)
        if change.status is not Status.REJECTED:
            raise NotAccepted(f"Change {change.id} is {change.status.value}, not rejected.")
        if not change.restorable:
            raise NotAccepted(
                f"Change {change.id} was a block that did not apply ({change.message}); a "
                "dismissed failure cannot be restored. Ask the LLM for a new edit."
            )
        twin = self._twin(change, {change.id})
        if twin is not None:
            return AlreadyPending(change, twin)
        self._rejected = [r for r in self._rejected if r != change.id]
        was_stale = change.rejected_from is Status.STALE
        change.status = Status.STALE if was_stale else Status.PENDING
        change.rejected_from = None
        self.decisions += 1
        buffer = self.buffers.get(change.path)
        if was_stale:
            self._place_again(change, "It was restored.")
        elif buffer is not None and not all(
            buffer.lines(h.start, h.end) == h.old for h in change.hunks
        ):
            self._place_again(change, "Its lines changed while it was rejected.")
        elif change.depends_on and not all(self._still_pending(d) for d in change.depends_on):
            self._place_again(change, "A change it built on is no longer pending.")
        return change

    # --- following the buffer -----------------------------------------------------------

    def buffer_of(self, path: Path) -> TrackedBuffer | None:
        return self.buffers.get(path)

    def edited(self, path: Path, batch: Sequence[Replacement | Text]) -> bool:
        """The editor changed the buffer: one `didChange`, its changes in order, each
        ranged (against the text the one before left) or a whole new text. Returns
        whether any tracked change moved or changed state.

        The batch is judged by the text it makes, not by where its changes fall: an
        editor reports one edit in many shapes (ranged changes last first or first
        to last, trimmed to what differs, one whole text). When the text is the
        buffer with an accept applied (one the server sent, a code action's edit,
        a change's lines typed as they are), those changes are applied; when it is
        the text as it was before an accept (undo), they are pending again; every
        other change follows that accept's own edits. Anything else is typing."""
        buffer = self.buffers.get(path)
        if buffer is None:
            return False
        before = buffer.apply(batch)
        window = before.window
        if window is None or not self._tracks(path):
            self._eols.pop(path, None)
            return False
        found = self._recognise(path, before)
        if found is not None:
            reading, changed = found
            if reading.undoes is not None:
                self._take_back(path, reading.undoes)
            else:
                self._take(path, before, reading, changed)
            return True
        moved = self._follow(path, before.splices, judge_points=True)
        # A range that reaches the last line ends where that line ends.
        return moved or window.new_end >= len(before.after)

    def replaced(self, path: Path, text: Text) -> bool:
        """The buffer's whole text is new (full sync, opened, read from disk)."""
        buffer = self.buffers.get(path)
        if buffer is None or buffer.holds(text):
            return False
        return self.edited(path, [text])

    def _tracks(self, path: Path) -> bool:
        return bool(self._by_path.get(path) or self._accepted.get(path))

    # --- what an edit of the editor means -------------------------------------------------

    def sending(self, acceptance: Acceptance) -> None:
        """The server is about to send this accept: the edit that shows it is the
        editor applying it, however the editor reports it."""
        for path in acceptance.edits:
            taken = tuple(c for c in acceptance.changes if c.path == path)
            self._sending.setdefault(path, []).append(taken)

    def sent(self, acceptance: Acceptance, *, applied: bool) -> None:
        """The editor answered: the changes are applied (their lines may show in a
        later `didChange`), or the accept is forgotten."""
        for path in acceptance.edits:
            waiting = self._sending.get(path, [])
            taken = [c for c in acceptance.changes if c.path == path]
            for index, sent in enumerate(waiting):
                if len(sent) == len(taken) and all(
                    a is b for a, b in zip(sent, taken, strict=True)
                ):
                    del waiting[index]
                    break
            if not waiting:
                self._sending.pop(path, None)
        if applied:
            self.mark_applied(acceptance.changes)

    def _recognise(self, path: Path, before: Before) -> tuple[_Reading, list[Region]] | None:
        """The accept (or undo) whose text the buffer now holds, if any."""
        # The ending the server gives new lines, read once per file (a whole text per
        # keystroke is too much), again only when a CR comes or goes.
        eol = self._eols.pop(path, None)
        if before.touched_carriage_return():
            eol = None
        found = None
        for reading in self._readings(path, before):
            if reading.undoes is not None:
                changed = reading.undoes.inverse()
            else:
                if eol is None:
                    eol = before.eol()
                changed = regions(before, eol, reading.edits, final_newline=reading.final_newline)
            if shows(before, changed):
                found = reading, changed
                break
        if eol is not None and not before.touched_carriage_return():
            self._eols[path] = eol
        return found

    def _readings(self, path: Path, before: Before) -> Iterator[_Reading]:
        """What the edit may be, the likeliest first: an accept the server sent, one
        it sent that the editor said it applied, an undo of a recent accept, the
        accept of a pending change near the edit, of every pending change in the file.
        (An accept the editor said it applied waits for the `didChange` that shows it.)"""
        window = before.window
        assert window is not None
        for sent in self._sending.get(path, []):
            live = [c for c in sent if c.hunks and c.status in (Status.PENDING, Status.APPLIED)]
            if live:
                yield self._reading(path, live)
        waiting: list[PendingChange] = []
        near: list[PendingChange] = []
        pending = 0
        # Run at every keystroke, over every change of the file: kept plain.
        low, high = window.start - 1, window.old_end + 1
        is_pending, is_applied = Status.PENDING, Status.APPLIED
        for change in self._by_path.get(path, {}).values():
            hunks = change.hunks
            if not hunks:
                continue
            status = change.status
            if status is is_pending:
                pending += 1
            elif status is not is_applied:
                continue
            for hunk in hunks:
                if hunk.start <= high and low <= hunk.end:
                    (near if status is is_pending else waiting).append(change)
                    break
        if waiting:
            yield self._reading(path, waiting)
        for accepted in reversed(self._accepted.get(path, [])):
            if any(window.near(spot.start, spot.end) for spot in accepted.spots):
                yield _Reading(undoes=accepted)
        for change in near:
            parts = [self.changes[d] for d in change.depends_on if self._still_pending(d)]
            yield self._reading(path, [*parts, change])
        if len(near) > 1 and len(near) == pending:
            taken = self.acceptance_of_all(near)
            yield _Reading(taken.changes, taken.edits.get(path, ()), taken.final_newline.get(path))

    def _reading(self, path: Path, changes: list[PendingChange]) -> _Reading:
        taken = self._acceptance(changes)
        return _Reading(tuple(changes), taken.edits.get(path, ()), taken.final_newline.get(path))

    def _take(self, path: Path, before: Before, reading: _Reading, changed: list[Region]) -> None:
        """The editor applied these changes: they are applied, and the others follow
        the accept's own edits (not the editor's report of them)."""
        accepted = Accepted(
            spots=_spots(before, changed),
            regions=tuple(changed),
            changes=tuple(
                (c, tuple(Hunk(h.start, h.end, h.old, h.new) for h in c.hunks), tuple(c.depends_on))
                for c in reading.changes
            ),
        )
        for change in reading.changes:
            if change.pending:
                self._now_applied(change)
            change.seen_applied = True
        ordered = sorted(reading.edits, key=lambda e: (e.start, e.end), reverse=True)
        self._follow(path, [Splice(e.start, e.end, len(e.new_lines)) for e in ordered])
        for change in reading.changes:
            change.hunks = []
        records = self._accepted.setdefault(path, [])
        records.append(accepted)
        del records[:-_UNDOABLE]

    def _take_back(self, path: Path, accepted: Accepted) -> None:
        """The buffer is back to its text before an accept (undo): its changes are
        pending again where they were; the others follow."""
        self._accepted[path].remove(accepted)
        inverse = accepted.inverse()
        self._follow(path, [Splice(r.start, r.end, len(r.lines)) for r in reversed(inverse)])
        starts: list[int] = []
        shift = 0
        for region in inverse:
            starts.append(region.start + shift)
            shift += region.delta
        restored: list[PendingChange] = []
        for change, hunks, _ in accepted.changes:
            if change.status is not Status.APPLIED or self.changes.get(change.id) is not change:
                continue
            change.hunks = [_hunk_back(h, accepted.regions, starts) for h in hunks]
            change.status = Status.PENDING
            self.decisions += 1
            restored.append(change)
        ids = {c.id for c in restored}
        for change, _, depends_on in accepted.changes:
            if change.id in ids:
                change.depends_on = [d for d in depends_on if d in ids or self._still_pending(d)]
        buffer = self.buffers[path]
        for change in restored:
            if not all(buffer.lines(h.start, h.end) == h.old for h in change.hunks):
                self._place_again(change, "Its lines changed since it was accepted.")

    # --- following typing ---------------------------------------------------------------------

    def _follow(self, path: Path, splices: Sequence[Splice], *, judge_points: bool = False) -> bool:
        """Moves the hunks the splices pass, and judges those whose lines they touched
        once all are followed (against the buffer as it is now)."""
        changes = [c for c in self._by_path.get(path, {}).values() if c.hunks]
        records = self._accepted.get(path)
        touched: dict[str, list[tuple[Hunk, int, int]]] = {}
        points: list[tuple[Hunk, int]] | None = [] if judge_points else None
        moved = False
        for splice in splices:
            moved |= _follow_splice(changes, splice, touched, points)
            if records:
                records[:] = [r for r in records if r.follow(splice)]
        if points:
            self._judge_points(path, changes, points, touched)
        if touched:
            self._judge(path, touched)
        return moved

    def _judge_points(
        self,
        path: Path,
        changes: list[PendingChange],
        points: list[tuple[Hunk, int]],
        touched: dict[str, list[tuple[Hunk, int, int]]],
    ) -> None:
        """Lines inserted exactly where an insertion is pending, and that are its
        lines: the editor applied it (they were followed as lines above it)."""
        buffer = self.buffers[path]
        owners = {id(h): c for c in changes for h in c.hunks}
        for hunk, count in points:
            change = owners.get(id(hunk))
            if change is None or not change.pending or change.id in touched:
                continue
            if count == len(hunk.new) and buffer.lines(hunk.start - count, hunk.start) == hunk.new:
                touched[change.id] = [(hunk, hunk.start, hunk.end)]
                hunk.start -= count

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
        self._now_applied(change)
        change.hunks = []
        for dependency in change.depends_on:
            if self._still_pending(dependency):
                inner = self.changes[dependency]
                self._now_applied(inner)
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
            change.code = change.message = None
            self.decisions += 1
            change.notes += (f"{why} It was placed again from its block.",)

    def _mark_stale(self, change: PendingChange, why: str) -> None:
        if change.status is Status.REJECTED:
            return
        change.status = Status.STALE
        self.decisions += 1
        change.code = "stale"
        change.message = why


def _follow_splice(
    changes: Sequence[PendingChange],
    splice: Splice,
    touched: dict[str, list[tuple[Hunk, int, int]]],
    points: list[tuple[Hunk, int]] | None,
) -> bool:
    """Moves the hunks below a splice; a hunk whose lines it touches grows to hold
    them and is noted (with where it was) for judging."""
    moved = False
    top, bottom, delta = splice.start, splice.end, splice.delta
    at_point = points is not None and top == bottom
    for change in changes:
        for hunk in change.hunks:
            start = hunk.start
            if bottom <= start:  # above it (or lines inserted right before)
                if at_point and hunk.end == top and change.status is Status.PENDING:
                    assert points is not None
                    points.append((hunk, splice.count))  # lines typed at an insertion's point
                if delta:
                    hunk.start = start + delta
                    hunk.end += delta
                    moved = True
                continue
            if top >= hunk.end:  # below it
                continue
            entries = touched.setdefault(change.id, [])
            if all(entry[0] is not hunk for entry in entries):
                entries.append((hunk, hunk.start, hunk.end))
            hunk.start = min(hunk.start, top)
            hunk.end = max(hunk.end, bottom) + delta
            moved = True
    return moved


def _spots(before: Before, changed: Sequence[Region]) -> list[Spot]:
    """Where an accept's regions are once it is applied."""
    spots: list[Spot] = []
    shift = 0
    for region in changed:
        start = region.start + shift
        original = tuple(before.lines(region.start, region.end))
        spots.append(Spot(start, start + len(region.lines), original))
        shift += region.delta
    return spots


def _hunk_back(hunk: Hunk, accepted: Sequence[Region], starts: Sequence[int]) -> Hunk:
    """A hunk as it was before its accept, where it is once the accept is undone:
    shifted as the region of the accept it lies in (`starts`: where each region
    begins after the undo)."""
    shift = starts[0] - accepted[0].start if accepted else 0
    for region, start in zip(accepted, starts, strict=True):
        if region.start < hunk.end and hunk.start < region.end:
            shift = start - region.start
            break
        if region.start <= hunk.end and hunk.start <= region.end:
            shift = start - region.start
    return Hunk(hunk.start + shift, hunk.end + shift, hunk.old, hunk.new)


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
        symbols: SymbolIndex | None = None,
    ) -> None:
        self.store = store
        self._symbols = symbols
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
        # In the editor the user decides: a block after one that failed is shown too.
        self._planner = Planner(
            self.files,
            self.session.mode,
            default_target=self.session.default_target,
            ids=self._ids,
            symbols=self._symbols,
            skip_after_failure=False,
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
            self._mark_files_read()
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
        # Everything it caused goes with it: a failure's note on the blocks after it.
        again = change.pending or change.status is Status.FAILED
        self.store._remove(change)
        self.store.decisions += 1
        if again:
            self._place_all_again()
        return change

    # --- placing ----------------------------------------------------------------------------

    def _mark_files_read(self) -> None:
        """Remembers how each file the planner read was when it read it, placed there
        or not (a block already applied, a failure): the next blocks are placed on
        that text, so it must still be the file's."""
        for ref in self._planner.files_read():
            path = self._real(ref.absolute)
            if path not in self._marks:
                self._marks[path] = self._mark(path)

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
            if change.status is Status.FAILED and change_id != also and change.display:
                self._planner.failed_before(change.display)
            if not (change.pending or change_id == also):
                continue
            self._ids.queued.append(change_id)
            made = self._planner.add([change.block])
            self._ids.queued.clear()
            self._mark_files_read()
            if not made:
                continue
            if made[0].status is Status.APPLIED:
                self._place(change, made[0])
            elif change_id == also:
                _take_outcome(change, made[0], self._planner.lines_as_read(made[0]))
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
        _take_outcome(pending, change, self._planner.lines_as_read(change))
        self.store._add(pending)
        if change.status is Status.APPLIED:
            self._place(pending, change)
            same = self.store._pending_twin(pending, self.change_ids)
            if same is not None:
                pending.status = Status.SKIPPED
                pending.code = "already_pending"
                pending.message = f"The same change is already pending review (change {same.id})."
                pending.hunks = []
                pending.depends_on = []
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
        pending.lines = ()
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


def _block_text(block: EditBlock | ParseProblem) -> object:
    """A block as text, wherever it sits in its reply."""
    return replace(block, span=ReplySpan(0, 0))


def _take_outcome(
    pending: PendingChange, change: Change, lines: tuple[tuple[int, int], ...] = ()
) -> None:
    """A block's outcome that is not a placement: a failure, or already applied;
    `lines`, what its refusal is about in the buffer."""
    pending.status = change.status
    pending.description = change.description
    pending.message = change.message
    pending.detail = change.detail
    pending.code = change.code
    pending.notes = change.notes
    pending.hunks = []
    pending.depends_on = []
    pending.lines = lines


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
