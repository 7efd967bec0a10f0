"""A model's tool call, from `lsp-edit mcp` or `lspEdit.ask`, stands for the blocks
lsp-edit's parser reads as that edit: the call's blocks, the reply text a reply
document shows of it (read back as the same blocks), and what is refused."""

from __future__ import annotations

from typing import Any

import pytest

from lsp_edit.blocks import parse_reply
from lsp_edit.blocks.model import DeleteLines, FencedEdit, InsertLines, ReplyItem, ReplySpan
from lsp_edit.blocks.tool_calls import (
    EDIT_TOOLS,
    BadCall,
    EditCall,
    call_text,
    edit_call,
    edit_call_from_json,
    tools_for_mode,
)
from lsp_edit.tools import TOOLS, pending_note, undecided_note
from lsp_edit.values import replace

TOTAL = "def total(self):\n    return sum(self.items)\n"

CALLS: dict[str, dict[str, Any]] = {
    "replace_symbol": {"path": "shop/cart.py", "ast_path": "Cart-total", "content": TOTAL},
    "insert_before_symbol": {"path": "shop/cart.py", "ast_path": "Cart-total", "content": TOTAL},
    "insert_after_symbol": {"path": "src/a b/x.ts", "ast_path": "A.b", "content": "c() {}\n"},
    "remove_symbol": {"path": "shop/cart.py", "ast_path": "Cart-total", "wait": True},
    "chunk_diff": {
        "path": "shop/cart.py",
        "ast_path": "Cart-total",
        "chunks": [
            {
                "context_before": ["def total(self):"],
                "old_lines": ["    return sum(self.items)"],
                "new_lines": ["    return sum(i.price for i in self.items)"],
                "context_after": [],
            }
        ],
    },
    "delete_lines": {"path": "notes.txt", "start_line": 2, "end_line": 3},
    "insert_lines": {"path": "a.py", "line": 1, "position": "after", "content": "x = `1`\n\ty\n"},
}


def call(tool: str, arguments: dict[str, Any]) -> EditCall:
    made = edit_call(tool, arguments)
    assert isinstance(made, EditCall), made
    return made


def anywhere(item: ReplyItem) -> ReplyItem:
    """The block, wherever it sits in a reply."""
    return replace(item, span=ReplySpan(1, 1))


def test_every_editing_tool_of_the_list_has_a_call() -> None:
    assert sorted(CALLS) == sorted(t for t in EDIT_TOOLS if t != "propose_reply")


@pytest.mark.parametrize("tool", list(CALLS))
def test_a_calls_reply_text_reads_back_as_the_calls_blocks(tool: str) -> None:
    made = call(tool, CALLS[tool])
    read = parse_reply("The model's words.\n\n" + call_text(made))
    assert [anywhere(item) for item in read] == [anywhere(item) for item in made.items]


def test_a_session_in_line_number_or_whole_file_mode_is_not_offered_ast_path_edits() -> None:
    assert [t.name for t in tools_for_mode("auto")] == [
        "replace_symbol",
        "insert_before_symbol",
        "insert_after_symbol",
        "remove_symbol",
        "chunk_diff",
        "delete_lines",
        "insert_lines",
    ]
    assert tools_for_mode("ast_path") == tools_for_mode("auto")
    for mode in ("line_numbers", "complete_file"):
        assert [t.name for t in tools_for_mode(mode)] == [
            "chunk_diff",
            "delete_lines",
            "insert_lines",
        ]


def test_the_tools_offered_are_those_of_the_list_unchanged() -> None:
    assert all(tool in TOOLS for tool in tools_for_mode("auto"))


def test_a_line_operation_call_is_a_json_operation_block() -> None:
    text = call_text(call("delete_lines", CALLS["delete_lines"]))
    assert text.startswith("```json\n")
    (item,) = parse_reply("Deleting.\n\n" + text)
    assert isinstance(item, DeleteLines)
    assert (item.path, item.start_line, item.end_line) == ("notes.txt", 2, 3)


def test_an_insert_keeps_its_content_exactly() -> None:
    (item,) = parse_reply(call_text(call("insert_lines", CALLS["insert_lines"])))
    assert isinstance(item, InsertLines)
    assert item.content == "x = `1`\n\ty\n"


def test_an_ast_path_call_is_a_fence_under_its_files_path() -> None:
    arguments = {"path": "src/cart.py", "ast_path": "Cart-total", "content": TOTAL}
    assert call_text(call("insert_after_symbol", arguments)) == (
        "`src/cart.py`\n```py:Cart-total:after\ndef total(self):\n    return sum(self.items)\n```\n"
    )


def test_content_holding_a_fence_gets_a_longer_one() -> None:
    content = 'def doc():\n    """\n    ```python\n    x\n    ```\n    """\n'
    arguments = {"path": "a.py", "ast_path": "doc", "content": content}
    text = call_text(call("replace_symbol", arguments))
    assert "\n````py:doc\n" in text
    (item,) = parse_reply(text)
    assert isinstance(item, FencedEdit)
    assert "\n".join(item.content) + "\n" == content


def test_a_removal_has_no_content() -> None:
    made = call("remove_symbol", {"path": "a.py", "ast_path": "f"})
    assert call_text(made) == "`a.py`\n```py:f:remove\n```\n"


def test_wait_is_read_with_the_call() -> None:
    assert call("remove_symbol", CALLS["remove_symbol"]).wait is True
    assert call("delete_lines", CALLS["delete_lines"]).wait is None
    assert edit_call("delete_lines", {**CALLS["delete_lines"], "wait": "yes"}) == BadCall(
        "delete_lines: `wait` must be true or false."
    )


def test_a_bad_operation_is_refused_with_its_reason_as_a_sentence() -> None:
    assert edit_call("delete_lines", {"path": "a.py", "start_line": 1}) == BadCall(
        'delete_lines: "end_line" is missing (an integer).'
    )


def test_calls_that_stand_for_no_block_are_refused_with_the_reason() -> None:
    offered = ["delete_lines", "insert_lines"]
    assert edit_call_from_json("delete_lines", "{not json", offered) == BadCall(
        "delete_lines: the arguments are not valid JSON (Expecting property name enclosed in "
        "double quotes at line 1 column 2)."
    )
    assert edit_call_from_json("delete_lines", "[1]", offered) == BadCall(
        "delete_lines: the arguments must be a JSON object, got a list."
    )
    assert edit_call_from_json("replace_symbol", "{}", offered) == BadCall(
        "There is no editing tool `replace_symbol`; use one of delete_lines, insert_lines."
    )
    assert edit_call_from_json("rm_rf", "{}", []) == BadCall("There is no editing tool `rm_rf`.")


def test_a_call_with_json_arguments_gives_the_blocks_of_the_same_call_with_values() -> None:
    text = '{"path": "notes.txt", "start_line": 2, "end_line": 3}'
    assert edit_call_from_json("delete_lines", text, EDIT_TOOLS) == call(
        "delete_lines", CALLS["delete_lines"]
    )


def test_the_result_names_the_changes_pending_and_how_the_decision_comes() -> None:
    pending = [("7", "Deletion of lines 2-3 in `notes.txt`"), ("8", "Change to `ast-path:f`")]
    assert pending_note(pending[:1], "`review_status`") == (
        "Pending in the user's editor: change 7 (Deletion of lines 2-3 in `notes.txt`). The "
        "user accepts or rejects each there; `review_status` tells what they decided."
    )
    assert undecided_note(pending, 600, "the next user message") == (
        "The user has not decided on changes 7 (Deletion of lines 2-3 in `notes.txt`), 8 "
        "(Change to `ast-path:f`) within 600 s; the next user message tells what they decide."
    )
