"""A pattern compiled when first used answers as the compiled pattern does."""

import re

from lsp_edit.patterns import LazyPattern

SOURCE = r"(?P<word>[a-z]+)=(\d+)"
TEXT = "A=1, b=22; c=333"
CALLS = [
    ("match", (TEXT,)),
    ("search", (TEXT, 3)),
    ("fullmatch", ("c=333",)),
    ("fullmatch", (TEXT,)),
    ("finditer", (TEXT,)),
    ("findall", (TEXT,)),
    ("sub", ("_", TEXT)),
    ("split", (TEXT, 1)),
]


def _plain(result):
    """A result with its matches as spans and groups, so two can be compared."""
    if isinstance(result, re.Match):
        return result.span(), result.groups()
    if isinstance(result, str | type(None)):
        return result
    return [_plain(item) for item in result]


def test_each_method_answers_as_the_compiled_pattern_on_first_use_and_after():
    compiled = re.compile(SOURCE, re.IGNORECASE)
    for method, args in CALLS:
        lazy = LazyPattern(SOURCE, re.IGNORECASE)
        expected = _plain(getattr(compiled, method)(*args))
        assert _plain(getattr(lazy, method)(*args)) == expected, method
        assert _plain(getattr(lazy, method)(*args)) == expected, method


def test_its_source_is_read_without_compiling_it():
    lazy = LazyPattern(SOURCE)
    assert lazy.pattern == SOURCE
    assert "match" not in vars(lazy)
    assert lazy.compiled() is lazy.compiled()
