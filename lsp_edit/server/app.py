"""`lsp-edit serve`: the handlers. Each reads its params, asks the store, and hands
the answer to `render` or `edits`; the state they share lives in `Editor`.

Nothing here blocks the event loop: the only waits are on the client
(`workspace/applyEdit`, `window/showDocument`), and those handlers are async.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import from_fs_path, to_fs_path

from lsp_edit import VERSION
from lsp_edit.blocks import parse_operations, parse_reply
from lsp_edit.blocks.model import ReplyItem
from lsp_edit.changes import Status
from lsp_edit.instructions import instructions
from lsp_edit.positions import LspPosition, Point, PositionEncoding, lsp_to_point
from lsp_edit.server import render
from lsp_edit.server.edits import CannotEdit, EditSupport, WorkspaceEdits
from lsp_edit.server.files import EditorFiles
from lsp_edit.server.hunks import TrackedBuffer
from lsp_edit.server.params import Arguments, bad
from lsp_edit.server.replies import ReplyDocument, matches_any
from lsp_edit.server.settings import MODES, Settings, read_settings
from lsp_edit.server.store import (
    NOWHERE,
    Acceptance,
    NotAccepted,
    PendingChange,
    Store,
)
from lsp_edit.symbols import index_symbols, language_for
from lsp_edit.text import LineEdit, Text, strip_ending

log = logging.getLogger(__name__)

PROPOSED_SCHEME = "lsp-edit-proposed"


def proposed_uri(file_uri: str) -> str:
    """`file:///p/x.py` -> `lsp-edit-proposed:///p/x.py`: the file with its changes."""
    return PROPOSED_SCHEME + file_uri[len("file") :]


# Diagnostics follow typing after this pause, so a burst of keystrokes publishes once.
_PUBLISH_DELAY = 0.15


class _Protocol(LanguageServerProtocol):
    """Adds what pygls' capability builder does not know: the `lsp-edit-proposed:`
    documents (LSP 3.18 `workspace/textDocumentContent`)."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        workspace = result.capabilities.workspace or types.WorkspaceOptions()
        workspace.text_document_content = types.TextDocumentContentOptions(
            schemes=[PROPOSED_SCHEME]
        )
        result.capabilities.workspace = workspace
        return result

    # lsp-edit keeps its own copy of each open document's lines, edited in place:
    # pygls' own copy splits the whole text again on every change, which makes a
    # reply streamed into a document quadratic.

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(
        self, params: types.DidOpenTextDocumentParams
    ) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: types.DidCloseTextDocumentParams
    ) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None


@dataclass
class OpenDocument:
    """A document the editor has open: the URI it uses, its version, its lines."""

    uri: str
    version: int
    buffer: TrackedBuffer


class Editor:
    """What the handlers share: the store, the settings and the editor's documents."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.store = Store()
        self.settings = Settings()
        self.roots: list[Path] = []
        self.files = EditorFiles([], self.open_text)
        self.opened: dict[Path, OpenDocument] = {}
        self._paths: dict[str, Path | None] = {}  # URI -> real path, once looked up
        self.edits = WorkspaceEdits(EditSupport(False, False, False, False), PositionEncoding.UTF16)
        self.encoding = PositionEncoding.UTF16
        self.llm_tag = False
        self.show_document = False
        self.lens_refresh = False
        self.content_refresh = False
        self.watch_files = False
        self.startup_problems: list[str] = []
        self.replies: dict[Path, ReplyDocument] = {}
        self.streams: dict[str, ReplyDocument] = {}
        self.last_source: Path | None = None
        self._published: set[Path] = set()
        self._dirty: set[Path] = set()
        self._flush: asyncio.TimerHandle | None = None
        self._last_publish = 0.0
        self._publish_cost = 0.0

    # --- the editor's documents -------------------------------------------------

    def path_of(self, uri: str) -> Path | None:
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
            self.encoding, self.uri_of, self.store.buffer_of, self.settings.pending_severity
        )

    def set_roots(self, roots: Sequence[Path]) -> None:
        self.roots = [Path(os.path.realpath(r)) for r in roots]
        self.files = EditorFiles(self.roots, self.open_text)

    # --- publishing ------------------------------------------------------------------

    def publish(self, paths: Sequence[Path] | set[Path]) -> None:
        """Publishes the diagnostics of these files now (and clears them where no
        change is left)."""
        view = self.view()
        for path in paths:
            if path == NOWHERE:
                continue
            document = self.replies.get(path)
            if document is not None:
                found = render.reply_diagnostics(
                    self.reply_changes(document), view, document.text.buffer
                )
            else:
                shown = [c for c in self.store.in_file(path) if not self.shown_in_reply(c)]
                found = render.diagnostics(shown, view)
            if not found and path not in self._published:
                continue
            if found:
                self._published.add(path)
            else:
                self._published.discard(path)
            self.server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=self.uri_of(path), diagnostics=found)
            )
            if self.content_refresh and document is None:
                self.server.workspace_text_document_content_refresh(
                    types.TextDocumentContentRefreshParams(uri=proposed_uri(self.uri_of(path)))
                )
        if self.lens_refresh:
            self.server.workspace_code_lens_refresh(None)

    def shown_in_reply(self, change: PendingChange) -> bool:
        """A block that failed is reported on its reply document while that is open."""
        if change.reply is None or change.pending:
            return False
        reply = self.path_of(change.reply.uri)
        return reply is not None and reply in self.opened

    def publish_soon(self, path: Path) -> None:
        """Publishes after a short pause, once for a burst of edits."""
        self._dirty.add(path)
        if self._flush is None:
            self._flush = asyncio.get_running_loop().call_later(_PUBLISH_DELAY, self._publish_dirty)

    def publish_promptly(self, paths: set[Path]) -> None:
        """Publishes now, unless the last publication was so recent that a burst is
        under way (a reply streaming in): then at most every few times what one costs."""
        self._dirty |= paths
        if self._flush is not None:
            return
        wait = self._last_publish + max(_PUBLISH_DELAY, 8 * self._publish_cost) - time.monotonic()
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
        """Whether a document is an LLM reply (it matches the `replyGlobs` setting)."""
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
        text = self.files.read_disk(path)
        if isinstance(text, Text):
            document = self.reply_document(path)
            self.read_reply(path, document, lambda: document.text.replace_all(text.render()))

    def reply_changes(self, document: ReplyDocument) -> list[PendingChange]:
        return [c for i in document.change_ids if (c := self.store.get(i)) is not None]

    def reply_targets(self, document: ReplyDocument) -> set[Path]:
        return {
            change.path
            for change_id in document.change_ids
            if (change := self.store.get(change_id)) is not None
        }

    def default_target(self) -> Path | None:
        """Where blocks of a reply document that name no file go: the `uri` setting,
        else the source document the user opened or edited last."""
        if self.settings.uri:
            return (
                self.path_of(self.settings.uri)
                if ":" in self.settings.uri
                else (self.roots[0] / self.settings.uri if self.roots else None)
            )
        return self.last_source

    def mark(self, path: Path) -> object:
        """What says whether a file changed since a reply read it."""
        document = self.opened.get(path)
        if document is not None:
            return ("open", document.version)
        try:
            status = path.stat()
        except OSError:
            return ("missing",)
        return ("disk", status.st_mtime_ns, status.st_size)

    # --- reading the disk again ----------------------------------------------------------

    def sync_from_disk(self, path: Path) -> bool:
        """A tracked file that is not open is read again: it may have changed on disk."""
        if path in self.opened or self.store.buffer_of(path) is None:
            return False
        text = self.files.read_disk(path)
        if isinstance(text, Text):
            return self.store.replaced(path, text)
        return False


def create_server() -> LanguageServer:
    """A new server with every handler registered (one per test, or one per process)."""
    server = LanguageServer("lsp-edit", VERSION, protocol_cls=_Protocol)
    editor = Editor(server)
    _register_lifecycle(server, editor)
    _register_documents(server, editor)
    _register_views(server, editor)
    _register_commands(server, editor)
    return server


# --- lifecycle --------------------------------------------------------------------------


def _register_lifecycle(server: LanguageServer, editor: Editor) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        capabilities = params.capabilities
        negotiated = server.workspace.position_encoding or types.PositionEncodingKind.Utf16
        editor.encoding = PositionEncoding(getattr(negotiated, "value", negotiated))
        editor.edits = WorkspaceEdits(EditSupport.of(capabilities), editor.encoding)
        text_document = capabilities.text_document
        code_action = text_document.code_action if text_document else None
        tag_support = code_action.tag_support if code_action else None
        editor.llm_tag = bool(
            tag_support and types.CodeActionTag.LlmGenerated in tag_support.value_set
        )
        window = capabilities.window
        editor.show_document = bool(
            window and window.show_document and window.show_document.support
        )
        workspace = capabilities.workspace
        editor.lens_refresh = bool(
            workspace and workspace.code_lens and workspace.code_lens.refresh_support
        )
        editor.content_refresh = bool(workspace and workspace.text_document_content)
        editor.watch_files = bool(
            workspace
            and workspace.did_change_watched_files
            and workspace.did_change_watched_files.dynamic_registration
        )
        roots = [
            Path(p) for folder in params.workspace_folders or [] if (p := to_fs_path(folder.uri))
        ]
        if not roots and params.root_uri and (p := to_fs_path(params.root_uri)):
            roots = [Path(p)]
        if not roots and params.root_path:
            roots = [Path(params.root_path)]
        editor.set_roots(roots)
        options = params.initialization_options
        section = options.get("lspEdit") if isinstance(options, dict) else None
        editor.settings, editor.startup_problems = read_settings(section, editor.settings)

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        for problem in editor.startup_problems:
            _warn(server, problem)
        if editor.watch_files:
            # Replies other programs write, and files with pending changes not open.
            await _register(
                server,
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="lsp-edit-files",
                            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                watchers=[types.FileSystemWatcher(glob_pattern="**/*")]
                            ),
                        )
                    ]
                ),
            )

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def configuration(params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        section = settings.get("lspEdit") if isinstance(settings, dict) else None
        if section is None:
            return
        before = editor.settings
        editor.settings, problems = read_settings(section, editor.settings)
        for problem in problems:
            _warn(server, problem)
        if editor.settings.pending_severity != before.pending_severity:
            editor.publish({c.path for c in editor.store.changes.values()})

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders(params: types.DidChangeWorkspaceFoldersParams) -> None:
        roots = [
            Path(p) for folder in server.workspace.folders.values() if (p := to_fs_path(folder.uri))
        ]
        editor.set_roots(roots)


async def _register(server: LanguageServer, params: types.RegistrationParams) -> None:
    try:
        await server.client_register_capability_async(params)
    except Exception as error:  # the client refused: the server works without it
        log.warning("client/registerCapability failed: %s", error)


def _warn(server: LanguageServer, message: str) -> None:
    server.window_show_message(
        types.ShowMessageParams(type=types.MessageType.Warning, message=f"lsp-edit: {message}")
    )


# --- following the documents ----------------------------------------------------------


def _register_documents(server: LanguageServer, editor: Editor) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        path = editor.path_of(item.uri)
        if path is None:
            return
        if editor.is_reply(path):
            reply = editor.reply_document(path)
            editor.opened[path] = OpenDocument(item.uri, item.version, reply.text.buffer)
            editor.read_reply(path, reply, lambda: reply.text.replace_all(item.text))
            return
        opened = Text.from_string(item.text)
        editor.opened[path] = OpenDocument(item.uri, item.version, TrackedBuffer.of(opened))
        editor.last_source = path
        if editor.store.replaced(path, opened) or editor.store.in_file(path):
            editor.publish([path])

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        path = editor.path_of(params.text_document.uri)
        opened = editor.opened.get(path) if path is not None else None
        if path is None or opened is None:
            return
        opened.version = params.text_document.version
        reply = editor.replies.get(path)
        if reply is not None:
            editor.read_reply(path, reply, lambda: _edit_reply(editor, reply, params))
            return
        editor.last_source = path
        tracked = editor.store.buffer_of(path) is not None
        moved = False
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                start = _point(opened.buffer.raw, change.range.start, editor.encoding)
                end = _point(opened.buffer.raw, change.range.end, editor.encoding)
                opened.buffer.edit(start, end, change.text)
                if tracked:
                    moved |= editor.store.edited(path, start, end, change.text)
            else:
                whole = Text.from_string(change.text)
                opened.buffer = TrackedBuffer.of(whole)
                if tracked:
                    moved |= editor.store.replaced(path, whole)
        if moved:
            editor.publish_soon(path)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        path = editor.path_of(params.text_document.uri)
        if path is None:
            return
        editor.opened.pop(path, None)
        if path in editor.replies:
            # Its failures move back to the files they name.
            editor.publish(editor.reply_targets(editor.replies[path]))
            return
        # Closed without saving, the buffer is what the disk holds again.
        if editor.sync_from_disk(path):
            editor.publish([path])

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(params: types.DidChangeWatchedFilesParams) -> None:
        changed = []
        for event in params.changes:
            path = editor.path_of(event.uri)
            if path is None or path in editor.opened:
                continue
            if event.type != types.FileChangeType.Deleted and editor.is_reply(path):
                editor.read_reply_from_disk(path)
            elif editor.sync_from_disk(path):
                changed.append(path)
        if changed:
            editor.publish(changed)


def _edit_reply(
    editor: Editor, document: ReplyDocument, params: types.DidChangeTextDocumentParams
) -> None:
    for change in params.content_changes:
        if isinstance(change, types.TextDocumentContentChangePartial):
            raw = document.text.raw
            start = _point(raw, change.range.start, editor.encoding)
            end = _point(raw, change.range.end, editor.encoding)
            document.text.edit(start, end, change.text)
        else:
            document.text.replace_all(change.text)


def _point(raw: Sequence[str], position: types.Position, encoding: PositionEncoding) -> Point:
    """An LSP position in the buffer as it is before the edit, as a code point column."""
    lines = [strip_ending(line) for line in raw[position.line : position.line + 1]]
    point = lsp_to_point(lines, LspPosition(0, position.character), encoding)
    return Point(position.line, point.column if lines else 0)


# --- diagnostics' companions: actions, lenses, hover, proposed text ----------------------------


def _register_views(server: LanguageServer, editor: Editor) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(params: types.CodeActionParams) -> list[types.CodeAction] | None:
        path = editor.path_of(params.text_document.uri)
        if path is None:
            return None
        first = params.range.start.line
        last = params.range.end.line
        if last > first and params.range.end.character == 0:
            last -= 1
        document = editor.replies.get(path)
        if document is not None:
            touching = [
                c
                for c in editor.reply_changes(document)
                if c.reply is not None
                and c.reply.span.start_line - 1 <= last
                and first <= c.reply.span.end_line - 1
            ]
        else:
            touching = editor.store.touching(path, first, last)
        if not touching:
            return None
        view = editor.view()

        def edit_for(change: PendingChange) -> types.WorkspaceEdit | None:
            try:
                return _workspace_edit(editor, editor.store.acceptance(change.id))
            except (NotAccepted, CannotEdit, KeyError):
                return None

        return render.code_actions(
            touching,
            editor.store.shown_in(path),
            view,
            params.text_document.uri,
            edit_for=edit_for,
            llm_tag=editor.llm_tag,
        )

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(params: types.CodeLensParams) -> list[types.CodeLens] | None:
        path = editor.path_of(params.text_document.uri)
        if path is None:
            return None
        document = editor.replies.get(path)
        if document is not None:
            return render.reply_lenses(
                editor.reply_changes(document), editor.view(), document.text.buffer
            )
        return render.code_lenses(
            editor.store.shown_in(path), editor.view(), params.text_document.uri
        )

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbols(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol] | None:
        # Only a reply's outline: a source file's outline is its language server's.
        path = editor.path_of(params.text_document.uri)
        document = editor.replies.get(path) if path is not None else None
        if document is None:
            return None
        return render.reply_symbols(
            editor.reply_changes(document), editor.view(), document.text.buffer
        )

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(params: types.HoverParams) -> types.Hover | None:
        path = editor.path_of(params.text_document.uri)
        if path is None:
            return None
        line = params.position.line
        for change in editor.store.touching(path, line, line):
            return render.hover(change, editor.view())
        return None

    @server.feature(types.WORKSPACE_TEXT_DOCUMENT_CONTENT)
    def proposed_content(
        params: types.TextDocumentContentParams,
    ) -> types.TextDocumentContentResult:
        uri = params.uri
        if not uri.startswith(f"{PROPOSED_SCHEME}:"):
            raise bad(f"Only {PROPOSED_SCHEME}: documents are served, not {uri}.")
        path = editor.path_of("file:" + uri[len(PROPOSED_SCHEME) + 1 :])
        if path is None:
            raise bad(f"{uri} names no file.")
        return types.TextDocumentContentResult(text=_proposed(editor, path))


def _proposed(editor: Editor, path: Path) -> str:
    editor.sync_from_disk(path)
    text = editor.store.proposed(path)
    if text is not None:
        return text.render()
    for change in editor.store.in_file(path):
        if change.pending and change.hunks:  # a file not created yet
            return (
                Text(()).replace([LineEdit(h.start, h.end, h.new) for h in change.hunks]).render()
            )
    current = editor.open_text(path) or editor.files.read_disk(path)
    return current.render() if isinstance(current, Text) else ""


def _workspace_edit(editor: Editor, acceptance: Acceptance) -> types.WorkspaceEdit:
    return editor.edits.accepting(
        acceptance, editor.store.buffer_of, editor.uri_of, editor.version_of
    )


# --- commands -------------------------------------------------------------------------------


def _register_commands(server: LanguageServer, editor: Editor) -> None:
    store = editor.store

    def change_of(arguments: Arguments) -> PendingChange:
        change_id = arguments.required_text("id")
        change = store.get(change_id)
        if change is None:
            raise bad(f"{arguments.command}: no change with id {change_id!r}.")
        return change

    def path_argument(arguments: Arguments, name: str = "uri") -> Path | None:
        uri = arguments.text(name)
        if uri is None:
            return None
        path = editor.path_of(uri)
        if path is None:
            raise bad(f"{arguments.command}: `{name}` must be a file: URI, got {uri!r}.")
        return path

    def as_json(changes: Sequence[PendingChange]) -> list[dict[str, Any]]:
        view = editor.view()
        return [render.change_json(c, view) for c in changes]

    @server.command("lspEdit.propose")
    def propose(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments(
            "lspEdit.propose", raw, ("response", "uri", "session", "mode", "operations")
        )
        response = arguments.text("response")
        operations = arguments.raw("operations")
        if response is None and operations is None:
            raise bad("lspEdit.propose needs `response` (the reply text) or `operations`.")
        mode = arguments.text("mode") or editor.settings.mode
        if mode not in MODES:
            raise bad(f"lspEdit.propose: `mode` must be one of {', '.join(MODES)}; got {mode!r}.")
        target = path_argument(arguments)
        if target is not None and editor.files.workspace_of(target) is None:
            raise bad(f"lspEdit.propose: {arguments.text('uri')} is outside the workspace folders.")
        items: list[ReplyItem] = list(parse_reply(response)) if response else []
        if operations is not None:
            items.extend(parse_operations(operations))
        session = store.session(arguments.text("session"), mode)
        added = store.propose(session, items, editor.files, target)
        editor.publish({c.path for c in added})
        return {
            "session": session.id,
            "changes": as_json(added),
            "summary": render.proposal_summary(added),
        }

    @server.command("lspEdit.stream")
    def stream(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments("lspEdit.stream", raw, ("session", "delta", "done", "uri", "mode"))
        delta = arguments.text("delta") or ""
        done = arguments.flag("done")
        session_id = arguments.text("session")
        target = path_argument(arguments)
        document = editor.streams.get(session_id) if session_id is not None else None
        if document is None:
            mode = arguments.text("mode") or editor.settings.mode
            if mode not in MODES:
                raise bad(
                    f"lspEdit.stream: `mode` must be one of {', '.join(MODES)}; got {mode!r}."
                )
            session = store.session(session_id, mode)
            document = ReplyDocument(store.reply(session, editor.files, target, mark=editor.mark))
            editor.streams[session.id] = document
        elif document.finished:
            raise bad(f"lspEdit.stream: session {session_id!r} is done; start a new one.")
        document.text.append(delta)
        if done:
            document.text.finish()
            document.finished = True
        touched = document.sync()
        if touched:
            editor.publish(touched)
        changes = editor.reply_changes(document)
        return {
            "session": document.reply.session.id,
            "changes": as_json(changes),
            "summary": render.proposal_summary(changes),
        }

    @server.command("lspEdit.show")
    async def show(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        change = change_of(Arguments("lspEdit.show", raw, ("id",)))
        return {"location": await _show(editor, change)}

    @server.command("lspEdit.accept")
    async def accept(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments("lspEdit.accept", raw, ("id",))
        change = change_of(arguments)
        return await _accept(editor, change)

    @server.command("lspEdit.reject")
    def reject(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments("lspEdit.reject", raw, ("id",))
        change = change_of(arguments)
        affected = store.reject(change.id)
        editor.publish({c.path for c in affected})
        return {"id": change.id, "status": change.status.value}

    @server.command("lspEdit.restore")
    def restore(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments("lspEdit.restore", raw, ("id",))
        change_id = arguments.text("id")
        if change_id is not None and store.get(change_id) is None:
            raise bad(f"lspEdit.restore: no change with id {change_id!r}.")
        try:
            change = store.restore(change_id)
        except KeyError:
            raise bad("lspEdit.restore: no change has been rejected.") from None
        except NotAccepted as error:
            raise bad(f"lspEdit.restore: {error}") from None
        editor.publish([change.path])
        return {"id": change.id, "status": change.status.value, **_message(change)}

    @server.command("lspEdit.acceptAll")
    async def accept_all(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments("lspEdit.acceptAll", raw, ("session", "uri"))
        chosen = store.select(session=arguments.text("session"), path=path_argument(arguments))
        return await _accept_many(editor, [c for c in chosen if c.pending])

    @server.command("lspEdit.rejectAll")
    def reject_all(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments("lspEdit.rejectAll", raw, ("session", "uri"))
        chosen = store.select(session=arguments.text("session"), path=path_argument(arguments))
        open_ones = (Status.PENDING, Status.STALE, Status.FAILED, Status.SKIPPED)
        decided = [change for change in chosen if change.status in open_ones]
        editor.publish({change.path for change in store.reject_all(decided)})
        return {"changes": [{"id": c.id, "status": c.status.value} for c in decided]}

    @server.command("lspEdit.list")
    def list_changes(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments("lspEdit.list", raw, ("session", "uri"))
        # What typing moved is published first, so the list and the diagnostics agree.
        editor.publish_pending()
        chosen = store.select(session=arguments.text("session"), path=path_argument(arguments))
        return {"changes": as_json(chosen)}

    @server.command("lspEdit.summary")
    def summary(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments("lspEdit.summary", raw, ("session",))
        session = arguments.required_text("session")
        if session not in store.sessions:
            raise bad(f"lspEdit.summary: no session {session!r}.")
        changes = store.select(session=session)
        return {"text": render.review_summary(changes, editor.store.buffer_of)}

    @server.command("lspEdit.instructions")
    def instructions_text(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments("lspEdit.instructions", raw, ("mode",))
        mode = arguments.text("mode") or "ast_path"
        try:
            return {"text": instructions(mode)}
        except ValueError as error:
            raise bad(f"lspEdit.instructions: {error}") from None

    @server.command("lspEdit.symbols")
    def symbols(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments("lspEdit.symbols", raw, ("uri",))
        path = path_argument(arguments)
        if path is None:
            raise bad("lspEdit.symbols needs `uri`.")
        language = language_for(path.name)
        if language is None:
            raise bad(f"lspEdit.symbols: no supported language for {path.name}.")
        text = editor.open_text(path) or editor.files.read_disk(path)
        if not isinstance(text, Text):
            reason = text.message if text is not None else "it does not exist"
            raise bad(f"lspEdit.symbols: cannot read {path.name}: {reason}")
        found = index_symbols(text, language)
        return {
            "symbols": [
                {
                    "path": s.dotted,
                    "kind": s.kind,
                    "range": {
                        "start": {"line": s.start_line, "character": 0},
                        "end": {"line": s.end_line, "character": 0},
                    },
                }
                for s in found
            ]
        }

    @server.command("lspEdit.next")
    async def next_change(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        return await _step(editor, Arguments("lspEdit.next", raw, ("uri", "position")), 1)

    @server.command("lspEdit.previous")
    async def previous_change(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        return await _step(editor, Arguments("lspEdit.previous", raw, ("uri", "position")), -1)

    @server.command("lspEdit.proposed")
    def proposed(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments("lspEdit.proposed", raw, ("uri",))
        path = path_argument(arguments)
        if path is None:
            raise bad("lspEdit.proposed needs `uri`.")
        return {"text": _proposed(editor, path)}


def _message(change: PendingChange) -> dict[str, Any]:
    return {"message": change.message} if change.message and not change.pending else {}


async def _accept(editor: Editor, change: PendingChange) -> dict[str, Any]:
    """Sends the change (and what it depends on) to the editor; if the editor refuses
    because the buffer moved, places it again against the buffer and tries once more."""
    store = editor.store
    for attempt in range(2):
        if change.status is Status.APPLIED:
            return {"id": change.id, "status": "applied"}
        editor.sync_from_disk(change.path)
        try:
            acceptance = store.acceptance(change.id)
            edit = _workspace_edit(editor, acceptance)
        except NotAccepted as error:
            return {"id": change.id, "status": change.status.value, "message": str(error)}
        except CannotEdit as error:
            return {"id": change.id, "status": change.status.value, "message": str(error)}
        label = f"lsp-edit: {change.description}"
        result = await _apply_edit(editor, types.ApplyWorkspaceEditParams(edit=edit, label=label))
        if result.applied:
            store.mark_applied(acceptance.changes)
            editor.publish({c.path for c in acceptance.changes})
            out: dict[str, Any] = {"id": change.id, "status": change.status.value}
            if len(acceptance.changes) > 1:
                out["accepted"] = [c.id for c in acceptance.changes]
                out["dependsOn"] = [c.id for c in acceptance.changes if c is not change]
            return out
        reason = result.failure_reason or "the editor did not apply the edit"
        log.info("applyEdit refused on attempt %d: %s", attempt + 1, reason)
        # The didChange that moved the buffer may still be on its way.
        await asyncio.sleep(0)
    change.message = f"The editor did not apply it: {reason}."
    editor.publish([change.path])
    return {"id": change.id, "status": change.status.value, "message": change.message}


async def _apply_edit(
    editor: Editor, params: types.ApplyWorkspaceEditParams
) -> types.ApplyWorkspaceEditResult:
    """`workspace/applyEdit`. Some clients refuse with an error instead of `applied:
    false` (Emacs 28's eglot, when the buffer's version moved): the same refusal."""
    try:
        return await editor.server.workspace_apply_edit_async(params)
    except JsonRpcException as error:
        return types.ApplyWorkspaceEditResult(applied=False, failure_reason=error.message)


async def _accept_many(editor: Editor, changes: Sequence[PendingChange]) -> dict[str, Any]:
    store = editor.store
    if not changes:
        return {"changes": []}
    for path in {c.path for c in changes}:
        editor.sync_from_disk(path)
    acceptance = store.acceptance_of_all([c for c in changes if c.pending])
    try:
        edit = _workspace_edit(editor, acceptance)
    except CannotEdit as error:
        return {
            "changes": [{"id": c.id, "status": c.status.value} for c in changes],
            "message": str(error),
        }
    count = len(acceptance.changes)
    label = f"lsp-edit: accept {count} change{'s' if count != 1 else ''}"
    result = await _apply_edit(editor, types.ApplyWorkspaceEditParams(edit=edit, label=label))
    out: dict[str, Any] = {}
    if result.applied:
        store.mark_applied(acceptance.changes)
    else:
        out["message"] = (
            f"The editor did not apply the edit: {result.failure_reason or 'no reason given'}."
        )
    editor.publish({c.path for c in changes})
    out["changes"] = [{"id": c.id, "status": c.status.value} for c in changes]
    return out


async def _step(editor: Editor, arguments: Arguments, direction: int) -> dict[str, Any]:
    path = None
    uri = arguments.text("uri")
    if uri is not None:
        path = editor.path_of(uri)
    position = arguments.position("position")
    queue = editor.store.in_review_order()
    if not queue:
        return {"change": None}
    here = (str(path) if path else "", position[0] if position else -1)

    def key(change: PendingChange) -> tuple[str, int]:
        return (str(change.path), (change.line_span() or (0, 0))[0])

    if direction > 0:
        after = [c for c in queue if key(c) > here]
        chosen = after[0] if after else queue[0]
    else:
        before = [c for c in queue if key(c) < here]
        chosen = before[-1] if before else queue[-1]
    view = editor.view()
    found = render.change_json(chosen, view)
    await _show(editor, chosen)
    return {"change": found}


async def _show(editor: Editor, change: PendingChange) -> dict[str, Any] | None:
    """Where a change is (its lines in the file, or its block when it has none), shown
    in the editor where the client supports `window/showDocument`."""
    view = editor.view()
    if change.hunks or change.reply is None:
        if change.path == NOWHERE:
            return None
        uri = editor.uri_of(change.path)
        where = render.whole_range(editor.store.buffer_of(change.path), change, view)
    else:
        uri = change.reply.uri
        reply = editor.path_of(uri)
        document = editor.replies.get(reply) if reply is not None else None
        where = render.block_range(document.text.buffer if document else None, change, view)
    if editor.show_document:
        await editor.server.window_show_document_async(
            types.ShowDocumentParams(uri=uri, take_focus=True, selection=where)
        )
    return {"uri": uri, "range": render.json_range(where)}
