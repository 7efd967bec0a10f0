"""The languages lsp-edit indexes: one table row each, plus the lookups on it.

Supporting a language is data: a grammar wheel, a query file in
`lsp_edit/grammars/<query>.scm` using the standard capture names, and one row
here saying where the grammar lives and how the language writes comments and
attributes (which belong to the symbol below them).
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import PurePosixPath

import tree_sitter as ts

from lsp_edit.values import value


@value
class LanguageSpec:
    """How to parse and read one language.

    `module`/`function`: the grammar wheel and the function giving its language
    pointer. `query`: the query file's stem in `lsp_edit/grammars/`. `tags` and
    `extensions`: the fence tags and file suffixes naming the language.
    `comment_prefixes`: how a comment line starts (a line above a symbol starting
    so belongs to it). `attribute_prefixes`: how a decorator/attribute line starts.
    `attribute_nodes`: node types of decorators/attributes, whether inside the
    definition node or just before it. `wrapper_nodes`: parents that wrap a single
    definition and belong to it (`decorated_definition`, `export_statement`,
    `template_declaration`). `member_wrapper`: the first and last line of a container
    that makes a snippet of members (methods written alone) parse as definitions, for
    languages where they do not at the top level (`class Fragment {` ... `}`).
    """

    name: str
    module: str
    function: str
    query: str
    tags: tuple[str, ...]
    extensions: tuple[str, ...]
    comment_prefixes: tuple[str, ...]
    attribute_prefixes: tuple[str, ...] = ()
    attribute_nodes: frozenset[str] = frozenset()
    wrapper_nodes: frozenset[str] = frozenset()
    member_wrapper: tuple[str, str] | None = None


# A block comment is found from its closing `*/` line, so `*` lines need no prefix.
_C_COMMENTS = ("//", "/*")
_JS_WRAPPERS = frozenset({"export_statement", "ambient_declaration"})
FRAGMENT = "LspEditFragment"
_CLASS_BODY = (f"class {FRAGMENT} {{", "}")

LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec(
        "python",
        "tree_sitter_python",
        "language",
        "python",
        ("python", "py", "python3"),
        (".py", ".pyi"),
        ("#",),
        ("@",),
        frozenset({"decorator"}),
        frozenset({"decorated_definition"}),
    ),
    LanguageSpec(
        "javascript",
        "tree_sitter_javascript",
        "language",
        "javascript",
        ("javascript", "js", "jsx", "mjs", "cjs"),
        (".js", ".jsx", ".mjs", ".cjs"),
        _C_COMMENTS,
        ("@",),
        frozenset({"decorator"}),
        _JS_WRAPPERS,
        member_wrapper=_CLASS_BODY,
    ),
    LanguageSpec(
        "typescript",
        "tree_sitter_typescript",
        "language_typescript",
        "typescript",
        ("typescript", "ts", "mts", "cts"),
        (".ts", ".mts", ".cts"),
        _C_COMMENTS,
        ("@",),
        frozenset({"decorator"}),
        _JS_WRAPPERS,
        member_wrapper=_CLASS_BODY,
    ),
    LanguageSpec(
        "tsx",
        "tree_sitter_typescript",
        "language_tsx",
        "typescript",
        ("tsx",),
        (".tsx",),
        _C_COMMENTS,
        ("@",),
        frozenset({"decorator"}),
        _JS_WRAPPERS,
        member_wrapper=_CLASS_BODY,
    ),
    LanguageSpec(
        "go",
        "tree_sitter_go",
        "language",
        "go",
        ("go", "golang"),
        (".go",),
        _C_COMMENTS,
    ),
    LanguageSpec(
        "rust",
        "tree_sitter_rust",
        "language",
        "rust",
        ("rust", "rs"),
        (".rs",),
        _C_COMMENTS,
        ("#[",),
        frozenset({"attribute_item"}),
    ),
    LanguageSpec(
        "java",
        "tree_sitter_java",
        "language",
        "java",
        ("java",),
        (".java",),
        _C_COMMENTS,
        ("@",),
        frozenset({"annotation", "marker_annotation"}),
        member_wrapper=_CLASS_BODY,
    ),
    LanguageSpec(
        "c",
        "tree_sitter_c",
        "language",
        "c",
        ("c", "h"),
        (".c", ".h"),
        _C_COMMENTS,
    ),
    LanguageSpec(
        "cpp",
        "tree_sitter_cpp",
        "language",
        "cpp",
        ("cpp", "c++", "cc", "cxx", "hpp", "hh", "hxx"),
        (".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++"),
        _C_COMMENTS,
        ("[[",),
        frozenset({"attribute_declaration"}),
        frozenset({"template_declaration"}),
    ),
    LanguageSpec(
        "c_sharp",
        "tree_sitter_c_sharp",
        "language",
        "c_sharp",
        ("cs", "csharp", "c#", "c_sharp"),
        (".cs",),
        _C_COMMENTS,
        ("[",),
        frozenset({"attribute_list"}),
        member_wrapper=_CLASS_BODY,
    ),
    LanguageSpec(
        "ruby",
        "tree_sitter_ruby",
        "language",
        "ruby",
        ("ruby", "rb"),
        (".rb", ".rake", ".gemspec"),
        ("#",),
    ),
)

_BY_NAME = {spec.name: spec for spec in LANGUAGES}
_BY_TAG = {tag: spec.name for spec in LANGUAGES for tag in (spec.name, *spec.tags)}
_BY_EXTENSION = {ext: spec.name for spec in LANGUAGES for ext in spec.extensions}


def language_for(name_or_path: str) -> str | None:
    """The language a fence tag (`py`, `c++`) or a file path (`src/a.tsx`) names.

    A fence tag is tried first, case-insensitively; then the path's suffix.
    None when neither is known.
    """
    key = name_or_path.strip().lower()
    if key in _BY_TAG:
        return _BY_TAG[key]
    suffix = PurePosixPath(key.replace("\\", "/")).suffix
    return _BY_EXTENSION.get(suffix)


# Languages a block's fence tag may name for a file of its neighbour: a C header
# (`.h`) is read as C++ when the block says `cpp`.
_HEADER_LANGUAGES = {".h": frozenset({"cpp"})}
# Languages close enough that a tag naming one for a file of another is no mistake
# (`js` for a `.ts` file): the file's own language reads it.
_FAMILIES = (frozenset({"c", "cpp"}), frozenset({"javascript", "typescript", "tsx"}))


def language_of_file(path: str, tag: str | None = None) -> str | None:
    """The language to read a file in: the one its suffix names (a C header's `cpp`
    when the block's fence `tag` says so); for a file without a suffix, the tag's.
    None when neither is known, or the suffix names no indexed language (`.md`)."""
    suffix = PurePosixPath(path.strip().lower().replace("\\", "/")).suffix
    tagged = _BY_TAG.get(tag.strip().lower()) if tag else None
    if not suffix:
        return tagged
    if tagged in _HEADER_LANGUAGES.get(suffix, ()):
        return tagged
    return _BY_EXTENSION.get(suffix)


def tag_contradicts(path: str, tag: str) -> bool:
    """Whether a fence tag names a language the file is not (`python` for
    `README.md`, `rust` for `app.py`; `js` for `app.ts` is the same family)."""
    tagged = _BY_TAG.get(tag.strip().lower())
    if tagged is None:
        return False
    own = language_of_file(path, tag)
    if own is None:
        return bool(PurePosixPath(path.replace("\\", "/")).suffix)
    return own != tagged and not any(own in family and tagged in family for family in _FAMILIES)


def supported_languages() -> tuple[str, ...]:
    """The canonical language names, in table order."""
    return tuple(spec.name for spec in LANGUAGES)


def spec_for(language: str) -> LanguageSpec | None:
    """The table row of a canonical name (or of anything `language_for` knows)."""
    spec = _BY_NAME.get(language)
    if spec is None:
        canonical = language_for(language)
        spec = _BY_NAME.get(canonical) if canonical else None
    return spec


@cache
def grammar(language: str) -> ts.Language:
    """The tree-sitter language of a canonical name (loaded once)."""
    spec = _BY_NAME[language]
    module = importlib.import_module(spec.module)
    return ts.Language(getattr(module, spec.function)())


@cache
def symbol_query(language: str) -> ts.Query:
    """The compiled symbol query of a canonical name (loaded once)."""
    spec = _BY_NAME[language]
    from importlib import resources  # costs start-up time; only a query needs it

    source = resources.files("lsp_edit").joinpath(f"grammars/{spec.query}.scm").read_text("utf-8")
    # Each wrapper (`wrapper_nodes`) the grammar has, with each node it wraps,
    # last (the numbers of the file's patterns stay theirs): the index reads them
    # here rather than asking every definition for its parent, which tree-sitter
    # finds by walking down from the root.
    found = grammar(language)
    wrappers = "".join(
        f"\n({node} (_) @wrapped) @wrapper"
        for node in sorted(spec.wrapper_nodes)
        if found.id_for_node_kind(node, True)
    )
    return ts.Query(found, source + wrappers)
