"""docs/neovim.md stays true of editors/neovim/lua/lsp_edit.lua and lsp_edit/inline.lua:
it holds the files' current text, and it lists every command and every default key
lsp_edit.lua defines."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "editors" / "neovim" / "lua" / "lsp_edit.lua"
DOC = REPO / "docs" / "neovim.md"


def embedded() -> str:
    doc = DOC.read_text()
    found = re.search(
        r"<!-- lsp_edit.lua begins -->\n```lua\n(.*?)```\n<!-- lsp_edit.lua ends -->", doc, re.S
    )
    assert found, "docs/neovim.md lost the markers around the embedded lsp_edit.lua"
    return found.group(1)


def test_the_neovim_page_embeds_the_configuration_file_as_it_is() -> None:
    assert embedded() == CONFIG.read_text(), (
        "docs/neovim.md is out of date: copy editors/neovim/lua/lsp_edit.lua between "
        "its `lsp_edit.lua begins/ends` markers"
    )


def test_the_neovim_page_embeds_the_inline_view_as_it_is() -> None:
    inline = CONFIG.parent / "lsp_edit" / "inline.lua"
    found = re.search(
        r"<!-- lsp_edit/inline.lua begins -->\n```lua\n(.*?)```\n<!-- lsp_edit/inline.lua ends -->",
        DOC.read_text(),
        re.S,
    )
    assert found, "docs/neovim.md lost the markers around the embedded lsp_edit/inline.lua"
    assert found.group(1) == inline.read_text(), (
        "docs/neovim.md is out of date: copy editors/neovim/lua/lsp_edit/inline.lua between "
        "its `lsp_edit/inline.lua begins/ends` markers"
    )


def test_the_neovim_page_lists_every_command_and_default_key() -> None:
    source = CONFIG.read_text()
    doc = DOC.read_text().split("## The file")[0]
    commands = re.findall(r"command\('(LspEdit\w+)'", source)
    assert len(commands) == 11
    for command in commands:
        assert f"`:{command}" in doc or f"LspEdit{command[7:]}" in doc, command
    block = source.split("  keys = {\n", 1)[1].split("  },", 1)[0]
    keys = dict(re.findall(r"(\w+) = '([^']+)'", block))
    assert len(keys) == 7
    assert keys["next"] == "]r"
    for name, lhs in keys.items():
        assert f"| `{lhs}` |" in doc, (name, lhs)
