"""The MCP server on stdin and stdout, with the official MCP SDK: the only module
that imports it, and only `lsp-edit mcp` imports this one."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

import anyio
import pydantic

# The SDK defines some hundreds of pydantic models (the messages of two protocol
# versions), and building each one's validator as its class is made took most of the
# SDK's import, half a second here. Deferred, a model's validator is built when the
# model is first used, so a session builds only those of the messages it sends: the
# first call comes that much sooner. Only the SDK uses pydantic in this process.
pydantic.BaseModel.model_config["defer_build"] = True

import mcp  # noqa: E402  (first: importing `mcp.server` alone runs into a circular import)
import mcp.types as types  # noqa: E402
from mcp.server.context import ServerRequestContext  # noqa: E402
from mcp.server.lowlevel import Server  # noqa: E402
from mcp.server.stdio import stdio_server  # noqa: E402

from lsp_edit import VERSION  # noqa: E402
from lsp_edit.bridge import LONGEST_MESSAGE  # noqa: E402
from lsp_edit.mcp.toolbox import Options, Toolbox, ToolResult  # noqa: E402
from lsp_edit.tools import SERVER_INSTRUCTIONS, TOOLS  # noqa: E402

log = logging.getLogger(__name__)

del mcp  # (imported for its order only)


def tool_list() -> list[types.Tool]:
    """Every tool as the SDK describes it."""
    return [
        types.Tool(
            name=spec.name,
            title=spec.title,
            description=spec.description,
            input_schema=spec.schema,
            annotations=types.ToolAnnotations(
                title=spec.title,
                read_only_hint=spec.read_only,
                destructive_hint=False if spec.read_only else not spec.name.startswith("insert"),
                idempotent_hint=spec.read_only,
                open_world_hint=False,
            ),
        )
        for spec in TOOLS
    ]


class _Calls:
    """The tool calls under way: the input may end while one runs (a script that
    writes its requests and closes), and it is answered all the same."""

    def __init__(self) -> None:
        self.running = 0
        self.idle = asyncio.Event()
        self.idle.set()

    def started(self) -> None:
        self.running += 1
        self.idle.clear()

    def ended(self) -> None:
        self.running -= 1
        if not self.running:
            self.idle.set()

    async def finish(self) -> None:
        """Returns once the calls already read are answered."""
        for _ in range(_DISPATCH_TURNS):  # a call just read starts within a few turns
            if self.running:
                break
            await asyncio.sleep(0)
        await self.idle.wait()


_DISPATCH_TURNS = 20


def build_server(options: Options, calls: _Calls | None = None) -> Server[Any]:
    toolbox = Toolbox(options)
    tools = tool_list()
    under_way = calls if calls is not None else _Calls()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        under_way.started()
        try:
            result = await toolbox.call(params.name, params.arguments or {}, _agent(ctx))
        except Exception as error:  # a bug: the model still gets a result, the server goes on
            log.exception("tool %s failed", params.name)
            result = ToolResult(f"lsp-edit failed on this call: {error!r}.", is_error=True)
        finally:
            under_way.ended()
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result.text)], is_error=result.is_error
        )

    return Server(
        "lsp-edit",
        version=VERSION,
        title="lsp-edit",
        instructions=SERVER_INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _agent(ctx: ServerRequestContext[Any]) -> str | None:
    """The agent's name, as its MCP client introduced itself (`claude-code`)."""
    params = ctx.session.client_params
    info = params.client_info if params is not None else None
    return info.name if info is not None else None


def serve(options: Options) -> None:
    """Serves the tools until the client closes standard input."""
    calls = _Calls()
    server = build_server(options, calls)

    async def run() -> None:
        pipes = await _pipes(calls)
        streams = stdio_server(*pipes) if pipes is not None else stdio_server()
        async with streams as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


class _Lines:
    """Standard input as the SDK's transport reads it (`async for line`), read on the
    event loop: the SDK's own reader hands every line over from a thread, and so
    does its writer every answer, which cost a round trip more than the tool itself."""

    def __init__(self, reader: asyncio.StreamReader, calls: _Calls) -> None:
        self._reader = reader
        self._calls = calls

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            await self._calls.finish()
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class _Output:
    """Standard output as the SDK's transport writes it (`write`, then `flush`)."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


async def _pipes(calls: _Calls) -> tuple[Any, Any] | None:
    """Standard input and output on the event loop, when both are pipes (as an MCP
    client starts its servers); None otherwise (a file, a terminal): then the SDK's
    own transport reads them."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LONGEST_MESSAGE)
    try:
        incoming, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(0, "rb", closefd=False)
        )
    except (OSError, ValueError):
        return None
    try:
        outgoing, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(1, "wb", closefd=False)
        )
    except (OSError, ValueError):
        incoming.close()
        return None
    writer = asyncio.StreamWriter(outgoing, protocol, None, loop)
    return _Lines(reader, calls), _Output(writer)
