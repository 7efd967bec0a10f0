"""Regular expressions compiled when first used.

`lsp-edit apply` starts once per reply, and a reply uses few of the engine's
patterns: those of the formats it holds. Compiling every pattern at import cost
more than placing a small reply. A `LazyPattern` is written where `re.compile`
would be and used the same way; its first use compiles it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    from typing import Any


class LazyPattern:
    """A pattern compiled by the first call of one of its methods. From then on the
    compiled pattern's own methods answer, with no call in between: they are stored
    on the instance, where they come before the methods below."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags

    def compiled(self) -> re.Pattern[str]:
        pattern = re.compile(self.pattern, self.flags)
        vars(self).update(
            compiled=lambda: pattern,
            match=pattern.match,
            fullmatch=pattern.fullmatch,
            search=pattern.search,
            finditer=pattern.finditer,
            findall=pattern.findall,
            sub=pattern.sub,
            split=pattern.split,
        )
        return pattern

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().match(string, pos, endpos)

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        return self.compiled().fullmatch(string, pos, endpos)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().search(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled().findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled().sub(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled().split(string, maxsplit)
