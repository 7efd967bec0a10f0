"""The editor pages in docs/ stay true of the server: the generic page names every
command and setting the server has, and the configurations for the editors that
cannot run here (Helix, Sublime Text) are valid TOML and JSON starting the server."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from lsp_edit.server.settings import setting_names

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


def block(page: str, marker: str, language: str) -> str:
    found = re.search(
        rf"<!-- {marker} begins -->\n```{language}\n(.*?)```\n<!-- {marker} ends -->",
        (DOCS / page).read_text(),
        re.S,
    )
    assert found, f"{page} lost its `{marker}` markers"
    return found.group(1)


def test_the_generic_client_page_names_every_command_the_server_has() -> None:
    source = "".join(p.read_text() for p in (REPO / "lsp_edit" / "server").glob("*.py"))
    commands = re.findall(r'command\("(lspEdit\.\w+)"\)', source)
    assert "lspEdit.propose" in commands
    page = (DOCS / "lsp-clients.md").read_text()
    for command in commands:
        assert f"`{command}`" in page, command


def test_the_generic_client_page_names_every_setting_the_server_reads() -> None:
    settings = setting_names()
    assert "replyGlobs" in settings
    page = (DOCS / "lsp-clients.md").read_text()
    for setting in settings:
        assert f"| `{setting}` |" in page, setting


def test_the_helix_configuration_is_toml_that_starts_the_server() -> None:
    config = tomllib.loads(block("helix.md", "helix config", "toml"))
    server = config["language-server"]["lsp-edit"]
    assert [server["command"], *server["args"]] == ["lsp-edit", "serve"]
    assert server["config"] == {"lspEdit": {"mode": "auto"}}
    for language in config["language"]:
        assert "lsp-edit" in language["language-servers"]


def test_the_sublime_configuration_is_json_that_starts_the_server() -> None:
    config = json.loads(block("sublime.md", "sublime config", "json"))
    client = config["clients"]["lsp-edit"]
    assert client["command"] == ["lsp-edit", "serve"]
    assert client["initializationOptions"] == {"lspEdit": {"mode": "auto"}}
