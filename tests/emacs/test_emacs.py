"""Emacs end to end: `emacs --batch` loads the configuration block of docs/emacs.md as
it is, with eglot and the real `lsp-edit serve`; tests/emacs/drive.el plays the user.

Runs where Emacs and eglot are installed (scripts/install-editors.sh installs
Debian's emacs-nox and elpa-eglot); in CI a missing Emacs is a failure, never a skip.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.nvim.test_neovim import ADD, CART, ONE_CHANGE, TOTAL, changed, search_replace

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "emacs.md"
DRIVER = REPO / "tests" / "emacs" / "drive.el"

pytestmark = pytest.mark.timeout(120)


def configuration() -> str:
    found = re.search(
        r"<!-- emacs config begins -->\n```elisp\n(.*?)```\n<!-- emacs config ends -->",
        DOC.read_text(),
        re.S,
    )
    assert found, "docs/emacs.md lost the markers around its configuration"
    return found.group(1)


@pytest.fixture
def emacs() -> str:
    found = shutil.which("emacs")
    if found is None:
        message = "Emacs is not installed: scripts/setup.sh installs it (emacs-nox, elpa-eglot)."
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def drive(emacs: str, tmp_path: Path, original: str = CART, **given: Any) -> dict[str, Any]:
    project = tmp_path / "project"
    (project / "shop").mkdir(parents=True, exist_ok=True)
    (project / "shop" / "cart.py").write_text(original)
    # Eglot lists a git project's files when the server watches them.
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (tmp_path / "config.el").write_text(configuration())
    (tmp_path / "input.json").write_text(json.dumps(given))
    out = tmp_path / "out.json"
    environment = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "LSP_EDIT_CONFIG": str(tmp_path / "config.el"),
        "LSP_EDIT_INPUT": str(tmp_path / "input.json"),
        "LSP_EDIT_OUT": str(out),
    }
    # -q skips the init file but keeps Debian's site start, which puts eglot on the
    # load path; package-initialize does it where eglot came from ELPA.
    command = ["timeout", "60", emacs, "--batch", "-q", "--eval", "(package-initialize)"]
    # The folder users put on their load-path for lsp-edit-inline.el.
    command += ["-L", str(REPO / "editors" / "emacs"), "-l", str(DRIVER)]
    finished = subprocess.run(
        command, cwd=project, env=environment, capture_output=True, text=True, timeout=90
    )
    assert out.exists(), f"Emacs wrote nothing (exit {finished.returncode}):\n{finished.stderr}"
    seen: dict[str, Any] = json.loads(out.read_text())
    assert "error" not in seen, seen["error"] + "\n" + finished.stderr
    return seen


def test_a_reply_is_reviewed_in_eglot_and_the_decisions_reach_the_disk(
    emacs: str, tmp_path: Path
) -> None:
    reply = (
        "Two changes, the first for the file you have open:\n"
        + search_replace(*ADD, path="")
        + "\n"
        + search_replace(*TOTAL)
    )
    typed = "# typed during the review"
    seen = drive(
        emacs,
        tmp_path,
        file="shop/cart.py",
        reply=reply,
        typed=typed,
        first="self.items.append(item)",
        second="item.price for item",
    )
    assert seen["summary"] == "2 changes are pending review: 2 in 'shop/cart.py'."
    assert [d.split(":")[0] for d in seen["diagnostics"]] == [
        "lsp-edit [pending-change]",
        "lsp-edit [pending-change]",
    ]
    accept_menu, reject_menu = seen["menus"]
    assert [title.split(":")[0] for title in accept_menu] == [
        "Accept change",
        "Reject change",
        "Accept all in file (2)",
        "Reject all in file (2)",
    ]
    assert reject_menu[0].startswith("Accept change")
    expected = typed + "\n" + changed(CART, ADD)
    assert seen["buffer"] == expected
    assert (tmp_path / "project" / "shop" / "cart.py").read_text() == expected


@pytest.mark.parametrize("kind", list(ONE_CHANGE))
def test_a_change_accepted_through_its_code_action_is_written_once(
    emacs: str, tmp_path: Path, kind: str
) -> None:
    original, change = ONE_CHANGE[kind]
    seen = drive(
        emacs,
        tmp_path,
        original=original,
        scenario="accept_one",
        file="shop/cart.py",
        reply=search_replace(*change),
    )
    expected = changed(original, change)
    assert seen["buffer"] == expected
    assert (tmp_path / "project" / "shop" / "cart.py").read_text() == expected
    assert seen["statuses"] == ["applied"]
    assert seen["diagnostics"] == []


FAILING = search_replace("    def checkout(self):\n", "    def checkout(self, card):\n")


def test_the_summary_stays_readable_after_emacs_own_hint(emacs: str, tmp_path: Path) -> None:
    reply = search_replace(*ADD) + "\n" + FAILING
    seen = drive(emacs, tmp_path, scenario="summary", file="shop/cart.py", reply=reply)
    assert seen["shown"] is True
    lines = seen["buffer"].splitlines()
    assert lines[0] == "1 change is pending review: 1 in 'shop/cart.py'."
    assert "was not applied: SEARCH text not found in `shop/cart.py`" in lines[2]


def test_the_project_diagnostics_list_pending_changes_and_failures_of_every_file(
    emacs: str, tmp_path: Path
) -> None:
    (tmp_path / "project" / "shop").mkdir(parents=True)
    (tmp_path / "project" / "shop" / "tax.py").write_text("RATE = 0.2\n")
    reply = (
        search_replace(*ADD)
        + "\n"
        + FAILING
        + "\n"
        + search_replace("RATE = 0.2\n", "RATE = 0.25\n", path="shop/tax.py")
        + "\n"
        + search_replace("RATE = 0.3\n", "RATE = 0.35\n", path="shop/tax.py")
    )
    seen = drive(
        emacs, tmp_path, scenario="list", file="shop/cart.py", reply=reply, in_file=2, listed=4
    )
    # File, line, column, type, backend, message.
    rows = sorted((row[0], row[1], row[3], row[5].split(":")[0]) for row in seen["listed"])
    assert rows == [
        ("cart.py", "1", "error", "lsp-edit [not-found]"),
        ("cart.py", "7", "note", "lsp-edit [pending-change]"),
        ("tax.py", "1", "error", "lsp-edit [not-found]"),
        ("tax.py", "1", "note", "lsp-edit [pending-change]"),
    ]
