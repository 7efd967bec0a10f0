"""Git's merge-conflict marks in a real VS Code (code-server in headless Chromium, the
packaged extension installed, the real `lsp-edit serve`): a SEARCH/REPLACE block in a
reply document (or in a reply kept in a Markdown file) looks like a conflict, yet
only lsp-edit's lenses show there, while a real conflict in a source file keeps
Git's, and the user settings file ends as it began (issue 19)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.vscode.test_vscode import (  # noqa: F401 (vscode: the fixture)
    SERVER,
    drive,
    project,
    vscode,
)

pytestmark = pytest.mark.timeout(240)

BLOCK = """\
One change to the cart.

src/cart.py
<<<<<<< SEARCH
        return sum(item.price for item in self.items)
=======
        return round(sum(item.price for item in self.items), 2)
>>>>>>> REPLACE
"""

CONFLICT = """\
def price(item):
<<<<<<< HEAD
    return item.price
=======
    return round(item.price, 2)
>>>>>>> discount
"""


def git_lenses(step: dict[str, Any]) -> list[str]:
    return [lens for lens in step["lenses"] if "Current Change" in lens]


def git_decorations(step: dict[str, Any]) -> list[str]:
    return [text for text in step["decorations"] if "Change)" in text]


def lsp_edit_lenses(step: dict[str, Any]) -> set[str]:
    return {part.strip() for lens in step["lenses"] for part in lens.split("|")}


@pytest.mark.usefixtures("vscode")
def test_a_reply_document_shows_only_lsp_edits_lenses_and_a_real_conflict_keeps_gits(
    tmp_path: Path,
) -> None:
    folder = project(tmp_path)
    (folder / "notes.llm.md").write_text(BLOCK)
    (folder / "pasted.md").write_text(BLOCK)
    (folder / "src" / "merged.py").write_text(CONFLICT)
    saw = drive("merge-conflict-marks", tmp_path, [str(SERVER), "serve"])
    steps = {step["step"]: step for step in saw["steps"]}

    # Git's marks are there for a real conflict...
    assert git_lenses(steps["conflict"]), steps["conflict"]
    assert git_decorations(steps["conflict"]), steps["conflict"]
    # ...not on the reply's block, which has lsp-edit's lenses alone.
    assert {"Accept", "Reject"} <= lsp_edit_lenses(steps["reply"]), steps["reply"]
    assert git_lenses(steps["reply"]) == [], steps["reply"]
    assert git_decorations(steps["reply"]) == [], steps["reply"]
    # A reply kept in a Markdown file that is no reply document is no conflict either.
    assert git_lenses(steps["pasted"]) == [], steps["pasted"]
    assert git_decorations(steps["pasted"]) == [], steps["pasted"]
    # Back on the conflict, Git's marks are back.
    assert git_lenses(steps["conflict again"]), steps["conflict again"]
    assert git_decorations(steps["conflict again"]), steps["conflict again"]
    # The user settings file is as it was, byte for byte.
    before = steps["settings before"]["text"]
    assert "merge-conflict" not in before
    assert (tmp_path / "vscode" / "data" / "User" / "settings.json").read_text() == before
