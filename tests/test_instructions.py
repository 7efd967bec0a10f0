"""The instructions texts an LLM prompt carries, per edit mode."""

from __future__ import annotations

import pytest

from lsp_edit.instructions import instructions


def test_ast_path_is_the_default_mode_and_shows_every_operation() -> None:
    text = instructions()
    assert text.startswith("Default mode: AST path.")
    assert "type:Namespace-Class-Method" in text
    for tag in ("```python:Client-chat\n", ":before\n", ":after\n", ":remove\n"):
        assert tag in text
    assert "only used if a line-number block is provided first" in text


def test_line_numbers_mode_states_the_range_format() -> None:
    text = instructions("line_numbers")
    assert "type:startline:endline" in text
    assert "```javascript:10:15" in text
    assert "exclusive of the end line. Line numbers are 1-based." in text


def test_complete_file_mode_asks_for_a_bare_language_tag() -> None:
    text = instructions("complete_file")
    assert "bare language tag" in text
    assert "```python\n" in text


def test_an_unknown_mode_is_a_value_error_naming_the_modes() -> None:
    with pytest.raises(
        ValueError, match=r"^edit_mode must be one of: auto, ast_path, line_numbers, complete_file$"
    ):
        instructions("diff")


@pytest.mark.parametrize("mode", ["ast_path", "line_numbers", "complete_file"])
def test_every_text_asks_for_the_path_on_the_line_before_each_block(mode: str) -> None:
    text = instructions(mode)
    assert "Put the file's path on its own line just before each code block." in text
    lines = text.splitlines()
    openers = [i for i, line in enumerate(lines) if line.startswith("```") and line != "```"]
    assert openers
    for at in openers:
        assert "/" in lines[at - 1] and "." in lines[at - 1], lines[at - 1]


def test_no_text_claims_other_formats_are_ignored() -> None:
    for mode in ("ast_path", "line_numbers", "complete_file"):
        assert "will be ignored" not in instructions(mode)


def test_auto_mode_starts_with_the_ast_path_text() -> None:
    assert instructions("auto") == instructions("ast_path")
