"""Accepting never lies (issue 19), over stdio as VS Code, Neovim and Emacs: an edit the
editor applies is the change applied, however the editor reports it and whatever
order its didChange and the command arrive in; undo makes it pending again; nothing
is written twice; no diagnostic outlives its change."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types

from tests.lsp.editor import Editor
from tests.lsp.test_review import CART, search_replace

pytestmark = pytest.mark.timeout(90)

PATH = "shop/cart.py"
INIT = search_replace(
    PATH, "        self.items = []\n", "        self.items = []\n        self.discount = 0\n"
)
ADD = search_replace(
    PATH,
    "        self.items.append(item)\n",
    "        if item not in self.items:\n            self.items.append(item)\n",
)
TOTAL = search_replace(
    PATH,
    "        return sum(item.price for item in self.items)\n",
    "        return sum(item.price * item.quantity for item in self.items)\n",
)
ACCEPTED = (
    CART.replace(
        "        self.items = []\n", "        self.items = []\n        self.discount = 0\n"
    )
    .replace(
        "        self.items.append(item)\n",
        "        if item not in self.items:\n            self.items.append(item)\n",
    )
    .replace("item.price for", "item.price * item.quantity for")
)

# A file whose changes are an insertion, a deletion next to an identical line and a
# replacement: each a different edit once trimmed to what changes.
LINES = """\
def one():
    return 1


def two():
    log()
    log()
    return 2


def three():
    return 3
"""
KINDS = {
    "insertion": (
        search_replace("lines.py", "    return 1\n", "    return 1\n    # one\n"),
        LINES.replace("    return 1\n", "    return 1\n    # one\n"),
        2,
    ),
    "deletion": (
        search_replace("lines.py", "def two():\n    log()\n", "def two():\n"),
        LINES.replace("    log()\n    log()\n", "    log()\n"),
        5,
    ),
    "replacement": (
        search_replace("lines.py", "    return 3\n", "    return 33\n"),
        LINES.replace("return 3\n", "return 33\n"),
        11,
    ),
}


async def propose(editor: Editor, reply: str, target: str = PATH) -> dict[str, Any]:
    result: dict[str, Any] = await editor.command(
        "lspEdit.propose", {"response": reply, "uri": editor.uri(target)}
    )
    return result


async def statuses(editor: Editor) -> list[str]:
    listed = await editor.command("lspEdit.list", {})
    return [c["status"] for c in listed["changes"]]


async def lsp_edit_diagnostics(editor: Editor, relative: str) -> list[types.Diagnostic]:
    await editor.settle()
    return [d for d in editor.diagnostics(relative) if d.source == "lsp-edit"]


@pytest.mark.parametrize("reports", ["last-first", "first-to-last", "characters", "whole"])
@pytest.mark.parametrize("debounce", [0.0, 0.3], ids=["didChange-first", "answer-first"])
async def test_accept_all_applies_every_change_and_says_so(
    editor: Editor, reports: str, debounce: float
) -> None:
    editor.reports, editor.debounce = reports, debounce
    editor.open(PATH, CART)
    proposed = await propose(editor, INIT + ADD + TOTAL)
    assert [c["status"] for c in proposed["changes"]] == ["pending"] * 3
    result = await editor.command("lspEdit.acceptAll", {"uri": editor.uri(PATH)})
    assert [c["status"] for c in result["changes"]] == ["applied"] * 3
    assert "message" not in result
    await editor.debounced()
    editor.save(PATH)
    assert editor.disk(PATH) == ACCEPTED
    assert await statuses(editor) == ["applied"] * 3
    assert await lsp_edit_diagnostics(editor, PATH) == []
    assert await editor.code_actions(PATH, 3) == []


@pytest.mark.parametrize("command_first", [False, True], ids=["edit-first", "command-first"])
@pytest.mark.parametrize("kind", KINDS)
async def test_accepting_through_the_code_action_writes_the_change_once(
    editor: Editor, kind: str, command_first: bool
) -> None:
    reply, expected, line = KINDS[kind]
    editor.open("lines.py", LINES)
    (change,) = (await propose(editor, reply, "lines.py"))["changes"]
    action = (await editor.code_actions("lines.py", line))[0]
    assert action.title.startswith("Accept change")
    assert action.command is not None
    assert list(action.command.arguments or []) == [{"id": change["id"], "action": True}]
    result = await editor.apply_code_action(action, command_first=command_first)
    assert result == {"id": change["id"], "status": "applied"}
    assert editor.applied_edits == []  # the server sent nothing: the editor applied it
    editor.save("lines.py")
    assert editor.disk("lines.py") == expected
    assert await statuses(editor) == ["applied"]
    assert await lsp_edit_diagnostics(editor, "lines.py") == []


@pytest.mark.parametrize("kind", KINDS)
async def test_accepting_with_a_debounced_didchange_writes_the_change_once(
    editor: Editor, kind: str
) -> None:
    editor.debounce = 0.3
    reply, expected, _ = KINDS[kind]
    editor.open("lines.py", LINES)
    (change,) = (await propose(editor, reply, "lines.py"))["changes"]
    result = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert result["status"] == "applied"
    again = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert again["status"] == "applied"
    await editor.debounced()
    assert len(editor.applied_edits) == 1
    editor.save("lines.py")
    assert editor.disk("lines.py") == expected
    assert await lsp_edit_diagnostics(editor, "lines.py") == []


@pytest.mark.parametrize("kind", KINDS)
async def test_undo_right_after_accepting_makes_the_change_pending_again(
    editor: Editor, kind: str
) -> None:
    reply, expected, line = KINDS[kind]
    editor.open("lines.py", LINES)
    (change,) = (await propose(editor, reply, "lines.py"))["changes"]
    await editor.command("lspEdit.accept", {"id": change["id"]})
    assert editor.text("lines.py") == expected
    editor.undo("lines.py")
    await editor.settle()
    assert editor.text("lines.py") == LINES
    assert await statuses(editor) == ["pending"]
    (diagnostic,) = await lsp_edit_diagnostics(editor, "lines.py")
    assert diagnostic.code == "pending-change"
    assert [a.title for a in await editor.code_actions("lines.py", line)][:2] == [
        f"Accept change: {change['description']}",
        f"Reject change: {change['description']}",
    ]
    result = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert result["status"] == "applied"
    assert editor.text("lines.py") == expected


async def test_undo_after_typing_elsewhere_then_undo_again_brings_the_change_back(
    editor: Editor,
) -> None:
    editor.open(PATH, CART)
    (change,) = (await propose(editor, TOTAL))["changes"]
    await editor.command("lspEdit.accept", {"id": change["id"]})
    editor.type(PATH, 0, 0, "import math\n")
    editor.undo(PATH)  # the typing
    editor.undo(PATH)  # the accept
    await editor.settle()
    assert editor.text(PATH) == CART
    listed = (await editor.command("lspEdit.list", {}))["changes"]
    assert [(c["status"], c["range"]["start"]["line"]) for c in listed] == [("pending", 8)]
    await editor.command("lspEdit.accept", {"id": change["id"]})
    assert editor.text(PATH) == CART.replace("item.price for", "item.price * item.quantity for")


async def test_undo_of_accept_all_brings_every_change_back(editor: Editor) -> None:
    editor.open(PATH, CART)
    await propose(editor, INIT + ADD + TOTAL)
    await editor.command("lspEdit.acceptAll", {"uri": editor.uri(PATH)})
    editor.undo(PATH)
    await editor.settle()
    assert await statuses(editor) == ["pending"] * 3
    assert len(await lsp_edit_diagnostics(editor, PATH)) == 3
    result = await editor.command("lspEdit.acceptAll", {"uri": editor.uri(PATH)})
    assert [c["status"] for c in result["changes"]] == ["applied"] * 3
    assert editor.text(PATH) == ACCEPTED


async def test_the_same_reply_twice_is_pending_once(editor: Editor) -> None:
    editor.open(PATH, CART)
    first = await propose(editor, INIT + ADD + TOTAL)
    second = await propose(editor, INIT + ADD + TOTAL)
    assert [c["status"] for c in second["changes"]] == ["skipped"] * 3
    assert [c["code"] for c in second["changes"]] == ["already-pending"] * 3
    assert second["summary"].startswith("No new change: 3 changes are already pending review.")
    assert len(await lsp_edit_diagnostics(editor, PATH)) == 3
    await editor.command("lspEdit.rejectAll", {"uri": editor.uri(PATH)})
    assert "pending" not in await statuses(editor)
    await editor.command("lspEdit.restore", {"id": first["changes"][0]["id"]})
    await editor.command("lspEdit.acceptAll", {"uri": editor.uri(PATH)})
    assert editor.text(PATH).count("self.discount = 0") == 1


async def test_restoring_a_change_proposed_again_since_it_was_rejected_keeps_it_pending_once(
    editor: Editor,
) -> None:
    editor.open(PATH, CART)
    (first,) = (await propose(editor, TOTAL))["changes"]
    await editor.command("lspEdit.reject", {"id": first["id"]})
    (again,) = (await propose(editor, TOTAL))["changes"]
    assert again["status"] == "pending"
    restored = await editor.command("lspEdit.restore", {"id": first["id"]})
    assert restored["status"] == "rejected"
    assert restored["message"] == (
        f"The same change is already pending review (change {again['id']})."
    )
    assert await statuses(editor) == ["rejected", "pending"]
    assert len(await lsp_edit_diagnostics(editor, PATH)) == 1
    await editor.command("lspEdit.acceptAll", {"uri": editor.uri(PATH)})
    assert editor.text(PATH).count("item.price * item.quantity") == 1


async def test_a_later_block_after_a_failed_one_is_pending_with_a_warning(
    editor: Editor,
) -> None:
    editor.open(PATH, CART)
    missing = search_replace(PATH, "    def checkout(self):\n", "    pass\n")
    failed, later = (await propose(editor, missing + TOTAL))["changes"]
    assert failed["code"] == "not-found"
    assert later["status"] == "pending"
    pending = [d for d in await lsp_edit_diagnostics(editor, PATH) if d.code == "pending-change"]
    (diagnostic,) = pending
    assert "An earlier block for this file failed" in diagnostic.message


async def test_a_reply_document_forgets_a_deleted_failed_block(editor: Editor) -> None:
    editor.open(PATH, CART)
    missing = search_replace(PATH, "    def checkout(self):\n", "    pass\n")
    editor.open("answer.llm.md", "")
    editor.append("answer.llm.md", missing)
    (failed,) = (await editor.command("lspEdit.list", {}))["changes"]
    assert failed["code"] == "not-found"
    document = editor.documents[editor.uri("answer.llm.md")]
    end = types.Position(line=document.text.count("\n"), character=0)
    editor.replace(
        "answer.llm.md", types.Range(start=types.Position(line=0, character=0), end=end), ""
    )
    editor.append("answer.llm.md", TOTAL)
    listed = (await editor.command("lspEdit.list", {}))["changes"]
    assert [(c["status"], c.get("notes")) for c in listed] == [("pending", None)]
    editor.close("answer.llm.md")
    assert [d for d in await lsp_edit_diagnostics(editor, PATH) if d.code != "pending-change"] == []


async def test_a_closed_reply_leaves_no_failure_on_the_source_file(editor: Editor) -> None:
    editor.open(PATH, CART)
    missing = search_replace(PATH, "    def checkout(self):\n", "    pass\n")
    editor.open("answer.llm.md", missing)
    await editor.settle()
    assert [d.code for d in await lsp_edit_diagnostics(editor, "answer.llm.md")] == ["not-found"]
    editor.close("answer.llm.md")
    assert await lsp_edit_diagnostics(editor, PATH) == []
    assert await lsp_edit_diagnostics(editor, "answer.llm.md") == []
    (listed,) = (await editor.command("lspEdit.list", {}))["changes"]
    assert listed["code"] == "not-found"


async def test_restore_never_brings_back_a_dismissed_failure(editor: Editor) -> None:
    editor.open(PATH, CART)
    missing = search_replace(PATH, "    def checkout(self):\n", "    pass\n")
    failed, _ = (await propose(editor, missing + TOTAL))["changes"]
    await editor.command("lspEdit.rejectAll", {"uri": editor.uri(PATH)})
    restored = await editor.command("lspEdit.restore", {})
    assert restored["status"] == "pending"
    assert restored["id"] != failed["id"]
    with pytest.raises(Exception, match="cannot be restored"):
        await editor.command("lspEdit.restore", {"id": failed["id"]})
    await editor.command("lspEdit.acceptAll", {"uri": editor.uri(PATH)})
    assert all(
        isinstance(op, types.TextDocumentEdit)
        for e in editor.applied_edits
        for op in e.edit.document_changes or []
    )


async def test_a_stale_change_and_a_failure_are_dismissed_on_their_line(editor: Editor) -> None:
    editor.open(PATH, CART)
    missing = search_replace(PATH, "    def checkout(self):\n", "    pass\n")
    failed, stale = (await propose(editor, missing + TOTAL))["changes"]
    editor.type(PATH, 8, 19, "float(")
    await editor.settle()
    actions = await editor.code_actions(PATH, 8)
    assert [a.title for a in actions] == [f"Dismiss: {stale['description']} (stale)"]
    assert actions[0].command is not None
    await editor.command(actions[0].command.command, actions[0].command.arguments[0])
    actions = await editor.code_actions(PATH, 0)
    assert [a.title for a in actions] == [f"Dismiss: {failed['description']} (failed)"]
    assert actions[0].command is not None
    await editor.command(actions[0].command.command, actions[0].command.arguments[0])
    assert await statuses(editor) == ["rejected", "rejected"]
    assert await lsp_edit_diagnostics(editor, PATH) == []


async def test_a_whole_file_refused_as_cut_off_can_be_accepted_anyway(editor: Editor) -> None:
    editor.open(PATH, CART)
    head = "".join(CART.splitlines(keepends=True)[:6])
    reply = f"{PATH}\n```python\n{head}```\n"
    (change,) = (await propose(editor, reply))["changes"]
    assert change["status"] == "failed"
    actions = await editor.code_actions(PATH, 0)
    anyway = actions[0]
    assert anyway.title.startswith("Accept anyway")
    assert anyway.command is not None
    result = await editor.command(anyway.command.command, anyway.command.arguments[0])
    assert result["status"] == "applied"
    assert editor.text(PATH) == head
    assert await lsp_edit_diagnostics(editor, PATH) == []


async def test_no_diagnostic_is_left_past_the_end_when_the_final_newline_goes(
    editor: Editor,
) -> None:
    editor.open(PATH, CART)
    await propose(
        editor,
        search_replace(
            PATH, CART.splitlines(keepends=True)[-1], CART.splitlines(keepends=True)[-1] + "# end\n"
        ),
    )
    last = CART.count("\n")
    editor.replace(
        PATH,
        types.Range(
            start=types.Position(line=last - 1, character=len(CART.splitlines()[-1])),
            end=types.Position(line=last, character=0),
        ),
        "",
    )
    (diagnostic,) = await lsp_edit_diagnostics(editor, PATH)
    assert diagnostic.range.end.line == last - 1
    listed = (await editor.command("lspEdit.list", {}))["changes"][0]
    for where in [listed["range"], *(h["range"] for h in listed["hunks"])]:
        assert where["end"]["line"] <= last - 1
    await editor.command("lspEdit.accept", {"id": listed["id"]})
    assert editor.text(PATH) == CART[:-1] + "\n# end"


async def test_ranges_end_inside_a_document_without_a_final_newline(editor: Editor) -> None:
    text = "def one():\n    return 1"
    editor.open("open.py", text)
    symbols = await editor.command("lspEdit.symbols", {"uri": editor.uri("open.py")})
    assert symbols["symbols"][0]["range"]["end"] == {"line": 1, "character": 12}
    (change,) = (
        await propose(
            editor, search_replace("open.py", "    return 1\n", "    return 1\n# end\n"), "open.py"
        )
    )["changes"]
    assert change["range"]["end"] == {"line": 1, "character": 12}
    shown = await editor.command("lspEdit.show", {"id": change["id"]})
    assert shown["location"]["range"]["start"]["line"] <= 1


async def test_closing_an_edited_buffer_unsaved_keeps_changes_inside_the_disk_text(
    editor: Editor,
) -> None:
    editor.open(PATH, CART)
    (change,) = (await propose(editor, TOTAL))["changes"]
    top = types.Position(line=0, character=0)
    editor.replace(PATH, types.Range(start=top, end=types.Position(line=4, character=0)), "")
    editor.type(PATH, 4, len(CART.splitlines()[8]), "  ")  # it is placed again
    await editor.settle()
    assert (await statuses(editor)) == ["pending"]
    editor.close(PATH)  # unsaved: the disk's text again
    (listed,) = (await editor.command("lspEdit.list", {}))["changes"]
    assert listed["status"] == "pending"
    assert listed["range"]["start"]["line"] == 8
    result = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert result["status"] == "applied"


async def test_reject_all_clears_a_failed_block_from_its_reply_document(editor: Editor) -> None:
    editor.open(PATH, CART)
    missing = search_replace(PATH, "    def checkout(self):\n", "    pass\n")
    editor.open("answer.llm.md", missing + TOTAL)
    await editor.settle()
    codes = [d.code for d in await lsp_edit_diagnostics(editor, "answer.llm.md")]
    assert "not-found" in codes
    await editor.command("lspEdit.rejectAll", {})
    await editor.settle()
    assert await lsp_edit_diagnostics(editor, "answer.llm.md") == []
    assert await lsp_edit_diagnostics(editor, PATH) == []


async def test_a_change_accepted_after_the_editor_refused_it_once_says_nothing_of_the_refusal(
    editor: Editor,
) -> None:
    editor.open(PATH, CART)
    (change,) = (await propose(editor, TOTAL))["changes"]
    editor.refuse_next_edits = 2
    refused = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert refused["status"] == "pending"
    assert "did not apply it" in refused["message"]
    accepted = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert accepted == {"id": change["id"], "status": "applied"}
    (listed,) = (await editor.command("lspEdit.list", {}))["changes"]
    assert listed["status"] == "applied"
    assert "message" not in listed
