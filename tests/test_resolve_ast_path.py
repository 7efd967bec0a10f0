"""Placing blocks addressed by AST path: replace, :before, :after, :remove, with
re-indentation, the file's blank-line style, decorators/doc comments kept or
replaced, and refusals for paths that name no symbol or several."""

from __future__ import annotations

import re

import pytest

from lsp_edit.blocks.model import AstAction, AstTarget, FencedEdit, ReplySpan
from lsp_edit.resolve.ast_path import locate_symbol, resolve_ast_path
from lsp_edit.resolve.model import AlreadyApplied, Placed, Refused, Resolution
from lsp_edit.symbols.model import Symbol
from lsp_edit.text import Text


def _block(path: str, content: str, language: str = "python") -> FencedEdit:
    suffix = re.search(r":(before|after|remove)$", path)
    written = path[: suffix.start()] if suffix else path
    action = suffix.group(1) if suffix else ""
    parts = tuple(part for part in re.split(r"::|[-./]", written) if part)
    act: AstAction = action or "replace"  # type: ignore[assignment]
    return FencedEdit(
        ReplySpan(1, 3),
        None,
        language,
        f"{language}:{path}",
        AstTarget(written, parts, act),
        tuple(content.split("\n")) if content else (),
    )


def _resolve(source: str, path: str, content: str, language: str = "python") -> Resolution:
    return resolve_ast_path(_block(path, content, language), Text.from_string(source), language)


def _apply(source: str, path: str, content: str, language: str = "python") -> str:
    result = _resolve(source, path, content, language)
    assert isinstance(result, Placed), result
    assert result.strategy == "ast_path"
    return Text.from_string(source).replace(result.edits).render()


PY = (
    "import os\n"
    "\n"
    "\n"
    "class Client:\n"
    "    def open(self):\n"
    "        return 1\n"
    "\n"
    "    # Sends one message.\n"
    "    @logged\n"
    "    def chat(self, message):\n"
    "        return message\n"
    "\n"
    "    def close(self):\n"
    "        pass\n"
    "\n"
    "\n"
    "def main():\n"
    "    Client().chat('hi')\n"
)


def test_python_replace_without_decorator_keeps_the_comment_and_decorator() -> None:
    result = _apply(PY, "Client-chat", "def chat(self, message):\n    return message.upper()")
    assert result == PY.replace("return message\n", "return message.upper()\n")


def test_python_replace_only_rewrites_the_lines_that_change() -> None:
    result = _resolve(PY, "Client-chat", "def chat(self, message):\n    return message.upper()")
    assert isinstance(result, Placed)
    assert [(e.start, e.end, e.new_lines) for e in result.edits] == [
        (10, 11, ("        return message.upper()",))
    ]


def test_python_replace_with_its_own_decorator_replaces_the_decorator_keeps_the_comment() -> None:
    result = _apply(PY, "Client-chat", "@traced\ndef chat(self, message):\n    return message")
    assert result == PY.replace("    @logged\n", "    @traced\n")


def test_python_replace_with_comment_and_decorator_replaces_both() -> None:
    content = "# Sends it twice.\n@traced\ndef chat(self, message):\n    return message"
    result = _apply(PY, "Client-chat", content)
    assert result == PY.replace(
        "    # Sends one message.\n    @logged\n", "    # Sends it twice.\n    @traced\n"
    )


RUST_CHAT = (
    "impl Client {\n"
    "    /// Sends a message.\n"
    "    #[inline]\n"
    "    pub fn chat(&self) -> u8 {\n"
    "        1\n"
    "    }\n"
    "}\n"
)


def test_rust_replace_with_a_new_doc_comment_keeps_the_attribute_it_does_not_bring() -> None:
    content = "/// Sends a message and returns its id.\npub fn chat(&self) -> u8 {\n    2\n}"
    result = _apply(RUST_CHAT, "Client-chat", content, "rust")
    assert result == RUST_CHAT.replace(
        "Sends a message.", "Sends a message and returns its id."
    ).replace("        1\n", "        2\n")


def test_python_replace_already_indented_is_kept_as_written() -> None:
    content = "    def close(self):\n        self.closed = True"
    result = _apply(PY, "Client-close", content)
    assert result == PY.replace("        pass\n", "        self.closed = True\n")


def test_python_before_inserts_at_the_symbol_indentation_with_one_blank_line() -> None:
    result = _apply(PY, "Client-close:before", "def flush(self):\n    pass")
    assert result == PY.replace(
        "    def close(self):\n", "    def flush(self):\n        pass\n\n    def close(self):\n"
    )


def test_python_after_a_top_level_function_uses_two_blank_lines() -> None:
    result = _apply(PY, "Client:after", "def helper():\n    return 2")
    assert result == PY.replace(
        "        pass\n\n\ndef main", "        pass\n\n\ndef helper():\n    return 2\n\n\ndef main"
    )


def test_python_after_a_method_uses_one_blank_line() -> None:
    result = _apply(PY, "Client-open:after", "def ping(self):\n    return 0")
    assert result == PY.replace(
        "        return 1\n", "        return 1\n\n    def ping(self):\n        return 0\n"
    )


def test_python_remove_deletes_decorators_and_comment_and_one_blank_run() -> None:
    result = _apply(PY, "Client-chat:remove", "")
    assert result == (
        "import os\n\n\nclass Client:\n    def open(self):\n        return 1\n\n"
        "    def close(self):\n        pass\n\n\ndef main():\n    Client().chat('hi')\n"
    )


def test_python_remove_of_the_last_method_drops_the_blank_lines_above_it() -> None:
    result = _apply(PY, "Client-close:remove", "")
    assert result == PY.replace("\n    def close(self):\n        pass\n", "")


def test_python_remove_of_the_first_method_drops_the_blank_lines_below_it() -> None:
    result = _apply(PY, "Client-open:remove", "")
    assert result == PY.replace("    def open(self):\n        return 1\n\n", "")


@pytest.mark.parametrize("path", ["Client.chat", "Client::chat", "Client/chat"])
def test_dot_double_colon_and_slash_separate_path_parts_too(path: str) -> None:
    result = _apply(PY, path, "def chat(self, message):\n    return None")
    assert result == PY.replace("return message\n", "return None\n")


def test_replacing_with_the_current_text_is_already_applied() -> None:
    result = _resolve(PY, "Client-close", "def close(self):\n    pass")
    assert isinstance(result, AlreadyApplied)
    assert "Client-close" in result.message and "13-14" in result.message


def test_an_empty_replacement_is_refused_pointing_to_remove() -> None:
    result = _resolve(PY, "Client-chat", "")
    assert isinstance(result, Refused)
    assert result.code == "invalid_operation"
    assert ":remove" in result.message


def test_a_missing_path_is_refused_with_the_closest_existing_paths() -> None:
    result = _resolve(PY, "Client-chatt", "def chatt(self):\n    pass")
    assert isinstance(result, Refused)
    assert result.code == "symbol_not_found"
    assert "`Client-chatt`" in result.message
    assert "`Client-chat` (method, lines 8-11)" in result.message
    assert result.lines[0] == (8, 11)


def test_a_missing_path_suggests_symbols_with_the_same_last_name() -> None:
    result = _resolve(PY, "Server-close", "def close(self):\n    pass")
    assert isinstance(result, Refused)
    assert "`Client-close` (method, lines 13-14)" in result.message


AMBIGUOUS = (
    "if DEBUG:\n"
    "    def trace(message):\n"
    "        print(message)\n"
    "else:\n"
    "    def trace(message, level=0):\n"
    "        pass\n"
)


def test_two_symbols_with_one_path_are_refused_with_both_line_ranges() -> None:
    result = _resolve(AMBIGUOUS, "trace", "def trace(x):\n    pass")
    assert isinstance(result, Refused)
    assert result.code == "symbol_ambiguous"
    assert "names 2 symbols" in result.message
    assert "lines 2-3: `def trace(message):`" in result.message
    assert "lines 5-6: `def trace(message, level=0):`" in result.message
    assert result.lines == ((2, 3), (5, 6))


def test_the_replacement_signature_line_picks_one_of_several_candidates() -> None:
    result = _apply(AMBIGUOUS, "trace", "def trace(message, level=0):\n    log(message)")
    assert result == AMBIGUOUS.replace("        pass\n", "        log(message)\n")


def test_remove_of_an_ambiguous_path_is_refused() -> None:
    result = _resolve(AMBIGUOUS, "trace:remove", "")
    assert isinstance(result, Refused)
    assert result.code == "symbol_ambiguous"
    assert "line-range" in result.message


def test_a_language_without_ast_paths_is_refused() -> None:
    result = _resolve("x\n", "main", "y", language="vala")
    assert isinstance(result, Refused)
    assert result.code == "unsupported_language"


def test_locate_symbol_gives_the_one_symbol_at_a_path() -> None:
    located = locate_symbol(Text.from_string(PY), "python", ["Client", "close"])
    assert located == Symbol(("Client", "close"), "method", 12, 12, 14, "    ")


def test_locate_symbol_reports_a_missing_path() -> None:
    located = locate_symbol(Text.from_string(PY), "py", ["nothing"])
    assert isinstance(located, Refused) and located.code == "symbol_not_found"


def test_crlf_file_keeps_its_line_endings() -> None:
    source = "def a():\r\n    return 1\r\n\r\n\r\ndef b():\r\n    return 2\r\n"
    result = _apply(source, "a", "def a():\n    return 3")
    assert result == source.replace("return 1", "return 3")


LANGUAGE_CASES = [
    (
        "javascript",
        "Client-chat",
        "class Client {\n  open() {\n    return 1;\n  }\n\n  // Sends.\n  chat(m) {\n"
        "    return m;\n  }\n}\n",
        "chat(m) {\n  return m.trim();\n}",
        "class Client {\n  open() {\n    return 1;\n  }\n\n  // Sends.\n  chat(m) {\n"
        "    return m.trim();\n  }\n}\n",
    ),
    (
        "typescript",
        "Net-Client-close:before",
        "namespace Net {\n  export class Client {\n    open(): void {}\n\n"
        "    close(): void {}\n  }\n}\n",
        "chat(m: string): string {\n  return m;\n}",
        "namespace Net {\n  export class Client {\n    open(): void {}\n\n"
        "    chat(m: string): string {\n      return m;\n    }\n\n    close(): void {}\n  }\n"
        "}\n",
    ),
    (
        "tsx",
        "Title:remove",
        "export function Title() {\n  return <h1>t</h1>;\n}\n\nexport function Body() {\n"
        "  return <p>b</p>;\n}\n",
        "",
        "export function Body() {\n  return <p>b</p>;\n}\n",
    ),
    (
        "go",
        "Client-Chat:after",
        "package chat\n\ntype Client struct{}\n\n// Chat sends.\n"
        "func (c *Client) Chat(m string) string {\n\treturn m\n}\n",
        "func (c *Client) Close() {\n}",
        "package chat\n\ntype Client struct{}\n\n// Chat sends.\n"
        "func (c *Client) Chat(m string) string {\n\treturn m\n}\n\n"
        "func (c *Client) Close() {\n}\n",
    ),
    (
        "rust",
        "net-Client-chat",
        "mod net {\n    pub struct Client;\n\n    impl Client {\n        /// Sends.\n"
        "        pub fn chat(&self) -> u8 {\n            1\n        }\n    }\n}\n",
        "/// Sends one message.\npub fn chat(&self) -> u8 {\n    2\n}",
        "mod net {\n    pub struct Client;\n\n    impl Client {\n"
        "        /// Sends one message.\n        pub fn chat(&self) -> u8 {\n            2\n"
        "        }\n    }\n}\n",
    ),
    (
        "java",
        "Client-toString:remove",
        'class Client {\n    @Override\n    public String toString() {\n        return "c";\n'
        "    }\n\n    void close() {\n    }\n}\n",
        "",
        "class Client {\n    void close() {\n    }\n}\n",
    ),
    (
        "c",
        "add:after",
        "int add(int a, int b)\n{\n    return a + b;\n}\n\nint main(void)\n{\n"
        "    return add(1, 2);\n}\n",
        "int sub(int a, int b)\n{\n    return a - b;\n}",
        "int add(int a, int b)\n{\n    return a + b;\n}\n\nint sub(int a, int b)\n{\n"
        "    return a - b;\n}\n\nint main(void)\n{\n    return add(1, 2);\n}\n",
    ),
    (
        "cpp",
        "net::Client::chat",
        "namespace net {\nclass Client {\n  void chat();\n};\n\nvoid Client::chat() {\n"
        "  send();\n}\n}  // namespace net\n",
        "void Client::chat() {\n  send();\n  flush();\n}",
        "namespace net {\nclass Client {\n  void chat();\n};\n\nvoid Client::chat() {\n"
        "  send();\n  flush();\n}\n}  // namespace net\n",
    ),
    (
        "c_sharp",
        "Chat.Client.Chat:before",
        "namespace Chat\n{\n    public class Client\n    {\n        [Obsolete]\n"
        "        public void Chat()\n        {\n        }\n    }\n}\n",
        "public void Open()\n{\n}",
        "namespace Chat\n{\n    public class Client\n    {\n        public void Open()\n"
        "        {\n        }\n\n        [Obsolete]\n        public void Chat()\n        {\n"
        "        }\n    }\n}\n",
    ),
    (
        "ruby",
        "Chat-Client-chat",
        "module Chat\n  class Client\n    def open\n      1\n    end\n\n    # Sends.\n"
        "    def chat(m)\n      m\n    end\n  end\nend\n",
        "def chat(m)\n  m.strip\nend",
        "module Chat\n  class Client\n    def open\n      1\n    end\n\n    # Sends.\n"
        "    def chat(m)\n      m.strip\n    end\n  end\nend\n",
    ),
]


@pytest.mark.parametrize(("language", "path", "source", "content", "expected"), LANGUAGE_CASES)
def test_each_language_places_a_block_at_its_symbol_with_the_exact_result(
    language: str, path: str, source: str, content: str, expected: str
) -> None:
    assert _apply(source, path, content, language) == expected


STORE = (
    "class Store:\n"
    '    """Keeps things."""\n'
    "\n"
    "    def __init__(self):\n"
    "        self.items = {}\n"
    "\n"
    "    def put(self, key, value):\n"
    "        self.items[key] = value\n"
    "\n"
    "    def clear(self):\n"
    "        self.items = {}\n"
)


def test_replacement_eliding_the_rest_of_a_class_keeps_the_elided_methods():
    content = (
        "class Store:\n"
        '    """Keeps things, counted."""\n'
        "\n"
        "    def __init__(self):\n"
        "        self.items = {}\n"
        "\n"
        "    # ... rest of the class unchanged ..."
    )
    result = _resolve(STORE, "Store", content)
    assert isinstance(result, Placed)
    assert Text.from_string(STORE).replace(result.edits).render() == STORE.replace(
        "Keeps things.", "Keeps things, counted."
    )
    assert result.notes == (
        "Filled 5 elided lines at `# ... rest of the class unchanged ...` from the original "
        "(lines 7-11)",
    )


def test_replacement_whose_placeholder_cannot_be_placed_is_refused_not_applied():
    content = "class Store:\n    # ... existing code ...\n    def other(self):\n        pass"
    result = _resolve(STORE, "Store", content)
    assert isinstance(result, Refused) and result.code == "elision_ambiguous"


def test_python_replace_with_a_decorator_over_several_lines_replaces_the_old_decorator() -> None:
    content = "@retry(\n    times=3,\n    delay=1,\n)\ndef chat(self, message):\n    return message"
    result = _apply(PY, "Client-chat", content)
    assert result == PY.replace(
        "    @logged\n", "    @retry(\n        times=3,\n        delay=1,\n    )\n"
    )


def test_rust_replace_with_a_new_attribute_keeps_the_doc_comment() -> None:
    content = "#[inline(always)]\npub fn chat(&self) -> u8 {\n    2\n}"
    result = _apply(RUST_CHAT, "Client-chat", content, "rust")
    assert result == RUST_CHAT.replace("#[inline]", "#[inline(always)]").replace(
        "        1\n", "        2\n"
    )


GO_TABS = (
    'package main\n\nfunc (t T) Name() string {\n\tif ok {\n\t\treturn "t"\n\t}\n\treturn ""\n}\n'
)


def test_a_replacement_written_with_spaces_follows_a_tab_indented_file() -> None:
    content = 'func (t T) Name() string {\n    if ok {\n        return "T"\n    }\n    return ""\n}'
    result = _resolve(GO_TABS, "T-Name", content, "go")
    assert isinstance(result, Placed)
    # only the changed line is rewritten; the kept lines keep their tabs untouched
    assert [(e.start, e.end) for e in result.edits] == [(4, 5)]
    assert _apply(GO_TABS, "T-Name", content, "go") == GO_TABS.replace('"t"', '"T"')


def test_a_python_method_written_with_spaces_into_a_tab_indented_class_gets_tabs() -> None:
    source = "class A:\n\tdef m(self):\n\t\treturn 1\n\n\tdef n(self):\n\t\treturn 2\n"
    assert _apply(source, "A-m", "def m(self):\n    x = 1\n    return x") == (
        "class A:\n\tdef m(self):\n\t\tx = 1\n\t\treturn x\n\n\tdef n(self):\n\t\treturn 2\n"
    )
    assert _apply(source, "A-n:after", "    def o(self):\n        return 3") == (
        source + "\n\tdef o(self):\n\t\treturn 3\n"
    )


def test_a_replacement_written_with_tabs_follows_a_space_indented_file() -> None:
    source = "class A:\n    def m(self):\n        return 1\n"
    assert _apply(source, "A-m", "def m(self):\n\treturn 2") == (
        "class A:\n    def m(self):\n        return 2\n"
    )


def test_a_class_replaced_with_a_new_stub_method_keeps_the_stub_body() -> None:
    source = "class Shape(Protocol):\n    def name(self) -> str:\n        return 'x'\n"
    content = (
        "class Shape(Protocol):\n    def name(self) -> str:\n        return 'x'\n\n"
        "    def attribute(self) -> int:\n        ..."
    )
    assert _apply(source, "Shape", content) == content + "\n"


def test_a_stub_inserted_after_a_method_keeps_its_body() -> None:
    source = "class Shape(Protocol):\n    def name(self) -> str:\n        return 'x'\n"
    after = _apply(source, "Shape-name:after", "def attribute(self) -> int:\n    ...")
    assert after == source + "\n    def attribute(self) -> int:\n        ...\n"
