"""VS Code end to end: a real VS Code (code-server, VS Code in the browser, in headless
Chromium) with the packaged client-vscode/lsp-edit.vsix installed runs the real
`lsp-edit serve`; client-vscode/e2e/drive.mjs plays the user with the keyboard and
writes what it saw, and these tests check it and the files on disk.

scripts/install-editors.sh installs code-server and Chromium and scripts/test.sh
packages the extension first. In CI a missing piece is a failure, never a skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
CLIENT = REPO / "client-vscode"
CODE_SERVER = Path(
    os.environ.get("LSP_EDIT_CODE_SERVER")
    or REPO / ".cache" / "code-server" / "node_modules" / ".bin" / "code-server"
)
VSIX = CLIENT / "lsp-edit.vsix"
SERVER = Path(sys.executable).parent / "lsp-edit"

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
Two changes to the cart.

src/cart.py
```python:Cart-add
def add(self, item, quantity=1):
    for _ in range(quantity):
        self.items.append(item)
```

src/cart.py
```python:Cart-total
def total(self):
    return round(sum(item.price for item in self.items), 2)
```
"""

TYPED = "# Typed while the changes wait.\n\n"

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def vscode() -> None:
    missing = [
        str(path)
        for path in (CODE_SERVER, VSIX, Path(shutil.which("node") or "node"))
        if not path.exists()
    ]
    if not shutil.which("chromium") and not os.environ.get("LSP_EDIT_CHROMIUM"):
        missing.append("chromium")
    if missing:
        message = (
            f"VS Code end-to-end tests need {', '.join(missing)}: "
            "scripts/install-editors.sh installs them, scripts/test.sh packages the extension."
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def drive(scenario: str, work: Path, command: list[str]) -> dict[str, Any]:
    """Runs one scenario in a fresh code-server on `work/project` and returns what the
    user saw."""
    screenshots = os.environ.get("LSP_EDIT_SCREENSHOTS")
    given = {
        "codeServer": str(CODE_SERVER),
        "vsix": str(VSIX),
        "workspace": str(work / "project"),
        "serverCommand": command,
        "work": str(work / "vscode"),
        "screenshots": str(Path(screenshots).resolve()) if screenshots else None,
    }
    (work / "given.json").write_text(json.dumps(given))
    saw_path = work / "saw.json"
    subprocess.run(
        ["node", "e2e/drive.mjs", scenario, str(work / "given.json"), str(saw_path)],
        cwd=CLIENT,
        timeout=200,
        check=False,
    )
    saw: dict[str, Any] = json.loads(saw_path.read_text())
    assert "error" not in saw, json.dumps(saw, indent=2)
    return saw


def project(root: Path) -> Path:
    (root / "project" / "src").mkdir(parents=True)
    (root / "project" / "src" / "cart.py").write_text(CART)
    (root / "project" / "reply.md").write_text(REPLY)
    return root / "project"


@pytest.mark.usefixtures("vscode")
def test_a_reply_is_reviewed_with_the_keyboard_and_typing_never_misplaces_a_change(
    tmp_path: Path,
) -> None:
    folder = project(tmp_path)
    saw = drive("review", tmp_path, [str(SERVER), "serve"])
    steps = {step["step"]: step for step in saw["steps"]}

    assert steps["proposed"]["status"] == "2 pending changes"
    assert steps["shown"]["tab"] == "cart.py"
    # The reply's first change is shown at once: the cursor on `def add`.
    assert steps["shown"]["line"] == 5
    assert {"Accept", "Reject"} <= {
        part.strip() for lens in steps["shown"]["lenses"] for part in lens.split("|")
    }
    next_lines = [step["line"] for step in saw["steps"] if step["step"] == "next"]
    # Two lines typed at the top: the changes moved down with their lines.
    assert next_lines == [7, 12]
    assert steps["accepted"]["status"] == "1 pending change"
    assert steps["rejected"]["status"] == "No pending changes"

    expected = TYPED + CART.replace(
        "    def add(self, item):\n        self.items.append(item)\n",
        "    def add(self, item, quantity=1):\n"
        "        for _ in range(quantity):\n"
        "            self.items.append(item)\n",
    )
    assert (folder / "src" / "cart.py").read_text() == expected
    assert (folder / "reply.md").read_text() == REPLY


@pytest.mark.usefixtures("vscode")
def test_a_reply_document_shows_its_blocks_as_pending_changes_with_lenses(
    tmp_path: Path,
) -> None:
    folder = project(tmp_path)
    (folder / "notes.llm.md").write_text(REPLY)
    saw = drive("reply-document", tmp_path, [str(SERVER), "serve"])
    steps = {step["step"]: step for step in saw["steps"]}

    assert steps["opened"]["status"] == "2 pending changes"
    lenses = " ".join(steps["lenses"]["lenses"])
    assert "pending in src/cart.py" in lenses
    assert "Accept" in lenses and "Go to change" in lenses
    assert steps["accepted"]["status"] == "1 pending change"
    assert steps["rejected"]["status"] == "No pending changes"
    assert "saved" in steps
    assert (folder / "src" / "cart.py").read_text() == CART.replace(
        "    def add(self, item):\n        self.items.append(item)\n",
        "    def add(self, item, quantity=1):\n"
        "        for _ in range(quantity):\n"
        "            self.items.append(item)\n",
    )
    assert (folder / "notes.llm.md").read_text() == REPLY


@pytest.mark.usefixtures("vscode")
def test_a_server_that_does_not_start_tells_the_user_what_to_set(tmp_path: Path) -> None:
    project(tmp_path)
    saw = drive("no-server", tmp_path, [str(tmp_path / "no-such-lsp-edit"), "serve"])
    message = " ".join(saw["steps"][0]["messages"])
    assert "could not start its server" in message
    assert "lspEdit.server.command" in message
