"""LSP Edit: Ask… in a real VS Code (code-server in headless Chromium, the packaged
extension installed, the real `lsp-edit serve`), against a local model server in
this process: the reply streams into src/cart.py.llm.md beside the file, its
changes appear while the model writes, one is accepted, and the next ask carries
that decision (issue 21)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.llm_server import FakeModel, Reply
from tests.vscode.test_vscode import (  # noqa: F401 (vscode: the fixture)
    CART,
    CLIENT,
    CODE_SERVER,
    SERVER,
    VSIX,
    project,
    vscode,
)

pytestmark = pytest.mark.timeout(240)

ADD = (
    "src/cart.py\n<<<<<<< SEARCH\n        self.items.append(item)\n=======\n"
    "        if item not in self.items:\n            self.items.append(item)\n>>>>>>> REPLACE\n"
)
TOTAL = (
    "src/cart.py\n<<<<<<< SEARCH\n        return sum(item.price for item in self.items)\n"
    "=======\n        return sum(item.price * item.quantity for item in self.items)\n"
    ">>>>>>> REPLACE\n"
)
REPLY = "Two changes.\n\n" + ADD + "\nAnd the total, slowly:\n\n" + TOTAL


@pytest.fixture
def model() -> Iterator[FakeModel]:
    server = FakeModel().start()
    yield server
    server.stop()


def drive_ask(work: Path, model: FakeModel) -> dict[str, Any]:
    given = {
        "codeServer": str(CODE_SERVER),
        "vsix": str(VSIX),
        "workspace": str(work / "project"),
        "serverCommand": [str(SERVER), "serve"],
        "work": str(work / "vscode"),
        "screenshots": None,
        "settings": {"lspEdit.llm.baseUrl": model.openai_url, "lspEdit.llm.model": "coder"},
    }
    (work / "given.json").write_text(json.dumps(given))
    saw_path = work / "saw.json"
    subprocess.run(
        ["node", "e2e/drive.mjs", "ask", str(work / "given.json"), str(saw_path)],
        cwd=CLIENT,
        timeout=200,
        check=False,
    )
    saw: dict[str, Any] = json.loads(saw_path.read_text())
    assert "error" not in saw, json.dumps(saw, indent=2)
    return saw


@pytest.mark.usefixtures("vscode")
def test_ask_watch_the_changes_arrive_accept_one_and_ask_again(
    tmp_path: Path, model: FakeModel
) -> None:
    folder = project(tmp_path)
    # The second block arrives seconds after the first: the first is pending meanwhile.
    model.script += [
        Reply(REPLY, delay=0.01, stall_after=REPLY.index("And the total"), stall_for=3),
        Reply("Because you did not ask for it.\n"),
    ]
    saw = drive_ask(tmp_path, model)
    steps = {step["step"]: step for step in saw["steps"]}

    answered = steps["answered"]
    statuses = answered["statuses"]
    assert "1 pending change" in statuses
    assert statuses.index("1 pending change") < statuses.index("2 pending changes")
    assert any("2 changes are pending review" in m for m in answered["messages"])
    assert "cart.py.llm.md" in answered["tabs"]
    assert answered["active"] == "cart.py"  # the reply opened beside, the cursor stayed
    assert steps["accepted"]["status"] == "1 pending change"

    first, second = (r["body"]["messages"] for r in model.chat_requests())
    assert first[-1]["content"].endswith("Skip duplicates and count quantities.")
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    latest = second[-1]["content"]
    assert latest.startswith("File 'src/cart.py' has been updated.")
    assert "is still pending review." in latest
    assert "The user selected lines" in latest
    assert latest.endswith("Why not these lines?")

    assert_the_conversation_and_the_accepted_change_were_kept(folder, "coder")


def assert_the_conversation_and_the_accepted_change_were_kept(folder: Path, model: str) -> None:
    """The reply document holds both turns, and the file the change the user accepted."""
    transcript = (folder / "src" / "cart.py.llm.md").read_text()
    assert transcript.startswith(
        "<!-- lsp-edit: user -->\n### You\n\n> Skip duplicates and count quantities.\n\n"
        f"<!-- lsp-edit: assistant {model} -->\n### {model}\n\n" + REPLY
    )
    assert "Because you did not ask for it.\n" in transcript
    assert (folder / "src" / "cart.py").read_text() == CART.replace(
        "        self.items.append(item)\n",
        "        if item not in self.items:\n            self.items.append(item)\n",
    )
