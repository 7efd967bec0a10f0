"""The set-ups in docs/mcp.md start `lsp-edit mcp` with arguments it takes."""

from __future__ import annotations

import json
import re
import shlex
import tomllib

import pytest

from lsp_edit.cli import build_parser
from tests.mcp.conftest import REPO

PAGE = (REPO / "docs" / "mcp.md").read_text()
COMMAND = "/path/to/lsp-edit/.venv/bin/lsp-edit"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE, re.S)


def commands() -> list[tuple[str, list[str]]]:
    """Every command line a set-up gives its agent: (command, arguments)."""
    found: list[tuple[str, list[str]]] = []
    for block in blocks("json"):
        config = json.loads(block)
        servers = config.get("mcpServers") or config.get("context_servers")
        found += [(s["command"], s["args"]) for s in servers.values()]
    for block in blocks("toml"):
        found += [(s["command"], s["args"]) for s in tomllib.loads(block)["mcp_servers"].values()]
    for block in blocks("sh"):
        for line in block.splitlines():
            if line.startswith("claude mcp add"):
                words = shlex.split(line)
                after = words[words.index("--") + 1 :]
                found.append((after[0], after[1:]))
    return found


def test_every_agent_of_the_page_has_a_set_up() -> None:
    for agent in ("Claude Code", "Codex CLI", "Cline", "Continue", "Zed"):
        assert f"### {agent}" in PAGE
    assert len(commands()) == 5


@pytest.mark.parametrize(("command", "arguments"), commands())
def test_each_set_up_runs_lsp_edit_mcp_with_arguments_it_takes(
    command: str, arguments: list[str]
) -> None:
    assert command == COMMAND
    parsed = build_parser().parse_args(arguments)
    assert parsed.command == "mcp"
