""":LspEditAsk in a real headless Neovim (every Neovim the machine has, as
tests/nvim/test_neovim.py runs them): the model's reply streams into the reply
document beside the file, its changes appear before the stream ends, one is
accepted, and the next ask carries that decision to the model (issue 21).

The model is tests/llm_server.py, in this process, on 127.0.0.1.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.llm_server import FakeModel, Reply
from tests.nvim.test_neovim import (  # noqa: F401 (nvim: the fixture)
    CART,
    DRIVER,
    driver_environment,
    nvim,
)

ASKER = DRIVER.parent / "ask.lua"
ADD = (
    "shop/cart.py\n<<<<<<< SEARCH\n        self.items.append(item)\n=======\n"
    "        if item not in self.items:\n            self.items.append(item)\n>>>>>>> REPLACE\n"
)
TOTAL = (
    "shop/cart.py\n<<<<<<< SEARCH\n        return sum(item.price for item in self.items)\n"
    "=======\n        return sum(item.price * item.quantity for item in self.items)\n"
    ">>>>>>> REPLACE\n"
)
REPLY = "Two changes.\n\n" + ADD + "\nAnd the total:\n\n" + TOTAL

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def model() -> Iterator[FakeModel]:
    server = FakeModel().start()
    yield server
    server.stop()


def drive_ask(program: str, project: Path, model: FakeModel) -> dict[str, Any]:
    given = {"file": "shop/cart.py", "base_url": model.openai_url}
    (project / "input.json").write_text(json.dumps(given))
    out = project / "out.json"
    environment = driver_environment(project, out)
    command = ["timeout", "90", program, "--headless", "-u", "NONE", "-i", "NONE", "-n"]
    finished = subprocess.run(
        [*command, "-c", f"luafile {ASKER}"],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert out.exists(), f"Neovim wrote nothing (exit {finished.returncode}):\n{finished.stderr}"
    seen: dict[str, Any] = json.loads(out.read_text())
    assert "error" not in seen, seen["error"]
    assert finished.returncode == 0, finished.stderr
    return seen


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "shop").mkdir()
    (root / "shop" / "cart.py").write_text(CART)
    return root


def test_ask_watch_the_changes_arrive_accept_one_and_ask_again(
    nvim: str,  # noqa: F811 (the fixture)
    project: Path,
    model: FakeModel,
) -> None:
    model.script += [Reply(REPLY, delay=0.02), Reply("Because it was not asked.\n")]
    seen = drive_ask(nvim, project, model)

    first = seen["first"]
    assert first["result"]["status"] == "done"
    assert [c["status"] for c in first["result"]["changes"]] == ["pending", "pending"]
    # The first change was pending while the model still wrote the second.
    assert first["pending_before_the_end"] >= 1
    assert seen["transcript_shown"]
    assert seen["current"] == str(project / "shop" / "cart.py")
    assert seen["pending_after_first"] == 2
    assert "        if item not in self.items:\n" in seen["after_accept"]

    second = seen["second"]["result"]
    assert second["status"] == "done"
    assert second["session"] == first["result"]["session"]
    messages = model.chat_requests()[1]["body"]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == "Skip duplicates and count quantities."
    latest = messages[3]["content"]
    assert latest.startswith("File 'shop/cart.py' has been updated.")
    assert "is still pending review." in latest
    assert "The user selected lines 8-9 of shop/cart.py:" in latest
    assert latest.endswith("Why")

    on_disk = (project / "shop" / "cart.py.llm.md").read_text()
    assert on_disk == seen["transcript"]
    assert not seen["transcript_modified"]
    assert on_disk.startswith(
        "<!-- lsp-edit: user -->\n### You\n\n> Skip duplicates and count quantities.\n\n"
        "<!-- lsp-edit: assistant coder -->\n### coder\n\n" + REPLY + "<!-- lsp-edit: note"
    )
    assert on_disk.count("<!-- lsp-edit: user -->") == 2
    assert "Because it was not asked." in on_disk
    assert [n["message"] for n in seen["notifications"] if n["level"] >= 3] == []
