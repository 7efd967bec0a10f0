"""Where a block that could not be placed is shown: on the lines its refusal is
about (the places an ambiguous block matches, the lines most like a block not found),
with the others as related information where the client shows it; over stdio, as
VS Code, Neovim and Emacs."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.lsp.editor import Editor
from tests.lsp.test_review import CART, propose, search_replace

pytestmark = pytest.mark.timeout(60)

TWICE = """\
class Cart:
    def add(self, item):
        self.items.append(item)

    def restore(self, item):
        self.items.append(item)
"""
APPEND = "        self.items.append(item)\n"


def lines(first: int, end: int) -> types.Range:
    """0-based whole lines `first`..`end` (exclusive), as the server shows them."""
    return types.Range(
        start=types.Position(line=first, character=0), end=types.Position(line=end, character=0)
    )


async def test_an_ambiguous_block_is_shown_on_its_first_candidate_with_the_others_related(
    editor: Editor,
) -> None:
    uri = editor.open("shop/cart.py", TWICE)
    (change,) = await propose(editor, search_replace("shop/cart.py", APPEND, "        pass\n"))
    assert change["code"] == "ambiguous"
    await editor.settle()
    (diagnostic,) = editor.diagnostics("shop/cart.py")
    assert diagnostic.code == "ambiguous"
    assert diagnostic.range == lines(2, 3)
    if editor.name == "emacs":  # its capabilities do not show related information
        assert diagnostic.related_information is None
    else:
        assert list(diagnostic.related_information or []) == [
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=uri, range=lines(5, 6)), message="Candidate 2 of 2"
            )
        ]


async def test_a_block_not_found_is_shown_on_the_most_similar_lines(editor: Editor) -> None:
    editor.open("shop/cart.py", CART)
    search = "    def total(self):\n        return sum(item.price for item in self.itemz)\n"
    (change,) = await propose(editor, search_replace("shop/cart.py", search, "        pass\n"))
    assert change["code"] == "not-found"
    assert "The most similar lines are 8-9" in change["message"]
    await editor.settle()
    (diagnostic,) = editor.diagnostics("shop/cart.py")
    assert diagnostic.range == lines(7, 9)


async def test_a_failure_after_a_pending_block_is_shown_where_its_lines_are_in_the_buffer(
    editor: Editor,
) -> None:
    editor.open("shop/cart.py", TWICE)
    reply = search_replace("shop/cart.py", "class Cart:\n", "import os\n\n\nclass Cart:\n")
    reply += search_replace("shop/cart.py", APPEND, "        pass\n")
    first, second = await propose(editor, reply)
    assert first["status"] == "pending"
    assert "(lines 6 and 9)" in second["message"]  # the file as the block saw it
    await editor.settle()
    failures = [d for d in editor.diagnostics("shop/cart.py") if d.code == "ambiguous"]
    assert [d.range for d in failures] == [lines(2, 3)]


async def test_a_failure_in_a_reply_document_points_at_the_candidates_in_its_file(
    editor: Editor,
) -> None:
    uri = editor.open("shop/cart.py", TWICE)
    editor.open("answer.llm.md", search_replace("shop/cart.py", APPEND, "        pass\n"))
    await editor.settle()
    (diagnostic,) = editor.diagnostics("answer.llm.md")
    assert diagnostic.code == "ambiguous"
    assert diagnostic.range.start.line == 1  # the block, below its path line
    if editor.name == "emacs":
        assert diagnostic.related_information is None
    else:
        assert [
            (r.location.uri, r.location.range) for r in diagnostic.related_information or []
        ] == [
            (uri, lines(2, 3)),
            (uri, lines(5, 6)),
        ]


async def test_a_path_one_edit_away_from_a_file_asks_did_you_mean(editor: Editor) -> None:
    editor.write("shop/cart.py", CART)
    search = "    def total(self):\n"
    (change,) = await propose(editor, search_replace("shop/cartt.py", search, search))
    assert change["code"] == "file-not-found"
    assert change["message"] == "File not found: shop/cartt.py. Did you mean `shop/cart.py`?"


async def test_a_failure_in_a_file_not_open_never_points_past_its_end(editor: Editor) -> None:
    # the last line has no newline: the line after it does not exist
    editor.write("shop/cart.py", "total = 1\ntotal = 1")
    (change,) = await propose(editor, search_replace("shop/cart.py", "total = 1\n", "t = 2\n"))
    assert change["code"] == "ambiguous"
    await editor.settle()
    (diagnostic,) = editor.diagnostics("shop/cart.py")
    assert diagnostic.range == lines(0, 0)
    related = [r.location.range for r in diagnostic.related_information or []]
    assert related == ([] if editor.name == "emacs" else [lines(1, 1)])
    editor.open("shop/cart.py", "total = 1\ntotal = 1")
    await editor.settle()
    (diagnostic,) = editor.diagnostics("shop/cart.py")
    assert diagnostic.range == lines(0, 1)
    end = types.Position(line=1, character=len("total = 1"))
    related = [r.location.range for r in diagnostic.related_information or []]
    last = types.Range(start=types.Position(line=1, character=0), end=end)
    assert related == ([] if editor.name == "emacs" else [last])


async def test_a_failure_stays_inside_the_document_when_the_user_deletes_its_lines(
    editor: Editor,
) -> None:
    text = "a = 1\nb = 2\ntotal = 1\ntotal = 1\n"
    editor.open("shop/cart.py", text)
    (change,) = await propose(editor, search_replace("shop/cart.py", "total = 1\n", "t = 2\n"))
    assert change["code"] == "ambiguous"
    await editor.settle()
    (diagnostic,) = editor.diagnostics("shop/cart.py")
    assert diagnostic.range == lines(2, 3)
    editor.replace(
        "shop/cart.py",
        types.Range(
            start=types.Position(line=1, character=0), end=types.Position(line=4, character=0)
        ),
        "",
    )
    await editor.debounced()
    (diagnostic,) = editor.diagnostics("shop/cart.py")
    assert diagnostic.range.end.line <= 1
