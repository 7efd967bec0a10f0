"""What both providers do over HTTP: open a streamed POST (retrying a 429 or 5xx once,
after a back-off), read its lines with a stall timeout, and turn every way it can
fail into a `Failed` value the user can act on.

httpx is imported here, so only when the first request is made.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import httpx

from lsp_edit.providers import Failed, ProviderSettings
from lsp_edit.tools import Tool

# A Retry-After longer than this is not waited for: the user is watching.
_LONGEST_WAIT = 20.0


class HttpProvider:
    """A model server over HTTP: the client, the key, and the failures."""

    takes_tools = True

    def __init__(self, settings: ProviderSettings, key: str | None) -> None:
        self.settings = settings
        self.base_url = settings.base_url.rstrip("/")
        headers = {"Accept": "application/json, text/event-stream"}
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        timeout = httpx.Timeout(settings.timeout, connect=min(settings.timeout, 10.0))
        self._client = httpx.AsyncClient(headers=headers, timeout=timeout, trust_env=False)

    async def aclose(self) -> None:
        await self._client.aclose()

    # --- opening a request ----------------------------------------------------------

    async def open(self, path: str, body: dict[str, Any]) -> httpx.Response | Failed:
        """POSTs `body` to `path` and returns the response, its body not read yet; a
        429 or 5xx is tried once more after a back-off."""
        url = self.base_url + path
        for attempt in (1, 2):
            try:
                response = await self._client.send(
                    self._client.build_request("POST", url, json=body), stream=True
                )
            except httpx.ConnectError as error:
                return self.cannot_connect(url, error)
            except httpx.TimeoutException:
                return self.stalled()
            except httpx.HTTPError as error:
                return Failed("cut", f"The request to {url} failed: {_reason(error)}.")
            if response.status_code < 400:
                return response
            text = await _body_of(response)
            status = response.status_code
            if (status == 429 or status >= 500) and attempt == 1:
                await asyncio.sleep(self._wait(response))
                continue
            return await self.refused(url, status, text, body=body)
        raise AssertionError("unreachable")

    def _wait(self, response: httpx.Response) -> float:
        given = response.headers.get("retry-after", "")
        try:
            seconds = float(given)
        except ValueError:
            return self.settings.backoff
        return max(0.0, min(seconds, _LONGEST_WAIT))

    # --- reading a stream -----------------------------------------------------------

    async def lines(self, response: httpx.Response) -> AsyncIterator[str | Failed]:
        """The response's lines; a `Failed` last when the server stalls past the
        timeout or the connection breaks."""
        rest = b""
        try:
            # Split here rather than through httpx's text and line decoders: a stream
            # is thousands of tiny chunks, and each layer costs on every one. A
            # newline byte is never inside a UTF-8 character.
            async for chunk in response.aiter_bytes():
                lines = (rest + chunk).split(b"\n")
                rest = lines.pop()
                for line in lines:
                    yield line.removesuffix(b"\r").decode("utf-8", "replace")
            if rest:
                yield rest.removesuffix(b"\r").decode("utf-8", "replace")
        except httpx.TimeoutException:
            yield self.stalled()
        except httpx.HTTPError as error:
            yield Failed(
                "cut",
                f"The connection to the model server broke during the reply ({_reason(error)}). "
                "What arrived is kept.",
            )
        finally:
            await response.aclose()

    # --- failures -----------------------------------------------------------------

    def cannot_connect(self, url: str, error: Exception) -> Failed:
        reason = _reason(error)
        if "refused" in reason.lower() or "all connection attempts failed" in reason.lower():
            reason = "connection refused"
        return Failed(
            "connection-refused",
            f"Cannot connect to the model server at {self.base_url} ({reason}). Start it, or "
            "set lspEdit.llm.baseUrl to where it listens.",
        )

    def stalled(self) -> Failed:
        seconds = f"{self.settings.timeout:g}"
        return Failed(
            "stalled",
            f"The model server sent nothing for {seconds} s (lspEdit.llm.timeout), so the "
            "request was stopped. What arrived is kept.",
        )

    async def refused(self, url: str, status: int, text: str, *, body: dict[str, Any]) -> Failed:
        """A request the server answered with an error status (a 429 or 5xx after the
        one retry)."""
        said = provider_message(text) or f"HTTP {status}"
        if status in (401, 403):
            env = self.settings.api_key_env
            if env:
                fix = f"Check the key in the environment variable {env} (lspEdit.llm.apiKeyEnv)."
            else:
                fix = (
                    "It needs an API key: set lspEdit.llm.apiKeyEnv to the name of the "
                    "environment variable that holds it."
                )
            return Failed(
                "auth",
                f"The model server at {self.base_url} refused the request ({status}): {said}. "
                + fix,
            )
        if status == 404:
            return await self.not_found(url, said)
        if status == 429:
            return Failed(
                "rate-limited",
                f"The model server is limiting requests (429): {said}. It refused again when "
                "tried once more; ask again later.",
            )
        if status >= 500:
            return Failed(
                "server-error",
                f"The model server failed ({status}): {said}. It failed again when tried once "
                "more.",
            )
        if body.get("tools") and "tool" in said.lower():
            return Failed("tools-unsupported", f"The model does not take tools ({status}): {said}.")
        return Failed("bad-request", f"The model server refused the request ({status}): {said}.")

    async def not_found(self, url: str, said: str) -> Failed:
        """A 404: the model is not there (listing the ones that are, when the server
        says), or nothing answers at that URL."""
        model = self.settings.model
        offered = await self.models()
        if offered is not None and model not in offered:
            listed = ", ".join(offered[:30]) + (", ..." if len(offered) > 30 else "")
            choices = f"It offers: {listed}." if offered else "It offers no model."
            return Failed(
                "model-not-found",
                f"The model {model!r} is not at {self.base_url} ({said}). {choices} "
                "Set lspEdit.llm.model to one of them.",
            )
        if offered is None and "model" in said.lower():
            return Failed(
                "model-not-found",
                f"The model {model!r} is not at {self.base_url} ({said}); the server did not "
                "list its models. Check lspEdit.llm.model.",
            )
        return Failed(
            "not-found",
            f"Nothing answers at {url} (404: {said}). Check lspEdit.llm.baseUrl{self.url_hint()}.",
        )

    def url_hint(self) -> str:
        return ""

    async def models(self) -> list[str] | None:
        """The names of the models the server offers (None when it does not say)."""
        return None

    async def get_json(self, path: str) -> Any:
        """GET `path` as JSON; None for any failure."""
        try:
            response = await self._client.get(self.base_url + path)
        except httpx.HTTPError:
            return None
        if response.status_code >= 400:
            return None
        try:
            return response.json()
        except ValueError:
            return None


def provider_message(text: str) -> str:
    """The error message in a server's answer: OpenAI's `{"error": {"message"}}`,
    Ollama's `{"error": "..."}`, `{"detail"}`, `{"message"}`, or the text itself."""
    text = text.strip()
    try:
        data = json.loads(text)
    except ValueError:
        return _short(text)
    found = _message_in(data)
    return _short(found if found is not None else text)


def _message_in(data: object) -> str | None:
    if isinstance(data, str):
        return data
    if isinstance(data, dict):
        for key in ("error", "message", "detail"):
            if key in data:
                found = _message_in(data[key])
                if found:
                    return found
    return None


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _reason(error: Exception) -> str:
    return str(error) or type(error).__name__


async def _body_of(response: httpx.Response) -> str:
    try:
        data = await response.aread()
    except httpx.HTTPError:
        data = b""
    finally:
        await response.aclose()
    return data.decode("utf-8", "replace")


def decode_json(line: str, describe: Callable[[str, str], Failed]) -> Any:
    """A line's JSON; `describe(line, why)` for one that is not JSON."""
    try:
        return json.loads(line)
    except ValueError as error:
        return describe(line, str(error))


def malformed(what: str, line: str, why: str) -> Failed:
    shown = line if len(line) <= 120 else line[:119] + "…"
    return Failed(
        "malformed",
        f"The model server sent {what} lsp-edit cannot read ({why}): {shown!r}. The request "
        "was stopped; what arrived is kept.",
    )


def functions(tools: Sequence[Tool]) -> list[dict[str, Any]]:
    """The tools as both chat APIs take them: functions with a JSON schema each."""
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.schema},
        }
        for t in tools
    ]
