"""The model providers and their HTTP client load at the first lspEdit.ask, never
before: `lsp-edit apply` and the server's start and review stay as fast as they were."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# The HTTP client and the providers that use it (`lsp_edit.providers` itself holds
# only the interface's values).
LATE = (
    "httpx",
    "httpcore",
    "anyio",
    "h11",
    "lsp_edit.providers.http",
    "lsp_edit.providers.openai",
    "lsp_edit.providers.ollama",
)


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def imported(command: list[str], stdin: bytes, cwd: Path) -> set[str]:
    """The modules a `python -X importtime` run of `command` imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *command],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )
    names = set()
    for line in done.stderr.decode(errors="replace").splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    assert "lsp_edit" in names, done.stderr.decode(errors="replace")[-2000:]
    return names


def late_ones(names: set[str]) -> list[str]:
    return sorted(n for n in names if any(n == m or n.startswith(m + ".") for m in LATE))


def test_the_server_loads_no_provider_while_it_starts_and_reviews(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    uri = (tmp_path / "a.py").as_uri()
    reply = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"capabilities": {}, "rootUri": tmp_path.as_uri()},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "workspace/executeCommand",
            "params": {
                "command": "lspEdit.propose",
                "arguments": [{"response": reply, "uri": uri}],
            },
        },
        {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    names = imported(["-m", "lsp_edit", "serve"], b"".join(frame(m) for m in messages), tmp_path)
    assert "lsp_edit.server.ask" in names  # the command is there
    assert late_ones(names) == []


def test_apply_loads_no_provider(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    reply = b"a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
    names = imported(["-m", "lsp_edit", "apply", "-", "--root", str(tmp_path)], reply, tmp_path)
    assert (tmp_path / "a.py").read_text() == "x = 2\n"
    assert late_ones(names) == []
