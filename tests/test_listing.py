"""Which files a path written by its tail may name: never one `.gitignore` ignores,
in a git work tree or not; kept current from file events."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

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


def test_a_tracked_file_deleted_since_is_not_a_candidate(root: Path) -> None:
    (root / "src/pkg/util.py").unlink()
    assert FileListing(root).matches("pkg/util.py") == []


# A lookup survives whatever the walk meets: git skips a pattern it cannot read, and
# so does the listing; a file or folder it cannot read is left out, never a traceback.


def test_a_gitignore_pattern_git_cannot_read_is_skipped_and_the_others_still_apply(
    root: Path,
) -> None:
    make(root, {".gitignore": "!\nbuild/\n\\\n*.log\n!keep.log\n"})
    listing = FileListing(root)
    assert listing.matches("pkg/util.py") == ["src/pkg/util.py"]
    assert listing.matches("debug.log") == []
    assert listing.matches("keep.log") == ["src/keep.log"]
    make(root, {"src/late.log": "", "src/late.py": ""})
    listing.added("src/late.log")
    listing.added("src/late.py")
    assert listing.matches("late.log") == []
    assert listing.matches("late.py") == ["src/late.py"]


def test_a_gitignore_in_a_subfolder_that_git_cannot_read_is_skipped(root: Path) -> None:
    make(root, {"src/.gitignore": "!\n", "src/pkg/other.py": ""})
    listing = FileListing(root)
    assert listing.matches("pkg/other.py") == ["src/pkg/other.py"]
    make(root, {"src/pkg/later.py": ""})
    listing.added("src/pkg/later.py")
    assert listing.matches("pkg/later.py") == ["src/pkg/later.py"]


def test_a_gitignore_that_is_a_folder_is_no_rule(tmp_path: Path) -> None:
    make(tmp_path, {".gitignore/inside.txt": "*.py\n", "src/mod.py": ""})
    listing = FileListing(tmp_path)
    assert listing.matches("mod.py") == ["src/mod.py"]
    listing.added("src/mod.py")
    assert listing.matches("mod.py") == ["src/mod.py"]


def test_a_gitignore_not_in_utf8_is_read_for_the_rules_it_has(tmp_path: Path) -> None:
    make(tmp_path, {"src/mod.py": "", "src/debug.log": ""})
    (tmp_path / ".gitignore").write_bytes(b"# caf\xe9\n*.log\n\xff\xfe\n")
    assert FileListing(tmp_path).matches("mod.py") == ["src/mod.py"]
    assert FileListing(tmp_path).matches("debug.log") == []


def test_a_gitignore_that_is_a_link_to_itself_is_no_rule(tmp_path: Path) -> None:
    make(tmp_path, {"src/mod.py": ""})
    (tmp_path / ".gitignore").symlink_to(".gitignore")
    assert FileListing(tmp_path).matches("mod.py") == ["src/mod.py"]


def test_a_gitignore_that_cannot_be_read_is_no_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, {".gitignore": "*.py\n", "src/mod.py": ""})
    real_read = Path.read_text

    def read_text(path: Path, *args: object, **kwargs: object) -> str:
        if path.name == ".gitignore":
            raise PermissionError(13, "Permission denied", str(path))
        return real_read(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", read_text)
    assert FileListing(tmp_path).matches("mod.py") == ["src/mod.py"]


def test_a_folder_that_cannot_be_listed_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, {"locked/mod.py": "", "open/mod.py": ""})
    real_scandir = os.scandir

    def scandir(path: str) -> Any:
        if os.path.basename(path) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert FileListing(tmp_path).matches("mod.py") == ["open/mod.py"]


def test_a_listed_file_that_cannot_be_looked_at_is_no_candidate(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(`git ls-files` lists a tracked file in a folder the user may not enter.)"""
    make(root, {"src/locked/util.py": ""})
    if (root / ".git").exists():
        git(root, "add", "src/locked/util.py")
    real_stat = os.stat

    def stat(path: Any, *args: Any, **kwargs: Any) -> Any:
        if "locked" in os.fspath(path):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    assert FileListing(root).matches("util.py") == ["src/pkg/util.py"]


def test_broken_links_and_loops_of_links_are_no_candidates(root: Path) -> None:
    (root / "src/pkg/gone.py").symlink_to("missing.py")
    (root / "src/pkg/loop.py").symlink_to("loop.py")
    (root / "src/pkg/up").symlink_to("..", target_is_directory=True)
    (root / "src/again").symlink_to("again", target_is_directory=True)
    if (root / ".git").exists():
        git(root, "add", "src/pkg/gone.py", "src/pkg/loop.py", "src/pkg/up", "src/again")
    listing = FileListing(root)
    assert listing.matches("gone.py") == []
    assert listing.matches("loop.py") == []
    assert listing.matches("util.py") == ["src/pkg/util.py"]


def test_a_git_work_tree_whose_listing_fails_is_walked_instead(tmp_path: Path) -> None:
    make(tmp_path, {**FILES, ".gitignore": "!\nbuild/\n"})
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "src/pkg/util.py")
    (tmp_path / ".git/index").write_bytes(b"not an index")
    listing = FileListing(tmp_path)
    assert listing.matches("pkg/util.py") == ["src/pkg/util.py"]
    make(tmp_path, {"build/late.py": "", "src/late.py": ""})
    listing.added("build/late.py")
    listing.added("src/late.py")
    assert listing.matches("late.py") == ["src/late.py"]


def test_a_folder_that_is_not_a_git_work_tree_is_walked(tmp_path: Path) -> None:
    make(tmp_path, {".gitignore": "!\nbuild/\n", "src/a.py": "", "build/a.py": ""})
    assert FileListing(tmp_path).matches("a.py") == ["src/a.py"]


# The files a path that names none may have meant.

NEAR = {
    "shop/cart.py": "",
    "shop/carts.md": "",
    "shop/checkout.py": "",
    "lib/shop/order.py": "",
    "build/shop/cartt.py": "",
    ".gitignore": "build/\n",
}


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("shop/cartt.py", ["shop/cart.py"]),  # a letter too many
        ("shop/crt.py", ["shop/cart.py"]),  # a letter left out
        ("shop/cbrt.py", ["shop/cart.py"]),  # a letter changed
        ("shop/catr.py", ["shop/cart.py"]),  # two letters swapped
        ("shpo/cart.py", ["shop/cart.py"]),  # in a folder's name
        ("shop/ordr.py", ["lib/shop/order.py"]),  # the tail of a longer path
    ],
)
def test_a_file_one_edit_away_is_what_a_path_may_have_meant(
    tmp_path: Path, written: str, meant: list[str]
) -> None:
    make(tmp_path, NEAR)
    assert FileListing(tmp_path).near(written) == meant


def test_nothing_is_near_a_path_two_edits_away_from_every_file(tmp_path: Path) -> None:
    make(tmp_path, NEAR)
    assert FileListing(tmp_path).near("shop/kart2.py") == []


def test_the_files_near_a_path_are_looked_for_within_a_time_bound(tmp_path: Path) -> None:
    import time

    listing = FileListing(tmp_path)
    listing._by_name = {f"module_{n}.py": {f"pkg{n % 97}/module_{n}.py"} for n in range(400_000)}
    started = time.monotonic()
    listing.near("pkg3/modulee_3.py")
    assert time.monotonic() - started < 0.2  # looking through them all takes longer


def test_a_search_for_near_files_past_its_time_finds_nothing_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, NEAR)
    monkeypatch.setattr("lsp_edit.listing._NEAR_BUDGET", -1.0)
    assert FileListing(tmp_path).near("shop/cartt.py") == []
