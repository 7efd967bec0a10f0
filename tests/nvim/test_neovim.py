"""Neovim end to end: a real headless Neovim loads editors/neovim/lua/lsp_edit.lua (the
file users copy) and runs the real `lsp-edit serve`; tests/nvim/drive.lua plays the
user and writes what it saw, and these tests check it and the files on disk.

Every Neovim the machine has is used: the system's (0.7 on Debian 12, the oldest the
configuration supports) and `LSP_EDIT_NVIM_LATEST` when set (scripts/test.sh sets it
to a current release). In CI a missing Neovim is a failure, never a skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
DRIVER = REPO / "tests" / "nvim" / "drive.lua"
SERVER = Path(sys.executable).parent / "lsp-edit"

CART = """\
class Cart:
    # 🛒 prices in cents
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)

    def total(self):
        return sum(item.price for item in self.items)
"""


def search_replace(search: str, replace: str, path: str = "shop/cart.py") -> str:
    header = f"{path}\n" if path else ""
    return f"{header}<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"


ADD = (
    "        self.items.append(item)\n",
    "        if item not in self.items:\n            self.items.append(item)\n",
)
TOTAL = (
    "        return sum(item.price for item in self.items)\n",
    "        return sum(item.price * item.quantity for item in self.items)\n",
)
EMOJI = ("    # 🛒 prices in cents\n", "    # 🛒 prices in cents, taxes included 🧾\n")


def changed(text: str, *changes: tuple[str, str]) -> str:
    for old, new in changes:
        assert old in text
        text = text.replace(old, new)
    return text


def neovims() -> list[str]:
    found = [os.environ.get("LSP_EDIT_NVIM") or shutil.which("nvim") or ""]
    latest = os.environ.get("LSP_EDIT_NVIM_LATEST")
    if latest:
        found.append(latest)
    return found


@pytest.fixture(params=neovims(), ids=lambda path: "nvim-" + version_of(path))
def nvim(request: pytest.FixtureRequest) -> str:
    path: str = request.param
    if not path or not Path(path).exists():
        message = "Neovim is not installed: scripts/setup.sh installs it (apt-get install neovim)."
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


def version_of(path: str) -> str:
    if not path or not Path(path).exists():
        return "missing"
    first = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    return first.stdout.split()[1] if first.stdout else "unknown"


def driver_environment(
    project: Path, out: Path, base: Mapping[str, str] = os.environ
) -> dict[str, str]:
    """What a driver in headless Neovim reads (the repository, the server, its input
    and output files), with Neovim's own state kept beside `project`."""
    return {
        **base,
        "LSP_EDIT_REPO": str(REPO),
        "LSP_EDIT_SERVER": str(SERVER),
        "LSP_EDIT_INPUT": str(project / "input.json"),
        "LSP_EDIT_OUT": str(out),
        "XDG_STATE_HOME": str(project.parent / "state"),
        "XDG_DATA_HOME": str(project.parent / "data"),
        "XDG_CONFIG_HOME": str(project.parent / "config"),
    }


def drive(
    nvim: str, project: Path, scenario: str, *, record: bool = False, **given: Any
) -> dict[str, Any]:
    """Runs one scenario in a fresh Neovim in `project` and returns what it saw; with
    `record`, also the messages Neovim sent the server, in order (`sent`)."""
    given["scenario"] = scenario
    given.setdefault("file", "shop/cart.py")
    given.setdefault("original", CART)
    (project / "input.json").write_text(json.dumps(given))
    out = project / "out.json"
    environment = driver_environment(project, out)
    recorded = project.parent / "sent.jsonl"
    if record:
        environment["LSP_EDIT_RECORD"] = str(recorded)
        environment["LSP_EDIT_PYTHON"] = sys.executable
    command = ["timeout", "60", nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n"]
    command += ["-c", f"luafile {DRIVER}"]
    finished = subprocess.run(
        command, cwd=project, env=environment, capture_output=True, text=True, timeout=90
    )
    assert out.exists(), f"Neovim wrote nothing (exit {finished.returncode}):\n{finished.stderr}"
    seen: dict[str, Any] = json.loads(out.read_text())
    assert "error" not in seen, seen["error"]
    assert finished.returncode == 0, finished.stderr
    # Errors in callbacks and deprecation notices reach stderr, not vim.notify.
    assert "rror" not in finished.stderr, finished.stderr
    assert "deprecated" not in finished.stderr, finished.stderr
    warnings = [n["message"] for n in seen["notifications"] if n["level"] >= 3]
    seen["warnings"] = warnings
    if record:
        seen["sent"] = [json.loads(line) for line in recorded.read_text().splitlines()]
    return seen


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "shop").mkdir()
    (root / "shop" / "cart.py").write_text(CART)
    return root


pytestmark = pytest.mark.timeout(120)


def test_a_reply_is_reviewed_while_typing_and_the_decisions_reach_the_disk(
    nvim: str, project: Path
) -> None:
    reply = (
        "Two changes, the first for the file you have open:\n"
        + search_replace(*ADD, path="")
        + "\n"
        + search_replace(*TOTAL)
    )
    typed = "# typed during the review 🙂"
    seen = drive(
        nvim,
        project,
        "review",
        reply=reply,
        typed=typed,
        first_line="        self.items.append(item)",
        second_line="        return sum(item.price for item in self.items)",
    )
    assert seen["back_in"] == str(project / "shop" / "cart.py")
    assert [(d["line"], d["code"]) for d in seen["diagnostics"]] == [
        (6, "pending-change"),
        (9, "pending-change"),
    ]
    assert seen["diagnostics"][0]["message"].startswith("Replace 1 line with 2: ")
    assert seen["keys_while_pending"] == {
        "]r": True,
        "[r": True,
        "<leader>ra": True,
        "<leader>rr": True,
    }
    assert seen["operators_untouched"]
    titles = [(a["title"].split(":")[0], a["preferred"]) for a in seen["actions"]]
    assert titles == [
        ("Accept change", True),
        ("Reject change", False),
        ("Accept all in file (2)", False),
        ("Reject all in file (2)", False),
    ]
    assert seen["keys_after"] is False
    expected = typed + "\n" + changed(CART, ADD)
    assert seen["buffer"] == expected
    assert (project / "shop" / "cart.py").read_text() == expected
    assert seen["reply_untouched"]
    assert seen["warnings"] == []


def test_every_command_from_a_register_and_a_range(nvim: str, project: Path) -> None:
    reply = search_replace(*EMOJI) + "\n" + search_replace(*TOTAL)
    range_reply = (
        "Prose the LLM wrote first.\n\n"
        + search_replace(*ADD)
        + "\nAnd a block outside the range:\n\n"
        + search_replace("class Cart:\n", "class Basket:\n")
    )
    seen = drive(
        nvim,
        project,
        "commands",
        reply=reply,
        first_line="    # 🛒 prices in cents",
        range_reply=range_reply,
        range_first=3,
        range_last=9,
    )
    assert seen["next_lines"] == [2, 10, 2]
    assert seen["prev_line"] == 10
    assert seen["diff"] == {
        "windows": 2,
        "proposed": changed(CART, EMOJI, TOTAL),
        "proposed_diff": True,
        "source_diff": True,
        "source_unchanged": True,
        "source_diff_after_close": False,
        "proposed_cursor": 10,
        "source_cursor_after_close": 10,
    }
    assert "line" in seen["instructions"].lower()
    assert seen["after_accept"] == changed(CART, EMOJI)
    assert seen["buffer"] == changed(CART, EMOJI, TOTAL)
    assert (project / "shop" / "cart.py").read_text() == changed(CART, EMOJI, TOTAL)
    assert seen["range_pending"] == 1
    assert seen["after_reject_all"] == changed(CART, EMOJI, TOTAL)
    assert seen["warnings"] == []


def test_a_reply_that_does_not_match_shows_its_diagnostic(nvim: str, project: Path) -> None:
    reply = search_replace("    def checkout(self):\n", "    def checkout(self, card):\n")
    seen = drive(nvim, project, "failure", reply=reply)
    (diagnostic,) = seen["diagnostics"]
    assert diagnostic["code"] == "not-found"
    assert diagnostic["severity"] == 1  # vim.diagnostic.severity.ERROR
    assert "SEARCH text not found in `shop/cart.py`" in diagnostic["message"]
    assert seen["buffer"] == CART
    assert any("was not applied" in w for w in seen["warnings"])


def test_accept_and_reject_from_the_standard_code_action_menu(nvim: str, project: Path) -> None:
    reply = search_replace(*ADD) + "\n" + search_replace(*TOTAL)
    seen = drive(
        nvim,
        project,
        "menu",
        reply=reply,
        first_line="        self.items.append(item)",
        second_line="        return sum(item.price for item in self.items)",
    )
    first, second = seen["menus"]
    assert [t.split(":")[0] for t in first] == [
        "Accept change",
        "Reject change",
        "Accept all in file (2)",
        "Reject all in file (2)",
    ]
    assert second[0].startswith("Accept change")
    assert seen["buffer"] == changed(CART, TOTAL)
    assert seen["warnings"] == []


def test_a_reply_document_makes_changes_pending_as_its_lines_are_appended(
    nvim: str, project: Path
) -> None:
    reply = (
        "I will make two changes to the cart.\n\n"
        + search_replace(*ADD)
        + "\nThen the total:\n\n"
        + search_replace(*TOTAL)
        + "\nThat is all.\n"
    )
    seen = drive(
        nvim,
        project,
        "reply_document",
        answer="answer.llm.md",
        reply=reply,
        chunk=3,
        block_line="        if item not in self.items:",
    )
    counts = seen["pending_while_typing"]
    assert counts[0] == 0
    assert counts[-1] == 2
    assert counts == sorted(counts)
    assert 1 in counts
    assert [d["code"] for d in seen["cart_diagnostics"]] == ["pending-change"] * 2
    assert seen["cart_unchanged"]
    assert seen["buffer"] == changed(CART, ADD)
    assert seen["warnings"] == []


# Each kind of change, accepted in each way, is written exactly once (issue 19, 9a: the
# code action's edit, then `lspEdit.accept` sending the same edit again): an insertion
# (REPLACE is SEARCH plus a line), a deletion of a line next to an identical one (the
# edit can slide onto the neighbour), a replacement.
TWICE = "        self.items.append(item)\n"
ONE_CHANGE = {
    "insertion": (CART, (ADD[0], ADD[0] + "        self.count += 1\n")),
    "deletion": (CART.replace(TWICE, TWICE * 2), (TWICE * 2 + "\n", TWICE + "\n")),
    "replacement": (CART, TOTAL),
}


def commands_and_edits(sent: list[dict[str, Any]]) -> list[str]:
    """What Neovim sent that changes text or decides: didChange and the commands."""
    out = []
    for message in sent:
        if message["dir"] == "in" and message["method"] == "textDocument/didChange":
            out.append("didChange")
        elif message["dir"] == "in" and message.get("command") in ("lspEdit.accept",):
            out.append(message["command"])
    return out


@pytest.mark.parametrize("how", ["key", "menu", "command"])
@pytest.mark.parametrize("kind", list(ONE_CHANGE))
def test_a_change_accepted_through_its_code_action_or_command_is_written_once(
    nvim: str, project: Path, kind: str, how: str
) -> None:
    original, change = ONE_CHANGE[kind]
    (project / "shop" / "cart.py").write_text(original)
    seen = drive(
        nvim,
        project,
        "accept_one",
        record=True,
        how=how,
        original=original,
        reply=search_replace(*change),
    )
    expected = changed(original, change)
    assert seen["buffer"] == expected
    assert (project / "shop" / "cart.py").read_text() == expected
    assert seen["statuses"] == ["applied"]
    assert seen["diagnostics"] == []
    assert seen["warnings"] == []
    # What the server can rely on: a code action's edit reaches it (one didChange,
    # flushed at once whatever the debounce) before the command the action runs;
    # :LspEditAccept sends the command, and the server's edit comes back as a didChange.
    order = commands_and_edits(seen["sent"])
    if how == "command":
        assert order == ["lspEdit.accept", "didChange"]
    else:
        assert order == ["didChange", "lspEdit.accept"]


def test_the_lenses_of_a_reply_and_its_file_follow_the_review_without_a_refresh(
    nvim: str, project: Path
) -> None:
    reply = (
        "I will make two changes to the cart.\n\n"
        + search_replace(*ADD)
        + "\nThen the total:\n\n"
        + search_replace(*TOTAL)
    )
    first_block, second_block = "3", "13"  # 0-based lines of the blocks' first lines
    streamed = {
        first_block: "pending in shop/cart.py:7 | Accept | Reject | Go to change",
        second_block: "pending in shop/cart.py:10 | Accept | Reject | Go to change",
    }
    after_accept = {
        first_block: "applied | Go to change",
        second_block: "pending in shop/cart.py:11 | Accept | Reject | Go to change",
    }
    file_after_accept = {"0": "Accept all (1) | Reject all", "10": "Accept | Reject"}
    seen = drive(
        nvim,
        project,
        "reply_lenses",
        answer="answer.llm.md",
        reply=reply,
        block_line="        if item not in self.items:",
        streamed=streamed,
        after_accept=after_accept,
        file_after_accept=file_after_accept,
    )
    assert parts(seen["streamed"]) == parts(streamed)
    assert parts(seen["after_accept"]) == parts(after_accept)
    assert parts(seen["file_after_accept"]) == parts(file_after_accept)
    assert seen["warnings"] == []


def parts(lenses: dict[str, str] | list[Any]) -> dict[str, list[str]]:
    """Each line's lenses, in any order: Neovim 0.10+ sorts a line's lenses by column,
    and every lens of lsp-edit starts at column 0."""
    return {line: sorted(text.split(" | ")) for line, text in dict(lenses or {}).items()}


FAILING = search_replace("    def checkout(self):\n", "    def checkout(self, card):\n")


def test_the_reject_key_dismisses_a_stale_change_and_a_failure_on_their_line(
    nvim: str, project: Path
) -> None:
    reply = search_replace(*ADD) + "\n" + search_replace(*TOTAL) + "\n" + FAILING
    seen = drive(
        nvim,
        project,
        "dismiss",
        reply=reply,
        stale_line="        return sum(item.price for item in self.items)",
        typed="        return 0",
        pending_line="        self.items.append(item)",
    )
    assert [d["code"] for d in seen["before"]].count("stale") == 1
    assert seen["after"] == []
    assert sorted(seen["statuses"]) == ["rejected"] * 3
    stale, accept_failure, failure, rejected = seen["messages"]
    assert stale.startswith("lsp-edit: dismissed: Change to `shop/cart.py` (SEARCH/REPLACE")
    assert stale.endswith("(stale)")
    assert "was not applied: SEARCH text not found" in accept_failure
    assert accept_failure.endswith("(\\rr dismisses it)")
    assert failure.startswith("lsp-edit: dismissed: ") and failure.endswith("(failed)")
    assert rejected.startswith("lsp-edit: rejected: Change to `shop/cart.py`")


def test_a_reply_pasted_in_a_new_buffer_is_reviewed_from_there_and_wa_skips_it(
    nvim: str, project: Path
) -> None:
    reply = (
        "Two changes:\n\n" + search_replace(*ADD) + "\nThen the total:\n" + search_replace(*TOTAL)
    )
    seen = drive(
        nvim,
        project,
        "scratch",
        reply=reply,
        outside_line="Then the total:",
        block_line="        return sum(item.price * item.quantity for item in self.items)",
    )
    assert seen["buftype"] == "nofile"
    assert seen["buffer"] == changed(CART, TOTAL)
    assert seen["wa"] == "written"
    assert seen["disk"] == changed(CART, TOTAL)
    outside, accepted = seen["messages"][-2:]
    assert outside.startswith("lsp-edit: no pending change on this line")
    assert accepted.startswith("lsp-edit: accepted: Change to `shop/cart.py`")
    assert seen["warnings"] == []


def test_the_list_holds_every_pending_change_and_failure_at_its_place(
    nvim: str, project: Path
) -> None:
    (project / "shop" / "tax.py").write_text("RATE = 0.2\n")
    reply = (
        search_replace(*ADD)
        + "\n"
        + FAILING
        + "\n"
        + search_replace("RATE = 0.2\n", "RATE = 0.25\n", path="shop/tax.py")
        + "\n"
        + search_replace("RATE = 0.3\n", "RATE = 0.35\n", path="shop/tax.py")
    )
    seen = drive(nvim, project, "list", reply=reply)
    assert seen["quickfix_open"]
    assert seen["title"] == "lsp-edit: 2 pending, 2 not applied"
    items = [(i["file"], i["line"], i["type"], i["text"].split(":")[0]) for i in seen["items"]]
    assert items == [
        ("shop/cart.py", 1, "E", "failed"),
        ("shop/cart.py", 7, "I", "pending"),
        ("shop/tax.py", 1, "E", "failed"),
        ("shop/tax.py", 1, "I", "pending"),
    ]
    failure = seen["items"][0]["text"]
    assert failure.startswith("failed: Change to `shop/cart.py` (SEARCH/REPLACE, reply line ")
    assert "SEARCH text not found in `shop/cart.py`" in failure


def test_a_reply_of_many_failing_blocks_is_summarised_and_listed(nvim: str, project: Path) -> None:
    blocks = [search_replace(f"no such line {n}\n", f"line {n}\n") for n in range(300)]
    seen = drive(nvim, project, "many_failures", reply="\n".join(blocks))
    (summary,) = seen["messages"]
    lines = summary.splitlines()
    assert lines[:2] == [
        "lsp-edit: No change is pending review.",
        "300 blocks were not applied: :LspEditList lists them. The first:",
    ]
    assert len(lines) == 5
    per_line: dict[int, list[str]] = {}
    for diagnostic in seen["diagnostics"]:
        per_line.setdefault(diagnostic["line"], []).append(diagnostic["message"])
    assert max(len(messages) for messages in per_line.values()) <= 3
    assert any("more blocks were not applied here" in m for ms in per_line.values() for m in ms)
    assert seen["listed"] == 300
