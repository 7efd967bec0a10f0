"""Which files a path written by its tail may name: never one `.gitignore` ignores,
in a git work tree or not; kept current from file events."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from lsp_edit.listing import FileListing


def make(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


FILES = {
    ".gitignore": "build/\n*.log\n!keep.log\n",
    "src/pkg/util.py": "x = 1\n",
    "build/pkg/util.py": "x = 2\n",
    "src/debug.log": "",
    "src/keep.log": "",
    "vendor/.gitignore": "*.py\n",
    "vendor/lib/util.py": "",
}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture(params=["git work tree", "plain folder"])
def root(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    make(tmp_path, FILES)
    if request.param == "git work tree":
        if shutil.which("git") is None:
            pytest.fail("git is needed for the git work tree case")
        git(tmp_path, "init", "-q")
        git(tmp_path, "add", "src/pkg/util.py")
    return tmp_path


def test_an_ignored_file_is_never_a_candidate(root: Path) -> None:
    assert FileListing(root).matches("pkg/util.py") == ["src/pkg/util.py"]
    assert FileListing(root).matches("util.py") == ["src/pkg/util.py"]


def test_a_negated_rule_keeps_its_file(root: Path) -> None:
    listing = FileListing(root)
    assert listing.matches("debug.log") == []
    assert listing.matches("keep.log") == ["src/keep.log"]


def test_a_file_created_later_is_found_after_its_event(root: Path) -> None:
    listing = FileListing(root)
    assert listing.matches("new/mod.py") == []
    make(root, {"src/new/mod.py": "", "build/new/mod.py": ""})
    listing.added("src/new/mod.py")
    listing.added("build/new/mod.py")
    assert listing.matches("new/mod.py") == ["src/new/mod.py"]
    listing.removed("src/new/mod.py")
    assert listing.matches("new/mod.py") == []


def test_a_path_that_climbs_out_matches_nothing(root: Path) -> None:
    assert FileListing(root).matches("../pkg/util.py") == []
