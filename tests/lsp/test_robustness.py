"""What must hold whatever the editor, the text or the user does: positions in every
encoding, several workspace folders, settings, files changed behind the editor."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.lsp.editor import Editor, units
from tests.lsp.test_review import CART, TOTAL, WITH_TOTAL, propose, search_replace

pytestmark = pytest.mark.timeout(60)

EMOJI = 'GREETING = "hello 👋 wörld"\nTAIL = "🎉 done"'


async def test_ranges_are_right_on_lines_with_emoji_in_the_negotiated_encoding(
    editor: Editor,
) -> None:
    editor.open("greet.py", EMOJI)
    (change,) = await propose(
        editor,
        search_replace("greet.py", 'TAIL = "🎉 done"\n', 'TAIL = "🎉 finished"\n'),
        "greet.py",
    )
    await editor.settle()
    (diagnostic,) = editor.diagnostics("greet.py")
    assert diagnostic.range.start == types.Position(line=1, character=0)
    assert diagnostic.range.end.character == units('TAIL = "🎉 done"', editor.encoding)
    await editor.command("lspEdit.accept", {"id": change["id"]})
    # The file ends without a newline, and keeps ending so.
    assert editor.text("greet.py") == 'GREETING = "hello 👋 wörld"\nTAIL = "🎉 finished"'


async def test_typing_after_an_emoji_on_a_changes_line_is_followed_exactly(
    editor: Editor,
) -> None:
    editor.open("greet.py", EMOJI + "\n")
    (change,) = await propose(
        editor,
        search_replace("greet.py", 'TAIL = "🎉 done"\n', 'TAIL = "🎉 finished"\n'),
        "greet.py",
    )
    # Typing on the line above, after its emoji, moves nothing and touches nothing.
    line = 'GREETING = "hello 👋'
    editor.type("greet.py", 0, units(line, editor.encoding), "!")
    await editor.settle()
    result = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert result["status"] == "applied"
    assert editor.text("greet.py") == 'GREETING = "hello 👋! wörld"\nTAIL = "🎉 finished"\n'


@pytest.mark.folders("backend", "frontend")
async def test_a_multi_root_workspace_resolves_each_path_in_its_folder(editor: Editor) -> None:
    editor.open("backend/app.py", "NAME = 'back'\n")
    editor.open("frontend/app.py", "NAME = 'front'\n")
    changes = await propose(
        editor,
        search_replace("frontend/app.py", "NAME = 'front'\n", "NAME = 'web'\n")
        + search_replace("/etc/hosts", "a\n", "b\n"),
        "backend/app.py",
    )
    assert changes[0]["status"] == "pending"
    assert changes[0]["uri"] == editor.uri("frontend/app.py")
    assert changes[1]["code"] == "outside-workspace"
    await editor.command("lspEdit.accept", {"id": changes[0]["id"]})
    assert editor.text("frontend/app.py") == "NAME = 'web'\n"
    assert editor.text("backend/app.py") == "NAME = 'back'\n"


@pytest.mark.settings({"pendingSeverity": "hint", "mode": "line_numbers"})
async def test_settings_from_initialization_options_are_used(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    changes = await propose(
        editor,
        "shop/cart.py\n```python:Cart-total\n    def total(self):\n        return 0\n```\n",
    )
    assert changes[0]["code"] == "mode-mismatch"
    await propose(editor, "shop/cart.py\n```python:9\n        return 0\n```\n")
    await editor.settle()
    severities = {
        d.severity for d in editor.diagnostics("shop/cart.py") if d.code == "pending-change"
    }
    assert severities == {types.DiagnosticSeverity.Hint}


@pytest.mark.settings({"pendingSeverity": "loud", "colour": "red"})
async def test_invalid_settings_are_reported_and_the_defaults_kept(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    await propose(editor, TOTAL)
    await editor.settle()
    messages = [m.message for m in editor.client.messages]
    assert any(
        "pendingSeverity must be one of error, warning, information, hint" in m for m in messages
    )
    assert any("Unknown setting lspEdit.colour" in m for m in messages)
    (diagnostic,) = editor.diagnostics("shop/cart.py")
    assert diagnostic.severity == types.DiagnosticSeverity.Information


async def test_changed_settings_apply_at_once(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    await propose(editor, TOTAL)
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"lspEdit": {"pendingSeverity": "warning"}})
    )
    await editor.settle()
    (diagnostic,) = editor.diagnostics("shop/cart.py")
    assert diagnostic.severity == types.DiagnosticSeverity.Warning


async def test_a_change_to_a_file_that_is_not_open_follows_the_disk(editor: Editor) -> None:
    editor.write("shop/cart.py", CART)
    (change,) = await propose(editor, TOTAL)
    editor.changed_on_disk("shop/cart.py", "# a header another tool added\n" + CART)
    await editor.settle()
    result = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert result["status"] == "applied"
    assert editor.text("shop/cart.py") == "# a header another tool added\n" + WITH_TOTAL


async def test_a_file_changed_on_disk_under_a_change_makes_it_stale(editor: Editor) -> None:
    editor.write("shop/cart.py", CART)
    (change,) = await propose(editor, TOTAL)
    # No watcher event this time: accepting reads the disk again first.
    editor.write("shop/cart.py", CART.replace("item.price for", "item.cost for"))
    result = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert result["status"] == "stale"
    assert editor.applied_edits == []


async def test_closing_a_modified_buffer_without_saving_follows_the_disk_again(
    editor: Editor,
) -> None:
    editor.open("shop/cart.py", CART)
    (change,) = await propose(editor, TOTAL)
    editor.type("shop/cart.py", 0, 0, "# unsaved\n")
    editor.close("shop/cart.py")
    await editor.settle()
    await editor.command("lspEdit.accept", {"id": change["id"]})
    assert editor.text("shop/cart.py") == WITH_TOTAL


async def test_a_binary_file_is_refused_with_its_code(editor: Editor) -> None:
    (editor.root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (change,) = await propose(editor, search_replace("logo.png", "PNG\n", "JPG\n"))
    assert change["status"] == "failed"
    assert change["code"] == "binary-file"


async def test_a_huge_reply_is_handled_and_the_server_stays_responsive(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    noise = "Some prose that is not an edit.\n" * 50_000
    changes = await propose(editor, TOTAL + noise + "shop/cart.py\n<<<<<<< SEARCH\nunclosed\n")
    assert [c["status"] for c in changes] == ["pending", "failed"]
    assert changes[1]["code"] == "malformed-block"
    result = await editor.command("lspEdit.accept", {"id": changes[0]["id"]})
    assert result["status"] == "applied"


async def test_a_file_created_outside_the_editor_is_found_by_its_tail(editor: Editor) -> None:
    editor.write("src/pkg/first.py", "A = 1\n")
    await propose(editor, search_replace("pkg/first.py", "A = 1\n", "A = 2\n"), "src/pkg/first.py")
    uri = editor.write("src/pkg/later.py", "B = 1\n")
    editor.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Created)]
        )
    )
    (change,) = await propose(
        editor, search_replace("pkg/later.py", "B = 1\n", "B = 2\n"), "src/pkg/first.py"
    )
    assert change["uri"] == uri
    assert change["status"] == "pending"


async def test_a_gitignore_with_a_pattern_git_cannot_read_does_not_stop_a_lookup(
    editor: Editor,
) -> None:
    editor.write(".gitignore", "!\n*.log\n")
    editor.write("src/pkg/mod.py", "A = 1\n")
    (change,) = await propose(
        editor, search_replace("pkg/mod.py", "A = 1\n", "A = 2\n"), "src/pkg/mod.py"
    )
    assert change["uri"] == editor.uri("src/pkg/mod.py")
    assert change["status"] == "pending"
