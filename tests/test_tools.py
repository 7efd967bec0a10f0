"""The edit operations as tools: each call stands for the block lsp-edit's parser reads
as that edit, and the model is told what became of it."""

from __future__ import annotations

import json

from lsp_edit.blocks import parse_reply
from lsp_edit.blocks.model import DeleteLines, FencedEdit, InsertLines, ParseProblem
from lsp_edit.tools import (
    TOOLS,
    ToolOutcome,
    ToolRefusal,
    call_as_block,
    tool_result,
    tools_for_mode,
)


def test_every_tool_has_an_object_schema_naming_its_required_arguments() -> None:
    for tool in TOOLS:
        assert tool.parameters["type"] == "object"
        assert set(tool.parameters["required"]) <= set(tool.parameters["properties"])
        assert "path" in tool.parameters["required"]


def test_a_line_number_session_is_not_offered_ast_path_edits() -> None:
    assert [t.name for t in tools_for_mode("auto")] == [
        "chunk_diff",
        "delete_lines",
        "insert_lines",
        "ast_path_edit",
    ]
    assert "ast_path_edit" not in [t.name for t in tools_for_mode("line_numbers")]


def test_a_line_operation_call_is_a_json_operation_block() -> None:
    block = call_as_block("delete_lines", '{"path": "notes.txt", "start_line": 2, "end_line": 3}')
    assert isinstance(block, str)
    assert block.startswith("```json\n")
    (item,) = parse_reply("Deleting.\n\n" + block)
    assert isinstance(item, DeleteLines)
    assert (item.path, item.start_line, item.end_line) == ("notes.txt", 2, 3)


def test_an_insert_keeps_its_content_exactly() -> None:
    arguments = {"path": "a.py", "line": 1, "position": "after", "content": "x = `1`\n\ty\n"}
    (item,) = parse_reply(str(call_as_block("insert_lines", arguments)))
    assert isinstance(item, InsertLines)
    assert item.content == "x = `1`\n\ty\n"


def test_an_ast_path_call_is_a_fence_under_its_files_path() -> None:
    arguments = {
        "path": "src/cart.py",
        "symbol": "Cart-total",
        "action": "after",
        "content": "def count(self):\n    return len(self.items)\n",
    }
    block = call_as_block("ast_path_edit", json.dumps(arguments))
    assert block == (
        "src/cart.py\n```python:Cart-total:after\ndef count(self):\n"
        "    return len(self.items)\n```\n"
    )
    (item,) = parse_reply(str(block))
    assert isinstance(item, FencedEdit)
    assert item.path == "src/cart.py"


def test_content_holding_a_fence_gets_a_longer_one() -> None:
    content = 'def doc():\n    """\n    ```python\n    x\n    ```\n    """\n'
    block = call_as_block(
        "ast_path_edit", {"path": "a.py", "symbol": "doc", "action": "replace", "content": content}
    )
    (item,) = parse_reply(str(block))
    assert isinstance(item, FencedEdit)
    assert "\n".join(item.content) + "\n" == content


def test_a_removal_has_no_content() -> None:
    block = call_as_block("ast_path_edit", {"path": "a.py", "symbol": "f", "action": "remove"})
    assert block == "a.py\n```python:f:remove\n```\n"


def test_a_bad_json_operation_becomes_a_block_that_fails_with_its_reason() -> None:
    (item,) = parse_reply(str(call_as_block("delete_lines", {"path": "a.py", "start_line": 1})))
    assert isinstance(item, ParseProblem)
    assert item.message == 'delete_lines: "end_line" is missing (an integer)'


def test_calls_that_stand_for_no_block_are_refused_with_the_reason() -> None:
    assert call_as_block("delete_lines", "{not json") == ToolRefusal(
        "The arguments of delete_lines are not valid JSON: Expecting property name enclosed in "
        "double quotes: line 1 column 2 (char 1)."
    )
    assert call_as_block("rm_rf", "{}") == ToolRefusal(
        "Unknown tool 'rm_rf'; the tools are ast_path_edit, chunk_diff, delete_lines, insert_lines."
    )
    assert call_as_block("ast_path_edit", {"path": "notes.txt", "symbol": "x"}) == ToolRefusal(
        "ast_path_edit works on source files of a supported language; notes.txt is not one."
    )


def test_the_result_says_pending_applied_or_refused_with_why() -> None:
    pending = ToolOutcome("pending", "Delete lines 2-3", "notes.txt", (2, 3), None, "7")
    failed = ToolOutcome("failed", "Delete lines 9-12", "notes.txt", None, "line 9 is past the end")
    assert tool_result([pending, failed]) == (
        "pending: Delete lines 2-3 in notes.txt (lines 2-3) waits for the user's review; it is "
        "not applied yet, so do not send it again.\n"
        "refused: Delete lines 9-12 in notes.txt: line 9 is past the end"
    )
    assert tool_result(ToolRefusal("no")) == "refused: no"
