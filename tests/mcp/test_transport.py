"""`lsp-edit mcp` on its standard input and output: newline-delimited JSON-RPC, read
on the event loop when both are pipes (as MCP clients start servers), through the
SDK's own transport otherwise; either way every request read is answered, even when
the input ends right after it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.mcp.conftest import ENV, LSP_EDIT

pytestmark = pytest.mark.timeout(60)

REQUESTS = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "a script", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "symbols", "arguments": {"path": "shop/pricing.py"}},
    },
]
SYMBOLS = (
    "`shop/pricing.py` (python, 8 lines): AST path, kind, lines\n"
    "DISCOUNTS       constant  3-3\n"
    "apply_discount  function  6-8"
)


def answers(output: str) -> dict[int, object]:
    return {
        message["id"]: message.get("result") for message in map(json.loads, output.splitlines())
    }


def test_every_request_piped_in_is_answered_when_the_input_ends_right_after(
    project: Path,
) -> None:
    done = subprocess.run(
        [str(LSP_EDIT), "mcp", "--root", str(project)],
        input="".join(json.dumps(r) + "\n" for r in REQUESTS),
        capture_output=True,
        text=True,
        env=ENV,
        timeout=30,
        check=True,
    )
    answered = answers(done.stdout)
    assert sorted(answered) == [1, 2]
    assert answered[2] == {"content": [{"type": "text", "text": SYMBOLS}], "isError": False}


def test_requests_read_from_a_file_are_answered(project: Path, tmp_path: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    requests.write_text("".join(json.dumps(r) + "\n" for r in REQUESTS))
    with requests.open() as stdin:
        done = subprocess.run(
            [str(LSP_EDIT), "mcp", "--root", str(project)],
            stdin=stdin,
            capture_output=True,
            text=True,
            env=ENV,
            timeout=30,
            check=True,
        )
    answered = answers(done.stdout)
    assert sorted(answered) == [1, 2]
    assert answered[2] == {"content": [{"type": "text", "text": SYMBOLS}], "isError": False}
