"""JSON operations: chunk_diff, delete_lines, insert_lines, given directly, in a
```json block or as the whole reply; each invalid one reported precisely."""

import json

from lsp_edit.blocks import parse_operations, parse_reply
from lsp_edit.blocks.model import Chunk, ChunkDiff, DeleteLines, InsertLines, ReplySpan

F = "```"


def one_problem(ops):
    (problem,) = parse_operations(ops)
    assert problem.code == "invalid_operation", problem
    return problem.message


def test_delete_lines():
    assert parse_operations(
        {"op": "delete_lines", "path": "a.py", "start_line": 3, "end_line": 5}
    ) == [DeleteLines(ReplySpan(1, 1), "a.py", 3, 5)]


def test_insert_lines_keeps_content_raw():
    op = {"op": "insert_lines", "path": "a.py", "line": 2, "position": "after", "content": "x\ny\n"}
    assert parse_operations(op) == [InsertLines(ReplySpan(1, 1), "a.py", 2, "after", "x\ny\n")]


def test_chunk_diff_fields_may_be_strings_or_lists_and_context_defaults_to_empty():
    op = {
        "op": "chunk_diff",
        "path": "a.py",
        "symbol": "Client-chat",
        "chunks": [
            {
                "context_before": "def chat(self):\n",
                "old_lines": ["    return 1\n"],
                "new_lines": "    return 2",
            }
        ],
    }
    assert parse_operations(op) == [
        ChunkDiff(
            ReplySpan(1, 1),
            "a.py",
            "Client-chat",
            None,
            None,
            (Chunk(("def chat(self):",), ("    return 1",), ("    return 2",), ()),),
        )
    ]


def test_chunk_diff_by_line_and_column():
    op = {
        "op": "chunk_diff",
        "line": 12,
        "column": 5,
        "chunks": [{"old_lines": [], "new_lines": ["x"]}],
    }
    (diff,) = parse_operations(op)
    assert (diff.path, diff.symbol, diff.line, diff.column) == (None, None, 12, 5)


def test_list_of_ops_and_operations_key_and_json_string_are_all_accepted():
    op = {"op": "delete_lines", "start_line": 1, "end_line": 1}
    assert len(parse_operations([op, op])) == 2
    assert len(parse_operations({"operations": [op]})) == 1
    assert parse_operations(json.dumps([op])) == [DeleteLines(ReplySpan(1, 1), None, 1, 1)]


def test_position_must_be_before_or_after():
    op = {"op": "insert_lines", "path": "a", "line": 1, "position": "middle", "content": "x"}
    assert one_problem(op) == 'insert_lines: position must be "before" or "after", got "middle"'


def test_integers_must_not_be_strings_or_booleans():
    assert one_problem({"op": "delete_lines", "start_line": "3", "end_line": 4}) == (
        'delete_lines: "start_line" must be an integer, got "3"'
    )
    assert "got true" in one_problem({"op": "delete_lines", "start_line": 1, "end_line": True})


def test_missing_required_key_is_named():
    assert (
        one_problem({"op": "delete_lines", "start_line": 1})
        == 'delete_lines: "end_line" is missing (an integer)'
    )


def test_chunk_diff_needs_symbol_or_line():
    assert "give the symbol to edit" in one_problem(
        {"op": "chunk_diff", "chunks": [{"old_lines": "a", "new_lines": "b"}]}
    )


def test_chunk_diff_needs_a_non_empty_chunk_list():
    assert '"chunks" must be a non-empty list' in one_problem(
        {"op": "chunk_diff", "symbol": "f", "chunks": []}
    )


def test_chunk_without_old_lines_is_named_by_number():
    op = {
        "op": "chunk_diff",
        "symbol": "f",
        "chunks": [{"old_lines": "a", "new_lines": "b"}, {"new_lines": "c"}],
    }
    assert (
        one_problem(op) == 'chunk_diff: chunk 2 has no "old_lines" (a string or a list of strings)'
    )


def test_unknown_op_lists_the_known_ones():
    assert one_problem({"op": "replace_lines"}) == (
        'unknown op "replace_lines"; use one of "chunk_diff", "delete_lines", "insert_lines"'
    )


def test_bad_op_in_a_list_is_numbered_and_the_others_still_parse():
    good = {"op": "delete_lines", "start_line": 1, "end_line": 2}
    bad = {"op": "insert_lines", "line": 1, "position": "before"}
    first, second = parse_operations([good, bad])
    assert isinstance(first, DeleteLines)
    assert second.message == 'insert_lines (operation 2 of 2): "content" must be a string, got null'


def test_invalid_json_string_is_invalid_json():
    (problem,) = parse_operations('[{"op": "delete_lines",')
    assert problem.code == "invalid_json" and "line 1 column" in problem.message


def test_json_block_of_operations_in_a_reply():
    op = '{"op": "delete_lines", "path": "a", "start_line": 2, "end_line": 3}'
    reply = f'Apply:\n{F}json\n{{"operations": [{op}]}}\n{F}\n'
    assert parse_reply(reply) == [DeleteLines(ReplySpan(2, 4), "a", 2, 3)]


def test_whole_reply_that_is_a_json_list_of_operations():
    reply = json.dumps(
        [{"op": "delete_lines", "path": "a", "start_line": 1, "end_line": 1}], indent=2
    )
    assert parse_reply(reply) == [DeleteLines(ReplySpan(1, 8), "a", 1, 1)]


def test_reply_starting_with_a_bracket_that_is_not_json_is_read_as_text():
    reply = "[Note] see below\na.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"
    (edit,) = parse_reply(reply)
    assert edit.path == "a.py"


def test_whole_reply_json_that_is_not_operations_gives_nothing():
    assert parse_reply('{"name": "x"}\n') == []
