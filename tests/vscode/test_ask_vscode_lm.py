"""LSP Edit: Ask… with VS Code's own language models (`lspEdit.llm.api: "vscode"`) in a
real VS Code (code-server 4.100, the packaged extension, the real `lsp-edit serve`):
the model is a test-only extension (tests/vscode/fake_lm) that registers a chat
model through VS Code 1.100's proposed `vscode.lm.registerChatModelProvider`
(`--enable-proposed-api`), streams scripted replies and records what it is sent.
The reply streams into src/cart.py.llm.md, its changes appear while the model
writes, one is accepted, and the next ask carries that decision (issue 21)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.vscode.test_ask import REPLY, assert_the_conversation_and_the_accepted_change_were_kept
from tests.vscode.test_vscode import (  # noqa: F401 (vscode: the fixture)
    CART,
    CLIENT,
    CODE_SERVER,
    SERVER,
    VSIX,
    project,
    vscode,
)

pytestmark = pytest.mark.timeout(300)

FAKE_LM = Path(__file__).parent / "fake_lm"
FAKE_LM_ID = "lsp-edit-tests.fake-lm"


def fake_model_vsix(work: Path) -> Path:
    """The test-only model extension, packaged (from a copy: nothing is written in the
    repository)."""
    source = work / "fake_lm"
    shutil.copytree(FAKE_LM, source)
    vsix = work / "fake-lm.vsix"
    subprocess.run(
        [
            str(CLIENT / "node_modules" / ".bin" / "vsce"),
            "package",
            "--no-dependencies",
            "--skip-license",
            "--allow-missing-repository",
            "--out",
            str(vsix),
        ],
        cwd=source,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return vsix


def drive_ask(work: Path, replies: list[dict[str, Any]]) -> tuple[dict[str, Any], list[Any]]:
    script, record = work / "script.json", work / "requests.jsonl"
    script.write_text(json.dumps(replies))
    given = {
        "codeServer": str(CODE_SERVER),
        "vsix": str(VSIX),
        "extensions": [str(fake_model_vsix(work))],
        "proposedApi": [FAKE_LM_ID],
        "workspace": str(work / "project"),
        "serverCommand": [str(SERVER), "serve"],
        "work": str(work / "vscode"),
        "screenshots": None,
        "settings": {
            "lspEdit.llm.api": "vscode",
            "lspEdit.llm.model": "fake-coder",
            "lspEditTest.script": str(script),
            "lspEditTest.record": str(record),
        },
    }
    (work / "given.json").write_text(json.dumps(given))
    saw_path = work / "saw.json"
    subprocess.run(
        ["node", "e2e/drive.mjs", "ask", str(work / "given.json"), str(saw_path)],
        cwd=CLIENT,
        timeout=260,
        check=False,
    )
    saw: dict[str, Any] = json.loads(saw_path.read_text())
    assert "error" not in saw, json.dumps(saw, indent=2)
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    return saw, requests


@pytest.mark.usefixtures("vscode")
def test_ask_vscodes_language_model_watch_the_changes_arrive_accept_one_and_ask_again(
    tmp_path: Path,
) -> None:
    folder = project(tmp_path)
    # The second block arrives seconds after the first: the first is pending meanwhile.
    replies = [
        {"text": REPLY, "pauseAt": REPLY.index("And the total"), "pauseFor": 3},
        {"text": "Because you did not ask for it.\n"},
    ]
    saw, requests = drive_ask(tmp_path, replies)
    steps = {step["step"]: step for step in saw["steps"]}

    statuses = steps["answered"]["statuses"]
    assert "1 pending change" in statuses
    assert statuses.index("1 pending change") < statuses.index("2 pending changes")
    assert any("2 changes are pending review" in m for m in steps["answered"]["messages"])
    assert steps["accepted"]["status"] == "1 pending change"

    first, second = requests
    assert first["extensionId"] == "lsp-edit.lsp-edit"
    # VS Code has no system role: the instructions come first, as a user message.
    assert [m["role"] for m in first["messages"]] == ["user", "user"]
    assert "edit blocks" in first["messages"][0]["content"]
    assert first["messages"][1]["content"].endswith("Skip duplicates and count quantities.")
    assert [m["role"] for m in second["messages"]] == ["user", "user", "assistant", "user"]
    latest = second["messages"][-1]["content"]
    assert latest.startswith("File 'src/cart.py' has been updated.")
    assert "is still pending review." in latest
    assert latest.endswith("Why not these lines?")

    assert_the_conversation_and_the_accepted_change_were_kept(folder, "fake-coder")
