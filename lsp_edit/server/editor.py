"""What the handlers share: the store, the settings, the editor's open documents and
what the client can do; and the few things that take more than one call to the
store (publishing, accepting, following replies).

Nothing here blocks the event loop: the only waits are on the client
(`workspace/applyEdit`, `window/showDocument`).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from lsp_edit.changes import Status
from lsp_edit.positions import LspPosition, Point, PositionEncoding, lsp_to_point
from lsp_edit.server import render
from lsp_edit.server.edits import CannotEdit, EditSupport, WorkspaceEdits
from lsp_edit.server.files import EditorFiles
from lsp_edit.server.hunks import Replacement, TrackedBuffer
from lsp_edit.server.replies import ReplyDocument, matches_any
from lsp_edit.server.settings import Settings
from lsp_edit.server.store import (
    NOWHERE,
    Acceptance,
    Landing,
    NotAccepted,
    PendingChange,
    Proposal,
    Store,
)
from lsp_edit.text import LineEdit, Text, strip_ending
from lsp_edit.values import record

log = logging.getLogger(__name__)

PROPOSED_SCHEME = "lsp-edit-proposed"
# Diagnostics follow typing after this pause, so a burst of keystrokes publishes once.
_PUBLISH_DELAY = 0.15
# While a reply streams in, publishing waits this many times what it cost last time.
_PUBLISH_SHARE = 32
# How long accepting through a code action waits for the editor's `didChange` that
# shows the action's edit (Neovim sends it after a debounce, after the command).
ACTION_WAIT = 3.0


def proposed_uri(file_uri: str) -> str:
    """`file:///p/x.py` -> `lsp-edit-proposed:///p/x.py`: the file with its changes."""
    return PROPOSED_SCHEME + file_uri[len("file") :]


@record
class OpenDocument:
    """A document the editor has open: the URI it uses, its version, its lines, and
    which opening of a document it is (opened again, it starts at version 1 again)."""

    uri: str
    version: int
    buffer: TrackedBuffer
    opening: int = 0


@record
class ClientSupport:
    """What the client says it can do, beyond edits (`EditSupport`)."""

    llm_tag: bool = False
    show_document: bool = False
    lens_refresh: bool = False
    content_refresh: bool = False
    watch_files: bool = False
    related_information: bool = False
    # Code actions as objects with an edit (else only commands).
    action_literals: bool = False

    @staticmethod
    def of(capabilities: types.ClientCapabilities) -> ClientSupport:
        text_document = capabilities.text_document
        code_action = text_document.code_action if text_document else None
        tags = code_action.tag_support if code_action else None
        window = capabilities.window
        workspace = capabilities.workspace
        watched = workspace.did_change_watched_files if workspace else None
        published = text_document.publish_diagnostics if text_document else None
        return ClientSupport(
            llm_tag=bool(tags and types.CodeActionTag.LlmGenerated in tags.value_set),
            show_document=bool(window and window.show_document and window.show_document.support),
            lens_refresh=bool(
                workspace and workspace.code_lens and workspace.code_lens.refresh_support
            ),
            content_refresh=bool(workspace and workspace.text_document_content),
            watch_files=bool(watched and watched.dynamic_registration),
            related_information=bool(published and published.related_information),
            action_literals=bool(code_action and code_action.code_action_literal_support),
        )


class Transcript(Protocol):
    """A reply document `lspEdit.ask` writes (lsp_edit.server.ask): told when the
    editor opens, edits or closes it."""

    @property
    def writes_to_disk(self) -> bool: ...

    def opened(self, text: str) -> None: ...

    def edited(self) -> None: ...

    def closed(self) -> None: ...


class Editor:
    """The server's state and the editor as the server sees it."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.store = Store()
        self.settings = Settings()
        self.roots: list[Path] = []
        self.files = EditorFiles([], self.open_text)
        self.opened: dict[Path, OpenDocument] = {}
        self._openings = itertools.count(1)
        self.edits = WorkspaceEdits(EditSupport(False, False, False, False), PositionEncoding.UTF16)
        self.encoding = PositionEncoding.UTF16
        self.client = ClientSupport()
        self.startup_problems: list[str] = []
        self.replies: dict[Path, ReplyDocument] = {}
        self.streams: dict[str, ReplyDocument] = {}
        self.transcripts: dict[Path, Transcript] = {}
        self.last_source: Path | None = None
        self._paths: dict[str, Path | None] = {}  # URI -> real path, once looked up
        self._published: set[Path] = set()
        self._shown = render.ShownDiagnostics()
        self._dirty: set[Path] = set()
        self._flush: asyncio.TimerHandle | None = None
        self._last_publish = 0.0
        self._publish_cost = 0.0
        # Set (and replaced) when a publication follows a decision: see `next_decision`.
        self._decided = asyncio.Event()
        self._decisions_told = 0
        self._waiting: list[asyncio.Future[None]] = []  # for the next didChange

    def start(
        self,
        capabilities: types.ClientCapabilities,
        encoding: PositionEncoding,
        roots: Sequence[Path],
    ) -> None:
        self.encoding = encoding
        self.edits = WorkspaceEdits(EditSupport.of(capabilities), encoding)
        self.client = ClientSupport.of(capabilities)
        self.set_roots(roots)

    def set_roots(self, roots: Sequence[Path]) -> None:
        self.roots = [Path(os.path.realpath(r)) for r in roots]
        self.files = EditorFiles(self.roots, self.open_text)

    # --- the editor's documents -------------------------------------------------

    def path_of(self, uri: str) -> Path | None:
        """The real path of a `file:` URI (None for other schemes)."""
        if uri in self._paths:
            return self._paths[uri]
        path = None
        if uri.startswith("file:") and (fs_path := to_fs_path(uri)):
            path = Path(os.path.realpath(fs_path))
        if len(self._paths) > 10_000:
            self._paths.clear()
        self._paths[uri] = path
        return path

    def uri_of(self, path: Path) -> str:
        document = self.opened.get(path)
        if document is not None:
            return document.uri
        return from_fs_path(str(path)) or path.as_uri()

    def open_text(self, path: Path) -> Text | None:
        document = self.opened.get(path)
        return document.buffer.text() if document is not None else None

    def version_of(self, path: Path) -> int | None:
        document = self.opened.get(path)
        return document.version if document is not None else None

    def view(self) -> render.View:
        return render.View(
            self.encoding,
            self.uri_of,
            self.buffer_of,
            self.settings.pending_severity,
            related_information=self.client.related_information,
            reply_buffer=self.reply_buffer,
        )

    def buffer_of(self, path: Path) -> TrackedBuffer | None:
        """The lines of a file as the server follows them: with its changes, or as the
        editor has it open (a file with only failures)."""
        found = self.store.buffer_of(path)
        if found is None and path in self.opened:
            return self.opened[path].buffer
        return found

    def reply_buffer(self, uri: str) -> TrackedBuffer | None:
        path = self.path_of(uri)
        document = self.replies.get(path) if path is not None else None
        return document.text.buffer if document is not None else None

    def point(self, raw: Sequence[str], position: types.Position) -> Point:
        """An LSP position in lines as they are before an edit, as a code point column."""
        lines = [strip_ending(line) for line in raw[position.line : position.line + 1]]
        found = lsp_to_point(lines, LspPosition(0, position.character), self.encoding)
        return Point(position.line, found.column if lines else 0)

    def opened_file(self, item: types.TextDocumentItem, path: Path) -> None:
        """A source file the editor opened: its text is what changes follow now."""
        text = Text.from_string(item.text)
        self.opened[path] = OpenDocument(
            item.uri, item.version, TrackedBuffer.of(text), next(self._openings)
        )
        self.last_source = path
        if self.store.replaced(path, text) or self.store.in_file(path):
            self.publish([path])

    def edited_file(self, path: Path, params: types.DidChangeTextDocumentParams) -> None:
        """The user typed in a source file (or the editor applied an edit): its
        pending changes follow, judged on the whole `didChange` at once."""
        opened = self.opened[path]
        self.last_source = path
        batch: list[Replacement | Text] = []
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                start = self.point(opened.buffer.raw, change.range.start)
                end = self.point(opened.buffer.raw, change.range.end)
                opened.buffer.edit(start, end, change.text)
                batch.append(Replacement(start, end, change.text))
            else:
                whole = Text.from_string(change.text)
                opened.buffer = TrackedBuffer.of(whole)
                batch.append(whole)
        moved = self.store.buffer_of(path) is not None and self.store.edited(path, batch)
        if moved or self._shows_failures_on_lines(path):
            self.publish_soon(path)
        self._changed()

    def _shows_failures_on_lines(self, path: Path) -> bool:
        """Whether the file shows a block that failed on the lines its refusal named
        (they do not follow typing: shown again, they stay inside the document)."""
        return path in self._published and any(
            not c.hunks and render.not_applied(c) and not self.shown_in_reply(c)
            for c in self.store.in_file(path)
        )

    def _changed(self) -> None:
        """Wakes what waits for a buffer to change."""
        waiting, self._waiting = self._waiting, []
        for future in waiting:
            if not future.done():
                future.set_result(None)

    async def _next_change(self, timeout: float) -> None:
        """Returns at the next `didChange` of a source file, or after `timeout` seconds."""
        future = asyncio.get_running_loop().create_future()
        self._waiting.append(future)
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            if future in self._waiting:
                self._waiting.remove(future)

    def closed(self, path: Path) -> None:
        document = self.opened.pop(path, None)
        if path in self.transcripts:
            self.transcripts[path].closed()
        if path in self.replies:
            # A reply's failures are shown on it alone: closed, they are only listed.
            if path in self._published:
                self._published.discard(path)
                self._shown.forget(path)
                self._send_diagnostics(document.uri if document else self.uri_of(path), [])
            self.publish(self.reply_targets(self.replies[path]))
        elif self.sync_from_disk(path):
            # Closed without saving, the buffer is what the disk holds again.
            self.publish([path])

    def sync_from_disk(self, path: Path) -> bool:
        """A tracked file that is not open is read again: it may have changed on disk."""
        if path in self.opened or self.store.buffer_of(path) is None:
            return False
        text = self.files.read_disk(path)
        if isinstance(text, Text):
            return self.store.replaced(path, text)
        return False

    def mark(self, path: Path) -> object:
        """What says whether a file changed since a reply read it."""
        document = self.opened.get(path)
        if document is not None:
            return ("open", document.opening, document.version)
        try:
            status = path.stat()
        except OSError:
            return ("missing",)
        return ("disk", status.st_mtime_ns, status.st_size)

    # --- publishing ------------------------------------------------------------------

    def publish(self, paths: Sequence[Path] | set[Path]) -> None:
        """Publishes the diagnostics of these files now (and clears them where no
        change is left), and of the reply documents that show changes to them."""
        view = self.view()
        for path in self._with_their_replies(paths):
            if path == NOWHERE:
                continue
            document = self.replies.get(path)
            if document is not None:
                found = self._shown.of_reply(
                    path, self.reply_changes(document), view, document.text.buffer
                )
            else:
                shown = [c for c in self.store.in_file(path) if not self.shown_in_reply(c)]
                found = self._shown.of_file(path, shown, view)
            if not found and path not in self._published:
                continue
            if found:
                self._published.add(path)
            else:
                self._published.discard(path)
            self._send_diagnostics(self.uri_of(path), found)
            if self.client.content_refresh and document is None:
                self.server.workspace_text_document_content_refresh(
                    types.TextDocumentContentRefreshParams(uri=proposed_uri(self.uri_of(path)))
                )
        if self.client.lens_refresh:
            self.server.workspace_code_lens_refresh(None)
        self._tell_decisions()

    def _with_their_replies(self, paths: Sequence[Path] | set[Path]) -> list[Path]:
        """These files, then every reply document that shows a change (or a block that
        failed) in one of them: a decision on it changes what the reply shows. (A reply
        the editor closed shows nothing: its changes are only listed.)"""
        wanted = list(dict.fromkeys(paths))
        files = set(wanted)
        for reply, document in self.replies.items():
            shows = reply in self.opened or reply in self._published
            if shows and reply not in files and self.reply_targets(document) & files:
                wanted.append(reply)
        return wanted

    def _tell_decisions(self) -> None:
        """Wakes whoever waits for a decision, when the store counted one: every
        decision (accepting, rejecting, typing that applies a change or leaves it
        stale) is published."""
        if self.store.decisions != self._decisions_told:
            self._decisions_told = self.store.decisions
            self._decided.set()
            self._decided = asyncio.Event()

    async def until_decided(self, changes: Sequence[PendingChange], timeout: float) -> None:
        """Returns once the user decided on each of `changes` (none is pending: each
        is applied, rejected, stale or failed), or after `timeout` seconds: what a
        model that waits for the user's review waits for (read after each decision
        is published)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while any(c.pending for c in changes):
            left = deadline - loop.time()
            if left <= 0:
                return
            try:
                await asyncio.wait_for(self._decided.wait(), left)
            except TimeoutError:
                return

    def _send_diagnostics(self, uri: str, diagnostics: list[dict[str, Any]]) -> None:
        """`textDocument/publishDiagnostics` with diagnostics already in JSON form:
        pygls would otherwise turn thousands of them into JSON again on every
        publication (its own notify takes only typed parameters)."""
        self.server.protocol._send_data(
            {
                "jsonrpc": "2.0",
                "method": types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                "params": {"uri": uri, "diagnostics": diagnostics},
            }
        )

    def shown_in_reply(self, change: PendingChange) -> bool:
        """A block of a reply document that failed is reported on the reply only (or
        listed, once the reply is closed), never on the file it names; one that went
        stale, on the reply while that is open."""
        if change.reply is None or change.pending:
            return False
        if change.status in (Status.FAILED, Status.SKIPPED):
            return True
        reply = self.path_of(change.reply.uri)
        return reply is not None and reply in self.opened

    def publish_soon(self, path: Path) -> None:
        """Publishes after a short pause, once for a burst of edits."""
        self._dirty.add(path)
        if self._flush is None:
            self._flush = asyncio.get_running_loop().call_later(_PUBLISH_DELAY, self._publish_dirty)

    def publish_promptly(self, paths: set[Path]) -> None:
        """Publishes now, unless the last publication was so recent that a burst is
        under way (a reply streaming in): then at most every `_PUBLISH_SHARE` times
        what one costs, so a reply of thousands of blocks does not spend its time
        sending the same diagnostics again (each publication carries all of a file's)."""
        self._dirty |= paths
        if self._flush is not None:
            return
        wait = (
            self._last_publish
            + max(_PUBLISH_DELAY, _PUBLISH_SHARE * self._publish_cost)
            - time.monotonic()
        )
        if wait <= 0:
            self._publish_dirty()
        else:
            self._flush = asyncio.get_running_loop().call_later(wait, self._publish_dirty)

    def _publish_dirty(self) -> None:
        self._flush = None
        dirty, self._dirty = self._dirty, set()
        start = time.monotonic()
        self.publish(dirty)
        self._last_publish = time.monotonic()
        self._publish_cost = self._last_publish - start

    def publish_pending(self) -> None:
        """Publishes what typing moved now, rather than after the pause."""
        if self._flush is not None:
            self._flush.cancel()
            self._publish_dirty()

    # --- replies that arrive over time ----------------------------------------------------

    def is_reply(self, path: Path) -> bool:
        """Whether a document is an LLM reply (it matches the `replyGlobs` setting, or
        `lspEdit.ask` writes it)."""
        if path in self.transcripts:
            return True
        globs = self.settings.reply_globs
        return matches_any(self.files.display(path), globs) or matches_any(path.as_posix(), globs)

    def reply_document(self, path: Path) -> ReplyDocument:
        """The reply a document holds (one per document, kept when it is closed)."""
        document = self.replies.get(path)
        if document is None:
            session = self.store.session(None, self.settings.mode)
            reply = self.store.reply(
                session, self.files, document=self.uri_of(path), mark=self.mark
            )
            document = self.replies[path] = ReplyDocument(reply)
        return document

    def opened_reply(self, item: types.TextDocumentItem, path: Path) -> None:
        reply = self.reply_document(path)
        self.opened[path] = OpenDocument(
            item.uri, item.version, reply.text.buffer, next(self._openings)
        )
        if path in self.transcripts:
            self.transcripts[path].opened(item.text)
        self.read_reply(path, reply, lambda: reply.text.replace_all(item.text))

    def edited_reply(self, path: Path, params: types.DidChangeTextDocumentParams) -> None:
        reply = self.replies[path]

        def edit() -> None:
            for change in params.content_changes:
                if isinstance(change, types.TextDocumentContentChangePartial):
                    start = self.point(reply.text.raw, change.range.start)
                    end = self.point(reply.text.raw, change.range.end)
                    reply.text.edit(start, end, change.text)
                else:
                    reply.text.replace_all(change.text)

        self.read_reply(path, reply, edit)
        if path in self.transcripts:
            self.transcripts[path].edited()

    def read_reply(self, path: Path, document: ReplyDocument, change: Callable[[], None]) -> None:
        """Applies a change to a reply's text, brings its changes in line, and shows
        them (the reply document and every file its changes are in)."""
        change()
        if document.reply.session.default_target is None:
            target = self.default_target()
            if target is not None:
                document.reply.set_default_target(str(target))
        touched = document.sync()
        if touched is not None:
            self.publish_promptly(touched | {path})

    def read_reply_from_disk(self, path: Path) -> None:
        """A reply file another program wrote, while the editor does not have it open."""
        if path in self.transcripts and self.transcripts[path].writes_to_disk:
            return  # lspEdit.ask writes it: what the disk holds was read as it was written
        text = self.files.read_disk(path)
        if isinstance(text, Text):
            document = self.reply_document(path)
            self.read_reply(path, document, lambda: document.text.replace_all(text.render()))

    def reply_changes(self, document: ReplyDocument) -> list[PendingChange]:
        return [c for i in document.change_ids if (c := self.store.get(i)) is not None]

    def reply_targets(self, document: ReplyDocument) -> set[Path]:
        return {change.path for change in self.reply_changes(document)}

    def default_target(self) -> Path | None:
        """Where blocks of a reply document that name no file go: the `uri` setting,
        else the source document the user opened or edited last."""
        uri = self.settings.uri
        if uri:
            if ":" in uri:
                return self.path_of(uri)
            return self.roots[0] / uri if self.roots else None
        return self.last_source

    def stream(self, session_id: str | None, target: Path | None, mode: str) -> ReplyDocument:
        """The `lspEdit.stream` session of this id (a new one when unknown)."""
        document = self.streams.get(session_id) if session_id is not None else None
        if document is None:
            session = self.store.session(session_id, mode)
            document = ReplyDocument(self.store.reply(session, self.files, target, mark=self.mark))
            self.streams[session.id] = document
        return document

    # --- the proposed text ----------------------------------------------------------------

    def proposed(self, path: Path) -> Proposal:
        """The file with all its pending changes applied, and where each landed."""
        self.sync_from_disk(path)
        found = self.store.proposed(path)
        if found is not None:
            return found
        for change in self.store.in_file(path):
            if change.pending and change.hunks:  # a file not created yet
                edits = [LineEdit(h.start, h.end, h.new) for h in change.hunks]
                text = Text(()).replace(edits)
                return Proposal(text, (Landing(change.id, 0, len(text.lines)),))
        current = self.open_text(path) or self.files.read_disk(path)
        return Proposal(current if isinstance(current, Text) else Text(()), ())

    # --- accepting ---------------------------------------------------------------------------

    def workspace_edit(self, acceptance: Acceptance) -> types.WorkspaceEdit:
        return self.edits.accepting(acceptance, self.store.buffer_of, self.uri_of, self.version_of)

    async def accept(self, change: PendingChange) -> dict[str, Any]:
        """Sends the change (and what it depends on) to the editor; if the editor refuses
        because the buffer moved, checks it against the buffer and tries once more."""
        reason = "the editor did not apply the edit"
        for attempt in range(2):
            if change.status is Status.APPLIED:
                return {"id": change.id, "status": "applied"}
            self.sync_from_disk(change.path)
            try:
                acceptance = self.store.acceptance(change.id)
                edit = self.workspace_edit(acceptance)
            except (NotAccepted, CannotEdit) as error:
                return {"id": change.id, "status": change.status.value, "message": str(error)}
            result = await self.apply_edit_of(acceptance, edit, f"lsp-edit: {change.description}")
            if result.applied:
                self.publish({c.path for c in acceptance.changes})
                out: dict[str, Any] = {"id": change.id, "status": change.status.value}
                if len(acceptance.changes) > 1:
                    out["accepted"] = [c.id for c in acceptance.changes]
                    out["dependsOn"] = [c.id for c in acceptance.changes if c is not change]
                return out
            reason = result.failure_reason or reason
            log.info("applyEdit refused on attempt %d: %s", attempt + 1, reason)
            # The didChange that moved the buffer may still be on its way.
            await asyncio.sleep(0)
        change.message = f"The editor did not apply it: {reason}."
        self.publish([change.path])
        return {"id": change.id, "status": change.status.value, "message": change.message}

    async def accept_applied(self, change: PendingChange) -> dict[str, Any]:
        """`lspEdit.accept {id, action: true}`: the editor applies the code action's
        edit itself and then runs its command, which may arrive before the
        `didChange` that shows the edit. The change is applied when that shows it;
        the server sends nothing, unless the editor changed nothing at all (it did
        not apply the action's edit)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ACTION_WAIT
        version = self.version_of(change.path)
        while change.pending and (left := deadline - loop.time()) > 0:
            await self._next_change(left)
        if change.pending and self.version_of(change.path) == version:
            return await self.accept(change)
        out: dict[str, Any] = {"id": change.id, "status": change.status.value}
        if change.pending:
            out["message"] = (
                "The editor changed the file, but not as the code action's edit would: the "
                "change is still pending."
            )
        elif change.status is not Status.APPLIED and change.message:
            out["message"] = change.message
        return out

    async def accept_anyway(self, change: PendingChange) -> dict[str, Any]:
        """`lspEdit.accept {id, anyway: true}`: a whole-file block refused as cut off
        (or as not the whole file) is taken as the whole file, as the user chose, and
        accepted."""
        text = self.open_text(change.path) or self.files.read_disk(change.path)
        if not isinstance(text, Text):
            return {
                "id": change.id,
                "status": change.status.value,
                "message": f"Cannot read {change.display or 'the file'}.",
            }
        try:
            self.store.take_anyway(change.id, text)
        except NotAccepted as error:
            return {"id": change.id, "status": change.status.value, "message": str(error)}
        self.publish([change.path])
        return await self.accept(change)

    async def accept_all(self, changes: Sequence[PendingChange]) -> dict[str, Any]:
        """One edit for all these changes (those that overlap an earlier one without
        building on it stay pending)."""
        if not changes:
            return {"changes": []}
        for path in {c.path for c in changes}:
            self.sync_from_disk(path)
        acceptance = self.store.acceptance_of_all([c for c in changes if c.pending])
        out: dict[str, Any] = {}
        try:
            edit = self.workspace_edit(acceptance)
        except CannotEdit as error:
            out["message"] = str(error)
        else:
            count = len(acceptance.changes)
            label = f"lsp-edit: accept {count} change{'s' if count != 1 else ''}"
            result = await self.apply_edit_of(acceptance, edit, label)
            if not result.applied:
                reason = result.failure_reason or "no reason given"
                out["message"] = f"The editor did not apply the edit: {reason}."
        self.publish({c.path for c in changes})
        out["changes"] = [{"id": c.id, "status": c.status.value} for c in changes]
        return out

    async def apply_edit_of(
        self, acceptance: Acceptance, edit: types.WorkspaceEdit, label: str
    ) -> types.ApplyWorkspaceEditResult:
        """Sends an accept's edit. The store knows it is on its way, so that the
        `didChange` which shows it (before or after the answer) reads as this accept."""
        self.store.sending(acceptance)
        applied = False
        try:
            result = await self.apply_edit(edit, label)
            applied = result.applied
        finally:
            self.store.sent(acceptance, applied=applied)
        return result

    async def apply_edit(
        self, edit: types.WorkspaceEdit, label: str
    ) -> types.ApplyWorkspaceEditResult:
        """`workspace/applyEdit`. Some clients refuse with an error instead of `applied:
        false` (Emacs 28's eglot, when the buffer's version moved): the same refusal."""
        params = types.ApplyWorkspaceEditParams(edit=edit, label=label)
        try:
            return await self.server.workspace_apply_edit_async(params)
        except JsonRpcException as error:
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason=error.message)

    # --- showing ------------------------------------------------------------------------------

    async def show(self, change: PendingChange) -> dict[str, Any] | None:
        """Where a change is (its lines in the file, or its block when it has none), shown
        in the editor where the client supports `window/showDocument`."""
        view = self.view()
        if change.hunks or change.reply is None:
            if change.path == NOWHERE:
                return None
            uri = self.uri_of(change.path)
            where = render.whole_range(self.store.buffer_of(change.path), change, view)
        else:
            uri = change.reply.uri
            reply = self.path_of(uri)
            document = self.replies.get(reply) if reply is not None else None
            where = render.block_range(document.text.buffer if document else None, change, view)
        if self.client.show_document:
            # The cursor goes to the change's first line: VS Code puts it at the end of a
            # selection, on the line after the change, where accepting finds nothing.
            cursor = types.Range(start=where.start, end=where.start)
            await self.server.window_show_document_async(
                types.ShowDocumentParams(uri=uri, take_focus=True, selection=cursor)
            )
        return {"uri": uri, "range": render.json_range(where)}
