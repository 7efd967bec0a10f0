"""An agent's edit into the user's review, end to end: a real `lsp-edit serve` driven
as VS Code drives it (tests/lsp/editor.py), and a real `lsp-edit mcp` driven by the
MCP SDK's client, talking to each other over the bridge."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.lsp.editor import Editor
from tests.mcp.conftest import EXAMPLE, RUNTIME, Agent, agent, published

pytestmark = pytest.mark.timeout(120)

TOTAL = (
    "def total(self) -> float:\n    return sum(item.price * item.quantity for item in self.items)\n"
)
WITH_TOTAL = (
    (EXAMPLE / "shop" / "cart.py")
    .read_text()
    .replace("sum(item.price for item", "sum(item.price * item.quantity for item")
)
PENDING = (
    "1 change is pending review: 1 in 'shop/cart.py'.\n\nPending in the user's editor: "
    "change 1 (Change to `ast-path:Cart-total`). The user accepts or rejects each there; "
    "`review_status` tells what they decided."
)


async def changes(editor: Editor) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = (await editor.command("lspEdit.list", {}))["changes"]
    return listed


async def until_pending(editor: Editor, count: int = 1) -> list[dict[str, Any]]:
    """The changes pending in the editor, once `count` are."""
    for _ in range(400):
        pending = [c for c in await changes(editor) if c["status"] == "pending"]
        if len(pending) >= count:
            return pending
        await asyncio.sleep(0.05)
    raise AssertionError("no change became pending in the editor")


async def until_shown(editor: Editor) -> None:
    """Once the editor was asked to show a document (an agent's change)."""
    for _ in range(100):
        if editor.client.shown_documents:
            return
        await asyncio.sleep(0.05)


async def run_action(editor: Editor, line: int, title: str) -> Any:
    """Runs a code action as the user picks it: its edit first, then its command."""
    (action,) = [a for a in await editor.code_actions("shop/cart.py", line) if a.title == title]
    if action.edit is not None:
        editor.apply_workspace_edit(types.ApplyWorkspaceEditParams(edit=action.edit))
    assert action.command is not None
    return await editor.command(action.command.command, action.command.arguments[0])  # type: ignore[index]


def replace_total(tools: Agent, **options: object) -> Any:
    return tools.call(
        "replace_symbol", path="shop/cart.py", ast_path="Cart-total", content=TOTAL, **options
    )


async def test_an_edit_becomes_a_change_pending_in_the_editor(
    editor: Editor, project: Path
) -> None:
    editor.open("shop/cart.py")
    async with agent(project) as tools:
        assert await replace_total(tools) == (PENDING, False)
    (change,) = await changes(editor)
    assert change["status"] == "pending"
    assert change["description"] == "Change to `ast-path:Cart-total`"
    assert (project / "shop" / "cart.py").read_text() == (EXAMPLE / "shop" / "cart.py").read_text()
    assert editor.text("shop/cart.py") == (EXAMPLE / "shop" / "cart.py").read_text()
    await editor.settle()
    (diagnostic,) = editor.diagnostics("shop/cart.py")
    assert diagnostic.code == "pending-change"
    client = editor.client
    await until_shown(editor)  # shown without holding up the agent's answer
    assert [m.message for m in client.messages] == [
        "lsp-edit: mcp proposed 1 change in shop/cart.py; accept or reject them in the editor."
    ]
    (shown,) = client.shown_documents
    assert shown.uri == editor.uri("shop/cart.py")
    # the first line the change rewrites: the `return` of `total` (line 23)
    assert shown.selection is not None and shown.selection.start.line == 22


async def test_an_agent_sending_call_after_call_is_announced_once_with_every_change(
    editor: Editor, project: Path
) -> None:
    editor.open("shop/cart.py")
    async with agent(project) as tools:
        assert await replace_total(tools) == (PENDING, False)
        added = await tools.call(
            "insert_after_symbol",
            path="shop/pricing.py",
            ast_path="apply_discount",
            content="\n\ndef no_discount(total: float) -> float:\n    return total\n",
        )
        assert added[1] is False, added[0]
    client = editor.client
    await until_shown(editor)
    await asyncio.sleep(0.5)  # (a second announcement would come by now)
    assert [m.message for m in client.messages] == [
        "lsp-edit: mcp proposed 2 changes in shop/cart.py, shop/pricing.py; accept or reject "
        "them in the editor."
    ]
    (shown,) = client.shown_documents  # the view jumped once, to the first
    assert shown.uri == editor.uri("shop/cart.py")


async def test_waiting_returns_once_the_user_accepts(editor: Editor, project: Path) -> None:
    editor.open("shop/cart.py")
    async with agent(project) as tools:
        call = asyncio.ensure_future(replace_total(tools, wait=True))
        (change,) = await until_pending(editor)
        assert not call.done()
        accepted = await run_action(editor, 22, f"Accept change: {change['description']}")
        assert accepted == {"id": change["id"], "status": "applied"}
        assert await asyncio.wait_for(call, 30) == (
            "File 'shop/cart.py' has been updated. It now has 29 lines.\n\n"
            "All changes were applied.",
            False,
        )
        assert await tools.call("review_status") == (
            "Change 1 (Change to `ast-path:Cart-total`, shop/cart.py): accepted (applied).\n\n"
            "File 'shop/cart.py' has been updated. It now has 29 lines.\n\n"
            "All changes were applied.",
            False,
        )
    assert editor.text("shop/cart.py") == WITH_TOTAL


async def test_waiting_returns_once_the_user_rejects(editor: Editor, project: Path) -> None:
    editor.open("shop/cart.py")
    async with agent(project, "--wait") as tools:
        call = asyncio.ensure_future(replace_total(tools))
        (change,) = await until_pending(editor)
        rejected = await run_action(editor, 22, f"Reject change: {change['description']}")
        assert rejected == {"id": change["id"], "status": "rejected"}
        assert await asyncio.wait_for(call, 30) == (
            "No changes were applied.\n\n  • Change to `ast-path:Cart-total` was rejected by "
            "the user.",
            False,
        )
        assert await tools.call("review_status", ids=[change["id"]]) == (
            "Change 1 (Change to `ast-path:Cart-total`, shop/cart.py): rejected by the user.\n\n"
            "No changes were applied.\n\n  • Change to `ast-path:Cart-total` was rejected by "
            "the user.",
            False,
        )
    assert editor.text("shop/cart.py") == (EXAMPLE / "shop" / "cart.py").read_text()


async def test_a_wait_gives_up_at_the_timeout_and_says_what_is_pending(
    editor: Editor, project: Path
) -> None:
    async with agent(project, "--wait", "--wait-timeout", "0.5") as tools:
        assert await replace_total(tools) == (
            "The user has not decided on change 1 (Change to `ast-path:Cart-total`) within "
            "0.5 s; `review_status` tells what they decide.\n\nNo changes were applied.\n\n"
            "  • Change to `ast-path:Cart-total` is still pending review.",
            False,
        )
    (change,) = await changes(editor)
    assert change["status"] == "pending"


async def test_typing_elsewhere_moves_the_change_and_typing_in_it_places_it_again(
    editor: Editor, project: Path
) -> None:
    editor.open("shop/cart.py")
    async with agent(project) as tools:
        call = asyncio.ensure_future(replace_total(tools, wait=True))
        await until_pending(editor)
        # A line typed above moves the change; typing in the line it rewrites places
        # it again from its block, in the method as it is now.
        editor.type("shop/cart.py", 0, 0, "# A note typed while the agent waits.\n")
        end_of_return = len("        return sum(item.price for item in self.items)")
        editor.type("shop/cart.py", 23, end_of_return, "  # typed by the user")
        await editor.settle()
        (change,) = await until_pending(editor)
        assert not call.done()
        await run_action(editor, 23, f"Accept change: {change['description']}")
        assert await asyncio.wait_for(call, 30) == (
            "File 'shop/cart.py' has been updated. It now has 30 lines.\n\n"
            "All changes were applied.\n\n"
            "  • Change to `ast-path:Cart-total`: You edited the lines it changes. It was "
            "placed again from its block.",
            False,
        )
    assert editor.text("shop/cart.py") == "# A note typed while the agent waits.\n" + WITH_TOTAL


async def test_typing_that_leaves_the_change_nowhere_to_go_ends_the_wait_as_stale(
    editor: Editor, project: Path
) -> None:
    editor.open("shop/cart.py")
    async with agent(project) as tools:
        call = asyncio.ensure_future(replace_total(tools, wait=True))
        await until_pending(editor)
        # The user deletes the method the change replaces.
        editor.replace(
            "shop/cart.py",
            types.Range(
                start=types.Position(line=21, character=0),
                end=types.Position(line=24, character=0),
            ),
            "",
        )
        text, error = await asyncio.wait_for(call, 30)
    assert (text, error) == (
        "No changes were applied.\n\n  • Change to `ast-path:Cart-total` was not applied: You "
        "edited the lines it changes. Placed again, it fails: No symbol `Cart-total` in this "
        "python file. Closest paths: `Cart-add` (method, lines 19-20), `Cart-checkout` "
        "(method, lines 22-26), `Cart` (class, lines 15-26). Retry with an existing path "
        "(names joined by `-`, outermost first).",
        True,
    )
    (change,) = await changes(editor)
    assert change["status"] == "stale"


async def test_read_sees_the_editors_buffer_with_the_users_unsaved_typing(
    editor: Editor, project: Path
) -> None:
    editor.open("shop/cart.py")
    editor.type("shop/cart.py", 21, 0, "    # unsaved\n")
    await editor.settle()
    async with agent(project) as tools:
        assert await tools.call("read", path="shop/cart.py", start_line=22, end_line=23) == (
            "`shop/cart.py` lines 22-23 of 30:\n"
            "22\t    # unsaved\n"
            "23\t    def total(self) -> float:",
            False,
        )


# --- the bridge refuses what is not safe ---------------------------------------------------------


async def test_a_forged_token_is_refused_and_nothing_is_proposed(
    editor: Editor, project: Path
) -> None:
    publication = await published(project)
    content = json.loads(Path(publication.file).read_text())
    Path(publication.file).write_text(json.dumps({**content, "token": "forged"}))
    async with agent(project) as tools:
        assert await replace_total(tools) == (
            "Nothing was proposed: the editor's lsp-edit server answered: the token is not "
            "this editor's.",
            True,
        )
    assert await changes(editor) == []
    assert (project / "shop" / "cart.py").read_text() == (EXAMPLE / "shop" / "cart.py").read_text()


async def test_a_bridge_folder_others_can_reach_is_refused(editor: Editor, project: Path) -> None:
    folder = RUNTIME / "lsp-edit"
    os.chmod(folder, 0o755)
    try:
        async with agent(project) as tools:
            assert await replace_total(tools) == (
                f"Nothing was written: the link to the editor is not safe to use: the folder "
                f"`{folder}` can be reached by other users (mode 0755); only its owner may "
                "(`chmod 700`).",
                True,
            )
    finally:
        os.chmod(folder, 0o700)
    assert await changes(editor) == []
    assert (project / "shop" / "cart.py").read_text() == (EXAMPLE / "shop" / "cart.py").read_text()
