"""Reviewing a reply's changes in the editor, over stdio, as VS Code, Neovim and Emacs
(the `editor` fixture runs each test once per client)."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.lsp.editor import Editor

pytestmark = pytest.mark.timeout(60)

CART = """\
class Cart:
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)

    def total(self):
        return sum(item.price for item in self.items)
"""


def search_replace(path: str, search: str, replace: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n\n"


TOTAL = search_replace(
    "shop/cart.py",
    "        return sum(item.price for item in self.items)\n",
    "        return sum(item.price * item.quantity for item in self.items)\n",
)
ADD = search_replace(
    "shop/cart.py",
    "        self.items.append(item)\n",
    "        if item not in self.items:\n            self.items.append(item)\n",
)
WITH_TOTAL = CART.replace("item.price for", "item.price * item.quantity for")
WITH_ADD = CART.replace(
    "        self.items.append(item)\n",
    "        if item not in self.items:\n            self.items.append(item)\n",
)


async def propose(editor: Editor, reply: str, target: str = "shop/cart.py") -> list[dict]:  # type: ignore[type-arg]
    result = await editor.command("lspEdit.propose", {"response": reply, "uri": editor.uri(target)})
    changes: list[dict] = result["changes"]  # type: ignore[type-arg]
    return changes


async def test_a_proposed_change_is_a_pending_diagnostic_until_accepted(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    (change,) = await propose(editor, TOTAL)
    assert change["status"] == "pending"
    assert editor.text("shop/cart.py") == CART
    await editor.settle()
    (diagnostic,) = editor.diagnostics("shop/cart.py")
    assert diagnostic.code == "pending-change"
    assert diagnostic.source == "lsp-edit"
    assert diagnostic.severity == types.DiagnosticSeverity.Information
    assert diagnostic.message.startswith("Replace 1 line with 1: Change to `shop/cart.py`")
    assert (diagnostic.range.start, diagnostic.range.end) == (
        types.Position(line=8, character=0),
        types.Position(line=9, character=0),
    )
    assert list(diagnostic.tags or []) == [types.DiagnosticTag.Unnecessary]

    accepted = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert accepted == {"id": change["id"], "status": "applied"}
    assert editor.text("shop/cart.py") == WITH_TOTAL
    (sent,) = editor.applied_edits
    assert sent.label == f"lsp-edit: {change['description']}"
    await editor.settle()
    assert editor.diagnostics("shop/cart.py") == []


async def test_the_accept_code_action_carries_the_edit_and_records_the_decision(
    editor: Editor,
) -> None:
    editor.open("shop/cart.py", CART)
    (change,) = await propose(editor, TOTAL)
    actions = await editor.code_actions("shop/cart.py", 8)
    titles = [a.title for a in actions]
    assert titles == [
        f"Accept change: {change['description']}",
        f"Reject change: {change['description']}",
        "Accept all in file (1)",
        "Reject all in file (1)",
    ]
    accept = actions[0]
    assert accept.kind == types.CodeActionKind.QuickFix
    assert accept.is_preferred
    assert accept.edit is not None and accept.command is not None
    # The editor applies the action's edit itself, then runs its command.
    editor.apply_workspace_edit(types.ApplyWorkspaceEditParams(edit=accept.edit))
    result = await editor.command(accept.command.command, accept.command.arguments[0])
    assert result == {"id": change["id"], "status": "applied"}
    assert editor.text("shop/cart.py") == WITH_TOTAL
    assert len(editor.applied_edits) == 1  # no second edit from the server


async def test_no_code_action_away_from_a_change(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    await propose(editor, TOTAL)
    assert await editor.code_actions("shop/cart.py", 2) == []


async def test_code_lenses_offer_accept_and_reject_per_change_and_for_the_file(
    editor: Editor,
) -> None:
    editor.open("shop/cart.py", CART)
    await propose(editor, ADD + TOTAL)
    lenses = await editor.client.text_document_code_lens_async(
        types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri("shop/cart.py"))
        )
    )
    shown = [(lens.range.start.line, lens.command.title) for lens in lenses or [] if lens.command]
    assert shown == [
        (0, "Accept all (2)"),
        (0, "Reject all"),
        (5, "Accept"),
        (5, "Reject"),
        (8, "Accept"),
        (8, "Reject"),
    ]


async def test_hover_shows_the_change_as_a_diff(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    (change,) = await propose(editor, TOTAL)
    hover = await editor.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri("shop/cart.py")),
            position=types.Position(line=8, character=4),
        )
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert change["description"] in text
    assert "-        return sum(item.price for item in self.items)" in text
    assert "+        return sum(item.price * item.quantity for item in self.items)" in text


async def test_rejecting_drops_the_change_and_restore_brings_it_back(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    (change,) = await propose(editor, TOTAL)
    rejected = await editor.command("lspEdit.reject", {"id": change["id"]})
    assert rejected == {"id": change["id"], "status": "rejected"}
    await editor.settle()
    assert editor.diagnostics("shop/cart.py") == []
    restored = await editor.command("lspEdit.restore", {"id": change["id"]})
    assert restored["status"] == "pending"
    await editor.settle()
    assert len(editor.diagnostics("shop/cart.py")) == 1
    await editor.command("lspEdit.accept", {"id": change["id"]})
    assert editor.text("shop/cart.py") == WITH_TOTAL


async def test_accept_all_applies_every_change_in_one_edit(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    await propose(editor, ADD + TOTAL)
    result = await editor.command("lspEdit.acceptAll", {"uri": editor.uri("shop/cart.py")})
    assert [c["status"] for c in result["changes"]] == ["applied", "applied"]
    assert len(editor.applied_edits) == 1
    assert editor.text("shop/cart.py") == WITH_ADD.replace(
        "item.price for", "item.price * item.quantity for"
    )


async def test_accepting_a_change_accepts_the_one_it_builds_on_first(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    first, second = await propose(
        editor,
        TOTAL
        + search_replace(
            "shop/cart.py",
            "        return sum(item.price * item.quantity for item in self.items)\n",
            "        return round(sum(item.price * item.quantity for item in self.items), 2)\n",
        ),
    )
    assert second["dependsOn"] == [first["id"]]
    result = await editor.command("lspEdit.accept", {"id": second["id"]})
    assert result["status"] == "applied"
    assert result["accepted"] == [first["id"], second["id"]]
    assert "round(sum(item.price * item.quantity" in editor.text("shop/cart.py")
    listed = await editor.command("lspEdit.list", {})
    assert [c["status"] for c in listed["changes"]] == ["applied", "applied"]


async def test_typing_above_a_change_moves_it_and_it_still_lands_right(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    (change,) = await propose(editor, TOTAL)
    editor.type("shop/cart.py", 0, 0, "from dataclasses import dataclass\n\n\n")
    await editor.settle()
    (diagnostic,) = editor.diagnostics("shop/cart.py")
    assert diagnostic.range.start.line == 11
    await editor.command("lspEdit.accept", {"id": change["id"]})
    assert editor.text("shop/cart.py") == "from dataclasses import dataclass\n\n\n" + WITH_TOTAL


async def test_a_change_whose_lines_the_user_edits_goes_stale_and_is_never_applied(
    editor: Editor,
) -> None:
    editor.open("shop/cart.py", CART)
    (change,) = await propose(editor, TOTAL)
    editor.type("shop/cart.py", 8, 19, "float(")  # `return sum(float(item.price ...`
    await editor.settle()
    (diagnostic,) = editor.diagnostics("shop/cart.py")
    assert diagnostic.code == "stale"
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert "You edited the lines it changes" in diagnostic.message
    before = editor.text("shop/cart.py")
    result = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert result["status"] == "stale"
    assert editor.text("shop/cart.py") == before
    assert editor.applied_edits == []


async def test_an_editor_that_refuses_the_edit_once_gets_it_again(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    (change,) = await propose(editor, TOTAL)
    editor.refuse_next_edits = 1
    result = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert result["status"] == "applied"
    assert len(editor.applied_edits) == 2
    assert editor.text("shop/cart.py") == WITH_TOTAL


async def test_an_editor_that_keeps_refusing_leaves_the_change_pending_with_its_reason(
    editor: Editor,
) -> None:
    editor.open("shop/cart.py", CART)
    (change,) = await propose(editor, TOTAL)
    editor.refuse_next_edits = 2
    result = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert result["status"] == "pending"
    assert "refused by test" in result["message"]
    assert editor.text("shop/cart.py") == CART


async def test_a_new_file_is_a_pending_change_created_on_accept(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    reply = (
        "*** Begin Patch\n*** Add File: shop/receipt.py\n"
        "+def receipt(cart):\n+    return cart.total()\n*** End Patch\n"
    )
    (change,) = await propose(editor, reply)
    assert change["kind"] == "create"
    assert change["status"] == "pending"
    assert not (editor.root / "shop/receipt.py").exists()
    result = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert result["status"] == "applied"
    assert editor.text("shop/receipt.py") == "def receipt(cart):\n    return cart.total()\n"


async def test_a_deletion_is_a_pending_change(editor: Editor) -> None:
    editor.write("shop/old.py", "x = 1\n")
    reply = "*** Begin Patch\n*** Delete File: shop/old.py\n*** End Patch\n"
    (change,) = await propose(editor, reply)
    assert change["kind"] == "delete"
    result = await editor.command("lspEdit.accept", {"id": change["id"]})
    if editor.name == "visual-studio-code":
        assert result["status"] == "applied"
        assert not (editor.root / "shop/old.py").exists()
    else:
        # Neovim and Emacs do not advertise file deletion: a clear reason, nothing lost.
        assert result["status"] == "pending"
        assert "cannot delete files" in result["message"]
        assert (editor.root / "shop/old.py").exists()


async def test_a_move_is_a_pending_change(editor: Editor) -> None:
    editor.write("shop/old.py", "x = 1\n")
    reply = (
        "*** Begin Patch\n*** Update File: shop/old.py\n*** Move to: shop/new.py\n"
        "@@\n-x = 1\n+x = 2\n*** End Patch\n"
    )
    (change,) = await propose(editor, reply)
    assert change["kind"] == "move"
    assert change["moveTo"] == editor.uri("shop/new.py")
    result = await editor.command("lspEdit.accept", {"id": change["id"]})
    if editor.name == "visual-studio-code":
        assert result["status"] == "applied"
        assert not (editor.root / "shop/old.py").exists()
        assert editor.text("shop/new.py") == "x = 2\n"
    else:
        assert result["status"] == "pending"
        assert "cannot move files" in result["message"]


async def test_a_block_that_does_not_place_is_an_error_with_a_stable_code(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    (change,) = await propose(
        editor, search_replace("shop/cart.py", "    def checkout(self):\n", "    pass\n")
    )
    assert change["status"] == "failed"
    assert change["code"] == "not-found"
    await editor.settle()
    (diagnostic,) = editor.diagnostics("shop/cart.py")
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.code == "not-found"
    assert "was not applied" in diagnostic.message


async def test_a_mode_mismatch_is_reported_with_what_to_write_instead(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    reply = (
        "shop/cart.py\n```python:Cart-total\n    def total(self):\n        return 0\n```\n\n"
        "shop/cart.py\n```python:2:3\n        self.items = None\n```\n"
    )
    first, second = await propose(editor, reply)
    assert first["status"] == "pending"
    assert second["code"] == "mode-mismatch"
    assert "Use `type:Namespace-Class-Method` format instead" in second["message"]


async def test_a_path_outside_the_workspace_is_refused(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    (change,) = await propose(editor, search_replace("../outside.py", "a\n", "b\n"))
    assert change["status"] == "failed"
    assert change["code"] == "outside-workspace"


async def test_bad_arguments_get_a_readable_error_and_the_server_keeps_running(
    editor: Editor,
) -> None:
    for name, argument, expected in [
        ("lspEdit.accept", {"id": "404"}, "no change with id '404'"),
        ("lspEdit.accept", {}, "needs `id`"),
        ("lspEdit.propose", {"uri": editor.uri("a.py")}, "needs `response`"),
        ("lspEdit.propose", {"response": 3}, "must be a string"),
        ("lspEdit.propose", {"response": "x", "mode": "fast"}, "must be one of auto"),
        ("lspEdit.reject", {"id": "1", "extra": True}, "unknown argument extra"),
        ("lspEdit.list", {"uri": "untitled:1"}, "must be a file: URI"),
    ]:
        with pytest.raises(Exception, match=expected):
            await editor.command(name, argument)
    with pytest.raises(Exception, match="takes one object argument"):
        await editor.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="lspEdit.accept", arguments=["1", "2"])
        )
    editor.open("shop/cart.py", CART)
    (change,) = await propose(editor, TOTAL)
    assert change["status"] == "pending"


async def test_each_change_says_which_lines_of_the_reply_its_block_is(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    reply = "Two changes:\n\n" + ADD + "And one that fails:\n" + TOTAL.replace("sum(", "max(")
    first, second = await propose(editor, reply)
    lines = reply.splitlines()
    assert first["replyLines"] == {"start": 3, "end": 9}
    assert (lines[3], lines[8]) == ("<<<<<<< SEARCH", ">>>>>>> REPLACE")
    assert second["status"] == "failed"
    assert second["replyLines"] == {"start": 12, "end": 17}
    assert (lines[12], lines[16]) == ("<<<<<<< SEARCH", ">>>>>>> REPLACE")


async def test_summary_tells_the_llm_what_was_accepted_and_rejected(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    result = await editor.command(
        "lspEdit.propose", {"response": ADD + TOTAL, "uri": editor.uri("shop/cart.py")}
    )
    first, second = result["changes"]
    assert result["summary"] == "2 changes are pending review: 2 in 'shop/cart.py'."
    await editor.command("lspEdit.accept", {"id": first["id"]})
    await editor.command("lspEdit.reject", {"id": second["id"]})
    summary = await editor.command("lspEdit.summary", {"session": result["session"]})
    assert summary["text"] == (
        "File 'shop/cart.py' has been updated. It now has 10 lines.\n\n"
        "Some changes were applied.\n\n"
        f"  • {second['description']} was rejected by the user."
    )


async def test_next_and_previous_walk_the_pending_changes_across_files(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    editor.open("shop/tax.py", "RATE = 0.2\n")
    await propose(
        editor, ADD + TOTAL + search_replace("shop/tax.py", "RATE = 0.2\n", "RATE = 0.25\n")
    )
    seen = []
    uri, position = editor.uri("shop/cart.py"), {"line": 0, "character": 0}
    for _ in range(4):
        found = (await editor.command("lspEdit.next", {"uri": uri, "position": position}))["change"]
        seen.append((found["uri"].rsplit("/", 1)[-1], found["range"]["start"]["line"]))
        uri, position = found["uri"], found["range"]["start"]
    assert seen == [("cart.py", 5), ("cart.py", 8), ("tax.py", 0), ("cart.py", 5)]
    back = await editor.command("lspEdit.previous", {"uri": uri, "position": position})
    assert back["change"]["uri"].endswith("tax.py")
    if editor.name != "emacs":  # Emacs does not advertise window/showDocument
        shown = editor.client.shown_documents[-1]
        assert shown.uri.endswith("tax.py")
        # The cursor lands on the change's first line, nothing selected.
        assert shown.selection is not None
        assert (shown.selection.start.line, shown.selection.end.line) == (0, 0)


async def test_the_proposed_text_has_the_pending_changes_applied(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    await propose(editor, ADD + TOTAL)
    result = await editor.command("lspEdit.proposed", {"uri": editor.uri("shop/cart.py")})
    assert result["text"] == WITH_ADD.replace("item.price for", "item.price * item.quantity for")


async def test_the_proposed_text_says_which_lines_each_pending_change_writes(
    editor: Editor,
) -> None:
    editor.open("shop/cart.py", CART)
    drop = search_replace("shop/cart.py", "        self.items = []\n", "")
    (dropped, added, total) = await propose(editor, drop + ADD + TOTAL)
    uri = editor.uri("shop/cart.py")

    def lines(result: dict) -> dict[str, list[tuple[int, int]]]:  # type: ignore[type-arg]
        return {
            c["id"]: [(r["start"]["line"], r["end"]["line"]) for r in c["ranges"]]
            for c in result["changes"]
        }

    result = await editor.command("lspEdit.proposed", {"uri": uri})
    proposed = result["text"].splitlines()
    # The deletion holds no line: it sits where the line it deletes was.
    assert lines(result) == {dropped["id"]: [(2, 2)], added["id"]: [(4, 6)], total["id"]: [(8, 9)]}
    assert proposed[4:6] == WITH_ADD.splitlines()[5:7]
    assert proposed[8] == "        return sum(item.price * item.quantity for item in self.items)"

    # A decided change is no longer listed: the text keeps an accepted one's lines,
    # loses a rejected one's.
    await editor.command("lspEdit.accept", {"id": added["id"]})
    await editor.command("lspEdit.reject", {"id": dropped["id"]})
    result = await editor.command("lspEdit.proposed", {"uri": uri})
    assert lines(result) == {total["id"]: [(9, 10)]}
    assert result["text"].splitlines()[9] == proposed[8]


async def test_symbols_lists_the_ast_paths_an_llm_may_address(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    result = await editor.command("lspEdit.symbols", {"uri": editor.uri("shop/cart.py")})
    paths = [(s["path"], s["kind"], s["range"]["start"]["line"]) for s in result["symbols"]]
    assert paths[:2] == [("Cart", "class", 0), ("Cart-__init__", "method", 1)]
    assert ("Cart-total", "method", 7) in paths


async def test_an_empty_array_argument_reads_as_no_arguments(editor: Editor) -> None:
    # Lua encodes `{}` as `[]`: Neovim users send that for "everything".
    editor.open("shop/cart.py", CART)
    await propose(editor, TOTAL)
    result = await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="lspEdit.rejectAll", arguments=[[]])
    )
    assert [c["status"] for c in result["changes"]] == ["rejected"]
