"""Ollama's own chat API: `POST {baseUrl}/api/chat` with `stream: true` answers one
JSON object per line, each with `message.content` (a piece of the text) and, last,
`done: true` with the finish reason and the token counts. Tool calls come whole,
their arguments an object.
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


class OllamaProvider(HttpProvider):
    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": [_message(m) for m in request.messages],
            "stream": True,
        }
        if request.tools:
            body["tools"] = functions(request.tools)
        response = await self.open("/api/chat", body)
        if isinstance(response, Failed):
            yield response
            return
        calls = 0
        async for line in self.lines(response):
            if isinstance(line, Failed):
                yield line
                return
            if not line.strip():
                continue
            item = decode_json(line, lambda text, why: malformed("a line", text, why))
            if isinstance(item, Failed):
                yield item
                return
            if not isinstance(item, dict):
                yield malformed("a line", line, "not a JSON object")
                return
            if "error" in item:
                yield Failed(
                    "server-error",
                    f"The model server reported an error during the reply: "
                    f"{provider_message(line)}. What arrived is kept.",
                )
                return
            message = item.get("message") or {}
            if not isinstance(message, dict):
                yield malformed("a line", line, "`message` is not an object")
                return
            content = message.get("content")
            if isinstance(content, str) and content:
                yield TextDelta(content)
            for call in message.get("tool_calls") or []:
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(function, dict):
                    yield malformed("a line", line, "a tool call is not an object")
                    return
                arguments = function.get("arguments")
                yield ToolCallDelta(
                    calls,
                    f"call_{calls + 1}",
                    str(function.get("name") or ""),
                    arguments if isinstance(arguments, str) else json.dumps(arguments or {}),
                )
                calls += 1
            if item.get("done") is True:
                yield Usage(_count(item, "prompt_eval_count"), _count(item, "eval_count"))
                reason = item.get("done_reason")
                yield Finished("tool_calls" if calls else str(reason or "stop"))
                return
        yield Failed(
            "cut",
            "The model server closed the connection before the reply was finished. What "
            "arrived is kept.",
        )

    async def models(self) -> list[str] | None:
        listed = await self.get_json("/api/tags")
        if not isinstance(listed, dict) or not isinstance(listed.get("models"), list):
            return None
        names = [m.get("name") or m.get("model") for m in listed["models"] if isinstance(m, dict)]
        return [n for n in names if isinstance(n, str)]


def _message(message: ChatMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {"function": {"name": c.name, "arguments": _arguments(c.arguments)}}
            for c in message.tool_calls
        ]
    if message.tool_name is not None:
        out["tool_name"] = message.tool_name
    return out


def _arguments(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return {}


def _count(item: dict[str, Any], key: str) -> int | None:
    found = item.get(key)
    return found if isinstance(found, int) else None
