"""delete_lines / insert_lines with seed 003's newline edge cases."""

from __future__ import annotations

from typing import Any

import pytest

from lsp_edit.blocks.model import DeleteLines, InsertLines, ReplySpan
from lsp_edit.resolve.line_ops import resolve_line_operation
from lsp_edit.resolve.model import Placed, Refused
from lsp_edit.text import Text

SPAN = ReplySpan(1, 1)


def run(source: str, op: DeleteLines | InsertLines) -> str:
    text = Text.from_string(source)
    result = resolve_line_operation(op, text)
    assert isinstance(result, Placed), result
    return text.replace(result.edits, final_newline=result.final_newline).render()


def delete(start: Any, end: Any) -> DeleteLines:
    return DeleteLines(SPAN, None, start, end)


def insert(line: Any, position: str, content: str) -> InsertLines:
    return InsertLines(SPAN, None, line, position, content)


def test_delete_one_line() -> None:
    assert run("a\nb\nc\n", delete(2, 2)) == "a\nc\n"


def test_delete_is_inclusive_of_the_end_line() -> None:
    assert run("a\nb\nc\nd\n", delete(2, 3)) == "a\nd\n"


def test_deleting_the_last_line_leaves_no_stray_newline() -> None:
    assert run("a\nb\nc", delete(3, 3)) == "a\nb"


def test_deleting_every_line_leaves_an_empty_file() -> None:
    assert run("a\nb\n", delete(1, 2)) == ""


def test_insert_before_a_line() -> None:
    assert run("a\nb\n", insert(2, "before", "x\n")) == "a\nx\nb\n"


def test_content_without_newline_inserted_before_a_line_stays_a_whole_line() -> None:
    assert run("a\nb\n", insert(1, "before", "x")) == "x\na\nb\n"


def test_inserting_after_a_last_line_without_newline_adds_one_first() -> None:
    assert (
        run("first line\nlast line", insert(2, "after", "new line\n"))
        == "first line\nlast line\nnew line\n"
    )


def test_content_at_the_end_without_newline_leaves_the_file_without_one() -> None:
    assert run("a\n", insert(1, "after", "b")) == "a\nb"


def test_inserted_lines_take_the_files_line_ending() -> None:
    assert run("a\r\nb\r\n", insert(1, "after", "x\ny\n")) == "a\r\nx\r\ny\r\nb\r\n"


@pytest.mark.parametrize("position", ["before", "after"])
def test_inserting_into_an_empty_file_at_line_1(position: str) -> None:
    assert run("", insert(1, position, "x\n")) == "x\n"


@pytest.mark.parametrize(
    ("op", "code", "part"),
    [
        (delete(0, 1), "line_out_of_range", "line number must be 1 or more, got 0"),
        (delete(-2, 1), "line_out_of_range", "got -2"),
        (
            delete(2, 9),
            "line_out_of_range",
            "lines 2-9 are past the end of the file, which has 3 lines",
        ),
        (delete(3, 2), "invalid_operation", "end line 2 is before start line 3"),
        (delete(True, 2), "invalid_operation", "start_line must be an integer, got True"),
        (
            insert(0, "before", "x"),
            "line_out_of_range",
            'to insert at the top, use line 1 with "before"',
        ),
        (insert(4, "after", "x"), "line_out_of_range", 'to append, use line 3 with "after"'),
        (
            insert(1, "middle", "x"),
            "invalid_operation",
            'position must be "before" or "after", got \'middle\'',
        ),
        (insert(False, "before", "x"), "invalid_operation", "line must be an integer, got False"),
        (insert(1, "before", ""), "invalid_operation", "content is empty"),
    ],
)
def test_invalid_operations_are_refused_with_a_reason(
    op: DeleteLines | InsertLines, code: str, part: str
) -> None:
    result = resolve_line_operation(op, Text.from_string("a\nb\nc\n"))
    assert isinstance(result, Refused) and result.code == code
    assert part in result.message


def test_deleting_from_an_empty_file_is_refused() -> None:
    result = resolve_line_operation(delete(1, 1), Text(()))
    assert isinstance(result, Refused) and result.code == "line_out_of_range"


def test_operations_in_sequence_each_see_the_previous_result() -> None:
    text = Text.from_string("a\nb\nc\n")
    for op in (delete(2, 2), insert(2, "before", "B\n")):
        result = resolve_line_operation(op, text)
        assert isinstance(result, Placed)
        text = text.replace(result.edits, final_newline=result.final_newline)
    assert text.render() == "a\nB\nc\n"
