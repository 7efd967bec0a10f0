"""`lsp-edit serve`: the handlers. Each reads its params, asks the store or the
`Editor`, and hands the answer to `render` (docs/protocol.md has the contract)."""

from __future__ import annotations

import logging
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import lsp_method
from pygls.uris import to_fs_path

from lsp_edit import VERSION
from lsp_edit.blocks import parse_operations, parse_reply
from lsp_edit.blocks.model import ReplyItem
from lsp_edit.changes import Status
from lsp_edit.instructions import instructions
from lsp_edit.positions import PositionEncoding
from lsp_edit.server import render
from lsp_edit.server.agents import Agents
from lsp_edit.server.ask import register_ask
from lsp_edit.server.editor import PROPOSED_SCHEME, Editor
from lsp_edit.server.edits import CannotEdit
from lsp_edit.server.messages import AnsweringProtocol, strict_converter
from lsp_edit.server.params import Arguments, bad
from lsp_edit.server.settings import MODES, read_settings
from lsp_edit.server.store import AlreadyPending, NotAccepted, PendingChange
from lsp_edit.symbols import index_symbols, language_for
from lsp_edit.text import Text

log = logging.getLogger(__name__)


class _Protocol(AnsweringProtocol):
    """pygls' protocol that answers every request (`messages`), with the
    `lsp-edit-proposed:` documents (LSP 3.18 `workspace/textDocumentContent`, which
    its capability builder does not know), and
    without pygls' own copy of each document: lsp-edit keeps its own, edited in
    place, where pygls splits the whole text again on every change (which makes a
    reply streamed into a document quadratic)."""

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


def create_server() -> LanguageServer:
    """A new server with every handler registered (one per test, or one per process)."""
    server = LanguageServer(
        "lsp-edit", VERSION, protocol_cls=_Protocol, converter_factory=strict_converter
    )
    editor = Editor(server)
    _register_lifecycle(server, editor, Agents(editor))
    _register_documents(server, editor)
    _register_views(server, editor)
    _register_commands(server, editor)
    register_ask(server, editor)
    return server


# --- lifecycle --------------------------------------------------------------------------


def _register_lifecycle(server: LanguageServer, editor: Editor, agents: Agents) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        negotiated = server.workspace.position_encoding or types.PositionEncodingKind.Utf16
        editor.start(
            params.capabilities,
            PositionEncoding(getattr(negotiated, "value", negotiated)),
            _roots(params),
        )
        options = params.initialization_options
        section = options.get("lspEdit") if isinstance(options, dict) else None
        editor.settings, editor.startup_problems = read_settings(section, editor.settings)

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        for problem in editor.startup_problems:
            _warn(server, problem)
        # Agents (`lsp-edit mcp`) reach the review from now on (docs/mcp.md).
        await agents.open()
        if editor.client.watch_files:
            # Replies other programs write, and files with pending changes not open.
            watch = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern="**/*")]
            )
            registration = types.Registration(
                id="lsp-edit-files",
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=watch,
            )
            try:
                await server.client_register_capability_async(
                    types.RegistrationParams(registrations=[registration])
                )
            except Exception as error:  # the client refused: the server works without it
                log.warning("client/registerCapability failed: %s", error)

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
        editor.set_roots(
            [
                Path(p)
                for folder in server.workspace.folders.values()
                if (p := to_fs_path(folder.uri))
            ]
        )
        agents.folders_changed()

    @server.feature(types.SHUTDOWN)
    def shutdown(params: None) -> None:
        agents.close()

    @server.feature(types.EXIT)
    def exit_(params: None) -> None:
        agents.close()


def _roots(params: types.InitializeParams) -> list[Path]:
    roots = [Path(p) for folder in params.workspace_folders or [] if (p := to_fs_path(folder.uri))]
    if not roots and params.root_uri and (p := to_fs_path(params.root_uri)):
        roots = [Path(p)]
    if not roots and params.root_path:
        roots = [Path(params.root_path)]
    return roots


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
            editor.opened_reply(item, path)
        else:
            editor.opened_file(item, path)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        path = editor.path_of(params.text_document.uri)
        if path is None or path not in editor.opened:
            return
        editor.opened[path].version = params.text_document.version
        if path in editor.replies:
            editor.edited_reply(path, params)
        else:
            editor.edited_file(path, params)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        path = editor.path_of(params.text_document.uri)
        if path is not None:
            editor.closed(path)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(params: types.DidChangeWatchedFilesParams) -> None:
        changed = []
        for event in params.changes:
            path = editor.path_of(event.uri)
            if path is None:
                continue
            if event.type == types.FileChangeType.Created:
                editor.files.file_created(path)
            elif event.type == types.FileChangeType.Deleted:
                editor.files.file_deleted(path)
            if path in editor.opened:
                continue
            if event.type != types.FileChangeType.Deleted and editor.is_reply(path):
                editor.read_reply_from_disk(path)
            elif editor.sync_from_disk(path):
                changed.append(path)
        if changed:
            editor.publish(changed)


# --- diagnostics' companions: actions, lenses, outline, hover, proposed text -----------


def _register_views(server: LanguageServer, editor: Editor) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(
        params: types.CodeActionParams,
    ) -> list[types.CodeAction | types.Command] | None:
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
            touching = [
                c
                for c in editor.store.touching(path, first, last, failures=True)
                if not editor.shown_in_reply(c)
            ]
        if not touching:
            return None

        def edit_for(change: PendingChange) -> types.WorkspaceEdit | None:
            try:
                return editor.workspace_edit(editor.store.acceptance(change.id))
            except (NotAccepted, CannotEdit, KeyError):
                return None

        return render.code_actions(
            touching,
            editor.store.shown_in(path),
            editor.view(),
            params.text_document.uri,
            edit_for=edit_for,
            llm_tag=editor.client.llm_tag,
            literals=editor.client.action_literals,
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
        return types.TextDocumentContentResult(text=editor.proposed(path).text.render())


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

    def mode_argument(arguments: Arguments) -> str:
        mode = arguments.text("mode") or editor.settings.mode
        if mode not in MODES:
            choices = ", ".join(MODES)
            raise bad(f"{arguments.command}: `mode` must be one of {choices}; got {mode!r}.")
        return mode

    def as_json(changes: Sequence[PendingChange]) -> list[dict[str, Any]]:
        view = editor.view()
        return [render.change_json(c, view) for c in changes]

    def selected(arguments: Arguments) -> list[PendingChange]:
        return store.select(session=arguments.text("session"), path=path_argument(arguments))

    @server.command("lspEdit.propose")
    def propose(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments(
            "lspEdit.propose", raw, ("response", "uri", "session", "mode", "operations")
        )
        response = arguments.text("response")
        operations = arguments.raw("operations")
        if response is None and operations is None:
            raise bad("lspEdit.propose needs `response` (the reply text) or `operations`.")
        mode = mode_argument(arguments)
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
        document = editor.stream(session_id, path_argument(arguments), mode_argument(arguments))
        if document.finished:
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
        return {"location": await editor.show(change)}

    @server.command("lspEdit.accept")
    async def accept(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments("lspEdit.accept", raw, ("id", "action", "anyway"))
        change = change_of(arguments)
        if arguments.flag("anyway"):
            return await editor.accept_anyway(change)
        if arguments.flag("action"):
            return await editor.accept_applied(change)
        return await editor.accept(change)

    @server.command("lspEdit.reject")
    def reject(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        change = change_of(Arguments("lspEdit.reject", raw, ("id",)))
        editor.publish({c.path for c in store.reject(change.id)})
        return {"id": change.id, "status": change.status.value}

    @server.command("lspEdit.restore")
    def restore(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments("lspEdit.restore", raw, ("id",))
        change_id = arguments.text("id")
        if change_id is not None and store.get(change_id) is None:
            raise bad(f"lspEdit.restore: no change with id {change_id!r}.")
        try:
            restored = store.restore(change_id)
        except KeyError:
            raise bad("lspEdit.restore: no change has been rejected.") from None
        except NotAccepted as error:
            raise bad(f"lspEdit.restore: {error}") from None
        if isinstance(restored, AlreadyPending):
            change = restored.change
            return {"id": change.id, "status": change.status.value, "message": restored.message}
        change = restored
        editor.publish([change.path])
        out: dict[str, Any] = {"id": change.id, "status": change.status.value}
        if change.message and not change.pending:
            out["message"] = change.message
        return out

    @server.command("lspEdit.acceptAll")
    async def accept_all(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        chosen = selected(Arguments("lspEdit.acceptAll", raw, ("session", "uri")))
        return await editor.accept_all([c for c in chosen if c.pending])

    @server.command("lspEdit.rejectAll")
    def reject_all(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        chosen = selected(Arguments("lspEdit.rejectAll", raw, ("session", "uri")))
        open_ones = (Status.PENDING, Status.STALE, Status.FAILED, Status.SKIPPED)
        decided = [change for change in chosen if change.status in open_ones]
        editor.publish({change.path for change in store.reject_all(decided)})
        return {"changes": [{"id": c.id, "status": c.status.value} for c in decided]}

    @server.command("lspEdit.list")
    def list_changes(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        arguments = Arguments("lspEdit.list", raw, ("session", "uri"))
        # What typing moved is published first, so the list and the diagnostics agree.
        editor.publish_pending()
        return {"changes": as_json(selected(arguments))}

    @server.command("lspEdit.summary")
    def summary(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        session = Arguments("lspEdit.summary", raw, ("session",)).required_text("session")
        if session not in store.sessions:
            raise bad(f"lspEdit.summary: no session {session!r}.")
        return {"text": render.review_summary(store.select(session=session), store.buffer_of)}

    @server.command("lspEdit.instructions")
    def instructions_text(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        mode = Arguments("lspEdit.instructions", raw, ("mode",)).text("mode") or "ast_path"
        try:
            return {"text": instructions(mode)}
        except ValueError as error:
            raise bad(f"lspEdit.instructions: {error}") from None

    @server.command("lspEdit.symbols")
    def symbols(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        path = path_argument(Arguments("lspEdit.symbols", raw, ("uri",)))
        if path is None:
            raise bad("lspEdit.symbols needs `uri`.")
        language = language_for(path.name)
        if language is None:
            raise bad(f"lspEdit.symbols: no supported language for {path.name}.")
        text = editor.open_text(path) or editor.files.read_disk(path)
        if not isinstance(text, Text):
            reason = text.message if text is not None else "it does not exist"
            raise bad(f"lspEdit.symbols: cannot read {path.name}: {reason}")
        return {"symbols": render.symbols_json(index_symbols(text, language), text, editor.view())}

    async def step(arguments: Arguments, forward: bool) -> dict[str, Any]:
        position = arguments.position("position")
        chosen = store.next_pending(
            path_argument(arguments), position[0] if position else None, forward=forward
        )
        if chosen is None:
            return {"change": None}
        await editor.show(chosen)
        return {"change": render.change_json(chosen, editor.view())}

    @server.command("lspEdit.next")
    async def next_change(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        return await step(Arguments("lspEdit.next", raw, ("uri", "position")), True)

    @server.command("lspEdit.previous")
    async def previous_change(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        return await step(Arguments("lspEdit.previous", raw, ("uri", "position")), False)

    @server.command("lspEdit.proposed")
    def proposed(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        path = path_argument(Arguments("lspEdit.proposed", raw, ("uri",)))
        if path is None:
            raise bad("lspEdit.proposed needs `uri`.")
        return render.proposal_json(editor.proposed(path))
