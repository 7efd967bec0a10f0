"""Every format keeps a file's final newline, or its lack of one, unless the block
says otherwise (a diff's `\\ No newline at end of file`, an inserted text's own
ending); the lines it keeps stay byte-identical, their endings too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_edit.blocks import parse_reply
from lsp_edit.changes import Planner, Session, Status
from lsp_edit.resolve.model import Refused
from lsp_edit.text import Text
from lsp_edit.workspace import FileRef

NAME = "shapes.py"
LINES = ["def a():", "    return 1", "", "", "def b():", "    return 2"]


class OneFile:
    def __init__(self, text: Text) -> None:
        self.text = text

    def locate(self, written: str, *, allow_tail_match: bool = True) -> FileRef | Refused:
        return FileRef(written, Path("/nonexistent") / written)

    def read(self, ref: FileRef) -> Text | Refused | None:
        return self.text if ref.relative == NAME else None

    def similar_files(self, written: str) -> list[str]:
        return []


def placed(reply: str, source: str, mode: str = "auto") -> str:
    planner = Planner(OneFile(Text.from_string(source)), Session(mode))
    planner.add(parse_reply(reply))
    assert [c.status for c in planner.plan.changes] == [Status.APPLIED], planner.plan.changes
    after = planner.plan.files[NAME].after
    assert after is not None
    return after.render()


def op(**fields: object) -> str:
    return f"```json\n{json.dumps({**fields, 'path': NAME})}\n```\n"


LAST_LINE = ["def a():", "    return 1", "", "", "def b():", "    return 3"]
APPENDED = [*LINES, "", "", "def c():", "    return 3"]
REPLIES = {
    "v4a": (
        f"*** Begin Patch\n*** Update File: {NAME}\n@@\n def b():\n-    return 2\n"
        "+    return 3\n*** End Patch\n",
        LAST_LINE,
    ),
    "v4a, lines added with no context": (
        f"*** Begin Patch\n*** Update File: {NAME}\n@@\n+\n+\n+def c():\n+    return 3\n"
        "*** End Patch\n",
        APPENDED,
    ),
    "v4a, before *** End of File": (
        f"*** Begin Patch\n*** Update File: {NAME}\n@@\n     return 2\n+\n+\n+def c():\n"
        "+    return 3\n*** End of File\n*** End Patch\n",
        APPENDED,
    ),
    "unified diff without the marker": (
        f"--- a/{NAME}\n+++ b/{NAME}\n@@ -5,2 +5,2 @@\n def b():\n-    return 2\n+    return 3\n",
        LAST_LINE,
    ),
    "search/replace": (
        f"{NAME}\n<<<<<<< SEARCH\n    return 2\n=======\n    return 3\n>>>>>>> REPLACE\n",
        LAST_LINE,
    ),
    "search/replace adding lines at the end": (
        f"{NAME}\n<<<<<<< SEARCH\n    return 2\n=======\n    return 2\n\n\ndef c():\n"
        "    return 3\n>>>>>>> REPLACE\n",
        APPENDED,
    ),
    "common prefix": (
        f"{NAME}\n««« EDIT\ndef b():\n    return 2\n═══════ REPL\ndef b():\n    return 3\n"
        "»»» EDIT END\n",
        LAST_LINE,
    ),
    "ast path": (f"{NAME}\n```python:b\ndef b():\n    return 3\n```\n", LAST_LINE),
    "ast path after the last symbol": (
        f"{NAME}\n```python:b:after\ndef c():\n    return 3\n```\n",
        APPENDED,
    ),
    "chunk diff": (
        op(
            op="chunk_diff",
            symbol="b",
            chunks=[
                {
                    "context_before": ["def b():"],
                    "old_lines": ["    return 2"],
                    "new_lines": ["    return 3"],
                    "context_after": [],
                }
            ],
        ),
        LAST_LINE,
    ),
    "delete_lines of the last line": (
        op(op="delete_lines", start_line=6, end_line=6),
        LINES[:-1],
    ),
    "whole file": (
        f"{NAME}\n```python\n" + "\n".join(LAST_LINE) + "\n```\n",
        LAST_LINE,
    ),
}


@pytest.mark.parametrize("eol", ["\n", "\r\n"], ids=["LF", "CRLF"])
@pytest.mark.parametrize("fmt", list(REPLIES))
def test_a_file_without_a_final_newline_keeps_having_none(fmt: str, eol: str) -> None:
    reply, expected = REPLIES[fmt]
    assert placed(reply, eol.join(LINES)) == eol.join(expected)


@pytest.mark.parametrize("eol", ["\n", "\r\n"], ids=["LF", "CRLF"])
@pytest.mark.parametrize("fmt", list(REPLIES))
def test_a_file_with_a_final_newline_keeps_it(fmt: str, eol: str) -> None:
    reply, expected = REPLIES[fmt]
    assert placed(reply, eol.join(LINES) + eol) == eol.join(expected) + eol


def test_a_line_range_at_the_end_keeps_the_missing_final_newline() -> None:
    reply = f"{NAME}\n```python:6:7\n    return 3\n```\n"
    assert placed(reply, "\n".join(LINES), "line_numbers") == "\n".join(LAST_LINE)


def test_a_diff_that_marks_its_new_side_ends_the_file_without_a_newline() -> None:
    reply = (
        f"--- a/{NAME}\n+++ b/{NAME}\n@@ -5,2 +5,2 @@\n def b():\n-    return 2\n"
        "+    return 3\n\\ No newline at end of file\n"
    )
    assert placed(reply, "\n".join(LINES) + "\n") == "\n".join(LAST_LINE)


def test_a_diff_that_marks_only_its_old_side_ends_the_file_with_a_newline() -> None:
    reply = (
        f"--- a/{NAME}\n+++ b/{NAME}\n@@ -5,2 +5,2 @@\n def b():\n-    return 2\n"
        "\\ No newline at end of file\n+    return 3\n"
    )
    assert placed(reply, "\n".join(LINES)) == "\n".join(LAST_LINE) + "\n"


@pytest.mark.parametrize("content", ["# end", "# end\n"])
def test_lines_inserted_after_the_last_line_end_the_file_as_their_text_does(content: str) -> None:
    reply = op(op="insert_lines", line=6, position="after", content=content)
    assert placed(reply, "\n".join(LINES)) == "\n".join(LINES) + "\n" + content
