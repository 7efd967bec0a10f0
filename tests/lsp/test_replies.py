"""Reply documents and streams: changes appear while the LLM writes, and the reply
stays editable (issue 9), over the VS Code, Neovim and Emacs capabilities."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.lsp.editor import Editor
from tests.lsp.test_review import ADD, CART, TOTAL, WITH_ADD, search_replace

pytestmark = pytest.mark.timeout(90)

REPLY = (
    "I will make two changes to the cart.\n\n"
    + ADD
    + "Then the total:\n\n"
    + TOTAL
    + "That is all.\n"
)


async def listed(editor: Editor) -> list[dict]:  # type: ignore[type-arg]
    result = await editor.command("lspEdit.list", {})
    changes: list[dict] = result["changes"]  # type: ignore[type-arg]
    return changes


async def test_blocks_typed_into_a_reply_document_become_pending_one_by_one(
    editor: Editor,
) -> None:
    editor.open("shop/cart.py", CART)
    editor.open("answer.llm.md", "")
    seen = []
    for start in range(0, len(REPLY), 100):
        editor.append("answer.llm.md", REPLY[start : start + 100])
        changes = await listed(editor)
        seen.append(len([c for c in changes if c["status"] == "pending"]))
    assert seen[0] == 0
    assert seen[-1] == 2
    assert sorted(set(seen)) == [0, 1, 2]
    first, _ = await listed(editor)
    assert first["block"]["uri"] == editor.uri("answer.llm.md")
    assert first["block"]["range"]["start"]["line"] == 3
    assert len(editor.diagnostics("shop/cart.py")) == 2
    assert editor.text("shop/cart.py") == CART


async def test_editing_a_block_in_the_reply_updates_its_change_in_place(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    editor.open("answer.llm.md", REPLY)
    first, _ = await listed(editor)
    line = REPLY.split("\n").index("        if item not in self.items:")
    editor.replace(
        "answer.llm.md",
        types.Range(
            start=types.Position(line=line, character=8),
            end=types.Position(line=line, character=34),
        ),
        "if item is not None:",
    )
    updated, _ = await listed(editor)
    assert updated["id"] == first["id"]
    assert "if item is not None:" in updated["hunks"][0]["newText"]
    await editor.command("lspEdit.accept", {"id": updated["id"]})
    assert "        if item is not None:\n" in editor.text("shop/cart.py")


async def test_deleting_a_block_from_the_reply_withdraws_its_change(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    editor.open("answer.llm.md", REPLY)
    assert len(await listed(editor)) == 2
    lines = REPLY.split("\n")
    start = lines.index("Then the total:")
    editor.replace(
        "answer.llm.md",
        types.Range(
            start=types.Position(line=start, character=0),
            end=types.Position(line=len(lines) - 1, character=0),
        ),
        "",
    )
    (left,) = await listed(editor)
    assert "if item not in self.items" in left["hunks"][0]["newText"]
    assert len(editor.diagnostics("shop/cart.py")) == 1


async def test_a_block_that_fails_is_reported_on_its_lines_in_the_reply(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    bad = search_replace("shop/cart.py", "    def checkout(self):\n", "    pass\n")
    editor.open("answer.llm.md", "Fix:\n\n" + bad)
    await editor.settle()
    (diagnostic,) = editor.diagnostics("answer.llm.md")
    assert diagnostic.code == "not-found"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert (diagnostic.range.start.line, diagnostic.range.end.line) == (3, 8)
    assert editor.diagnostics("shop/cart.py") == []


async def test_code_lenses_in_the_reply_show_each_blocks_state(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    bad = search_replace("shop/cart.py", "    def checkout(self):\n", "    pass\n")
    editor.open("answer.llm.md", REPLY + bad)
    first, second, _ = await listed(editor)
    await editor.command("lspEdit.reject", {"id": second["id"]})
    lenses = await editor.client.text_document_code_lens_async(
        types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri("answer.llm.md"))
        )
    )
    titles = [lens.command.title for lens in lenses or [] if lens.command]
    assert titles[:4] == ["pending in shop/cart.py:6", "Accept", "Reject", "Go to change"]
    assert titles[4:6] == ["rejected", "Restore"]
    assert titles[6].startswith("not applied: SEARCH text not found")
    shown = await editor.command("lspEdit.show", {"id": first["id"]})
    assert shown["location"]["uri"] == editor.uri("shop/cart.py")
    assert shown["location"]["range"]["start"]["line"] == 5


async def test_the_reply_outline_lists_the_proposed_changes(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    editor.open("answer.llm.md", REPLY)
    symbols = await editor.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri("answer.llm.md"))
        )
    )
    names = [
        (s.name, s.range.start.line) for s in symbols or [] if isinstance(s, types.DocumentSymbol)
    ]
    assert len(names) == 2
    assert names[0][1] == 3
    source = await editor.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri("shop/cart.py"))
        )
    )
    assert source is None


async def test_a_reply_that_names_no_file_goes_to_the_last_source_document(
    editor: Editor,
) -> None:
    editor.open("shop/cart.py", CART)
    reply = (
        "<<<<<<< SEARCH\n        self.items = []\n=======\n        self.items = list()\n"
        ">>>>>>> REPLACE\n"
    )
    editor.open("answer.llm.md", reply)
    (change,) = await listed(editor)
    assert change["uri"] == editor.uri("shop/cart.py")
    assert change["status"] == "pending"


async def test_a_reply_written_to_disk_by_another_program_is_read(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    editor.changed_on_disk("answer.llm.md", REPLY)
    changes = await listed(editor)
    assert [c["status"] for c in changes] == ["pending", "pending"]
    assert changes[0]["block"]["uri"] == editor.uri("answer.llm.md")


async def test_a_stream_returns_the_changes_completed_so_far(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    half = REPLY.index("Then the total")
    first = await editor.command(
        "lspEdit.stream",
        {
            "session": "chat-1",
            "delta": REPLY[:half],
            "done": False,
            "uri": editor.uri("shop/cart.py"),
        },
    )
    assert first["session"] == "chat-1"
    assert [c["status"] for c in first["changes"]] == ["pending"]
    second = await editor.command(
        "lspEdit.stream",
        {
            "session": "chat-1",
            "delta": REPLY[half:] + "shop/cart.py\n<<<<<<< SEARCH\n",
            "done": True,
        },
    )
    statuses = [(c["status"], c.get("code")) for c in second["changes"]]
    assert statuses == [("pending", None), ("pending", None), ("failed", "malformed-block")]
    assert "before the reply ended" in second["changes"][2]["message"]
    with pytest.raises(Exception, match="is done"):
        await editor.command("lspEdit.stream", {"session": "chat-1", "delta": "x", "done": False})


async def test_the_proposed_document_is_served_with_every_pending_change(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    editor.open("answer.llm.md", ADD)
    uri = editor.uri("shop/cart.py").replace("file:", "lsp-edit-proposed:", 1)
    result = await editor.client.workspace_text_document_content_async(
        types.TextDocumentContentParams(uri=uri)
    )
    assert result.text == WITH_ADD


async def test_a_code_action_in_a_reply_document_carries_no_range_of_another_file(
    editor: Editor,
) -> None:
    # the change's diagnostic is at lines of the source file, not of the reply
    editor.open("shop/cart.py", "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\ntotal = 0\n")
    block = "shop/cart.py\n<<<<<<< SEARCH\ntotal = 0\n=======\ntotal = 1\n>>>>>>> REPLACE\n"
    editor.open("answer.llm.md", block)
    await editor.settle()
    actions = await editor.code_actions("answer.llm.md", 2)
    assert [a.title.split(":")[0] for a in actions][:2] == ["Accept change", "Reject change"]
    assert all(not a.diagnostics for a in actions)


def delete_first_line(editor: Editor, name: str) -> None:
    start, end = types.Position(line=0, character=0), types.Position(line=1, character=0)
    editor.replace(name, types.Range(start=start, end=end), "")


async def test_a_block_added_to_a_reply_is_placed_in_the_file_as_the_user_left_it(
    editor: Editor,
) -> None:
    # The reply read a.py for a block that changes nothing; then the user deleted its
    # first line. The next block's change is on the lines as they are now.
    editor.open("a.py", "x = 0\nv = 1\ny = 2\nz = 3")
    editor.open("answer.llm.md", search_replace("a.py", "v = 1\n", "v = 1\n"))
    await editor.settle()
    delete_first_line(editor, "a.py")
    editor.append("answer.llm.md", search_replace("a.py", "y = 2\n", ""))
    (change,) = [c for c in await listed(editor) if c["status"] == "pending"]
    (hunk,) = change["hunks"]
    assert (hunk["range"]["start"]["line"], hunk["range"]["end"]["line"]) == (1, 2)
    (diagnostic,) = editor.diagnostics("a.py")
    assert diagnostic.range.start.line == 1
    await editor.command("lspEdit.accept", {"id": change["id"]})
    assert editor.text("a.py") == "v = 1\nz = 3"


async def test_a_block_added_to_a_reply_is_placed_in_a_file_saved_closed_and_opened_again(
    editor: Editor,
) -> None:
    # Opened again, the file has version 1 again, but not the text the reply read.
    editor.open("a.py", "x = 0\nv = 1\ny = 2\nz = 3")
    editor.open("answer.llm.md", search_replace("a.py", "y = 2\n", "y = 2\n"))
    await editor.settle()
    delete_first_line(editor, "a.py")
    editor.save("a.py")
    editor.close("a.py")
    editor.open("a.py")
    editor.append("answer.llm.md", search_replace("a.py", "y = 2\n", ""))
    (change,) = [c for c in await listed(editor) if c["status"] == "pending"]
    (hunk,) = change["hunks"]
    assert (hunk["range"]["start"]["line"], hunk["range"]["end"]["line"]) == (1, 2)
    await editor.command("lspEdit.accept", {"id": change["id"]})
    assert editor.text("a.py") == "v = 1\nz = 3"
