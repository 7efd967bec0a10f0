"""The editor pages in docs/ stay true of the server: the generic page names every
command and setting the server has, the configurations for the editors that cannot
run here (Helix, Sublime Text) are valid TOML and JSON starting the server, and the
command lines they give to see a reply as a diff print it."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

from lsp_edit.server.settings import setting_names

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


def block(page: str, marker: str, language: str) -> str:
    found = re.search(
        rf"<!-- {marker} begins -->\n```{language}\n(.*?)```\n<!-- {marker} ends -->",
        (DOCS / page).read_text(),
        re.S,
    )
    assert found, f"{page} lost its `{marker}` markers"
    return found.group(1)


def test_the_generic_client_page_names_every_command_the_server_has() -> None:
    source = "".join(p.read_text() for p in (REPO / "lsp_edit" / "server").glob("*.py"))
    commands = re.findall(r'command\("(lspEdit\.\w+)"\)', source)
    assert "lspEdit.propose" in commands
    page = (DOCS / "lsp-clients.md").read_text()
    for command in commands:
        assert f"`{command}`" in page, command


def test_the_generic_client_page_names_every_setting_the_server_reads() -> None:
    settings = setting_names()
    assert "replyGlobs" in settings
    page = (DOCS / "lsp-clients.md").read_text()
    for setting in settings:
        assert f"| `{setting}` |" in page, setting


def test_the_helix_configuration_is_toml_that_starts_the_server() -> None:
    config = tomllib.loads(block("helix.md", "helix config", "toml"))
    server = config["language-server"]["lsp-edit"]
    assert [server["command"], *server["args"]] == ["lsp-edit", "serve"]
    assert server["config"] == {"lspEdit": {"mode": "auto"}}
    for language in config["language"]:
        assert "lsp-edit" in language["language-servers"]


def test_the_sublime_configuration_is_json_that_starts_the_server() -> None:
    config = json.loads(block("sublime.md", "sublime config", "json"))
    client = config["clients"]["lsp-edit"]
    assert client["command"] == ["lsp-edit", "serve"]
    assert client["initializationOptions"] == {"lspEdit": {"mode": "auto"}}


CART = "def total(items):\n    return sum(items)\n"
REPLY = (
    "src/cart.py\n<<<<<<< SEARCH\n    return sum(items)\n=======\n"
    "    return round(sum(items), 2)\n>>>>>>> REPLACE\n"
)
DIFF = "-    return sum(items)\n+    return round(sum(items), 2)\n"


def reply_workspace(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "cart.py").write_text(CART)
    (root / "answer.llm.md").write_text(REPLY)
    return root


def run(command: list[str], cwd: Path) -> str:
    """Runs a documented command line with this checkout's `lsp-edit`."""
    assert command[0] == "lsp-edit"
    lsp_edit = Path(sys.executable).parent / "lsp-edit"
    done = subprocess.run(
        [str(lsp_edit), *command[1:]], cwd=cwd, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_helix_page_shows_the_whole_reply_as_a_diff_without_writing(tmp_path: Path) -> None:
    root = reply_workspace(tmp_path)
    (line,) = block("helix.md", "helix diff", "sh").splitlines()
    assert DIFF in run(shlex.split(line), root)
    assert (root / "src" / "cart.py").read_text() == CART


def test_the_sublime_build_system_shows_the_whole_reply_as_a_coloured_diff(
    tmp_path: Path,
) -> None:
    root = reply_workspace(tmp_path)
    build = json.loads(block("sublime.md", "sublime build", "json"))
    assert build["syntax"] == "Packages/Diff/Diff.sublime-syntax"
    variables = {"$file": str(root / "answer.llm.md"), "$folder": str(root)}
    assert DIFF in run([variables.get(part, part) for part in build["cmd"]], tmp_path)
    assert (root / "src" / "cart.py").read_text() == CART
