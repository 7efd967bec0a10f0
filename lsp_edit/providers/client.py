"""The editor's own language models (`lspEdit.llm.api: "vscode"`): the request goes
to the editor, which sends it to a model it has (VS Code's `vscode.lm`, such as
Copilot's) and streams the text back (docs/protocol.md#the-editors-language-models).

The server asks the client `lspEdit/chat` {id, model, messages}; the client sends
the reply's text as `lspEdit/chatChunk` {id, text} notifications, then answers the
request: `{finish}` when the model is done, `{error: {code, message, models?}}` when
it failed. `lspEdit/chatCancel` {id} stops it. This module turns those messages into
the stream events every provider yields, and the client's errors into the words the
user reads; the messages themselves travel through an `EditorChats` the server
gives (lsp_edit.server.chat). No LSP types here.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, Protocol, TypeAlias

from lsp_edit.providers import (
    ChatMessage,
    ChatRequest,
    Failed,
    Finished,
    ProviderSettings,
    StreamEvent,
    TextDelta,
)
from lsp_edit.values import value

_OTHER_API = "or set lspEdit.llm.api to openai or ollama"


@value
class EditorText:
    """`lspEdit/chatChunk`: the next piece of the reply's text."""

    text: str


@value
class EditorEnd:
    """The client's answer to `lspEdit/chat`: the reply is complete, or failed."""

    result: object


@value
class EditorUnanswered:
    """The client answered `lspEdit/chat` with a JSON-RPC error: `missing` when it has
    no such method."""

    reason: str
    missing: bool = True


EditorEvent: TypeAlias = EditorText | EditorEnd | EditorUnanswered


class EditorChats(Protocol):
    """The way to the client: `open` sends `lspEdit/chat` and returns its id and the
    queue its chunks and its answer arrive in; `cancel` sends `lspEdit/chatCancel`."""

    def open(self, params: dict[str, Any]) -> tuple[str, asyncio.Queue[EditorEvent]]: ...

    def cancel(self, chat_id: str) -> None: ...


class ClientProvider:
    """A model the editor has, asked through the client."""

    takes_tools = False  # vscode.lm of VS Code 1.91, the extension's minimum, has no tools

    def __init__(self, settings: ProviderSettings, chats: EditorChats) -> None:
        self.settings = settings
        self.chats = chats

    async def aclose(self) -> None:
        return None

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        params: dict[str, Any] = {"messages": [_message(m) for m in request.messages]}
        if self.settings.model:
            params["model"] = self.settings.model
        chat_id, events = self.chats.open(params)
        ended = False
        try:
            while True:
                try:
                    event = await asyncio.wait_for(events.get(), self.settings.timeout)
                except TimeoutError:
                    yield self.stalled()
                    return
                if isinstance(event, EditorText):
                    yield TextDelta(event.text)
                    continue
                ended = True
                yield self.ending(event)
                return
        finally:
            if not ended:  # cancelled, stalled, or the ask stopped reading
                self.chats.cancel(chat_id)

    def ending(self, event: EditorEnd | EditorUnanswered) -> Finished | Failed:
        if isinstance(event, EditorUnanswered) and not event.missing:
            return Failed(
                "server-error",
                f"The editor failed to ask its language model: {event.reason.rstrip('.')}.",
            )
        if isinstance(event, EditorUnanswered):
            return Failed(
                "unsupported",
                f"The editor does not offer its language models to lsp-edit ({event.reason}): "
                f'lspEdit.llm.api "vscode" needs VS Code with the LSP Edit extension; '
                f"{_OTHER_API}.",
            )
        result = event.result if isinstance(event.result, dict) else {}
        error = result.get("error")
        if error is None:
            finish = result.get("finish")
            return Finished(finish if isinstance(finish, str) and finish else "stop")
        return self.failure(error if isinstance(error, dict) else {"message": str(error)})

    def failure(self, error: dict[str, Any]) -> Failed:
        """What a failure of the editor's model says to the user (`code`: one of
        vscode.LanguageModelError's NoPermissions, Blocked, NotFound; or no-model)."""
        code = error.get("code")
        said = " ".join(str(error.get("message") or "").split()) or "no reason given"
        model = self.settings.model
        if code in ("NotFound", "no-model"):
            models = [str(m) for m in error.get("models") or []]
            if not models:
                return Failed(
                    "model-not-found",
                    "VS Code offers no language model: install and sign in to an extension "
                    f"that provides one (such as GitHub Copilot Chat), {_OTHER_API}.",
                )
            offered = ", ".join(models[:30]) + (", ..." if len(models) > 30 else "")
            which = f"no language model {model!r}" if model else "not that language model"
            return Failed(
                "model-not-found",
                f"VS Code has {which} ({said}). It offers: {offered}. Set lspEdit.llm.model "
                "to one of them (a family or an id), or clear it to use the first.",
            )
        if code == "NoPermissions":
            return Failed(
                "auth",
                f"VS Code did not let LSP Edit use the language model ({said}). Allow it when "
                "VS Code asks (or in the Accounts menu: Manage Language Model Access), then "
                "ask again.",
            )
        if code == "Blocked":
            return Failed(
                "blocked",
                f"VS Code's language model blocked the request ({said}); it may be over its "
                "quota or rate limit: ask again later.",
            )
        return Failed("server-error", f"VS Code's language model failed: {said.rstrip('.')}.")

    def stalled(self) -> Failed:
        seconds = f"{self.settings.timeout:g}"
        return Failed(
            "stalled",
            f"VS Code's language model sent nothing for {seconds} s (lspEdit.llm.timeout), so "
            "the request was stopped. What arrived is kept.",
        )


def _message(message: ChatMessage) -> dict[str, Any]:
    """A message as the client gets it: `role` (system, user or assistant) and `content`."""
    return {"role": message.role, "content": message.content}
