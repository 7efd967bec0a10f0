"""The examples in docs/cli.md and docs/formats.md are what lsp-edit really does:
each `$ lsp-edit ...` example is run from the repository root and prints exactly
the output shown, and the JSON operations example applies as written."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from lsp_edit.blocks import parse_reply
from lsp_edit.changes import Planner, Session, Status
from lsp_edit.cli import main
from lsp_edit.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = re.compile(
    r"<!-- cli example begins -->\n```console\n(.*?)```\n<!-- cli example ends -->", re.S
)


def cli_examples() -> list[str]:
    return EXAMPLE.findall((REPO / "docs" / "cli.md").read_text())


def test_the_cli_page_has_examples() -> None:
    assert len(cli_examples()) >= 3


@pytest.mark.parametrize("example", cli_examples())
def test_each_cli_example_prints_what_the_page_shows(example, capsys, monkeypatch) -> None:
    command, _, shown = example.partition("\n")
    words = shlex.split(command.removeprefix("$ "))
    assert words[0] == "lsp-edit" and "--dry-run" in words, "examples must not write"
    monkeypatch.chdir(REPO)
    main(words[1:])
    assert capsys.readouterr().out == shown


def test_the_json_operations_example_applies_as_written(tmp_path) -> None:
    page = (REPO / "docs" / "formats.md").read_text()
    found = re.search(r"## JSON operations\n\n```json\n(.*?)```", page, re.S)
    assert found, "formats.md lost its JSON operations example"
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "client.py").write_text(
        "class Client:\n    def chat(self):\n        return 1\n"
    )
    (tmp_path / "notes.txt").write_text("one\ntwo\nthree\nfour\nfive\nsix\n")
    operations = json.loads(found.group(1))
    assert {op["op"] for op in operations} >= {"chunk_diff", "delete_lines", "insert_lines"}
    planner = Planner(Workspace(tmp_path), Session())
    planner.add(parse_reply(f"```json\n{found.group(1)}```\n"))
    assert [c.status for c in planner.plan.changes] == [Status.APPLIED] * len(operations)
    files = planner.plan.files
    assert files["notes.txt"].after is not None
    assert files["notes.txt"].after.render() == "one\ntwo\nx\nsix\n"
    client = files["src/client.py"].after
    assert client is not None and client.render().endswith("        return 2\n")
