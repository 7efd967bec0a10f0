"""The real-package bench's harness (bench/realpackages.py, bench/version_replies.py)
on a small package pair written here: every format's reply is generated and applied
by the real CLI, and the classification tells an exact write from a refusal, a
wrong write and a crash. The download run itself is the bench command only."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench import realpackages as bench
from bench import version_replies as replies

LSP_EDIT = Path(sys.executable).parent / "lsp-edit"

OLD: replies.Tree = {
    "PKG-INFO": b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
    ".gitignore": b"build/\n*.pyc\n!keep.pyc\n",
    "tinypkg/__init__.py": (
        b'"""A tiny package."""\n\nimport os\n\n\n'
        b"class Cart:\n"
        b'    """Items to buy."""\n\n'
        b"    def __init__(self):\n        self.items = []\n\n"
        b"    @property\n    def total(self):\n        return sum(self.items)\n\n"
        b"    def add(self, price):\n        self.items.append(price)\n\n\n"
        b"def greet(name):\n    return 'hello ' + name\n"
    ),
    "tinypkg/_speedups.c": (
        b"#include <Python.h>\n\n"
        b"static int count(const char *s) {\n    int n = 0;\n    while (*s++) n++;\n"
        b"    return n;\n}\n\n"
        b"static int twice(int x) {\n    return x + x;\n}\n"
    ),
    "static/copy.js": (
        b"function copy(text) {\n  navigator.clipboard.writeText(text);\n}\n\n"
        b"function label(button) {\n  button.textContent = 'Copy';\n}\n"
    ),
    "README.md": (
        b"# tinypkg\n\nAdd prices:\n\n```python\ncart.add(3)\n```\n\nHeading\n=======\n\nThe end.\n"
    ),
    "win.bat": b"@echo off\r\nset A=1\r\necho %A%\r\n",
    "notes.txt": b"first note\nsecond note\nlast note",
    "old.txt": b"to be removed\n",
}

NEW: replies.Tree = {
    "PKG-INFO": b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.1\n",
    ".gitignore": OLD[".gitignore"],
    "tinypkg/__init__.py": (
        b'"""A tiny package."""\n\nimport os\nimport sys\n\n\n'
        b"class Cart:\n"
        b'    """Items to buy."""\n\n'
        b"    def __init__(self):\n        self.items = []\n        self.coupon = None\n\n"
        b"    @property\n    def total(self):\n        return round(sum(self.items), 2)\n\n"
        b"    def add(self, price):\n        self.items.append(price)\n\n\n"
        b"def greet(name):\n    return f'hello {name}'\n"
    ),
    "tinypkg/_speedups.c": (
        b"#include <Python.h>\n\n"
        b"static int count(const char *s) {\n    int n = 0;\n    while (*s++)\n"
        b"        n++;\n    return n;\n}\n\n"
        b"static int twice(int x) {\n    return x + x;\n}\n"
    ),
    "static/copy.js": (
        b"function copy(text) {\n  return navigator.clipboard.writeText(text);\n}\n\n"
        b"function label(button) {\n  button.textContent = 'Copy';\n}\n"
    ),
    "README.md": (
        b"# tinypkg\n\nAdd prices, then read the total:\n\n```python\ncart.add(3)\n"
        b"cart.total\n```\n\nHeading\n=======\n\nThe end.\n"
    ),
    "win.bat": b"@echo off\r\nset A=2\r\necho %A%\r\n",
    "notes.txt": b"first note, edited\nsecond note\nlast note",
    "new.py": b"print('new')\n",
}


@pytest.fixture(scope="module")
def tallies(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], bench.Tally]:
    found: dict[tuple[str, str], bench.Tally] = {}
    trees = [("1.0", OLD), ("1.1", NEW)]
    work = tmp_path_factory.mktemp("work") / "w"
    bench.run_pairs("tinypkg", trees, replies.FORMATS, LSP_EDIT, work, found, keep=None)
    return found


@pytest.mark.parametrize("fmt", [f.name for f in replies.FORMATS])
def test_every_format_places_every_change_it_can_say_exactly(
    tallies: dict[tuple[str, str], bench.Tally], fmt: str
) -> None:
    tally = tallies[("tinypkg", fmt)]
    assert tally.crashes == 0 and tally.bad == []
    assert tally.files > 0 and tally.kinds["exact"] == tally.files


def test_each_format_says_what_it_can_and_leaves_out_the_rest(
    tallies: dict[tuple[str, str], bench.Tally],
) -> None:
    said = {fmt: tally.files for (_, fmt), tally in tallies.items()}
    # 8 text files change, one is new and one deleted
    assert said["unified_diff"] == said["v4a"] == 9
    assert said["search_replace"] == said["whole_file"] == said["common_prefix"] == 8  # no deletion
    assert said["line_range"] == said["line_operations"] == 7
    # symbols: the Python module, the C file and the JavaScript file
    assert said["ast_path"] == said["chunk_diff"] == 3
    line_range = tallies[("tinypkg", "line_range")].unsaid
    assert line_range == {"new file": 1, "deleted file": 1}


def reply_of(path: str, old: bytes | None, *after: bytes | None) -> replies.Reply:
    return replies.Reply("", (replies.FileReply(path, old, after, ""),), ())


def test_a_file_that_is_not_what_the_reply_says_is_a_wrong_write() -> None:
    reply = reply_of("a.txt", b"a\n", b"b\n")
    changes = [{"file": "a.txt", "status": "applied"}]
    (outcome,) = bench.classify(reply, {"a.txt": b"a\n"}, {"a.txt": b"b\r\n"}, changes)
    assert (outcome.kind, outcome.code) == ("wrong", "line endings")


def test_a_changed_file_the_reply_does_not_edit_is_a_wrong_write() -> None:
    reply = reply_of("a.txt", b"a\n", b"b\n")
    changes = [{"file": "a.txt", "status": "applied"}]
    old = {"a.txt": b"a\n", "b.txt": b"x\n"}
    now = {"a.txt": b"b\n", "b.txt": b"x"}
    exact, stray = bench.classify(reply, old, now, changes)
    assert exact.kind == "exact"
    assert (stray.kind, stray.path) == ("wrong", "b.txt")


def test_blocks_before_a_refused_one_are_a_partial_write_when_only_they_applied() -> None:
    reply = reply_of("a.txt", b"a\nb\n", b"A\nb\n", b"A\nB\n")
    changes = [
        {"file": "a.txt", "status": "applied"},
        {"file": "a.txt", "status": "failed", "code": "not_found"},
    ]
    (outcome,) = bench.classify(reply, {"a.txt": b"a\nb\n"}, {"a.txt": b"A\nb\n"}, changes)
    assert (outcome.kind, outcome.code) == ("partial", "not_found")
    (untouched,) = bench.classify(reply, {"a.txt": b"a\nb\n"}, {"a.txt": b"a\nb\n"}, changes)
    assert untouched.kind == "wrong"


def test_a_cli_that_writes_to_standard_error_has_crashed(tmp_path: Path) -> None:
    fake = tmp_path / "lsp-edit"
    fake.write_text("#!/bin/sh\necho '[]'\necho 'Traceback (most recent call last):' >&2\n")
    fake.chmod(0o755)
    reply = reply_of("a.txt", b"a\n", b"b\n")
    run = bench.apply_reply(reply, {"a.txt": b"a\n"}, fake, tmp_path / "w")
    (crash,) = run.outcomes
    assert crash.kind == "crash" and "Traceback" in crash.detail
