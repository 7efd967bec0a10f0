"""The messages that ask the editor's own language models (`lspEdit.llm.api: "vscode"`,
lsp_edit.providers.client): `lspEdit/chat` to the client, its `lspEdit/chatChunk`
notifications and its answer routed to the ask that waits for them, and
`lspEdit/chatCancel` when the ask is cancelled (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import itertools
import logging
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcMethodNotFound
from pygls.lsp.server import LanguageServer

if TYPE_CHECKING:
    from lsp_edit.providers.client import EditorEvent

log = logging.getLogger(__name__)

CHAT = "lspEdit/chat"
CHUNK = "lspEdit/chatChunk"
CANCEL = "lspEdit/chatCancel"


class ClientChats:
    """The chats running in the client, by id (an `EditorChats`)."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.running: dict[str, asyncio.Queue[EditorEvent]] = {}
        self._ids = itertools.count(1)

    def open(self, params: dict[str, Any]) -> tuple[str, asyncio.Queue[EditorEvent]]:
        from lsp_edit.providers.client import EditorEnd, EditorUnanswered

        chat_id = f"lsp-edit/chat/{next(self._ids)}"
        events: asyncio.Queue[EditorEvent] = asyncio.Queue()
        self.running[chat_id] = events

        def answered(future: Future[Any]) -> None:
            # After every chunk the client sent before its answer: the messages are
            # read in order, and a notification is handled as it is read.
            if self.running.pop(chat_id, None) is None:
                return  # cancelled: nobody reads it
            if future.cancelled():  # (the server is stopping)
                events.put_nowait(EditorUnanswered("the request was dropped", missing=False))
                return
            error = future.exception()
            if error is not None:
                missing = isinstance(error, JsonRpcMethodNotFound)
                reason = str(error) or type(error).__name__
                events.put_nowait(EditorUnanswered(reason, missing=missing))
            else:
                events.put_nowait(EditorEnd(_plain(future.result())))

        future = self.server.protocol.send_request(CHAT, {"id": chat_id, **params})
        future.add_done_callback(answered)
        return chat_id, events

    def chunk(self, params: object) -> None:
        """`lspEdit/chatChunk` {id, text}: the next piece of a reply."""
        from lsp_edit.providers.client import EditorText

        given = _plain(params)
        if not isinstance(given, dict):
            log.warning("%s without an object: %r", CHUNK, params)
            return
        events = self.running.get(str(given.get("id")))
        text = given.get("text")
        if not isinstance(text, str):
            log.warning("%s without text: %r", CHUNK, given)
            return
        if events is None:  # (pieces already sent when the chat was cancelled)
            log.debug("%s for no running chat: %r", CHUNK, given.get("id"))
            return
        events.put_nowait(EditorText(text))

    def cancel(self, chat_id: str) -> None:
        if self.running.pop(chat_id, None) is not None:
            self.server.protocol.notify(CANCEL, {"id": chat_id})


def register_chat(server: LanguageServer) -> ClientChats:
    chats = ClientChats(server)

    @server.feature(CHUNK)
    def chunk(params: Any) -> None:
        chats.chunk(params)

    return chats


def _plain(given: object) -> object:
    """JSON as dicts and lists (pygls gives a custom message's objects as namedtuples)."""
    if isinstance(given, tuple) and hasattr(given, "_asdict"):
        return {k: _plain(v) for k, v in given._asdict().items()}
    if isinstance(given, dict):
        return {k: _plain(v) for k, v in given.items()}
    if isinstance(given, list | tuple):
        return [_plain(v) for v in given]
    return given
