"""The symbol index of every supported language, checked against one realistic
fixture per language: each AST path with its kind and exact 1-based line range
(the range includes decorators, attributes and the comments directly above)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_edit.symbols import (
    find_symbols,
    index_symbols,
    language_for,
    supported_languages,
    symbol_at,
)
from lsp_edit.text import Text

FIXTURES = Path(__file__).parent / "fixtures" / "symbols"

EXPECTED = {
    "sample.py": [
        ("MAX_RETRIES", "constant", 5, 5),
        ("build_headers", "function", 8, 10),
        ("Client", "class", 13, 37),
        ("Client-Options", "class", 16, 20),
        ("Client-Options-merged", "method", 19, 20),
        ("Client-__init__", "method", 22, 23),
        ("Client-chat", "method", 25, 30),
        ("Client-name", "method", 32, 34),
        ("Client-close", "method", 36, 37),
        ("trace", "function", 41, 42),
        ("trace", "function", 44, 45),
    ],
    "sample.js": [
        ("buildHeaders", "function", 6, 11),
        ("Client", "class", 13, 30),
        ("Client-constructor", "method", 14, 16),
        ("Client-chat", "method", 18, 21),
        ("Client-create", "method", 23, 25),
        ("Client-name", "method", 27, 29),
        ("formatMessage", "function", 32, 34),
        ("ids", "function", 36, 39),
        ("main", "function", 41, 44),
    ],
    "sample.ts": [
        ("Message", "interface", 4, 8),
        ("Message-format", "method", 7, 7),
        ("Role", "type", 10, 10),
        ("Status", "enum", 12, 15),
        ("Net", "namespace", 17, 43),
        ("Net-Client", "class", 18, 38),
        ("Net-Client-constructor", "method", 23, 25),
        ("Net-Client-chat", "method", 27, 31),
        ("Net-Client-send", "method", 33, 33),
        ("Net-Client-send", "method", 34, 34),
        ("Net-Client-send", "method", 35, 37),
        ("Net-connect", "function", 40, 42),
        ("Base", "class", 45, 47),
        ("Base-run", "method", 46, 46),
        ("formatMessage", "function", 49, 49),
    ],
    "sample.tsx": [
        ("Props", "interface", 3, 5),
        ("Title", "function", 7, 10),
        ("Chat", "class", 12, 20),
        ("Chat-render", "method", 13, 19),
        ("Footer", "function", 22, 22),
    ],
    "sample.go": [
        ("MaxRetries", "constant", 9, 10),
        ("Client", "struct", 12, 16),
        ("Sender", "interface", 18, 21),
        ("Role", "type", 23, 23),
        ("NewClient", "function", 25, 28),
        ("Client-Chat", "method", 30, 33),
        ("Client-Name", "method", 35, 37),
        ("List", "struct", 39, 41),
        ("List-Push", "method", 43, 45),
    ],
    "sample.rs": [
        ("MAX_RETRIES", "constant", 5, 5),
        ("net", "module", 7, 36),
        ("net-Client", "struct", 8, 12),
        ("net-Client-new", "method", 15, 18),
        ("net-Client-chat", "method", 20, 24),
        ("net-Sender", "interface", 27, 29),
        ("net-Sender-send", "method", 28, 28),
        ("net-Client-send", "method", 32, 34),
        ("Role", "enum", 38, 41),
        ("Role-fmt", "method", 44, 46),
        ("tests", "module", 49, 55),
        ("tests-chat_formats_message", "function", 51, 54),
    ],
    "sample.java": [
        ("Client", "class", 5, 39),
        ("Client-Client", "method", 11, 13),
        ("Client-chat", "method", 15, 19),
        ("Client-chat", "method", 21, 23),
        ("Client-Options", "class", 25, 33),
        ("Client-Options-toString", "method", 29, 32),
        ("Client-Role", "enum", 35, 38),
        ("Sender", "interface", 41, 43),
        ("Sender-send", "method", 42, 42),
    ],
    "sample.c": [
        ("client", "struct", 6, 10),
        ("status", "struct", 12, 14),
        ("role", "enum", 16, 19),
        ("client_new", "function", 21, 27),
        ("client_chat", "function", 29, 34),
        ("trace", "function", 37, 37),
        ("trace", "function", 39, 39),
    ],
    "sample.cpp": [
        ("net", "namespace", 4, 37),
        ("net-Client", "class", 6, 21),
        ("net-Client-Client", "method", 9, 9),
        ("net-Client-name", "method", 13, 13),
        ("net-Client-Options", "struct", 15, 17),
        ("net-Client-chat", "method", 23, 26),
        ("net-clamp", "function", 28, 31),
        ("net-add", "function", 33, 33),
        ("net-add", "function", 35, 35),
        ("net-Client-close", "method", 39, 41),
        ("Role", "enum", 43, 43),
        ("main", "function", 45, 49),
    ],
    "sample.cs": [
        ("Chat-Net", "namespace", 3, 45),
        ("Chat-Net-Client", "class", 5, 33),
        ("Chat-Net-Client-Client", "method", 10, 13),
        ("Chat-Net-Client-Name", "property", 15, 15),
        ("Chat-Net-Client-Chat", "method", 17, 22),
        ("Chat-Net-Client-Chat", "method", 24, 27),
        ("Chat-Net-Client-Options", "struct", 29, 32),
        ("Chat-Net-ISender", "interface", 35, 38),
        ("Chat-Net-ISender-Send", "method", 37, 37),
        ("Chat-Net-Role", "enum", 40, 44),
    ],
    "sample.rb": [
        ("Chat", "module", 4, 34),
        ("Chat-MAX_RETRIES", "constant", 5, 5),
        ("Chat-Client", "class", 7, 27),
        ("Chat-Client-initialize", "method", 9, 11),
        ("Chat-Client-chat", "method", 13, 16),
        ("Chat-Client-create", "method", 18, 20),
        ("Chat-Client-Options", "class", 22, 26),
        ("Chat-Client-Options-timeout", "method", 23, 25),
        ("Chat-Helpers", "module", 29, 33),
        ("Chat-Helpers-format", "method", 30, 32),
        ("main", "method", 36, 38),
    ],
}


def _index(name: str) -> list[tuple[str, str, int, int]]:
    language = language_for(name)
    assert language is not None
    text = Text.from_string((FIXTURES / name).read_text(encoding="utf-8"))
    return [
        (symbol.dotted, symbol.kind, symbol.start_line + 1, symbol.end_line)
        for symbol in index_symbols(text, language)
    ]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_symbols_have_exact_paths_kinds_and_line_ranges(name: str) -> None:
    assert _index(name) == EXPECTED[name]


def test_every_supported_language_has_a_fixture() -> None:
    covered = {language_for(name) for name in EXPECTED}
    assert covered == set(supported_languages())


@pytest.mark.parametrize(
    ("written", "language"),
    [
        ("py", "python"),
        ("Python", "python"),
        ("jsx", "javascript"),
        ("ts", "typescript"),
        ("tsx", "tsx"),
        ("golang", "go"),
        ("rs", "rust"),
        ("java", "java"),
        ("h", "c"),
        ("c++", "cpp"),
        ("hpp", "cpp"),
        ("c#", "c_sharp"),
        ("csharp", "c_sharp"),
        ("rb", "ruby"),
        ("src/app/view.tsx", "tsx"),
        ("lib/chat.rb", "ruby"),
        ("include/net/client.hpp", "cpp"),
    ],
)
def test_language_for_knows_fence_tags_and_file_extensions(written: str, language: str) -> None:
    assert language_for(written) == language


def test_language_for_an_unknown_tag_or_extension_is_none() -> None:
    assert language_for("vala") is None
    assert language_for("notes.txt") is None


def test_python_decorators_and_comment_above_belong_to_the_method() -> None:
    text = Text.from_string(
        "class Client:\n"
        "    x = 1\n"
        "\n"
        "    # Sends one message.\n"
        "    @retry(times=3)\n"
        "    def chat(self):\n"
        "        return 1\n"
    )
    (chat,) = find_symbols(index_symbols(text, "python"), ["Client", "chat"])
    assert (chat.start_line, chat.body_start_line, chat.end_line, chat.indent) == (3, 5, 7, "    ")


@pytest.mark.parametrize(
    ("language", "source"),
    [
        (
            "rust",
            "#[inline]\n/// Runs it.\nfn run() {}\n\n/// Stops it.\n#[inline]\nfn stop() {}\n",
        ),
        (
            "c_sharp",
            "class A {\n    [Obsolete]\n    /// <summary>Runs.</summary>\n    void Run() {}\n\n"
            "    /// <summary>Stops.</summary>\n    [Obsolete]\n    void Stop() {}\n}\n",
        ),
        (
            "typescript",
            "class A {\n  @log\n  /** Runs. */\n  run() {}\n\n"
            "  /** Stops. */\n  @log\n  stop() {}\n}\n",
        ),
    ],
)
def test_attributes_and_doc_comments_above_belong_to_the_definition_in_either_order(
    language: str, source: str
) -> None:
    symbols = index_symbols(Text.from_string(source), language)
    # (Rust's functions start at line 0, the others' inside `class A {`.)
    first = 0 if language == "rust" else 1
    assert [
        (s.path[-1].lower(), s.start_line - first, s.body_start_line - first)
        for s in symbols
        if s.kind != "class"
    ] == [("run", 0, 2), ("stop", 4, 6)]


def test_a_comment_separated_by_a_blank_line_does_not_belong_to_the_symbol() -> None:
    text = Text.from_string("// section\n\n// Runs.\nfunction run() {\n}\n")
    (run,) = index_symbols(text, "javascript")
    assert (run.start_line, run.body_start_line, run.end_line) == (2, 3, 5)


def test_a_stray_comment_closer_does_not_join_a_method_to_the_comment_above_another() -> None:
    text = Text.from_string(
        "class A {\n"
        "    /** Adds. */\n"
        "    int add() {\n"
        "        return 1;\n"
        "    }\n"
        "     */\n"
        "    /** Runs. */\n"
        "    void run() {\n"
        "    }\n"
        "}\n"
    )
    symbols = index_symbols(text, "java")
    assert [(s.dotted, s.start_line) for s in symbols] == [("A", 0), ("A-add", 1), ("A-run", 6)]


def test_a_go_type_named_like_struct_or_interface_is_a_type() -> None:
    text = Text.from_string(
        "package p\n\n"
        "type A structs.Config\n\n"
        "type B interfaceKind\n\n"
        "type C struct {\n\tx int\n}\n\n"
        "type D interface{}\n"
    )
    symbols = index_symbols(text, "go")
    assert [(s.dotted, s.kind) for s in symbols] == [
        ("A", "type"),
        ("B", "type"),
        ("C", "struct"),
        ("D", "interface"),
    ]


def test_a_comment_trailing_a_python_function_is_not_part_of_it() -> None:
    text = Text.from_string("def f():\n    return 1\n    # trailing note\n\n\ndef g():\n    pass\n")
    symbols = index_symbols(text, "python")
    assert [(s.dotted, s.start_line, s.end_line) for s in symbols] == [("f", 0, 2), ("g", 5, 7)]


def test_crlf_and_cr_only_files_index_by_line() -> None:
    for eol in ("\r\n", "\r"):
        text = Text.from_string(eol.join(["def f():", "    pass", "", "def g():", "    pass", ""]))
        symbols = index_symbols(text, "python")
        assert [(s.dotted, s.start_line, s.end_line) for s in symbols] == [("f", 0, 2), ("g", 3, 5)]


def test_symbol_at_gives_the_innermost_symbol_containing_the_line() -> None:
    text = Text.from_string("class A:\n    def f(self):\n        return 1\n\nx = 2\n")
    symbols = index_symbols(text, "python")
    inner = symbol_at(symbols, 2)
    assert inner is not None and inner.dotted == "A-f"
    outer = symbol_at(symbols, 0)
    assert outer is not None and outer.dotted == "A"
    assert symbol_at(symbols, 4) is None


def test_index_symbols_refuses_an_unknown_language() -> None:
    with pytest.raises(ValueError, match="unsupported language"):
        index_symbols(Text.from_string("x\n"), "vala")


@pytest.mark.parametrize(
    ("language", "source", "expected"),
    [
        (
            "typescript",
            "// One.\nexport declare class A {\n  run(): void;\n}\n\n"
            "@sealed\nexport class B {}\nexport const f = () => 1;\n",
            [("A", 0, 1, 4), ("A-run", 2, 2, 3), ("B", 5, 6, 7), ("f", 7, 7, 8)],
        ),
        (
            "cpp",
            "template <typename T>\ntemplate <typename U>\n"
            "int Box<T>::get(U u) {\n  return 1;\n}\n",
            [("Box-get", 0, 0, 5)],
        ),
        (
            "python",
            "@first\n# between\n@second\ndef run():\n    pass\n",
            [("run", 0, 3, 5)],
        ),
    ],
)
def test_a_wrapped_definition_starts_with_its_outermost_wrapper(
    language: str, source: str, expected: list[tuple[str, int, int, int]]
) -> None:
    # (`export declare`, decorators, nested `template <...>`: each wraps the one below.)
    symbols = index_symbols(Text.from_string(source), language)
    assert [(s.dotted, s.start_line, s.body_start_line, s.end_line) for s in symbols] == expected


def test_a_member_right_after_an_opening_brace_takes_no_attribute_from_above_it() -> None:
    text = Text.from_string(
        "namespace App {\n    [Serializable]\n    class A {\n        void Run() {}\n    }\n}\n"
    )
    assert [
        (s.dotted, s.start_line, s.body_start_line) for s in index_symbols(text, "c_sharp")
    ] == [("App", 0, 0), ("App-A", 1, 2), ("App-A-Run", 3, 3)]
