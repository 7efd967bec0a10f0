"""`lsp-edit apply --diff`: the unified diff of each file the reply changed."""

from __future__ import annotations

import difflib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_edit.file_diff import unified_diff

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@\n")


def applied(old: list[str], diff: str) -> list[str]:
    """`old` with the diff's hunks applied, strictly: every context and removed line
    must be in `old` where the hunk says."""
    lines = diff.splitlines(keepends=True)
    assert lines[0].startswith("--- ") and lines[1].startswith("+++ ")
    out: list[str] = []
    at = 0
    for line in lines[2:]:
        header = _HUNK.fullmatch(line)
        if header:
            start, count = int(header[1]), int(header[2] or 1)
            first = start - 1 if count else start
            assert first >= at, "hunks out of order or overlapping"
            out += old[at:first]
            at = first
        elif line[0] == "+":
            out.append(line[1:])
        else:
            assert old[at] == line[1:], f"line {at + 1} is not {line[1:]!r}"
            if line[0] == " ":
                out.append(line[1:])
            at += 1
    return out + old[at:]


def python_module(functions: int) -> list[str]:
    """A long file whose lines repeat (`return total`, blank lines), as code does."""
    lines = []
    for n in range(functions):
        lines += [f"def function_{n}(value):\n", f"    total = value * {n}\n"]
        lines += ["    return total\n", "\n"]
    return lines


_LINES = st.lists(st.sampled_from([f"line {n}\n" for n in range(8)] + ["\n"]), max_size=40)


@settings(max_examples=300, deadline=None)
@given(_LINES, _LINES)
def test_a_short_files_diff_is_difflibs_byte_for_byte(old, new):
    expected = "".join(difflib.unified_diff(old, new, "a/f.py", "b/f.py"))
    assert unified_diff(old, new, "a/f.py", "b/f.py") == expected


def test_equal_files_have_no_diff():
    lines = python_module(1_000)
    assert unified_diff(lines, list(lines), "a/f.py", "b/f.py") == ""


def test_edits_spread_over_a_long_file_each_show_only_their_changed_line():
    old = python_module(5_000)  # 20,000 lines
    new = list(old)
    edited = range(1, len(old), 100)  # 200 `total = ...` lines
    for index in edited:
        new[index] = new[index].replace("\n", " + 1\n")
    diff = unified_diff(old, new, "a/f.py", "b/f.py")
    assert applied(old, diff) == new
    removed = [line for line in diff.splitlines() if line.startswith("-") and line != "--- a/f.py"]
    assert removed == [f"-{old[index].rstrip()}" for index in edited]
    assert diff.count("\n@@ ") == len(edited)


def test_a_long_files_diff_turns_the_old_file_into_the_new_one():
    old = python_module(1_000)
    new = list(old)
    new[10:10] = ["def added():\n", "    return 1\n", "\n"]  # inserted near the top
    del new[2_000:2_008]  # two functions removed from the middle
    new[3_000] = "    return total  # checked\n"  # a repeated line changed
    new += ["# the end\n"]
    diff = unified_diff(old, new, "a/f.py", "b/f.py")
    assert applied(old, diff) == new
    assert "+def added():\n" in diff and "+# the end\n" in diff


def test_a_file_made_or_removed_is_all_added_or_all_removed_lines():
    lines = python_module(600)
    made = unified_diff([], lines, "/dev/null", "b/f.py")
    assert made.startswith("--- /dev/null\n+++ b/f.py\n@@ -0,0 +1,2400 @@\n")
    removed = unified_diff(lines, [], "a/f.py", "/dev/null")
    assert removed.startswith("--- a/f.py\n+++ /dev/null\n@@ -1,2400 +0,0 @@\n")
    assert applied(lines, removed) == []
