"""The inline view in Emacs (editors/emacs/lsp-edit-inline.el), end to end: `emacs
--batch` loads docs/emacs.md's configuration as it is, with eglot and the real
`lsp-edit serve`; tests/emacs/drive.el plays the user and reads the view's overlays
(Emacs in batch mode draws no screen: the overlays are what it would draw)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.emacs.test_emacs import DOC, REPO, drive
from tests.nvim.test_neovim import ADD, CART, TOTAL, changed, search_replace

pytestmark = pytest.mark.timeout(120)

NEW_ADD = ADD[1].splitlines()
NEW_TOTAL = TOTAL[1].splitlines()


def shown(view: list[dict[str, Any]]) -> list[tuple[int, int, list[str] | None]]:
    return [(o["first"], o["last"], o["new"]) for o in view]


def test_the_new_lines_of_every_change_show_under_its_old_lines_and_follow_the_review(
    emacs: str, tmp_path: Path
) -> None:
    seen = drive(
        emacs,
        tmp_path,
        scenario="inline",
        file="shop/cart.py",
        reply=search_replace(*ADD) + "\n" + search_replace(*TOTAL),
        typed="# typed during the review",
        first="self.items.append(item)",
        second="item.price for item",
    )
    assert shown(seen["proposed"]) == [(6, 7, NEW_ADD), (9, 10, NEW_TOTAL)]
    assert {o["new_face"] for o in seen["proposed"]} == {"lsp-edit-inline-added"}
    assert {o["old_face"] for o in seen["proposed"]} == {"lsp-edit-inline-removed"}
    # A line typed above: the overlays move with it at once; the server's answer after
    # it leaves the same overlays where they are.
    assert shown(seen["typed_at_once"]) == [(7, 8, NEW_ADD), (10, 11, NEW_TOTAL)]
    assert seen["typed_answered"] == seen["typed_at_once"]
    assert seen["same_overlays"] is True
    # Accepted: its new lines hide as soon as its old lines are replaced, before the
    # server says so; then only the other change shows, and none once it is rejected.
    assert seen["accepted_at_once"] == 1
    assert shown(seen["accepted"]) == [(11, 12, NEW_TOTAL)]
    assert seen["rejected"] == []
    assert seen["buffer"] == "# typed during the review\n" + changed(CART, ADD)


def test_typing_in_the_old_lines_of_a_change_hides_its_new_lines_until_the_server_answers(
    emacs: str, tmp_path: Path
) -> None:
    seen = drive(
        emacs,
        tmp_path,
        scenario="inline_typing_inside",
        file="shop/cart.py",
        reply=search_replace(*ADD) + "\n" + search_replace(*TOTAL),
        first="self.items.append(item)",
        typed="  # edited",
    )
    assert shown(seen["at_once"]) == [(6, 7, None), (9, 10, NEW_TOTAL)]
    # The server no longer finds the change's old lines (it is stale): its overlay goes.
    assert shown(seen["answered"]) == [(9, 10, NEW_TOTAL)]


def test_insertions_before_the_first_line_and_after_the_last_and_a_deletion(
    emacs: str, tmp_path: Path
) -> None:
    header = ("class Cart:\n", "import os\n\n\nclass Cart:\n")
    last = TOTAL[0]
    footer = (last, last + "\n    def clear(self):\n        self.items = []\n")
    comment = ("    # 🛒 prices in cents\n", "")
    reply = "\n".join(search_replace(*change) for change in (header, comment, footer))
    seen = drive(
        emacs,
        tmp_path,
        scenario="inline_edges",
        file="shop/cart.py",
        reply=reply,
        shown=2,
        overlays=3,
    )
    assert shown(seen["proposed"]) == [
        (0, 0, ["import os", "", ""]),
        (1, 2, None),
        (10, 10, ["", "    def clear(self):", "        self.items = []"]),
    ]
    assert [o["old_face"] for o in seen["proposed"]] == [None, "lsp-edit-inline-removed", None]


def test_a_change_of_several_parts_shows_each_part_at_its_place(emacs: str, tmp_path: Path) -> None:
    old = "    def add(self, item):\n" + ADD[0] + "\n    def total(self):\n" + TOTAL[0]
    new = "    def add(self, item):\n" + ADD[1] + "\n    def total(self):\n\t" + TOTAL[1].lstrip()
    seen = drive(
        emacs,
        tmp_path,
        scenario="inline_edges",
        file="shop/cart.py",
        reply=search_replace(old, new),
        shown=2,
        overlays=2,
    )
    assert shown(seen["proposed"]) == [(6, 7, NEW_ADD), (9, 10, ["\t" + TOTAL[1].strip()])]


def test_a_streamed_reply_document_adds_its_changes_without_redrawing_the_others(
    emacs: str, tmp_path: Path
) -> None:
    parts = [
        "I will make two changes to the cart.\n\n" + search_replace(*ADD),
        "\nThen the total:\n\n" + search_replace(*TOTAL) + "\nThat is all.\n",
    ]
    seen = drive(
        emacs,
        tmp_path,
        scenario="inline_stream",
        file="shop/cart.py",
        answer="answer.llm.md",
        parts=parts,
    )
    first, second = seen["views"]
    assert shown(first) == [(6, 7, NEW_ADD)]
    assert shown(second) == [(6, 7, NEW_ADD), (9, 10, NEW_TOTAL)]
    assert seen["same_first"] is True


def test_the_view_can_show_only_the_change_on_the_cursor_line_or_be_off(
    emacs: str, tmp_path: Path
) -> None:
    seen = drive(
        emacs,
        tmp_path,
        scenario="inline_modes",
        file="shop/cart.py",
        reply=search_replace(*ADD) + "\n" + search_replace(*TOTAL),
        first="self.items.append(item)",
        second="item.price for item",
    )
    hidden = [(6, 7, None), (9, 10, None)]
    assert shown(seen["cursor_elsewhere"]) == hidden
    assert shown(seen["cursor_on_first"]) == [(6, 7, NEW_ADD), (9, 10, None)]
    assert shown(seen["cursor_on_second"]) == [(6, 7, None), (9, 10, NEW_TOTAL)]
    assert [o["old_face"] for o in seen["cursor_on_second"]] == [None, "lsp-edit-inline-removed"]
    assert shown(seen["all"]) == [(6, 7, NEW_ADD), (9, 10, NEW_TOTAL)]
    assert seen["off"] == []


def test_the_emacs_page_embeds_the_inline_view_as_it_is() -> None:
    found = re.search(
        r"<!-- lsp-edit-inline.el begins -->\n```elisp\n(.*?)```\n<!-- lsp-edit-inline.el ends -->",
        DOC.read_text(),
        re.S,
    )
    assert found, "docs/emacs.md lost the markers around the embedded lsp-edit-inline.el"
    assert found.group(1) == (REPO / "editors" / "emacs" / "lsp-edit-inline.el").read_text(), (
        "docs/emacs.md is out of date: copy editors/emacs/lsp-edit-inline.el between its "
        "`lsp-edit-inline.el begins/ends` markers"
    )
