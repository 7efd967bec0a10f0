"""The MCP SDK loads in `lsp-edit mcp` alone: `apply` and `serve` start as fast as
they did without it (bench/process.py and bench/server.py measure them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp.conftest import ENV

pytestmark = pytest.mark.timeout(90)

SDK = ("mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "starlette")


def imported(stderr: str) -> set[str]:
    """The modules `python -X importtime` reported importing."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def from_the_sdk(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in SDK)


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def test_apply_never_imports_the_mcp_sdk(project: Path) -> None:
    reply = "shop/cart.py\n```python:Cart-total\ndef total(self) -> float:\n    return 0.0\n```\n"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "lsp_edit", "apply", "-", "--root", "."],
        input=reply,
        cwd=project,
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
        check=True,
    )
    modules = imported(done.stderr)
    assert "lsp_edit.changes" in modules
    assert from_the_sdk(modules) == []


def test_serve_never_imports_the_mcp_sdk(project: Path) -> None:
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"capabilities": {}, "rootUri": project.as_uri()},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "workspace/executeCommand",
            "params": {"command": "lspEdit.list", "arguments": [{}]},
        },
        {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "lsp_edit", "serve"],
        input=b"".join(frame(m) for m in messages),
        capture_output=True,
        env=ENV,
        timeout=60,
        check=False,
    )
    modules = imported(done.stderr.decode())
    # the server ran, with the agents' bridge
    assert {"lsp_edit.server.app", "lsp_edit.server.agents", "lsp_edit.bridge"} <= modules
    assert from_the_sdk(modules) == []


def test_mcp_builds_the_sdk_message_validators_it_uses_only() -> None:
    """The SDK's hundreds of message models cost half a second to build at import:
    `lsp-edit mcp` builds a model's validator when a message of it is first used."""
    built = (
        "print(types.Tool.__pydantic_complete__, types.CreateMessageRequest.__pydantic_complete__)"
    )
    code = (
        f"import lsp_edit.mcp.stdio as s\nfrom mcp import types\n{built}\ns.tool_list()\n{built}\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == ["False", "False", "True", "False"]
