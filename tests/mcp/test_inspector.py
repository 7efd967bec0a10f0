"""`lsp-edit mcp` driven by a client nobody on this project wrote: the MCP Inspector's
command-line mode (npm `@modelcontextprotocol/inspector`, installed into
.venv/mcp-inspector by scripts/install-editors.sh), against the bundled example.
In CI a missing Inspector is a failure, never a skip."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import ENV, EXAMPLE, LSP_EDIT, REPO

pytestmark = pytest.mark.timeout(120)

INSPECTOR = REPO / ".venv" / "mcp-inspector" / "node_modules" / ".bin" / "mcp-inspector"


def inspect(project: Path, *request: str) -> tuple[int, Any]:
    """The Inspector's exit code and printed answer for one request to `lsp-edit mcp`."""
    if not INSPECTOR.exists():
        message = (
            f"the MCP Inspector is not installed ({INSPECTOR}): run scripts/install-editors.sh"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    done = subprocess.run(
        [str(INSPECTOR), "--cli", *request, "--", str(LSP_EDIT), "mcp", "--root", str(project)],
        capture_output=True,
        text=True,
        # its catalog of servers goes to the test's folder, not the user's home
        env={**ENV, "MCP_CATALOG_PATH": str(project.parent / "catalog.json")},
        timeout=90,
        check=False,
    )
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def test_the_inspector_lists_the_tools_and_finds_their_schemas_portable(project: Path) -> None:
    # --strict: a schema some client could not read would end the run with code 6
    code, listed = inspect(project, "--method", "tools/list", "--strict")
    assert code == 0
    assert [tool["name"] for tool in listed["tools"]] == [
        "symbols",
        "read",
        "replace_symbol",
        "insert_before_symbol",
        "insert_after_symbol",
        "remove_symbol",
        "chunk_diff",
        "delete_lines",
        "insert_lines",
        "propose_reply",
        "instructions",
        "review_status",
    ]


def test_the_inspector_calls_symbols_and_replace_symbol(project: Path) -> None:
    assert inspect(
        project,
        "--method",
        "tools/call",
        "--tool-name",
        "symbols",
        "--tool-arg",
        "path=shop/cart.py",
    ) == (
        0,
        {
            "content": [
                {
                    "type": "text",
                    "text": "`shop/cart.py` (python, 29 lines): AST path, kind, lines\n"
                    "Item           class   8-12\n"
                    "Cart           class   15-29\n"
                    "Cart-add       method  19-20\n"
                    "Cart-total     method  22-23\n"
                    "Cart-checkout  method  25-29",
                }
            ],
            "isError": False,
        },
    )
    content = "def total(self) -> float:\n    return round(sum(i.price for i in self.items), 2)\n"
    assert inspect(
        project,
        "--method",
        "tools/call",
        "--tool-name",
        "replace_symbol",
        "--tool-arg",
        "path=shop/cart.py",
        "ast_path=Cart-total",
        f"content={content}",
    ) == (
        0,
        {
            "content": [
                {
                    "type": "text",
                    "text": "File 'shop/cart.py' has been updated. It now has 29 lines.\n\n"
                    "All changes were applied.",
                }
            ],
            "isError": False,
        },
    )
    assert (project / "shop" / "cart.py").read_text() == (
        EXAMPLE / "shop" / "cart.py"
    ).read_text().replace(
        "return sum(item.price for item in self.items)",
        "return round(sum(i.price for i in self.items), 2)",
    )


def test_the_inspector_shows_a_refused_edit_as_an_error_result(project: Path) -> None:
    code, answer = inspect(
        project,
        "--method",
        "tools/call",
        "--tool-name",
        "remove_symbol",
        "--tool-arg",
        "path=shop/cart.py",
        "ast_path=Cart-clear",
    )
    assert code == 5  # the Inspector's TOOL_ERROR: the tool answered with an error result
    assert answer["isError"] is True
    assert answer["content"][0]["text"].startswith(
        "No changes were applied.\n\n  • Change to `ast-path:Cart-clear:remove` was not "
        "applied: No symbol `Cart-clear` in this python file."
    )
    assert (project / "shop" / "cart.py").read_text() == (EXAMPLE / "shop" / "cart.py").read_text()
