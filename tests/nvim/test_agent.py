"""An agent's edit reviewed in a real headless Neovim: `lsp-edit mcp`, driven by the
MCP SDK's client, proposes it to the `lsp-edit serve` that Neovim runs (with the
repository's own configuration); tests/nvim/drive.lua plays the user, who accepts it
with the one-key code action, and the agent's waiting call returns that decision."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from pathlib import Path

import pytest

from lsp_edit import bridge
from tests.mcp.conftest import ENV, agent
from tests.nvim.test_neovim import ADD, CART, DRIVER, changed, driver_environment, nvim, project

__all__ = ["nvim", "project"]  # the fixtures, used by name

pytestmark = pytest.mark.timeout(150)

NEW_ADD = "def add(self, item):\n    if item not in self.items:\n        self.items.append(item)\n"


async def test_an_agents_edit_is_accepted_in_neovim_and_the_agent_hears_it(
    nvim: str, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tempfile.mkdtemp(prefix="le-")  # the bridge of this test alone
    monkeypatch.setenv("XDG_RUNTIME_DIR", runtime)
    out = project / "out.json"
    (project / "input.json").write_text(
        json.dumps(
            {
                "scenario": "agent",
                "file": "shop/cart.py",
                "original": CART,
                "first_line": ADD[0].rstrip("\n"),
            }
        )
    )
    environment = {**driver_environment(project, out, ENV), "XDG_RUNTIME_DIR": runtime}
    command = ["timeout", "120", nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n"]
    neovim = await asyncio.create_subprocess_exec(
        *command,
        "-c",
        f"luafile {DRIVER}",
        cwd=project,
        env=environment,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        await published(project)
        async with agent(project, runtime=Path(runtime)) as tools:
            result = await tools.call(
                "replace_symbol",
                path="shop/cart.py",
                ast_path="Cart-add",
                content=NEW_ADD,
                wait=True,
            )
        stderr = (await asyncio.wait_for(neovim.communicate(), 60))[1].decode()
    finally:
        if neovim.returncode is None:
            neovim.kill()
            await neovim.wait()
    assert result == (
        "File 'shop/cart.py' has been updated. It now has 11 lines.\n\nAll changes were applied.",
        False,
    )
    seen = json.loads(out.read_text())
    assert "error" not in seen, seen["error"]
    assert neovim.returncode == 0, stderr
    assert "rror" not in stderr, stderr
    assert [d["code"] for d in seen["diagnostics"]] == ["pending-change"]
    assert seen["unchanged_while_pending"]
    assert seen["buffer"] == changed(CART, ADD)
    assert (project / "shop" / "cart.py").read_text() == changed(CART, ADD)  # saved


async def published(project: Path) -> None:
    """Once the `lsp-edit serve` Neovim started has published its bridge."""
    for _ in range(1200):
        found = bridge.editors_for(os.path.realpath(project / "shop" / "cart.py"))
        assert not isinstance(found, bridge.Refusal), found.message
        if found.found:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("Neovim's lsp-edit serve did not publish its bridge")
