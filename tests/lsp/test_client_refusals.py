"""Editors that refuse an edit with a JSON-RPC error instead of `applied: false`
(Emacs 28's eglot does, when the buffer's version moved): the same as a refusal."""

from __future__ import annotations

import pytest
from pytest_lsp.client import captured_exception_key

from tests.lsp.editor import Editor
from tests.lsp.test_review import CART, TOTAL, WITH_TOTAL, propose

pytestmark = pytest.mark.timeout(60)


def refusals_were_meant(request: pytest.FixtureRequest) -> None:
    """pytest-lsp reports an error raised in a client handler as a failure of the
    test: here the error is the editor's answer under test."""
    request.node.stash[captured_exception_key] = None


async def test_an_editor_that_answers_the_edit_with_an_error_once_gets_it_again(
    editor: Editor, request: pytest.FixtureRequest
) -> None:
    editor.open("shop/cart.py", CART)
    (change,) = await propose(editor, TOTAL)
    editor.error_next_edits = 1
    result = await editor.command("lspEdit.accept", {"id": change["id"]})
    refusals_were_meant(request)
    assert result["status"] == "applied"
    assert len(editor.applied_edits) == 2
    assert editor.text("shop/cart.py") == WITH_TOTAL


async def test_an_editor_that_keeps_answering_with_errors_leaves_the_change_pending(
    editor: Editor, request: pytest.FixtureRequest
) -> None:
    editor.open("shop/cart.py", CART)
    (change,) = await propose(editor, TOTAL)
    editor.error_next_edits = 2
    result = await editor.command("lspEdit.accept", {"id": change["id"]})
    refusals_were_meant(request)
    assert result["status"] == "pending"
    assert "require version 1" in result["message"]
    assert editor.text("shop/cart.py") == CART


async def test_accept_all_answered_with_an_error_says_so_and_keeps_the_changes(
    editor: Editor, request: pytest.FixtureRequest
) -> None:
    editor.open("shop/cart.py", CART)
    await propose(editor, TOTAL)
    editor.error_next_edits = 1
    result = await editor.command("lspEdit.acceptAll", {"uri": editor.uri("shop/cart.py")})
    refusals_were_meant(request)
    assert [c["status"] for c in result["changes"]] == ["pending"]
    assert "require version 1" in result["message"]
    assert editor.text("shop/cart.py") == CART
