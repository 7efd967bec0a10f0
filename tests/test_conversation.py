"""The reply document of lspEdit.ask as a conversation: the turns written into it,
the history read back from it, and the request built from both."""

from __future__ import annotations

from lsp_edit.blocks import parse_reply
from lsp_edit.blocks.tool_calls import tools_for_mode
from lsp_edit.conversation import Turn, assistant_turn, note, read_history, user_turn
from lsp_edit.instructions import instructions
from lsp_edit.prompt import Ask, ContextFile, Selection, build_request, user_words
from lsp_edit.text import Text

CART = "class Cart:\n    def add(self, item):\n        self.items.append(item)\n"
REPLY = (
    "Deduplicate:\n\nshop/cart.py\n<<<<<<< SEARCH\n        self.items.append(item)\n=======\n"
    "        if item not in self.items:\n            self.items.append(item)\n>>>>>>> REPLACE\n"
)


def transcript(*parts: str) -> list[str]:
    return "".join(parts).splitlines(keepends=True)


def test_the_turns_written_are_the_history_read_back() -> None:
    lines = transcript(
        user_turn("Make add skip duplicates.", at_start=True),
        assistant_turn("coder:7b"),
        REPLY,
        note("finished (stop), 120 tokens in, 40 out"),
        user_turn("All changes were applied.\n\nNow the total.", at_start=False),
    )
    assert read_history(lines) == [
        Turn("user", "Make add skip duplicates."),
        Turn("assistant", REPLY.rstrip("\n")),
        Turn("user", "All changes were applied.\n\nNow the total."),
    ]


def test_the_users_words_are_quoted_so_no_block_in_them_is_read() -> None:
    pasted = "Why does this fail?\n\n" + REPLY
    text = "".join(transcript(user_turn(pasted, at_start=True), assistant_turn("coder")))
    assert parse_reply(text) == []
    assert read_history(text.splitlines())[0] == Turn("user", pasted.rstrip("\n"))


def test_the_models_blocks_are_read_from_its_turn() -> None:
    text = user_turn("Fix it.", at_start=True) + assistant_turn("coder") + REPLY
    (block,) = parse_reply(text)
    assert block.path == "shop/cart.py"  # type: ignore[union-attr]


def test_text_outside_the_turns_and_deleted_turns_are_not_history() -> None:
    lines = transcript(
        "Notes the user typed first.\n\n",
        user_turn("Second question.", at_start=False),
        assistant_turn("coder"),
        "An answer.\n",
    )
    assert read_history(lines) == [
        Turn("user", "Second question."),
        Turn("assistant", "An answer."),
    ]


def test_a_note_never_ends_its_comment_early() -> None:
    assert note("a --> b\nc") == "<!-- lsp-edit: note a -- > b c -->\n"


def test_the_summary_comes_first_in_the_users_words() -> None:
    assert user_words("Now the total.", "Some changes were applied.") == (
        "Some changes were applied.\n\nNow the total."
    )
    assert user_words("Now the total.", None) == "Now the total."


def cart(language: str | None = "python") -> ContextFile:
    return ContextFile("shop/cart.py", Text.from_string(CART), language)


def test_the_request_carries_the_modes_instructions_history_files_and_prompt() -> None:
    ask = Ask(
        prompt="Skip duplicates.",
        mode="ast_path",
        files=(cart(),),
        history=(Turn("user", "Hello."), Turn("assistant", "Hi.")),
        summary="File 'shop/cart.py' has been updated. It now has 3 lines.",
        tools=tools_for_mode("ast_path"),
    )
    request = build_request("coder", ask)
    system, first, second, user = request.messages
    assert system.role == "system"
    assert instructions("ast_path").rstrip("\n") in system.content
    assert "calling the tools" in system.content
    assert (first.role, first.content, second.role, second.content) == (
        "user",
        "Hello.",
        "assistant",
        "Hi.",
    )
    assert user.role == "user"
    assert user.content.startswith("File 'shop/cart.py' has been updated.")
    assert "shop/cart.py:\n```python\n" + CART + "```" in user.content
    assert "The AST paths in shop/cart.py (kind, lines):\n- Cart (class, 1-3)\n" in user.content
    assert "- Cart-add (method, 2-3)" in user.content
    assert user.content.endswith("\n\nSkip duplicates.")
    assert request.tools == tools_for_mode("ast_path")


def test_line_number_mode_numbers_the_file_and_the_selection() -> None:
    selected = Selection(
        "shop/cart.py", 2, 3, Text.from_lines(["    def add(self, item):", "        self.items"])
    )
    request = build_request(
        "coder", Ask(prompt="Here.", mode="line_numbers", files=(cart(),), selection=selected)
    )
    user = request.messages[-1].content
    assert instructions("line_numbers").rstrip("\n") in request.messages[0].content
    assert "1\tclass Cart:\n2\t    def add(self, item):\n3\t        self.items" in user
    assert "The AST paths" not in user
    assert "The user selected lines 2-3 of shop/cart.py:\n```\n2\t    def add" in user


def test_complete_file_mode_sends_the_file_whole_and_nothing_else() -> None:
    user = build_request("coder", Ask(prompt="Go.", mode="complete_file", files=(cart(),)))
    content = user.messages[-1].content
    assert content == "shop/cart.py:\n```python\n" + CART + "```\n\nGo."


def test_files_past_the_limit_are_named_not_sent() -> None:
    files = tuple(ContextFile(f"f{n}.py", Text.from_string("x\n"), None) for n in range(4))
    content = (
        build_request(
            "coder", Ask(prompt="Go.", mode="complete_file", files=files, max_context_files=2)
        )
        .messages[-1]
        .content
    )
    assert "f1.py:" in content and "f2.py:" not in content
    assert "(2 more files not shown, as lspEdit.llm.maxContextFiles is 2: f2.py, f3.py.)" in content
