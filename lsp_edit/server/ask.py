"""`lspEdit.ask`: asks the model from the editor (docs/ask.md).

The command builds the request (`lsp_edit.prompt`), sends it to the provider the
`lspEdit.llm` settings name (`lsp_edit.providers`, loaded at the first ask: a model
server over HTTP, or the editor's own models through the client, `server.chat`), and
streams the reply into the session's reply document (`lsp_edit.conversation`),
where each block becomes a pending change the moment its closing line arrives, as in
any reply document (`ReplyWriter`, `replies`). It runs while the server goes on
answering everything else; a `$/progress` shows it, and cancelling the progress
stops the request and keeps what arrived. The model is offered the editing tools of
`lsp-edit mcp` its session's mode accepts (`lsp_edit.tools`); a call is written into
the reply as the blocks it stands for (`lsp_edit.blocks.tool_calls`), and its result
goes back to the model in the words `lsp-edit mcp` tells an agent. The next ask in
the session sends the conversation so far, with the summary of what became of the
model's changes first in the user's turn.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from lsp_edit.blocks.tool_calls import BadCall, call_text, edit_call_from_json, tools_for_mode
from lsp_edit.changes import Status
from lsp_edit.conversation import assistant_turn, marker, note, read_history, user_turn
from lsp_edit.prompt import Ask, ContextFile, Selection, build_request, user_words
from lsp_edit.server import render
from lsp_edit.server.chat import ClientChats, register_chat
from lsp_edit.server.editor import Editor
from lsp_edit.server.params import Arguments, bad
from lsp_edit.server.replies import ReplyDocument
from lsp_edit.server.reply_writer import ReplyWriter
from lsp_edit.server.settings import MODES
from lsp_edit.server.store import PendingChange
from lsp_edit.symbols import language_for
from lsp_edit.text import Text, strip_ending
from lsp_edit.tools import pending_note, undecided_note
from lsp_edit.values import field, record, value

if TYPE_CHECKING:
    from lsp_edit.providers import ChatProvider, ChatRequest, Failed, ToolCall

log = logging.getLogger(__name__)

TRANSCRIPT_SUFFIX = ".llm.md"
NO_FILE_TRANSCRIPT = "ask.llm.md"  # in the first workspace folder, for an ask about no file
MAX_TOOL_ROUNDS = 8  # rounds of tool calls answered in one turn
REVIEW_WAIT = 600.0  # seconds a call with `wait: true` waits for the user's decisions
_TOLD_BY = "the next user message"  # how the model learns the user's decisions
_PROGRESS_EVERY = 0.2  # seconds between progress reports
_EVENTS_PER_TURN = 4  # stream events read in a row before the server answers others
_SHOWN_WAIT = 1.0  # seconds to wait for the editor to open a document it was shown
_EDITOR_MODEL = "VS Code's language model"  # llm.api "vscode" without llm.model: its first
_RETRY_NOTE = "(lspEdit.retryFailed: lsp-edit sends what became of your blocks back once.)"


@value
class AskArguments:
    """`lspEdit.ask`'s argument, checked."""

    prompt: str
    target: Path | None
    lines: tuple[int, int] | None  # the selection: 1-based, inclusive
    files: tuple[Path, ...]
    mode: str | None
    session: str | None


@record
class Round:
    """What one streamed answer of the model brought (kept when it is cancelled)."""

    text: list[str] = field(default_factory=list)
    calls: dict[int, list[str]] = field(default_factory=dict)  # index -> [id, name, args]
    usage: tuple[int | None, int | None] | None = None
    finish: str | None = None
    failure: Failed | None = None


@record
class TurnOutcome:
    status: str  # done | cancelled | failed
    message: str | None = None
    code: str | None = None
    finish: str | None = None
    usage: tuple[int | None, int | None] | None = None
    changes: list[PendingChange] = field(default_factory=list)


class Conversation:
    """A session's reply document, as the conversation `lspEdit.ask` holds in it."""

    def __init__(self, path: Path, document: ReplyDocument) -> None:
        self.path = path
        self.document = document
        self.reported: dict[str, Status] = {}  # what the model was told of each change
        self.writer: ReplyWriter | None = None  # while an ask runs
        self.stream: asyncio.Task[None] | None = None
        self.cancelled = False
        self.tools = True  # False once the model refused them

    @property
    def session(self) -> str:
        return self.document.reply.session.id

    # What the editor tells (`Editor.transcripts`), for the writer while an ask runs.

    @property
    def writes_to_disk(self) -> bool:
        return self.writer is not None and self.writer.writes_to_disk

    def opened(self, text: str) -> None:
        if self.writer is not None:
            self.writer.opened(text)

    def edited(self) -> None:
        if self.writer is not None:
            self.writer.edited()

    def closed(self) -> None:
        if self.writer is not None:
            self.writer.closed()


def register_ask(server: LanguageServer, editor: Editor) -> None:
    asks = Asks(server, editor, register_chat(server))

    @server.command("lspEdit.ask")
    async def ask(ls: LanguageServer, *raw: Any) -> dict[str, Any]:
        names = ("prompt", "uri", "range", "files", "mode", "session")
        return await asks.ask(asks.read(Arguments("lspEdit.ask", raw, names)))

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def cancel(params: types.WorkDoneProgressCancelParams) -> None:
        asks.cancel(str(params.token))


class Asks:
    """Every conversation, and the asks running in them."""

    def __init__(self, server: LanguageServer, editor: Editor, chats: ClientChats) -> None:
        self.server = server
        self.editor = editor
        self.chats = chats  # the way to the editor's own models (llm.api "vscode")
        self.conversations: dict[Path, Conversation] = {}
        self.by_token: dict[str, Conversation] = {}
        self._tokens = itertools.count(1)

    # --- the command ----------------------------------------------------------------

    def read(self, arguments: Arguments) -> AskArguments:
        prompt = (arguments.text("prompt") or "").strip()
        if not prompt:
            raise bad("lspEdit.ask needs `prompt`: what to ask the model.")
        target = self._path(arguments, arguments.text("uri"), "uri")
        lines = _lines_of(arguments.raw("range"))
        if lines is not None and target is None:
            raise bad("lspEdit.ask: `range` needs `uri`, the file it is in.")
        files = arguments.raw("files") or []
        if not isinstance(files, list | tuple) or not all(isinstance(f, str) for f in files):
            raise bad("lspEdit.ask: `files` must be a list of file URIs.")
        paths = tuple(p for f in files if (p := self._path(arguments, f, "files")) is not None)
        mode = arguments.text("mode")
        if mode is not None and mode not in MODES:
            raise bad(f"lspEdit.ask: `mode` must be one of {', '.join(MODES)}; got {mode!r}.")
        return AskArguments(prompt, target, lines, paths, mode, arguments.text("session"))

    def _path(self, arguments: Arguments, uri: str | None, name: str) -> Path | None:
        if uri is None:
            return None
        path = self.editor.path_of(uri)
        if path is None:
            raise bad(f"lspEdit.ask: `{name}` must hold file: URIs, got {uri!r}.")
        if self.editor.files.workspace_of(path) is None:
            raise bad(f"lspEdit.ask: {uri} is outside the workspace folders.")
        return path

    async def ask(self, given: AskArguments) -> dict[str, Any]:
        from lsp_edit.providers import DEFAULT_BASE_URLS, Failed, ProviderSettings, provider_for

        llm = self.editor.settings.llm
        if not llm.model and llm.api != "vscode":  # (VS Code's first model, when not set)
            raise bad(
                "lspEdit.ask: no model is set. Set lspEdit.llm.model (and lspEdit.llm.api, "
                "lspEdit.llm.baseUrl for a server other than OpenAI): docs/ask.md shows how."
            )
        conversation = self.conversation_for(given)
        if conversation.writer is not None:
            raise bad(
                f"lspEdit.ask: session {conversation.session} is still answering; wait for "
                "its reply or cancel it."
            )
        paths = self.context_paths(given)
        provider = provider_for(
            ProviderSettings(
                api=llm.api,
                base_url=llm.base_url or DEFAULT_BASE_URLS[llm.api],
                model=llm.model or "",
                api_key_env=llm.api_key_env,
                timeout=llm.timeout,
            ),
            os.environ,
            self.chats,
        )
        if isinstance(provider, Failed):
            raise bad(f"lspEdit.ask: {provider.message}")
        if given.target is not None and not self.editor.is_reply(given.target):
            conversation.document.reply.set_default_target(str(given.target))
        try:
            return await self.run(conversation, provider, given, paths)
        finally:
            await provider.aclose()

    def model_name(self) -> str:
        """The model's name, as the reply document and the progress show it."""
        llm = self.editor.settings.llm
        return llm.model or (_EDITOR_MODEL if llm.api == "vscode" else "")

    def cancel(self, token: str) -> None:
        conversation = self.by_token.get(token)
        if conversation is None:
            return
        conversation.cancelled = True
        if conversation.stream is not None:
            conversation.stream.cancel()

    # --- where the conversation is -------------------------------------------------

    def conversation_for(self, given: AskArguments) -> Conversation:
        """The session's conversation: the one `session` names, else the one of the
        reply document beside the file asked about (`app.py.llm.md`), new or not."""
        editor = self.editor
        if given.session is not None:
            for path, document in editor.replies.items():
                if document.reply.session.id == given.session:
                    return self._conversation(path, document, given.mode)
            if given.session in editor.store.sessions:
                raise bad(
                    f"lspEdit.ask: session {given.session!r} has no reply document (it came "
                    "from lspEdit.propose or lspEdit.stream); leave `session` out to start one."
                )
        path = self.transcript_path(given.target)
        known = editor.replies.get(path)
        if known is not None:
            if given.session is not None and known.reply.session.id != given.session:
                raise bad(
                    f"lspEdit.ask: {editor.files.display(path)} holds session "
                    f"{known.reply.session.id}; leave `session` out to continue it."
                )
            return self._conversation(path, known, given.mode)
        session = editor.store.session(given.session, given.mode or editor.settings.mode)
        reply = editor.store.reply(
            session, editor.files, document=editor.uri_of(path), mark=editor.mark
        )
        document = editor.replies[path] = ReplyDocument(reply)
        conversation = self._conversation(path, document, None)
        on_disk = editor.files.read_disk(path) if path.exists() else None
        if isinstance(on_disk, Text):  # a conversation of an earlier run of the server
            editor.read_reply(path, document, lambda: document.text.replace_all(on_disk.render()))
        return conversation

    def _conversation(self, path: Path, document: ReplyDocument, mode: str | None) -> Conversation:
        requested = document.reply.session.mode.requested
        if mode is not None and mode != requested:
            raise bad(
                f"lspEdit.ask: session {document.reply.session.id} is in {requested} mode, and "
                f"a session does not mix edit formats; leave `mode` out to continue it."
            )
        conversation = self.conversations.get(path)
        if conversation is None or conversation.document is not document:
            conversation = self.conversations[path] = Conversation(path, document)
            self.editor.transcripts[path] = conversation
        return conversation

    def transcript_path(self, target: Path | None) -> Path:
        if target is not None:
            if self.editor.is_reply(target):
                return target  # asked from the reply document: the conversation goes on
            return target.with_name(target.name + TRANSCRIPT_SUFFIX)
        if not self.editor.roots:
            raise bad("lspEdit.ask needs `uri` (the file to ask about) when no folder is open.")
        return self.editor.roots[0] / NO_FILE_TRANSCRIPT

    def context_paths(self, given: AskArguments) -> list[Path]:
        """The file asked about, then `files` (reply documents left out), each readable."""
        paths = [p for p in (given.target, *given.files) if p is not None]
        out = [p for p in dict.fromkeys(paths) if not self.editor.is_reply(p)]
        for path in out:
            self.text_now(path)
        return out

    def text_now(self, path: Path) -> Text:
        text = self.editor.open_text(path) or self.editor.files.read_disk(path)
        if not isinstance(text, Text):
            reason = text.message if text is not None else "it does not exist"
            raise bad(f"lspEdit.ask: cannot read {self.editor.files.display(path)}: {reason}")
        return text

    def context_files(
        self, conversation: Conversation, paths: Sequence[Path], mode: str
    ) -> list[ContextFile]:
        """The files as the model's blocks are placed on them: in line-number mode the
        buffer (line numbers refer to the file before the reply's changes), else the
        buffer with the changes still pending applied (a turn's blocks are placed on
        those of the turns before)."""
        out = []
        for path in paths:
            text = self.text_now(path)
            pending = [
                c
                for c in self.editor.store.in_file(path)
                if c.pending and c.session == conversation.session
            ]
            proposed = self.editor.store.proposed(path) if pending else None
            shown = pending and mode != "line_numbers" and proposed is not None
            out.append(
                ContextFile(
                    self.editor.files.display(path),
                    proposed.text if shown and proposed is not None else text,
                    language_for(path.name),
                    len(pending) if shown else 0,
                )
            )
        return out

    # --- a whole ask ---------------------------------------------------------------------

    async def run(
        self,
        conversation: Conversation,
        provider: ChatProvider,
        given: AskArguments,
        paths: list[Path],
    ) -> dict[str, Any]:
        editor = self.editor
        writer = conversation.writer = ReplyWriter(editor, conversation.path, conversation.document)
        conversation.cancelled = False
        model = self.model_name()
        token = await self.begin_progress(conversation, model)
        cancelled_from_outside = False
        made: list[PendingChange] = []
        retried = False
        outcome = TurnOutcome("cancelled", "The request was cancelled; what arrived is kept.")
        try:
            outcome = await self.turn(conversation, provider, given, paths, retry=False)
            made += outcome.changes
            failed = [c for c in outcome.changes if c.status is Status.FAILED]
            if outcome.status == "done" and failed and editor.settings.retry_failed:
                retried = True
                outcome = await self.turn(conversation, provider, given, paths, retry=True)
                made += outcome.changes
        except asyncio.CancelledError:
            cancelled_from_outside = True  # $/cancelRequest: the answer is an error
        finally:
            await writer.settled()
            writer.close()
            conversation.writer = None
            conversation.stream = None
            self.end_progress(token, outcome_text(outcome))
            if token is not None:
                self.by_token.pop(token, None)
        if cancelled_from_outside:
            raise asyncio.CancelledError
        if outcome.status == "failed" and outcome.message:
            self.server.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Error, message=f"lsp-edit: {outcome.message}"
                )
            )
        if writer.failure:
            outcome.message = " ".join(filter(None, (outcome.message, writer.failure)))
        view = editor.view()
        result: dict[str, Any] = {
            "session": conversation.session,
            "uri": editor.uri_of(conversation.path),
            "status": outcome.status,
            "changes": [render.change_json(c, view) for c in made],
            "summary": render.proposal_summary(made),
        }
        if outcome.message:
            result["message"] = outcome.message
        if outcome.code:
            result["code"] = outcome.code
        if outcome.finish:
            result["finish"] = outcome.finish
        if outcome.usage is not None:
            prompt_tokens, completion_tokens = outcome.usage
            result["usage"] = {"promptTokens": prompt_tokens, "completionTokens": completion_tokens}
        if retried:
            result["retried"] = True
        return result

    async def begin_progress(self, conversation: Conversation, model: str) -> str | None:
        window = self.server.client_capabilities.window
        if window is None or not window.work_done_progress:
            return None
        token = f"lsp-edit/ask/{next(self._tokens)}"
        try:
            await self.server.work_done_progress.create_async(token)
        except Exception as error:  # the client refused: the ask goes on without
            log.warning("window/workDoneProgress/create failed: %s", error)
            return None
        self.by_token[token] = conversation
        self.server.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title=f"lsp-edit: asking {model}", cancellable=True, message="sending the request"
            ),
        )
        return token

    def report(self, token: str | None, message: str) -> None:
        if token is not None:
            self.server.work_done_progress.report(
                token, types.WorkDoneProgressReport(message=message, cancellable=True)
            )

    def end_progress(self, token: str | None, message: str) -> None:
        if token is not None:
            self.server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    # --- one turn: the user's words, the model's reply ----------------------------------

    async def turn(
        self,
        conversation: Conversation,
        provider: ChatProvider,
        given: AskArguments,
        paths: list[Path],
        *,
        retry: bool,
    ) -> TurnOutcome:
        editor = self.editor
        writer = conversation.writer
        assert writer is not None
        document = conversation.document
        model = self.model_name()
        await writer.settled()
        history = read_history(document.text.raw)
        summary = self.summary(conversation)
        prompt = "" if retry else given.prompt
        words = user_words(prompt, summary)
        if retry:
            words = f"{_RETRY_NOTE}\n\n{words}"
        written = writer.text
        separator = "" if not written or written.endswith("\n") else "\n"
        writer.append(
            separator + user_turn(words, at_start=not written.strip()) + assistant_turn(model)
        )
        await writer.settled()
        await self.show(conversation)
        before = set(document.change_ids)
        # The new turn's blocks are placed afresh, on the buffers with the pending
        # changes of the turns before: a block that failed earlier does not make the
        # model's later blocks to that file be skipped (as it would within one reply).
        document.reply.reorder(list(document.reply.change_ids))
        mode = _mode_now(document)
        files = self.context_files(conversation, paths, mode)
        ask = Ask(
            prompt=prompt,
            mode=mode,
            files=tuple(files),
            selection=self.selection(given),
            history=tuple(history),
            summary=summary,
            max_context_files=editor.settings.llm.max_context_files,
            tools=tools_for_mode(mode) if conversation.tools and provider.takes_tools else (),
        )
        request = build_request(model, ask)
        outcome = await self.answer(conversation, provider, request)
        await self.finish_turn(conversation, outcome)
        outcome.changes = [c for c in editor.reply_changes(document) if c.id not in before]
        return outcome

    def summary(self, conversation: Conversation) -> str | None:
        """What became of the session's changes that the model was not told of yet;
        they count as told from now on."""
        store = self.editor.store
        changes = store.select(session=conversation.session)
        news = [c for c in changes if conversation.reported.get(c.id) is not c.status]
        for change in news:
            conversation.reported[change.id] = change.status
        if not news:
            return None
        return render.review_summary(news, store.buffer_of)

    def selection(self, given: AskArguments) -> Selection | None:
        """The selected lines, as the editor has them (not with pending changes)."""
        target = given.target
        if given.lines is None or target is None or self.editor.is_reply(target):
            return None
        text = self.text_now(target)
        first, last = given.lines
        last = min(last, text.line_count)
        first = min(first, max(last, 1))
        lines = text.lines[first - 1 : last]
        return Selection(self.editor.files.display(target), first, last, Text.from_lines(lines))

    async def show(self, conversation: Conversation) -> None:
        """Opens the reply document in the editor (where the client can be asked to),
        so the reply streams into its buffer."""
        editor = self.editor
        if conversation.path in editor.opened or not editor.client.show_document:
            return
        try:
            shown = await self.server.window_show_document_async(
                types.ShowDocumentParams(uri=editor.uri_of(conversation.path), take_focus=False)
            )
        except Exception as error:
            log.warning("window/showDocument failed: %s", error)
            return
        waited = 0.0
        while shown.success and conversation.path not in editor.opened and waited < _SHOWN_WAIT:
            await asyncio.sleep(0.02)
            waited += 0.02

    async def answer(
        self, conversation: Conversation, provider: ChatProvider, request: ChatRequest
    ) -> TurnOutcome:
        """The model's answer, through rounds of tool calls, streamed into the document."""
        from lsp_edit.providers import ChatMessage, ChatRequest, ToolCall

        usage: tuple[int | None, int | None] | None = None
        cancelled = TurnOutcome("cancelled", "Cancelled: what arrived is kept.")
        for _ in range(MAX_TOOL_ROUNDS + 1):
            if conversation.cancelled:
                cancelled.usage = usage
                return cancelled
            round_ = Round()
            conversation.stream = asyncio.ensure_future(
                self.stream_round(conversation, provider, request, round_)
            )
            try:
                await conversation.stream
            except asyncio.CancelledError:
                if not conversation.cancelled:
                    raise
                cancelled.usage = _added(usage, round_.usage)
                return cancelled
            finally:
                conversation.stream = None
            usage = _added(usage, round_.usage)
            failure = round_.failure
            if failure is not None:
                if failure.code == "tools-unsupported" and request.tools and not round_.text:
                    conversation.tools = False
                    self._write_line(conversation, note(f"{failure.message} Asking without tools."))
                    request = ChatRequest(request.model, request.messages)
                    continue
                return TurnOutcome("failed", failure.message, failure.code, usage=usage)
            if not round_.calls:
                return TurnOutcome("done", None, finish=round_.finish, usage=usage)
            calls = [
                ToolCall(parts[0] or f"call_{index + 1}", parts[1], parts[2])
                for index, parts in sorted(round_.calls.items())
            ]
            offered = [tool.name for tool in request.tools]
            results = [
                ChatMessage(
                    "tool",
                    await self.place_call(conversation, call, offered),
                    tool_call_id=call.id,
                    tool_name=call.name,
                )
                for call in calls
            ]
            assistant = ChatMessage("assistant", "".join(round_.text), tool_calls=tuple(calls))
            request = ChatRequest(
                request.model, (*request.messages, assistant, *results), request.tools
            )
        return TurnOutcome(
            "done",
            f"The model went on calling tools after {MAX_TOOL_ROUNDS} rounds; it was stopped.",
            finish="tool_calls",
            usage=usage,
        )

    async def stream_round(
        self,
        conversation: Conversation,
        provider: ChatProvider,
        request: ChatRequest,
        round_: Round,
    ) -> None:
        from lsp_edit.providers import Failed, Finished, TextDelta, ToolCallDelta, Usage

        writer = conversation.writer
        assert writer is not None
        token = self.token_of(conversation)
        self.report(token, "waiting for the model")
        reported = time.monotonic()
        characters = 0
        count = 0
        async for event in provider.stream(request):
            count += 1
            if count % _EVENTS_PER_TURN == 0:
                # Events already received are read without waiting: let the server
                # answer what the editor asks meanwhile (a code action, typing).
                await asyncio.sleep(0)
            if isinstance(event, TextDelta):
                writer.append_soon(event.text)
                round_.text.append(event.text)
                characters += len(event.text)
            elif isinstance(event, ToolCallDelta):
                parts = round_.calls.setdefault(event.index, ["", "", ""])
                parts[0] = parts[0] or (event.id or "")
                parts[1] = parts[1] or (event.name or "")
                parts[2] += event.arguments
            elif isinstance(event, Usage):
                round_.usage = (event.prompt_tokens, event.completion_tokens)
            elif isinstance(event, Finished):
                round_.finish = event.reason
            elif isinstance(event, Failed):
                round_.failure = event
            now = time.monotonic()
            if token is not None and now - reported >= _PROGRESS_EVERY:
                reported = now
                pending = sum(
                    1 for c in self.editor.reply_changes(conversation.document) if c.pending
                )
                self.report(token, f"{characters:,} characters, {pending} pending")

    def token_of(self, conversation: Conversation) -> str | None:
        """The progress token of the ask running in the conversation (None: none shown)."""
        return next((t for t, c in self.by_token.items() if c is conversation), None)

    async def place_call(
        self, conversation: Conversation, call: ToolCall, offered: Sequence[str]
    ) -> str:
        """Writes a call of one of the `offered` tools into the document as the blocks
        it stands for, and tells what became of them: refused, pending review, or
        (with `wait`) what the user decided."""
        writer = conversation.writer
        assert writer is not None
        writer.end_line()
        edit = edit_call_from_json(call.name, call.arguments, offered)
        if isinstance(edit, BadCall):
            writer.append(marker("tool", f"{call.id} {call.name} refused: {edit.message}"))
            return edit.message
        await writer.settled()
        start = len(conversation.document.text.raw)  # the marker's line, 0-based
        writer.append(marker("tool", f"{call.id} {call.name}") + call_text(edit))
        await writer.settled()
        made = [
            c
            for c in self.editor.reply_changes(conversation.document)
            if c.reply is not None and c.reply.span.start_line > start + 1
        ]
        pending = [(c.id, c.description) for c in made if c.pending]
        if pending and edit.wait:
            result = await self.review(conversation, made)
        else:
            result = render.proposal_text(made)
            if pending:
                result += "\n\n" + pending_note(pending, _TOLD_BY)
        writer.append(marker("result", f"{call.id}: {result.splitlines()[0]}"))
        return result

    async def review(self, conversation: Conversation, changes: Sequence[PendingChange]) -> str:
        """What the user decided on a call's changes, once they decided on each (or
        after `REVIEW_WAIT`, or when the ask is cancelled)."""
        count = sum(1 for c in changes if c.pending)
        self.report(
            self.token_of(conversation),
            f"waiting for your review of {count} change{'s' if count != 1 else ''}",
        )
        if not conversation.cancelled:  # (a call after the one cancelled waits for nothing)
            conversation.stream = asyncio.ensure_future(
                self.editor.until_decided(changes, REVIEW_WAIT)
            )
            try:
                await conversation.stream
            except asyncio.CancelledError:
                if not conversation.cancelled:
                    raise
            finally:
                conversation.stream = None
        result = render.review_text(changes, self.editor.store.buffer_of)
        still = [(c.id, c.description) for c in changes if c.pending]
        if still:
            result = undecided_note(still, REVIEW_WAIT, _TOLD_BY) + "\n\n" + result
        return result

    async def finish_turn(self, conversation: Conversation, outcome: TurnOutcome) -> None:
        """Ends the model's text: a block it was cut inside is quoted (never applied,
        and the next turn is not read as its content), and a note says how it ended."""
        writer = conversation.writer
        assert writer is not None
        writer.end_line()
        await writer.settled()
        name = self.editor.files.display(conversation.path)
        for _ in range(4):
            cut = conversation.document.text.cut_block()
            if cut is None:
                break
            raw = conversation.document.text.raw
            start, end = cut.span.start_line - 1, len(raw)
            where = f"lines {start + 2}-{end + 1} of {name}"  # below the note put above it
            quoted = "".join(("> " + strip_ending(line)).rstrip() + "\n" for line in raw[start:])
            said = f"The reply ended inside a block ({where}): that block is not applied."
            outcome.message = said if outcome.message is None else f"{outcome.message} {said}"
            await writer.replace_tail(
                start, note("cut off: the block below is not applied") + quoted
            )
        writer.append(note(outcome_text(outcome)) + "\n")

    def _write_line(self, conversation: Conversation, line: str) -> None:
        writer = conversation.writer
        assert writer is not None
        writer.end_line()
        writer.append(line)


def outcome_text(outcome: TurnOutcome) -> str:
    """How a turn ended, in a line: `finished (stop), 812 tokens in, 95 out`."""
    head = outcome.status if outcome.status != "done" else "finished"
    if outcome.finish:
        head += f" ({outcome.finish})"
    parts = [head]
    if outcome.usage is not None and any(n is not None for n in outcome.usage):
        prompt, completion = outcome.usage
        parts.append(f"{prompt if prompt is not None else '?'} tokens in, {completion or 0} out")
    if outcome.message:
        parts.append(outcome.message)
    return ", ".join(parts)


def _mode_now(document: ReplyDocument) -> str:
    mode = document.reply.session.mode
    active = mode.active or mode.requested
    return "ast_path" if active == "auto" else active


def _added(
    total: tuple[int | None, int | None] | None, more: tuple[int | None, int | None] | None
) -> tuple[int | None, int | None] | None:
    if more is None:
        return total
    if total is None:
        return more
    return (_sum(total[0], more[0]), _sum(total[1], more[1]))


def _sum(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else a + b


def _lines_of(raw: object) -> tuple[int, int] | None:
    """The whole lines an LSP range covers, 1-based and inclusive (an end at the
    start of a line does not cover that line)."""
    if raw is None:
        return None
    try:
        start, end = raw["start"], raw["end"]  # type: ignore[index]
        first, last, column = int(start["line"]), int(end["line"]), int(end.get("character", 0))
    except (KeyError, TypeError, ValueError, AttributeError):
        raise bad(
            "lspEdit.ask: `range` must be {start: {line, character}, end: {line, character}}."
        ) from None
    if first < 0 or last < first:
        raise bad("lspEdit.ask: `range` must start at line 0 or later and not end before it.")
    if last > first and column == 0:
        last -= 1
    return first + 1, last + 1
