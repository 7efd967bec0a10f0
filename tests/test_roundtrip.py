"""Property: for a generated file and a generated edit, rendering the edit in each
format and applying it gives exactly the edited file, with the file's line endings
and final newline kept."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_edit.blocks import parse_reply
from lsp_edit.changes import Planner, Session, Status
from lsp_edit.resolve.model import Refused
from lsp_edit.text import Text, detect_line_ending
from lsp_edit.workspace import FileRef

NAME = "notes.txt"
FENCE = "```"


class MemoryFiles:
    """A one-file workspace in memory."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def locate(self, written: str, *, allow_tail_match: bool = True) -> FileRef | Refused:
        from pathlib import Path

        return FileRef(written, Path("/nonexistent") / written)

    def read(self, ref: FileRef) -> Text | Refused | None:
        return self.text if ref.relative == NAME else None

    def similar_files(self, written: str) -> list[str]:
        return []


words = st.text(alphabet="abcdefghij ", min_size=0, max_size=12)


@st.composite
def file_and_edit(draw):
    count = draw(st.integers(min_value=1, max_value=12))
    lines = [f"line {i}: {draw(words)}".rstrip() for i in range(count)]
    start = draw(st.integers(min_value=0, max_value=count))
    end = draw(st.integers(min_value=start, max_value=min(count, start + 4)))
    replacement = [f"new {k}: {draw(words)}".rstrip() for k in range(draw(st.integers(0, 4)))]
    if start == end and not replacement:
        replacement = ["new 0: inserted"]
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    final = draw(st.booleans())
    return lines, start, end, replacement, eol, final


def render_file(lines, eol, final):
    return eol.join(lines) + (eol if final else "")


def context(lines, start, end):
    before = lines[max(0, start - 1) : start]
    after = lines[end : end + 1]
    return before, after


def two_halves(name, opener, divider, closer):
    """A renderer for blocks that write the old lines, then the new (with context)."""

    def render(lines, start, end, new):
        before, after = context(lines, start, end)
        old_block = [*before, *lines[start:end], *after]
        new_block = [*before, *new, *after]
        return (
            f"{NAME}\n{opener}\n"
            + "".join(x + "\n" for x in old_block)
            + f"{divider}\n"
            + "".join(x + "\n" for x in new_block)
            + f"{closer}\n"
        )

    render.__name__ = name
    return render


search_replace = two_halves("search_replace", "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE")
common_prefix = two_halves("common_prefix", "««« EDIT", "═══════ REPL", "»»» EDIT END")


def unified_diff(lines, start, end, new):
    before, after = context(lines, start, end)
    old_count = len(before) + (end - start) + len(after)
    new_count = len(before) + len(new) + len(after)
    old_start = start - len(before) + 1 if old_count else start
    body = [" " + x for x in before] + ["-" + x for x in lines[start:end]]
    body += ["+" + x for x in new] + [" " + x for x in after]
    return (
        f"--- a/{NAME}\n+++ b/{NAME}\n@@ -{old_start},{old_count} +{old_start},{new_count} @@\n"
        + "".join(x + "\n" for x in body)
    )


def v4a(lines, start, end, new):
    before, after = context(lines, start, end)
    body = [" " + x for x in before] + ["-" + x for x in lines[start:end]]
    body += ["+" + x for x in new] + [" " + x for x in after]
    return (
        f"*** Begin Patch\n*** Update File: {NAME}\n@@\n"
        + "".join(x + "\n" for x in body)
        + "*** End Patch\n"
    )


def line_range(lines, start, end, new):
    return (
        f"{NAME}\n{FENCE}text:{start + 1}:{end + 1}\n"
        + "".join(x + "\n" for x in new)
        + f"{FENCE}\n"
    )


def line_operations(lines, start, end, new):
    ops = []
    if end > start:
        ops.append({"op": "delete_lines", "path": NAME, "start_line": start + 1, "end_line": end})
    if new:
        remaining = len(lines) - (end - start)
        if start < remaining:
            ops.append(
                {
                    "op": "insert_lines",
                    "path": NAME,
                    "line": start + 1,
                    "position": "before",
                    "content": "\n".join(new) + "\n",
                }
            )
        elif remaining:
            ops.append(
                {
                    "op": "insert_lines",
                    "path": NAME,
                    "line": remaining,
                    "position": "after",
                    "content": "\n".join(new) + "\n",
                }
            )
        else:
            ops.append(
                {
                    "op": "insert_lines",
                    "path": NAME,
                    "line": 1,
                    "position": "before",
                    "content": "\n".join(new) + "\n",
                }
            )
    return f"{FENCE}json\n{json.dumps(ops)}\n{FENCE}\n"


def complete_file(lines, start, end, new):
    content = [*lines[:start], *new, *lines[end:]]
    return f"{NAME}\n{FENCE}text\n" + "".join(x + "\n" for x in content) + f"{FENCE}\n"


FORMATS = [search_replace, common_prefix, unified_diff, v4a, line_range, complete_file]


def apply(reply, source):
    planner = Planner(MemoryFiles(Text.from_string(source)), Session("auto"))
    planner.add(parse_reply(reply))
    return planner.plan


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(file_and_edit())
def test_every_format_of_the_same_edit_gives_the_same_file(case):
    lines, start, end, new, eol, final = case
    source = render_file(lines, eol, final)
    edited = [*lines[:start], *new, *lines[end:]]
    # a one-line file without a final newline has no ending to keep: new lines get LF
    expected = render_file(edited, detect_line_ending(source), final if edited else False)
    # a whole file that is the old file's start, unchanged, reads as a cut-off reply
    cut_off = edited != lines and lines[: len(edited)] == edited
    for render in FORMATS:
        if render is complete_file and cut_off:
            continue
        reply = render(lines, start, end, new)
        plan = apply(reply, source)
        assert [c.status for c in plan.changes] == [Status.APPLIED], (render.__name__, plan.changes)
        after = plan.files[NAME].after
        assert after is not None
        # (a diff or a patch that does not speak of the final newline keeps the file's)
        assert after.render() == expected, render.__name__


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(file_and_edit())
def test_line_operations_give_the_edited_file(case):
    lines, start, end, new, eol, _final = case
    source = render_file(lines, eol, True)
    edited = [*lines[:start], *new, *lines[end:]]
    plan = apply(line_operations(lines, start, end, new), source)
    assert all(c.status is Status.APPLIED for c in plan.changes), plan.changes
    after = plan.files[NAME].after
    assert after is not None
    # even after deleting every line first, the inserted lines keep the file's ending
    assert after.render() == render_file(edited, eol, bool(edited))
