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
import re
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


def drive(scenario: str, work: Path, command: list[str], **more: Any) -> dict[str, Any]:
    """Runs one scenario in a fresh code-server on `work/project` and returns what the
    user saw (`more`: what else the scenario is given, such as `settings`)."""
    screenshots = os.environ.get("LSP_EDIT_SCREENSHOTS")
    given = {
        "codeServer": str(CODE_SERVER),
        "vsix": str(VSIX),
        "workspace": str(work / "project"),
        "serverCommand": command,
        "work": str(work / "vscode"),
        "screenshots": str(Path(screenshots).resolve()) if screenshots else None,
        **more,
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
    # The hover's first row is the diagnostic, which VS Code shows as plain text: no
    # Markdown (`code`) in it, nor in the Markdown part below it.
    hover = steps["hover"]["text"]
    assert "Replace 2 lines with 3: Change to" in hover
    assert "`" not in hover, hover
    next_lines = [step["line"] for step in saw["steps"] if step["step"] == "next"]
    # Two lines typed at the top: the changes moved down with their lines.
    assert next_lines == [7, 12]
    assert steps["accepted"]["status"] == "1 pending change"
    assert steps["rejected"]["status"] == "No pending changes"
    # Once the last change is decided, nothing says changes are pending.
    assert not [n for n in steps["decided"]["notifications"] if "pending" in n]

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


THREE = """\
Three changes to the cart.

src/cart.py
<<<<<<< SEARCH
    def __init__(self):
        self.items = []
=======
    def __init__(self, owner):
        self.owner = owner
        self.items = []
>>>>>>> REPLACE

src/cart.py
<<<<<<< SEARCH
        self.items.append(item)
=======
        self.items.append(item)
        return len(self.items)
>>>>>>> REPLACE

src/cart.py
<<<<<<< SEARCH
        return sum(item.price for item in self.items)
=======
        return round(sum(item.price for item in self.items), 2)
>>>>>>> REPLACE
"""

THREE_MORE = """\
Three more.

src/cart.py
<<<<<<< SEARCH
class Cart:
=======
class Cart:
    \"\"\"What a customer buys.\"\"\"
>>>>>>> REPLACE

src/cart.py
<<<<<<< SEARCH
        return len(self.items)
=======
        return self.count()
>>>>>>> REPLACE

src/cart.py
<<<<<<< SEARCH
        return round(sum(item.price for item in self.items), 2)
=======
        return round(sum(item.price for item in self.items), 2)

    def count(self):
        return len(self.items)
>>>>>>> REPLACE
"""

CART_AFTER_THREE = """\
class Cart:
    def __init__(self, owner):
        self.owner = owner
        self.items = []

    def add(self, item):
        self.items.append(item)
        return len(self.items)

    def total(self):
        return round(sum(item.price for item in self.items), 2)
"""

CART_AFTER_SIX = """\
class Cart:
    \"\"\"What a customer buys.\"\"\"
    def __init__(self, owner):
        self.owner = owner
        self.items = []

    def add(self, item):
        self.items.append(item)
        return self.count()

    def total(self):
        return round(sum(item.price for item in self.items), 2)

    def count(self):
        return len(self.items)
"""


def lsp_edit_problems(problems: list[str]) -> list[str]:
    return [problem for problem in problems if "lsp-edit" in problem]


@pytest.mark.usefixtures("vscode")
def test_accept_all_says_how_many_changes_it_accepted_and_leaves_no_problem(
    tmp_path: Path,
) -> None:
    folder = project(tmp_path)
    (folder / "three.md").write_text(THREE)
    (folder / "three-more.md").write_text(THREE_MORE)
    saw = drive("accept-all", tmp_path, [str(SERVER), "serve"])
    steps = {step["step"]: step for step in saw["steps"]}

    assert steps["proposed"]["status"] == "3 pending changes"
    assert "LSP Edit: 3 changes accepted." in steps["accepted"]["messages"]
    assert steps["accepted"]["status"] == "No pending changes"
    for step in ("accepted", "saved", "reverted", "accepted from the lens", "saved again"):
        assert lsp_edit_problems(steps[step]["problems"]) == [], step
    assert not [n for n in steps["accepted"]["notifications"] if "pending" in n]
    # The lens runs the server's command: the client tells its outcome too.
    assert "LSP Edit: 3 changes accepted." in steps["accepted from the lens"]["messages"]
    assert (folder / "src" / "cart.py").read_text() == CART_AFTER_SIX


NO_FILE = """\
Round the total.

```python:Cart-total
def total(self):
    return round(sum(item.price for item in self.items), 2)
```
"""


@pytest.mark.usefixtures("vscode")
def test_a_block_that_names_no_file_goes_to_the_source_file_not_to_markdown(
    tmp_path: Path,
) -> None:
    folder = project(tmp_path)
    readme = "# The shop\n\nA cart.\n"
    (folder / "README.md").write_text(readme)
    (folder / "nofile.md").write_text(NO_FILE)
    (folder / "notes.llm.md").write_text(NO_FILE)
    saw = drive("no-file-target", tmp_path, [str(SERVER), "serve"])
    steps = {step["step"]: step for step in saw["steps"]}

    # Each time the change is in cart.py, shown there (the driver waits for its tab).
    for step in ("clipboard", "active editor", "selection"):
        assert steps[step]["status"] == "1 pending change", step
    assert steps["reply document"]["status"] == "1 pending change"
    assert any("pending in src/cart.py" in lens for lens in steps["reply lenses"]["lenses"])
    problems = lsp_edit_problems(steps["reply lenses"]["problems"])
    assert problems and all(problem.startswith("cart.py: ") for problem in problems), problems
    assert (folder / "README.md").read_text() == readme
    assert (folder / "src" / "cart.py").read_text() == CART


OTHER = """\
def discount(total):
    return total
"""

ONE_GOOD_ONE_FAILING = """\
src/cart.py
<<<<<<< SEARCH
        return sum(item.price for item in self.items)
=======
        return round(sum(item.price for item in self.items), 2)
>>>>>>> REPLACE

src/other.py
<<<<<<< SEARCH
def discount(total, rate):
    return total * (1 - rate)
=======
def discount(total, rate=0.1):
    return total * (1 - rate)
>>>>>>> REPLACE
"""


@pytest.mark.usefixtures("vscode")
def test_the_list_of_changes_holds_failures_with_their_reason_and_goes_to_them(
    tmp_path: Path,
) -> None:
    folder = project(tmp_path)
    (folder / "src" / "other.py").write_text(OTHER)
    (folder / "reply.md").write_text(ONE_GOOD_ONE_FAILING)
    saw = drive("failures-list", tmp_path, [str(SERVER), "serve"])
    steps = {step["step"]: step for step in saw["steps"]}

    rows = steps["listed"]["rows"]
    assert any("src/cart.py" in row for row in rows), rows
    failed = [row for row in rows if "src/other.py" in row]
    assert len(failed) == 1, rows
    assert "not-found" in failed[0] or "not found" in failed[0], failed
    # other.py was never opened: the list opens it, at the failure's problem.
    assert steps["went"]["tab"] == "other.py"
    problems = [p for p in lsp_edit_problems(steps["went"]["problems"]) if "other.py" in p]
    assert len(problems) == 1, steps["went"]["problems"]
    line = re.search(r"at line (\d+)", problems[0])
    assert line and steps["went"]["line"] == int(line.group(1)), problems


INSERT = """\
src/cart.py
<<<<<<< SEARCH
        self.items.append(item)
=======
        self.items.append(item)
        self.count = len(self.items)
>>>>>>> REPLACE
"""


@pytest.mark.usefixtures("vscode")
def test_a_pure_insertion_accepted_with_the_quick_fix_is_inserted_once(tmp_path: Path) -> None:
    folder = project(tmp_path)
    (folder / "reply.md").write_text(INSERT)
    saw = drive("quick-fix-insert", tmp_path, [str(SERVER), "serve"])
    steps = {step["step"]: step for step in saw["steps"]}

    assert steps["accepted"]["status"] == "No pending changes"
    assert lsp_edit_problems(steps["saved"]["problems"]) == []
    assert (folder / "src" / "cart.py").read_text() == CART.replace(
        "        self.items.append(item)\n",
        "        self.items.append(item)\n        self.count = len(self.items)\n",
    )


def user_settings(work: Path) -> dict[str, Any]:
    settings: dict[str, Any] = json.loads(
        (work / "vscode" / "data" / "User" / "settings.json").read_text()
    )
    return settings


ADDED_ADD = [
    "+     def add(self, item, quantity=1):",
    "+         for _ in range(quantity):",
    "+             self.items.append(item)",
]
DELETED_ADD = ["-     def add(self, item):", "-         self.items.append(item)"]
DELETED_TOTAL = ["-         return sum(item.price for item in self.items)"]
ADDED_TOTAL = ["+         return round(sum(item.price for item in self.items), 2)"]


def changed(view: dict[str, Any]) -> list[str]:
    return [line for line in view["lines"] if line[:1] in "+-"]


@pytest.mark.usefixtures("vscode")
def test_one_key_shows_the_new_lines_inline_and_the_keys_decide_the_change_under_the_cursor(
    tmp_path: Path,
) -> None:
    folder = project(tmp_path)
    # The user wants diffs side by side: the review is inline all the same, and the
    # setting stays as it is for every other diff.
    saw = drive(
        "inline-review",
        tmp_path,
        [str(SERVER), "serve"],
        settings={"diffEditor.renderSideBySide": True},
    )
    steps = {step["step"]: step for step in saw["steps"]}

    (view,) = steps["opened"]["views"]
    assert steps["opened"]["tab"] == "cart.py: pending changes"
    assert not view["sideBySide"]
    # Each change's old lines, then its new lines, where they land; the rest kept.
    assert changed(view) == DELETED_ADD + ADDED_ADD + DELETED_TOTAL + ADDED_TOTAL
    assert view["lines"][:4] == [
        "  class Cart:",
        "      def __init__(self):",
        "          self.items = []",
        "  ",
    ]
    assert view["lines"].index(ADDED_ADD[0]) == view["lines"].index(DELETED_ADD[-1]) + 1
    assert view["lenses"].count("Accept | Reject") == 2
    # The cursor is on the change it was opened from: its first new line.
    assert steps["opened"]["line"] == 5
    assert (steps["to the file"]["tab"], steps["to the file"]["line"]) == ("cart.py", 5)
    assert (steps["back"]["tab"], steps["back"]["line"]) == ("cart.py: pending changes", 5)

    assert steps["accepted"]["status"] == "1 pending change"
    (view,) = steps["accepted"]["views"]
    assert changed(view) == DELETED_TOTAL + ADDED_TOTAL
    assert view["lenses"] == ["Accept | Reject"]
    assert steps["next"]["line"] == 10
    assert steps["rejected"]["status"] == "No pending changes"
    (view,) = steps["rejected"]["views"]
    assert changed(view) == []
    assert view["lenses"] == []

    (other,) = steps["other diff"]["views"]
    assert other["sideBySide"], steps["other diff"]
    settings = user_settings(tmp_path)
    assert settings["diffEditor.renderSideBySide"] is True
    assert not [key for key in settings if "lsp-edit" in key], settings
    assert (folder / "src" / "cart.py").read_text() == CART.replace(
        "    def add(self, item):\n        self.items.append(item)\n",
        "    def add(self, item, quantity=1):\n"
        "        for _ in range(quantity):\n"
        "            self.items.append(item)\n",
    )


TWO_FILES = """\
src/cart.py
<<<<<<< SEARCH
        return sum(item.price for item in self.items)
=======
        return round(sum(item.price for item in self.items), 2)
>>>>>>> REPLACE

src/other.py
<<<<<<< SEARCH
def discount(total):
    return total
=======
def discount(total, rate=0.1):
    return total * (1 - rate)
>>>>>>> REPLACE
"""


@pytest.mark.usefixtures("vscode")
def test_a_reply_that_changes_two_files_is_reviewed_inline_in_one_view(tmp_path: Path) -> None:
    folder = project(tmp_path)
    (folder / "src" / "other.py").write_text(OTHER)
    (folder / "two.md").write_text(TWO_FILES)
    saw = drive("reply-review", tmp_path, [str(SERVER), "serve"])
    steps = {step["step"]: step for step in saw["steps"]}

    assert steps["opened"]["tab"] == "The reply's pending changes (2 files)"
    cart, other = steps["opened"]["views"]
    assert not cart["sideBySide"] and not other["sideBySide"]
    assert changed(cart) == DELETED_TOTAL + ADDED_TOTAL
    assert changed(other) == [
        "- def discount(total):",
        "-     return total",
        "+ def discount(total, rate=0.1):",
        "+     return total * (1 - rate)",
    ]
    assert steps["accepted"]["status"] == "1 pending change"
    cart, other = steps["accepted"]["views"]
    assert changed(cart) == DELETED_TOTAL + ADDED_TOTAL
    assert changed(other) == []
    assert steps["rejected"]["status"] == "No pending changes"
    assert [changed(view) for view in steps["rejected"]["views"]] == [[], []]
    assert (folder / "src" / "cart.py").read_text() == CART
    assert (folder / "src" / "other.py").read_text() == (
        "def discount(total, rate=0.1):\n    return total * (1 - rate)\n"
    )


FIRST_BLOCK, SECOND_BLOCK = REPLY.rsplit("\n\nsrc/cart.py\n", 1)


@pytest.mark.usefixtures("vscode")
def test_the_review_follows_a_reply_document_as_it_is_written(tmp_path: Path) -> None:
    folder = project(tmp_path)
    (folder / "notes.llm.md").write_text(FIRST_BLOCK + "\n")
    second = "\nsrc/cart.py\n" + SECOND_BLOCK
    # The second block arrives in two pieces: its first lines, then the rest.
    cut = second.index("    return")
    saw = drive(
        "streamed-review", tmp_path, [str(SERVER), "serve"], stream=[second[:cut], second[cut:]]
    )
    steps = {step["step"]: step for step in saw["steps"]}

    (view,) = steps["opened"]["views"]
    assert changed(view) == DELETED_ADD + ADDED_ADD
    # A block half written is no change yet.
    (view,) = steps["half written"]["views"]
    assert steps["half written"]["status"] == "1 pending change"
    assert changed(view) == DELETED_ADD + ADDED_ADD
    (view,) = steps["written"]["views"]
    assert steps["written"]["status"] == "2 pending changes"
    assert changed(view) == DELETED_ADD + ADDED_ADD + DELETED_TOTAL + ADDED_TOTAL
    # A line typed in the file is in the review too, kept: not shown as deleted.
    (view,) = steps["typed"]["views"]
    assert view["lines"][0] == "  # Typed while the review is open."
    assert changed(view) == DELETED_ADD + ADDED_ADD + DELETED_TOTAL + ADDED_TOTAL
    assert (folder / "src" / "cart.py").read_text() == CART
