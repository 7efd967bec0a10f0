"""The MCP server on stdin and stdout, with the official MCP SDK: the only module
that imports it, and only `lsp-edit mcp` imports this one."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp  # first: importing `mcp.server` alone runs into a circular import of the SDK
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from lsp_edit import VERSION
from lsp_edit.mcp.toolbox import Options, Toolbox, ToolResult
from lsp_edit.mcp.tools import SERVER_INSTRUCTIONS, TOOLS

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


def build_server(options: Options) -> Server[Any]:
    toolbox = Toolbox(options)
    tools = tool_list()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            result = await toolbox.call(params.name, params.arguments or {}, _agent(ctx))
        except Exception as error:  # a bug: the model still gets a result, the server goes on
            log.exception("tool %s failed", params.name)
            result = ToolResult(f"lsp-edit failed on this call: {error!r}.", is_error=True)
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
    server = build_server(options)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
