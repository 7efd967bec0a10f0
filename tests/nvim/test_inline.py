"""The inline view in Neovim (editors/neovim/lua/lsp_edit/inline.lua), end to end: a real
headless Neovim, the real `lsp-edit serve`, tests/nvim/drive.lua playing the user. What
the view drew is read from its extmarks (the new lines as virtual lines, the old lines
highlighted) and from the screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.nvim.test_neovim import ADD, CART, TOTAL, changed, drive, search_replace

pytestmark = pytest.mark.timeout(120)

TYPED = "# typed during the review"


def added(view: dict[str, Any]) -> list[tuple[int, bool, list[str]]]:
    return [(mark["row"], mark["above"], mark["lines"]) for mark in view["added"]]


def removed(view: dict[str, Any]) -> list[tuple[int, int]]:
    return [(mark["row"], mark["end_row"]) for mark in view["removed"]]


def ids(view: dict[str, Any]) -> list[int]:
    return [mark["id"] for mark in view["added"] + view["removed"]]


def test_the_new_lines_of_every_change_show_under_its_old_lines_and_follow_the_review(
    nvim: str, project: Path
) -> None:
    reply = search_replace(*ADD) + "\n" + search_replace(*TOTAL)
    seen = drive(
        nvim,
        project,
        "inline",
        record=True,
        reply=reply,
        pending=2,
        added=2,
        removed=2,
        rows=14,
        typed=TYPED,
        moved_to=7,
        first_line="        self.items.append(item)",
        second_line="        return sum(item.price for item in self.items)",
    )
    new_add = ADD[1].splitlines()
    new_total = TOTAL[1].splitlines()
    assert added(seen["proposed"]) == [(6, False, new_add), (9, False, new_total)]
    assert removed(seen["proposed"]) == [(6, 7), (9, 10)]
    assert {g for m in seen["proposed"]["added"] for g in m["groups"]} == {"LspEditAdded"}
    assert {m["group"] for m in seen["proposed"]["removed"]} == {"LspEditRemoved"}
    # On screen: each change's new lines right under the line they replace.
    screen = seen["screen"]
    assert screen[6].startswith("        self.items.append(item)")
    assert screen[7:9] == new_add
    assert screen[11].startswith("        return sum(item.price for item in self.items)")
    assert screen[12] == new_total[0]
    # A line typed above: the marks move with it at once, and the server's answer
    # after it leaves them where they are, the same marks.
    assert added(seen["typed_at_once"]) == [(7, False, new_add), (10, False, new_total)]
    assert removed(seen["typed_at_once"]) == [(7, 8), (10, 11)]
    assert seen["typed_answered"] == seen["typed_at_once"]
    # Accepted: its lines are in the file and its marks are gone at once, not when the
    # server next publishes; rejected: none left.
    assert added(seen["accepted_at_once"]) == [(11, False, new_total)]
    assert removed(seen["accepted_at_once"]) == [(11, 12)]
    assert seen["accepted"] == seen["accepted_at_once"]
    assert seen["rejected_at_once"] == {"added": [], "removed": []}
    assert seen["rejected"] == seen["rejected_at_once"]
    assert seen["buffer"] == TYPED + "\n" + changed(CART, ADD)
    assert seen["warnings"] == []
    # One request for the new lines each time the server published pending changes:
    # the lspEdit.list requests sent before the reject, but for the reject's own
    # lookup of the change on the cursor's line.
    before_reject = seen["sent"][: commands(seen["sent"]).index("lspEdit.reject")]
    asked = commands(before_reject).count("lspEdit.list") - 1
    published = [m for m in before_reject if m["method"] == "textDocument/publishDiagnostics"]
    assert asked == len(published) == 3


def commands(sent: list[dict[str, Any]]) -> list[str | None]:
    return [m.get("command") for m in sent]


def test_insertions_before_the_first_line_and_after_the_last_and_a_deletion(
    nvim: str, project: Path
) -> None:
    header = ("class Cart:\n", "import os\n\n\nclass Cart:\n")
    last = TOTAL[0]
    footer = (last, last + "\n    def clear(self):\n        self.items = []\n")
    comment = ("    # 🛒 prices in cents\n", "")
    reply = "\n".join(search_replace(*change) for change in (header, comment, footer))
    seen = drive(nvim, project, "inline_edges", reply=reply, pending=3, added=2, removed=1, rows=20)
    assert added(seen["proposed"]) == [
        (0, True, ["import os", "", ""]),
        (9, False, ["", "    def clear(self):", "        self.items = []"]),
    ]
    assert removed(seen["proposed"]) == [(1, 2)]
    # The window scrolled to show the lines above line 1, as diff mode does.
    assert seen["topfill"] == 3
    screen = seen["screen"]
    assert screen[:3] == ["import os", "", ""]
    assert screen[3].startswith("class Cart:")
    assert screen[4].startswith("    # 🛒 prices in cents")
    assert screen[12].startswith(last.rstrip("\n"))
    assert screen[13:16] == ["", "    def clear(self):", "        self.items = []"]


def test_a_change_of_several_parts_shows_each_part_at_its_place_with_tabs_as_spaces(
    nvim: str, project: Path
) -> None:
    old = "    def add(self, item):\n" + ADD[0] + "\n    def total(self):\n" + TOTAL[0]
    new = "    def add(self, item):\n" + ADD[1] + "\n    def total(self):\n\t" + TOTAL[1].lstrip()
    seen = drive(
        nvim,
        project,
        "inline_edges",
        reply=search_replace(old, new),
        pending=2,  # diagnostics: one per hunk
        added=2,
        removed=2,
        rows=20,
    )
    # One change, two hunks; the tab is drawn as spaces to the next tab stop (8).
    assert added(seen["proposed"]) == [
        (6, False, ADD[1].splitlines()),
        (9, False, ["        " + TOTAL[1].strip()]),
    ]
    assert removed(seen["proposed"]) == [(6, 7), (9, 10)]


def test_a_streamed_reply_document_adds_its_changes_without_redrawing_the_others(
    nvim: str, project: Path
) -> None:
    parts = [
        "I will make two changes to the cart.\n\n" + search_replace(*ADD),
        "\nThen the total:\n\n" + search_replace(*TOTAL) + "\nThat is all.\n",
    ]
    seen = drive(nvim, project, "inline_stream", answer="answer.llm.md", parts=parts, shown=[1, 2])
    first, second = seen["views"]
    new_add, new_total = ADD[1].splitlines(), TOTAL[1].splitlines()
    assert added(first) == [(6, False, new_add)]
    assert added(second) == [(6, False, new_add), (9, False, new_total)]
    assert removed(second) == [(6, 7), (9, 10)]
    # The first change's marks are the same marks: updated in place, never redrawn.
    assert ids(second)[0] == ids(first)[0]
    assert second["removed"][0]["id"] == first["removed"][0]["id"]
    assert seen["warnings"] == []


def test_the_view_can_be_off_or_show_only_the_change_on_the_cursor_line(
    nvim: str, project: Path
) -> None:
    reply = search_replace(*ADD) + "\n" + search_replace(*TOTAL)
    seen = drive(
        nvim,
        project,
        "inline_modes",
        inline=False,
        reply=reply,
        first_line="        self.items.append(item)",
        second_line="        return sum(item.price for item in self.items)",
    )
    nothing = {"added": [], "removed": []}
    new_add, new_total = ADD[1].splitlines(), TOTAL[1].splitlines()
    assert seen["off"] == nothing
    assert added(seen["cursor_on_first"]) == [(6, False, new_add)]
    assert added(seen["cursor_on_second"]) == [(9, False, new_total)]
    assert removed(seen["cursor_on_second"]) == [(9, 10)]
    assert seen["cursor_elsewhere"] == nothing
    assert added(seen["all"]) == [(6, False, new_add), (9, False, new_total)]
    assert seen["off_again"] == nothing
    assert seen["warnings"] == []
