"""An OpenAI-compatible chat-completions endpoint, streamed as server-sent events:
OpenAI, Ollama's `/v1`, llama.cpp's server, vLLM, LM Studio, OpenRouter...

`POST {baseUrl}/chat/completions` with `stream: true`: each `data:` event holds a
chunk whose `choices[0].delta` carries a piece of the text or of a tool call, the
last ones the finish reason and the usage, then `data: [DONE]`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from lsp_edit.providers import (
    ChatMessage,
    ChatRequest,
    Failed,
    Finished,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    Usage,
)
from lsp_edit.providers.http import (
    HttpProvider,
    decode_json,
    functions,
    malformed,
    provider_message,
)


class OpenAIProvider(HttpProvider):
    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": [_message(m) for m in request.messages],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            body["tools"] = functions(request.tools)
        response = await self.open("/chat/completions", body)
        if isinstance(response, Failed):
            yield response
            return
        if response.headers.get("content-type", "").startswith("application/json"):
            # A server that ignores `stream` answers with the whole completion.
            async for event in self._whole(response):
                yield event
            return
        reader = EventReader()
        chunks = _Chunks()
        async for line in self.lines(response):
            if isinstance(line, Failed):
                yield line
                return
            data = reader.read(line)
            if isinstance(data, Failed):
                yield data
                return
            if data is None:
                continue
            if data.strip() == "[DONE]":
                break
            for event in chunks.read(data):
                yield event
                if isinstance(event, Failed):
                    return
        yield chunks.end()

    async def _whole(self, response: Any) -> AsyncIterator[StreamEvent]:
        chunks = _Chunks()
        text = (await response.aread()).decode("utf-8", "replace")
        await response.aclose()
        for event in chunks.read(text, whole=True):
            yield event
            if isinstance(event, Failed):
                return
        yield chunks.end()

    def url_hint(self) -> str:
        return " (an OpenAI-compatible server's URL usually ends in /v1)"

    async def models(self) -> list[str] | None:
        listed = await self.get_json("/models")
        if not isinstance(listed, dict) or not isinstance(listed.get("data"), list):
            return None
        names = [m.get("id") for m in listed["data"] if isinstance(m, dict)]
        return [n for n in names if isinstance(n, str)]


def _message(message: ChatMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["content"] = message.content or None
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls
        ]
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    return out


class EventReader:
    """Server-sent events, line by line: the data of each event once its blank line
    arrives. A line of JSON without `data:` is not an event stream at all."""

    def __init__(self) -> None:
        self._data: list[str] = []

    def read(self, line: str) -> str | Failed | None:
        if not line:
            if not self._data:
                return None
            data, self._data = "\n".join(self._data), []
            return data
        if line.startswith(":"):
            return None  # a comment (servers send them to keep the connection open)
        name, colon, rest = line.partition(":")
        if name == "data":
            self._data.append(rest[1:] if rest.startswith(" ") else rest)
        elif not colon and line.lstrip().startswith(("{", "[")):
            return malformed("a line that is not a server-sent event", line, "no `data:` field")
        return None


class _Chunks:
    """Chunks of a completion, as events; the finish waits for the usage that follows it."""

    def __init__(self) -> None:
        self.finish: str | None = None

    def read(self, data: str, *, whole: bool = False) -> list[StreamEvent]:
        chunk = decode_json(data, lambda line, why: malformed("an event", line, why))
        if isinstance(chunk, Failed):
            return [chunk]
        if not isinstance(chunk, dict):
            return [malformed("an event", data, "not a JSON object")]
        if "error" in chunk:
            return [
                Failed(
                    "server-error",
                    f"The model server reported an error during the reply: "
                    f"{provider_message(data)}. What arrived is kept.",
                )
            ]
        events: list[StreamEvent] = []
        choices = chunk.get("choices")
        if choices is not None and not isinstance(choices, list):
            return [malformed("an event", data, "`choices` is not a list")]
        for choice in (choices or [])[:1]:
            if not isinstance(choice, dict):
                return [malformed("an event", data, "a choice is not an object")]
            delta = choice.get("message" if whole else "delta") or {}
            if not isinstance(delta, dict):
                return [malformed("an event", data, "`delta` is not an object")]
            content = delta.get("content")
            if isinstance(content, str) and content:
                events.append(TextDelta(content))
            for position, call in enumerate(delta.get("tool_calls") or []):
                read = _tool_call(call, position)
                if read is None:
                    return [malformed("an event", data, "a tool call is not an object")]
                events.append(read)
            reason = choice.get("finish_reason")
            if isinstance(reason, str) and reason:
                self.finish = reason
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            events.append(Usage(_count(usage, "prompt_tokens"), _count(usage, "completion_tokens")))
        return events

    def end(self) -> Finished | Failed:
        if self.finish is None:
            return Failed(
                "cut",
                "The model server closed the connection before the reply was finished. What "
                "arrived is kept.",
            )
        return Finished(self.finish)


def _tool_call(call: object, position: int) -> ToolCallDelta | None:
    if not isinstance(call, dict):
        return None
    function = call.get("function") or {}
    if not isinstance(function, dict):
        return None
    index = call.get("index")
    arguments = function.get("arguments")
    if isinstance(arguments, dict | list):
        arguments = json.dumps(arguments)
    return ToolCallDelta(
        index if isinstance(index, int) else position,
        call.get("id") if isinstance(call.get("id"), str) else None,
        function.get("name") if isinstance(function.get("name"), str) else None,
        arguments if isinstance(arguments, str) else "",
    )


def _count(usage: dict[str, Any], key: str) -> int | None:
    found = usage.get(key)
    return found if isinstance(found, int) else None
