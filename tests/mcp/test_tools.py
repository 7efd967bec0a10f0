"""`lsp-edit mcp` end to end, as an agent uses it with no editor open: the MCP SDK's
own client starts the real server over stdio, and every result is checked as the
model reads it (and the files as they are on disk)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_edit.instructions import instructions
from tests.mcp.conftest import EXAMPLE, agent

pytestmark = pytest.mark.timeout(90)

TOTAL = (
    "def total(self) -> float:\n    return sum(item.price * item.quantity for item in self.items)\n"
)
WRITTEN = "File 'shop/cart.py' has been updated. It now has {} lines.\n\nAll changes were applied."


def cart(project: Path) -> str:
    return (project / "shop" / "cart.py").read_text()


def example(name: str) -> str:
    return (EXAMPLE / "shop" / name).read_text()


async def test_the_tools_are_listed_with_their_argument_schemas(project: Path) -> None:
    async with agent(project) as tools:
        listed = (await tools.session.list_tools()).tools
    by_name = {tool.name: tool for tool in listed}
    assert list(by_name) == [
        "symbols",
        "read",
        "replace_symbol",
        "insert_before_symbol",
        "insert_after_symbol",
        "remove_symbol",
        "chunk_diff",
        "delete_lines",
        "insert_lines",
        "propose_reply",
        "instructions",
        "review_status",
    ]
    required = {name: tool.input_schema.get("required") for name, tool in by_name.items()}
    assert required == {
        "symbols": ["path"],
        "read": ["path"],
        "replace_symbol": ["path", "ast_path", "content"],
        "insert_before_symbol": ["path", "ast_path", "content"],
        "insert_after_symbol": ["path", "ast_path", "content"],
        "remove_symbol": ["path", "ast_path"],
        "chunk_diff": ["path", "ast_path", "chunks"],
        "delete_lines": ["path", "start_line", "end_line"],
        "insert_lines": ["path", "line", "position", "content"],
        "propose_reply": ["text"],
        "instructions": [],
        "review_status": [],
    }
    for tool in listed:
        assert tool.input_schema["type"] == "object"
        assert tool.input_schema["additionalProperties"] is False
        assert set(tool.input_schema["required"]) <= set(tool.input_schema["properties"])
        assert tool.description and len(tool.description) > 80
    chunk = by_name["chunk_diff"].input_schema["properties"]["chunks"]["items"]
    assert chunk["required"] == ["old_lines", "new_lines"]
    position = by_name["insert_lines"].input_schema["properties"]["position"]
    assert position["enum"] == ["before", "after"]
    read_only = [t.name for t in listed if t.annotations and t.annotations.read_only_hint]
    assert read_only == ["symbols", "read", "instructions", "review_status"]


async def test_symbols_lists_each_ast_path_with_its_kind_and_lines(project: Path) -> None:
    async with agent(project) as tools:
        assert await tools.call("symbols", path="shop/cart.py") == (
            "`shop/cart.py` (python, 29 lines): AST path, kind, lines\n"
            "Item           class   8-12\n"
            "Cart           class   15-29\n"
            "Cart-add       method  19-20\n"
            "Cart-total     method  22-23\n"
            "Cart-checkout  method  25-29",
            False,
        )


async def test_read_numbers_the_lines_of_a_symbol_or_a_range(project: Path) -> None:
    async with agent(project) as tools:
        assert await tools.call("read", path="shop/cart.py", ast_path="Cart-total") == (
            "`shop/cart.py` lines 22-23 (method `Cart-total`, 29 lines in the file):\n"
            "22\t    def total(self) -> float:\n"
            "23\t        return sum(item.price for item in self.items)",
            False,
        )
        assert await tools.call("read", path="shop/pricing.py", start_line=3, end_line=4) == (
            '`shop/pricing.py` lines 3-4 of 8:\n3\tDISCOUNTS = {"WELCOME10": 0.10}\n4\t',
            False,
        )
        assert await tools.call("read", path="shop/pricing.py", start_line=9) == (
            "read: `shop/pricing.py` has 8 lines; line 9 is past its end.",
            True,
        )


async def test_each_symbol_tool_writes_the_file_and_says_so(project: Path) -> None:
    before = cart(project)
    async with agent(project) as tools:
        assert await tools.call(
            "replace_symbol", path="shop/cart.py", ast_path="Cart-total", content=TOTAL
        ) == (WRITTEN.format(29), False)
        replaced = before.replace(
            "sum(item.price for item", "sum(item.price * item.quantity for item"
        )
        assert cart(project) == replaced
        count = "def count(self) -> int:\n    return len(self.items)\n"
        assert await tools.call(
            "insert_before_symbol", path="shop/cart.py", ast_path="Cart-total", content=count
        ) == (WRITTEN.format(32), False)
        counted = replaced.replace(
            "    def total(",
            "    def count(self) -> int:\n        return len(self.items)\n\n    def total(",
        )
        assert cart(project) == counted
        clear = "def clear(self) -> None:\n    self.items = []\n"
        assert await tools.call(
            "insert_after_symbol", path="shop/cart.py", ast_path="Cart-add", content=clear
        ) == (WRITTEN.format(35), False)
        cleared = counted.replace(
            "        self.items.append(item)\n",
            "        self.items.append(item)\n\n    def clear(self) -> None:\n"
            "        self.items = []\n",
        )
        assert cart(project) == cleared
        assert await tools.call("remove_symbol", path="shop/cart.py", ast_path="Cart-checkout") == (
            WRITTEN.format(29),
            False,
        )
    assert cart(project) == cleared[: cleared.index("\n    def checkout(")]


async def test_chunk_diff_and_the_line_operations_write_the_file(project: Path) -> None:
    pricing = project / "shop" / "pricing.py"
    rounded = {
        "context_before": ["    rate = DISCOUNTS.get(code, 0.0)"],
        "old_lines": ["    return total * (1 - rate)"],
        "new_lines": ["    return round(total * (1 - rate), 2)"],
    }
    async with agent(project) as tools:
        text, error = await tools.call(
            "chunk_diff", path="shop/pricing.py", ast_path="apply_discount", chunks=[rounded]
        )
        assert (text, error) == (
            "File 'shop/pricing.py' has been updated. It now has 8 lines.\n\n"
            "All changes were applied.",
            False,
        )
        assert pricing.read_text().endswith("    return round(total * (1 - rate), 2)\n")
        assert await tools.call(
            "delete_lines", path="shop/pricing.py", start_line=1, end_line=2
        ) == (
            "File 'shop/pricing.py' has been updated. It now has 6 lines.\n\n"
            "All changes were applied.",
            False,
        )
        assert pricing.read_text().startswith('DISCOUNTS = {"WELCOME10": 0.10}\n')
        assert await tools.call(
            "insert_lines",
            path="shop/pricing.py",
            line=1,
            position="before",
            content='"""Prices."""\n\n',
        ) == (
            "File 'shop/pricing.py' has been updated. It now has 8 lines.\n\n"
            "All changes were applied.",
            False,
        )
    assert pricing.read_text() == example("pricing.py").replace(
        "return total * (1 - rate)", "return round(total * (1 - rate), 2)"
    ).replace('"""Discount codes."""', '"""Prices."""')


async def test_propose_reply_applies_a_reply_as_lsp_edit_apply_does(project: Path) -> None:
    reply = (
        "Add the spring code.\n\nshop/pricing.py\n<<<<<<< SEARCH\n"
        'DISCOUNTS = {"WELCOME10": 0.10}\n=======\n'
        'DISCOUNTS = {"WELCOME10": 0.10, "SPRING25": 0.25}\n>>>>>>> REPLACE\n'
    )
    async with agent(project) as tools:
        assert await tools.call("propose_reply", text=reply) == (
            "File 'shop/pricing.py' has been updated. It now has 8 lines.\n\n"
            "All changes were applied.",
            False,
        )
        assert await tools.call("propose_reply", text="No edits here.") == (
            "No edit blocks were found in the reply.",
            True,
        )
    assert '"SPRING25": 0.25' in (project / "shop" / "pricing.py").read_text()


async def test_instructions_give_the_text_of_a_mode(project: Path) -> None:
    async with agent(project) as tools:
        assert await tools.call("instructions", mode="line_numbers") == (
            instructions("line_numbers"),
            False,
        )
        assert await tools.call("instructions") == (instructions("ast_path"), False)


# --- refusals: nothing is written, and the model is told why ----------------------------------


async def test_a_symbol_that_is_not_there_is_refused_with_the_closest_paths(
    project: Path,
) -> None:
    async with agent(project) as tools:
        assert await tools.call(
            "replace_symbol", path="shop/cart.py", ast_path="Cart-totl", content=TOTAL
        ) == (
            "No changes were applied.\n\n  • Change to `ast-path:Cart-totl` was not applied: "
            "No symbol `Cart-totl` in this python file. Closest paths: `Cart-total` (method, "
            "lines 22-23), `Cart-checkout` (method, lines 25-29), `Cart` (class, lines 15-29), "
            "`Cart-add` (method, lines 19-20). Retry with an existing path (names joined by "
            "`-`, outermost first).",
            True,
        )
        assert await tools.call("read", path="shop/cart.py", ast_path="Cart-totl") == (
            "read: No symbol `Cart-totl` in this python file. Closest paths: `Cart-total` "
            "(method, lines 22-23), `Cart-checkout` (method, lines 25-29), `Cart` (class, lines "
            "15-29), `Cart-add` (method, lines 19-20). Retry with an existing path (names "
            "joined by `-`, outermost first).",
            True,
        )
    assert cart(project) == example("cart.py")


async def test_a_path_naming_two_symbols_is_refused(project: Path) -> None:
    twice = "def f():\n    return 1\n\n\ndef f():\n    return 2\n"
    (project / "twice.py").write_text(twice)
    async with agent(project) as tools:
        assert await tools.call("remove_symbol", path="twice.py", ast_path="f") == (
            "No changes were applied.\n\n  • Change to `ast-path:f:remove` was not applied: "
            "AST path `f` names 2 symbols in this file (lines 1-2: `def f():`; lines 5-6: "
            "`def f():`). Use a line-range block for the one you mean.",
            True,
        )
    assert (project / "twice.py").read_text() == twice


async def test_an_edit_in_another_mode_than_the_sessions_is_refused(project: Path) -> None:
    async with agent(project, "--mode", "line_numbers") as tools:
        assert await tools.call(
            "replace_symbol", path="shop/cart.py", ast_path="Cart-total", content=TOTAL
        ) == (
            "No changes were applied.\n\n  • Change to `ast-path:Cart-total` was not applied: "
            "AST path format specified but line number mode is active. Use "
            "`type:startline:endline` format instead.",
            True,
        )
        reply = "shop/pricing.py\n```python:3\nDISCOUNTS = {}\n```\n"
        assert await tools.call("propose_reply", text=reply, mode="ast_path") == (
            "No changes were applied.\n\n  • Change at line 3 was not applied: Line number "
            "format specified but AST path mode is active. Use `type:Namespace-Class-Method` "
            "format instead.",
            True,
        )
    assert cart(project) == example("cart.py")


async def test_a_path_outside_the_workspace_is_refused(project: Path) -> None:
    outside = project.parent / "outside.py"
    outside.write_text("def f():\n    pass\n")
    async with agent(project) as tools:
        assert await tools.call(
            "replace_symbol", path="../outside.py", ast_path="f", content="def f():\n    return 1\n"
        ) == (
            "No changes were applied.\n\n  • Change to `ast-path:f` was not applied: Path "
            "`../outside.py` is outside the workspace; only files under the workspace root can "
            "be edited.",
            True,
        )
        assert await tools.call("read", path="../outside.py") == (
            "read: Path `../outside.py` is outside the workspace; only files under the "
            "workspace root can be edited.",
            True,
        )
    assert outside.read_text() == "def f():\n    pass\n"


async def test_a_binary_file_is_refused(project: Path) -> None:
    (project / "data.py").write_bytes(b"x = 1\x00\n")
    async with agent(project) as tools:
        assert await tools.call("delete_lines", path="data.py", start_line=1, end_line=1) == (
            "No changes were applied.\n\n  • Deletion of lines 1-1 in `data.py` was not "
            "applied: Cannot edit binary file `data.py`.",
            True,
        )
        assert await tools.call("read", path="data.py") == (
            "read: `data.py` is a binary file; lsp-edit reads text files only.",
            True,
        )
    assert (project / "data.py").read_bytes() == b"x = 1\x00\n"


async def test_a_chunk_written_against_an_older_text_is_refused(project: Path) -> None:
    # The model read the file, then the file changed under it: its old lines are stale.
    pricing = project / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("(1 - rate)", "(1.0 - rate)"))
    stale = {
        "context_before": ["    rate = DISCOUNTS.get(code, 0.0)"],
        "old_lines": ["    return total * (1 - rate)"],
        "new_lines": ["    return 0.0"],
    }
    async with agent(project) as tools:
        assert await tools.call(
            "chunk_diff", path="shop/pricing.py", ast_path="apply_discount", chunks=[stale]
        ) == (
            "No changes were applied.\n\n  • Change to `ast-path:apply_discount` (chunk diff) "
            "was not applied: Chunk 1 validation failed: context_before found at line 7, but "
            "the chunk does not fit there: at line 7: old_lines did not match at line 8: "
            "expected `    return total * (1 - rate)`, found `    return total * (1.0 - rate)` "
            "(in symbol `apply_discount`, lines 6-8)",
            True,
        )
        assert await tools.call(
            "delete_lines", path="shop/pricing.py", start_line=20, end_line=21
        ) == (
            "No changes were applied.\n\n  • Deletion of lines 20-21 in `shop/pricing.py` was "
            "not applied: delete_lines: lines 20-21 are past the end of the file, which has 8 "
            "lines.",
            True,
        )


async def test_a_file_changed_on_disk_between_two_calls_is_edited_as_it_is_now(
    project: Path,
) -> None:
    # The server keeps each file's text between calls; someone else's write (here of
    # the same size) is what the next call edits, never the text the server wrote.
    pricing = project / "shop" / "pricing.py"
    first = {
        "context_before": ["    rate = DISCOUNTS.get(code, 0.0)"],
        "old_lines": ["    return total * (1 - rate)"],
        "new_lines": ["    return total * (1 - rate)  # net"],
    }
    second = {
        "old_lines": ["    rate = DISCOUNTS.get(code, 0.0)"],
        "new_lines": ["    rate = DISCOUNTS.get(code.upper(), 0.0)"],
    }
    async with agent(project) as tools:
        written = await tools.call(
            "chunk_diff", path="shop/pricing.py", ast_path="apply_discount", chunks=[first]
        )
        assert written[1] is False, written[0]
        theirs = pricing.read_text().replace("# net", "# NET")
        pricing.write_text(theirs)
        written = await tools.call(
            "chunk_diff", path="shop/pricing.py", ast_path="apply_discount", chunks=[second]
        )
        assert written[1] is False, written[0]
    assert pricing.read_text() == theirs.replace("get(code,", "get(code.upper(),")


async def test_a_malformed_call_is_an_error_result_that_says_what_to_send(
    project: Path,
) -> None:
    async with agent(project) as tools:
        assert await tools.call("replace_symbol", path="shop/cart.py", ast_path="Cart-total") == (
            "replace_symbol: `content` must be a string (the code), got nothing.",
            True,
        )
        assert await tools.call(
            "replace_symbol", path="shop/cart.py", ast_path="Cart total", content="x = 1\n"
        ) == (
            "replace_symbol: `ast_path` 'Cart total' is not an AST path; write the names of the "
            "enclosing definitions and the symbol joined by `-`, outermost first, such as "
            "`Cart-total` (the `symbols` tool lists the paths of `shop/cart.py`).",
            True,
        )
        assert await tools.call(
            "insert_lines", path="shop/cart.py", line="3", position="before", content="x\n"
        ) == ('insert_lines: "line" must be an integer, got "3".', True)
        assert await tools.call("delete_lines", path="shop/cart.py", start_line=1, end=2) == (
            "delete_lines: unknown argument `end`; it takes path, start_line, end_line, wait.",
            True,
        )
        assert await tools.call("rename_symbol", path="shop/cart.py") == (
            "There is no tool `rename_symbol`.",
            True,
        )
    assert cart(project) == example("cart.py")


async def test_review_only_refuses_to_write_without_an_editor(project: Path) -> None:
    async with agent(project, "--review-only") as tools:
        text, error = await tools.call(
            "replace_symbol", path="shop/cart.py", ast_path="Cart-total", content=TOTAL
        )
    assert error
    assert text == (
        f"Nothing was written: no editor runs lsp-edit for `{project.resolve()}`, and this "
        "server only proposes edits for review (--review-only). Ask the user to open the "
        "folder in their editor with lsp-edit, then call again."
    )
    assert cart(project) == example("cart.py")
