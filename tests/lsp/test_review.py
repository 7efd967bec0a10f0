"""Reviewing a reply's changes in the editor: propose, see, accept, reject."""

from __future__ import annotations

import pytest

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

REPLY = """\
Here is the fix.

shop/cart.py
<<<<<<< SEARCH
    def total(self):
        return sum(item.price for item in self.items)
=======
    def total(self):
        return sum(item.price * item.quantity for item in self.items)
>>>>>>> REPLACE
"""


async def test_a_proposed_change_is_pending_until_accepted(editor: Editor) -> None:
    uri = editor.open("shop/cart.py", CART)
    result = await editor.command("lspEdit.propose", {"response": REPLY, "uri": uri})
    (change,) = result["changes"]
    assert change["status"] == "pending"
    assert editor.text("shop/cart.py") == CART
    await editor.settle()
    (diagnostic,) = editor.diagnostics("shop/cart.py")
    assert diagnostic.code == "pending-change"
    assert diagnostic.message.startswith("Replace 1 line with 1: ")
    assert diagnostic.range.start.line == 8

    accepted = await editor.command("lspEdit.accept", {"id": change["id"]})
    assert accepted["status"] == "applied"
    assert editor.text("shop/cart.py") == CART.replace(
        "item.price for", "item.price * item.quantity for"
    )
    await editor.settle()
    assert editor.diagnostics("shop/cart.py") == []
