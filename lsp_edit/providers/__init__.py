"""Model providers: one chat request, streamed back from a model server as events.

Every provider has the same small interface, `ChatProvider.stream(request)`: an
async iterator of `TextDelta`, `ToolCallDelta`, `Usage` and `Finished` events, whose
last event is `Finished` or, when the request fails, a `Failed` value carrying a
stable code and the message the user reads. Nothing here raises for a failure a
user can meet (a server that is down, a wrong key, a model not pulled).

Three implementations: any OpenAI-compatible chat-completions endpoint
(`providers.openai`, server-sent events) and Ollama's own `/api/chat`
(`providers.ollama`, one JSON object per line), both over HTTP through httpx, which
`provider_for` imports when the first request is made (`lsp-edit apply` and the
server's start never load it); and the editor's own models (`providers.client`,
VS Code's `vscode.lm`), asked through the client. No LSP types here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Literal, Protocol, TypeAlias

from lsp_edit.tools import Tool
from lsp_edit.values import value

if TYPE_CHECKING:
    from lsp_edit.providers.client import EditorChats

APIS = ("openai", "ollama", "vscode")
DEFAULT_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "ollama": "http://127.0.0.1:11434",
    "vscode": "",  # the editor's models: no URL
}

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]


@value
class ToolCall:
    """A call the model made: `arguments` is the JSON text it wrote."""

    id: str
    name: str
    arguments: str


@value
class ChatMessage:
    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None  # a tool message: the call it answers
    tool_name: str | None = None  # a tool message: the tool that was called


@value
class ChatRequest:
    model: str
    messages: tuple[ChatMessage, ...]
    tools: tuple[Tool, ...] = ()


# --- what a stream yields ------------------------------------------------------------


@value
class TextDelta:
    """The next piece of the reply's text (a few characters, a line, any size)."""

    text: str


@value
class ToolCallDelta:
    """A piece of tool call number `index`: its id and name come with the first
    piece, its JSON arguments a few characters at a time."""

    index: int
    id: str | None
    name: str | None
    arguments: str


@value
class Usage:
    prompt_tokens: int | None
    completion_tokens: int | None


@value
class Finished:
    """The model finished: `stop`, `length` (it hit its output limit), `tool_calls`."""

    reason: str


FailureCode: TypeAlias = Literal[
    "no-key",
    "connection-refused",
    "auth",
    "model-not-found",
    "not-found",
    "rate-limited",
    "server-error",
    "bad-request",
    "blocked",
    "unsupported",
    "tools-unsupported",
    "stalled",
    "cut",
    "malformed",
]


@value
class Failed:
    """The request failed: `code` says how (one of `FailureCode`), `message` says it
    to the user, with what to change. A stream ends after it."""

    code: FailureCode
    message: str


StreamEvent: TypeAlias = TextDelta | ToolCallDelta | Usage | Finished | Failed


@value
class ProviderSettings:
    """Where the model is and how to reach it (the `lspEdit.llm` settings)."""

    api: str  # one of APIS
    base_url: str
    model: str
    api_key_env: str | None = None  # the name of the environment variable with the key
    timeout: float = 60.0  # seconds without a byte from the server before giving up
    backoff: float = 2.0  # seconds before the one retry of a 429 or 5xx (at most)


class ChatProvider(Protocol):
    """A model server: `stream` sends one chat request and yields its reply."""

    @property
    def takes_tools(self) -> bool: ...

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]: ...

    async def aclose(self) -> None: ...


def provider_for(
    settings: ProviderSettings, environ: Mapping[str, str], chats: EditorChats | None = None
) -> ChatProvider | Failed:
    """The provider for these settings, with its API key read from `environ` (never
    kept anywhere else); `Failed` when the key's variable is named but not set. The
    editor's models (`vscode`) are asked through `chats`."""
    if settings.api == "vscode":
        from lsp_edit.providers.client import ClientProvider

        if chats is None:
            return Failed("unsupported", "The editor's language models cannot be asked here.")
        return ClientProvider(settings, chats)
    key = None
    if settings.api_key_env:
        key = environ.get(settings.api_key_env) or None
        if key is None:
            name = settings.api_key_env
            # A name that does not look like one may be a key pasted in its place.
            named = name if name.isupper() or name.isdigit() else "(not repeated here)"
            return Failed(
                "no-key",
                f"The environment variable lspEdit.llm.apiKeyEnv names, {named}, is not set "
                "where the server runs: set it before starting the editor, or clear "
                "lspEdit.llm.apiKeyEnv for a server that needs no key.",
            )
    if settings.api == "ollama":
        from lsp_edit.providers.ollama import OllamaProvider

        return OllamaProvider(settings, key)
    from lsp_edit.providers.openai import OpenAIProvider

    return OpenAIProvider(settings, key)
