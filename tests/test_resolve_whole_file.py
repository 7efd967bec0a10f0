"""A bare fence under a file's name: the whole file, or the definitions it holds,
decided from the content (never from the file's size)."""

from __future__ import annotations

from lsp_edit.resolve.model import AlreadyApplied, Placed, Refused, Resolution
from lsp_edit.resolve.whole_file import names_in_prose, resolve_whole_file
from lsp_edit.symbols import index_symbols
from lsp_edit.text import Text

CALCULATOR = """class Calculator {
  constructor() {
    this.result = 0;
  }

  add(number) {
    this.result += number;
    return this;
  }

  reset() {
    this.result = 0;
    return this;
  }
}
"""


def place(
    source: str, block: str, language: str | None = "javascript", mentioned: tuple[str, ...] = ()
) -> tuple[Resolution, str]:
    text = Text.from_string(source)
    result = resolve_whole_file(
        block.split("\n"),
        text,
        language,
        name="calc.js",
        symbols_of=index_symbols,
        mentioned=mentioned.__contains__,
    )
    if isinstance(result, Placed):
        return result, text.replace(result.edits).render()
    return result, source


def test_a_method_written_alone_replaces_that_method_in_its_class() -> None:
    block = "  add(number) {\n    this.result += 2 * number;\n    return this;\n  }"
    result, after = place(CALCULATOR, block)
    assert isinstance(result, Placed) and result.strategy == "definitions"
    assert after == CALCULATOR.replace("+= number", "+= 2 * number")
    assert result.notes == (
        "Taken as definitions, not as the whole file (it leaves out `Calculator` (class), "
        "which the reply does not mention): replaced `Calculator-add`",
    )


def test_a_class_written_without_some_methods_keeps_them() -> None:
    block = "class Calculator {\n  reset() {\n    this.result = 1;\n    return this;\n  }\n}"
    result, after = place(CALCULATOR, block)
    assert isinstance(result, Placed)
    assert after == CALCULATOR.replace(
        "this.result = 0;\n    return", "this.result = 1;\n    return"
    )


def test_a_new_method_below_a_placeholder_goes_at_the_end_of_its_class() -> None:
    block = (
        "class Calculator {\n  // ... existing code ...\n\n  square() {\n"
        "    this.result *= this.result;\n    return this;\n  }\n}"
    )
    result, after = place(CALCULATOR, block)
    assert isinstance(result, Placed)
    assert after == CALCULATOR.replace(
        "    return this;\n  }\n}\n",
        "    return this;\n  }\n\n  square() {\n    this.result *= this.result;\n"
        "    return this;\n  }\n}\n",
    )


def test_a_new_method_between_two_placeholders_is_refused() -> None:
    block = (
        "class Calculator {\n  // ... existing code ...\n\n  square() {\n"
        "    this.result *= this.result;\n    return this;\n  }\n\n  // ... existing code ...\n}"
    )
    result, after = place(CALCULATOR, block)
    assert isinstance(result, Refused) and result.code == "not_whole_file"
    assert "it adds `Calculator-square`, and where it goes" in result.message
    assert after == CALCULATOR


def test_a_block_that_leaves_out_what_the_reply_mentions_is_the_whole_file() -> None:
    block = "class Calculator {\n  reset() {\n    this.result = 1;\n    return this;\n  }\n}"
    _, after = place(CALCULATOR, block, mentioned=("constructor", "add"))
    assert after == block + "\n"


def test_the_file_as_it_is_is_already_applied() -> None:
    result, _ = place(CALCULATOR, CALCULATOR.rstrip("\n"))
    assert isinstance(result, AlreadyApplied)


def test_a_file_whose_definitions_cannot_be_read_is_taken_whole() -> None:
    result, after = place("one\ntwo\nthree\n", "one\nTWO", language=None)
    assert isinstance(result, Placed) and result.strategy == "complete_file"
    assert after == "one\nTWO\n"


def test_a_cut_off_block_is_refused() -> None:
    result, after = place(CALCULATOR, "class Calculator {\n  constructor() {\n    this.result = 0;")
    assert isinstance(result, Refused) and result.code == "truncated_file"
    assert after == CALCULATOR


def test_a_snippet_with_a_line_outside_its_definitions_the_file_lacks_is_refused() -> None:
    source = "import os\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n"
    block = "import math\n\n\ndef b():\n    return math.pi"
    result, after = place(source, block, language="python")
    assert isinstance(result, Refused) and result.code == "not_whole_file"
    assert "its line `import math` is outside its definitions and not in the file" in (
        result.message
    )
    assert after == source


def test_the_names_a_reply_mentions_are_those_outside_its_code_blocks() -> None:
    reply = "I removed `old_helper` and renamed run.\n\n```python\ndef hidden():\n    pass\n```\n"
    words = names_in_prose(reply)
    assert {"old_helper", "run", "renamed"} <= words
    assert "hidden" not in words


def test_the_names_inside_a_longer_fence_holding_shorter_fences_are_not_mentioned() -> None:
    # a whole file in a ```` fence whose docstring shows a ``` block: the inner
    # fences open and close nothing, so `drop` stays inside the code
    reply = (
        'app.py\n````python\ndef keep():\n    """Shows:\n```\ndrop\n```\n"""\n'
        "````\n\nThen ~~~ stays prose, `after` too.\n"
    )
    words = names_in_prose(reply)
    assert "drop" not in words and "keep" not in words
    assert {"Then", "after"} <= words


def test_a_whole_file_whose_last_line_became_shorter_is_not_cut_off() -> None:
    result, after = place("x = 1\ny = 10\n", "x = 1\ny = 1", language=None)
    assert isinstance(result, Placed) and after == "x = 1\ny = 1\n"


SHAPES = (
    "class Shape:\n    def name(self) -> str:\n        return 'x'\n\n"
    "    def area(self) -> float:\n        return 0.0\n"
)


def test_a_class_written_without_a_method_and_with_a_new_stub_keeps_both() -> None:
    block = (
        "class Shape:\n    def name(self) -> str:\n        return 'x'\n\n"
        "    def attribute(self) -> int:\n        ..."
    )
    result, after = place(SHAPES, block, language="python")
    assert isinstance(result, Placed) and result.strategy == "definitions"
    assert after == SHAPES.replace(
        "return 'x'\n", "return 'x'\n\n    def attribute(self) -> int:\n        ...\n"
    )


def test_a_method_written_alone_with_a_new_stub_after_it_adds_the_stub() -> None:
    block = (
        "    def area(self) -> float:\n        return 1.0\n\n"
        "    def attribute(self) -> int:\n        ..."
    )
    result, after = place(SHAPES, block, language="python")
    assert isinstance(result, Placed) and result.strategy == "definitions"
    assert after == SHAPES.replace(
        "return 0.0\n", "return 1.0\n\n    def attribute(self) -> int:\n        ...\n"
    )
