"""The matching ladder: how a block's old lines are found in a document.

The ladder is data: an ordered tuple of named strategies, strictest first. Each
later strategy accepts everything the one before it accepts, and a little more:

- `exact`: the lines as written;
- `trailing_whitespace`: each line with trailing whitespace removed;
- `indentation`: leading whitespace may differ by one uniform transform (a prefix
  added or removed on every line, or tabs written as spaces consistently);
- `blank_edges`: as `indentation`, with blank lines at the start and end of the
  old lines ignored;
- `unicode_punctuation`: as `blank_edges`, with curly quotes, dashes, non-breaking
  spaces and the ellipsis character read as their ASCII forms on both sides.

The first strategy that finds any match decides; the caller then needs exactly one
match (or a hint that picks one). Lines are found through an index from each
strategy's normalised line to its positions, searched by the block's rarest line,
so placing a block costs about the block's size times the rarest line's count,
not the file's size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from itertools import compress

from lsp_edit.resolve.diffing import sequence_matcher
from lsp_edit.text import Draft, Text
from lsp_edit.values import value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing `typing` at every start
if TYPE_CHECKING:
    import weakref
    from typing import Literal, Protocol, TypeAlias

    class EditedLines(Protocol):
        """Lines changed in place, with the log of their changes (a `Draft`), and the
        lines the blocks still to come will look for, when known."""

        @property
        def lines(self) -> list[str]: ...
        @property
        def log(self) -> list[tuple[int, int, tuple[str, ...]]]: ...
        @property
        def sought(self) -> Collection[str]: ...


Normaliser = Callable[[str], str]

_PUNCTUATION = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u2026": "...",
        "\u00a0": " ",
        "\u2002": " ",
        "\u2003": " ",
        "\u2004": " ",
        "\u2005": " ",
        "\u2006": " ",
        "\u2007": " ",
        "\u2008": " ",
        "\u2009": " ",
        "\u200a": " ",
        "\u202f": " ",
        "\u205f": " ",
        "\u3000": " ",
    }
)


def normalise_punctuation(line: str) -> str:
    """Curly quotes, dashes, odd spaces and `…` as their ASCII forms."""
    if line.isascii():  # the common case costs one flag check
        return line
    return line.translate(_PUNCTUATION)


def _as_written(line: str) -> str:
    return line


def _without_trailing_space(line: str) -> str:
    return line.rstrip()


def _without_edge_space(line: str) -> str:
    return line.strip()


def _plain_punctuation(line: str) -> str:
    return normalise_punctuation(line).strip()


@value
class Strategy:
    """One rung of the ladder.

    `key` normalises a line for comparison (and for the index); `reindent` lets the
    leading whitespace differ by one uniform transform; `blank_edges` ignores blank
    lines at the start and end of the old lines.
    """

    name: str
    key: Normaliser
    reindent: bool
    blank_edges: bool


LADDER: tuple[Strategy, ...] = (
    Strategy("exact", _as_written, reindent=False, blank_edges=False),
    Strategy("trailing_whitespace", _without_trailing_space, reindent=False, blank_edges=False),
    Strategy("indentation", _without_edge_space, reindent=True, blank_edges=False),
    Strategy("blank_edges", _without_edge_space, reindent=True, blank_edges=True),
    Strategy("unicode_punctuation", _plain_punctuation, reindent=True, blank_edges=True),
)
"""The ladder, strictest first."""

STRATEGIES: dict[str, Strategy] = {strategy.name: strategy for strategy in LADDER}


def ladder_rank(name: str) -> int:
    """The position of a strategy in the ladder; names outside it rank first."""
    for rank, strategy in enumerate(LADDER):
        if strategy.name == name:
            return rank
    return -1


def leading_whitespace(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def is_blank(line: str) -> bool:
    return not line.strip()


# a type only (a string at run time)
ReindentKind: TypeAlias = 'Literal["same", "add", "remove", "spaces_to_tabs", "tabs_to_spaces"]'


@value
class Reindent:
    """How the block's indentation maps to the file's, found on the old lines and
    applied to the new lines the block changes.

    `add`/`remove` put or take `prefix` at the start of every indentation; the
    conversions read `width` spaces as one tab.
    """

    kind: ReindentKind = "same"
    prefix: str = ""
    width: int = 0

    def indent(self, indent: str) -> str | None:
        """The file's form of a block indentation; None when it cannot be mapped."""
        if self.kind == "same":
            return indent
        if self.kind == "add":
            return self.prefix + indent
        if self.kind == "remove":
            return indent[len(self.prefix) :] if indent.startswith(self.prefix) else None
        if self.kind == "spaces_to_tabs":
            if set(indent) <= {" "} and len(indent) % self.width == 0:
                return "\t" * (len(indent) // self.width)
            return None
        if set(indent) <= {"\t"}:
            return " " * (len(indent) * self.width)
        return None

    def line(self, line: str) -> str | None:
        """The file's form of a whole block line; None when its indentation cannot be mapped."""
        if self.kind == "same":
            return line
        if is_blank(line):
            return ""
        indent = leading_whitespace(line)
        mapped = self.indent(indent)
        return None if mapped is None else mapped + line[len(indent) :]

    def describe(self) -> str:
        if self.kind == "add":
            return f"the file indents these lines by {_spell(self.prefix)} more than the block"
        if self.kind == "remove":
            return f"the file indents these lines by {_spell(self.prefix)} less than the block"
        if self.kind == "spaces_to_tabs":
            return f"the file indents with tabs where the block used {self.width} spaces"
        if self.kind == "tabs_to_spaces":
            return f"the file indents with {self.width} spaces where the block used tabs"
        return "the indentation is the same"


SAME_INDENT = Reindent()


def _spell(whitespace: str) -> str:
    tabs = whitespace.count("\t")
    spaces = len(whitespace) - tabs
    parts = []
    if spaces:
        parts.append(f"{spaces} space{'s' if spaces != 1 else ''}")
    if tabs:
        parts.append(f"{tabs} tab{'s' if tabs != 1 else ''}")
    return " and ".join(parts) or "nothing"


def detect_reindent(block: Sequence[str], found: Sequence[str]) -> Reindent | None:
    """The one transform that maps every non-blank block line's indentation to the
    found line's, or None when there is none (the indentation is not uniform)."""
    pairs = {
        (leading_whitespace(b), leading_whitespace(f))
        for b, f in zip(block, found, strict=True)
        if not is_blank(b) and not is_blank(f)
    }
    if all(b == f for b, f in pairs):
        return SAME_INDENT
    added = {f[: len(f) - len(b)] for b, f in pairs if f.endswith(b)}
    if len(added) == 1 and all(f.endswith(b) for b, f in pairs):
        return Reindent("add", prefix=added.pop())
    removed = {b[: len(b) - len(f)] for b, f in pairs if b.endswith(f)}
    if len(removed) == 1 and all(b.endswith(f) for b, f in pairs):
        return Reindent("remove", prefix=removed.pop())
    width = _conversion_width(pairs, " ", "\t")
    if width:
        return Reindent("spaces_to_tabs", width=width)
    width = _conversion_width({(f, b) for b, f in pairs}, " ", "\t")
    if width:
        return Reindent("tabs_to_spaces", width=width)
    return None


def _conversion_width(pairs: set[tuple[str, str]], unit: str, tab: str) -> int:
    """The number of `unit`s per `tab` that explains every pair, or 0."""
    widths = set()
    for many, few in pairs:
        if set(many) - {unit} or set(few) - {tab}:
            return 0
        if not few:
            if many:
                return 0
            continue
        if len(many) % len(few):
            return 0
        widths.add(len(many) // len(few))
    if len(widths) != 1:
        return 0
    return max(widths.pop(), 0)


class LineIndex:
    """One document's lines, indexed by each strategy's normalised form.

    Indexes are built on first use, so a block found exactly never pays for the
    looser strategies.
    """

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._keys: dict[Normaliser, Sequence[str]] = {}
        self._positions: dict[Normaliser, dict[str, list[int]]] = {}
        self._scans = 0

    def __len__(self) -> int:
        return len(self.lines)

    def keys(self, key: Normaliser) -> Sequence[str]:
        found = self._keys.get(key)
        if found is None:
            found = self.lines if key is _as_written else list(map(key, self.lines))
            self._keys[key] = found
        return found

    def positions(self, key: Normaliser, value: str, limit: int | None = None) -> list[int]:
        """0-based indices of the lines whose `key` form is `value`; when the text is
        not indexed, only the first `limit` of them (if given)."""
        index = self._positions.get(key)
        if index is None:
            if key is _as_written and self._scans < _SCANS_BEFORE_INDEXING:
                # A new text (each block in a sequence makes one) is searched by
                # list.index, in C, rather than paying for a whole dict it may use once.
                self._scans += 1
                return _scan(self.lines, value, limit)
            index = {}
            for position, normalised in enumerate(self.keys(key)):
                found = index.get(normalised)
                if found is None:
                    index[normalised] = [position]
                else:
                    found.append(position)
            self._positions[key] = index
        return index.get(value, [])

    def count(self, key: Normaliser, value: str) -> int:
        """How many lines' `key` form is `value` (at most: see `_DraftIndex`)."""
        return len(self.positions(key, value))

    def counts(self, key: Normaliser, values: Sequence[str]) -> list[int]:
        """`count` of each of `values`."""
        return [self.count(key, value) for value in values]

    def is_indexed(self, key: Normaliser) -> bool:
        return key in self._positions


class _DraftIndex(LineIndex):
    """The index of a `Draft` (or of other lines changed in place with a log of
    their changes), which follows the draft's edits rather than being
    rebuilt for each text: built once, then each edit costs what it changes.

    Lines as written are indexed by where they were when last asked for, and the
    version (the length of the draft's log) that was; positions are carried through
    the edits made since only when asked for. The lines an edit writes are added as
    its log entry is read. `count` may count lines an edit has since removed, so it
    is an upper bound, good for picking the rarest line; `positions` is exact.
    Looser forms (`keys` under another normaliser) are built again after an edit.

    The first index holds the places of the lines the blocks to come will look for
    (`sought`), found in one pass over the lines; a line asked for that none of them
    holds is found by another such pass, with whatever else is sought by then (a
    streamed reply's next blocks). Past `_PASSES_BEFORE_COUNTING` such passes, or
    with nothing sought, the index counts every line instead, in C (how often each
    occurs, and the last place of each): a line that occurred once is found there;
    the places of a repeated line are read off the lines when first asked for (each
    pass costs what a search costs, counting every line about twenty). Until the
    first index, searches scan the lines, as for a new text; `indexed_once_edited`
    stops that once the lines have been edited (a draft in which a block has landed:
    more are coming).
    """

    def __init__(self, draft: EditedLines, *, indexed_once_edited: bool = False) -> None:
        super().__init__(draft.lines)
        self._draft = draft
        self._indexed_once_edited = indexed_once_edited
        self._at: dict[str, list[int]] | None = None  # line -> positions, at a version
        self._built = 0  # the version of every line not in `_versions`
        # each line's count and last position when first indexed (version `_built`),
        # for the lines not yet in `_at`; None while only the lines sought are indexed
        # (every line asked for is then in `_at`)
        self._counts: Counter[str] | None = None
        self._last: dict[str, int] = {}
        self._passes = 0  # passes made for lines sought
        self._versions: dict[str, int] = {}
        self._written: dict[str, list[tuple[int, int]]] = {}  # line -> (version, position)
        # per log entry: start, end and how many lines it adds; and, one longer, how
        # many lines the entries before each added or removed in all
        self._shifts: list[tuple[int, int, int]] = []
        self._moved: list[int] = [0]
        self._looser_built = len(draft.log)

    def keys(self, key: Normaliser) -> Sequence[str]:
        if key is _as_written:
            return self._draft.lines
        self._forget_looser_forms()
        return super().keys(key)

    def positions(self, key: Normaliser, value: str, limit: int | None = None) -> list[int]:
        if key is not _as_written:
            self._forget_looser_forms()
            return super().positions(key, value, limit)
        if self._scans_instead():
            # As for a new text: the first few searches scan the lines, in C.
            self._scans += 1
            return _scan(self._draft.lines, value, limit)
        at = self._holding((value,))
        now = len(self._draft.log)
        found, version = self._known(at, value, now)
        written = self._written.pop(value, None)
        if version == now and written is None:
            at[value] = found
            self._versions[value] = now
            return found
        if written is None and len(found) == 1:
            found = self._still_there(value, found[0], version)
        else:
            found = self._carried(found, version)
            for since, position in written or ():
                found += self._carried([position], since)
            found.sort()
        at[value] = found
        self._versions[value] = now
        return found

    def count(self, key: Normaliser, value: str) -> int:
        if key is not _as_written:
            return super().count(key, value)
        return self.counts(key, (value,))[0]

    def counts(self, key: Normaliser, values: Sequence[str]) -> list[int]:
        if key is not _as_written:
            return super().counts(key, values)
        at = self._holding(values)  # brought up to date once for all the lines
        counted: dict[str, int] = self._counts or {}
        written = self._written
        found: list[int] = []
        for line in values:
            known = at.get(line)
            found.append(
                (counted.get(line, 0) if known is None else len(known)) + len(written.get(line, ()))
            )
        return found

    def is_indexed(self, key: Normaliser) -> bool:
        if key is _as_written:
            return not self._scans_instead()
        return super().is_indexed(key)

    def _scans_instead(self) -> bool:
        """Whether a search for lines as written scans them rather than build the index."""
        if self._at is not None or self._scans >= _SCANS_BEFORE_INDEXING:
            return False
        return not (self._indexed_once_edited and self._draft.log)

    def _holding(self, values: Sequence[str]) -> dict[str, list[int]]:
        """`_positions_at`, holding `values` (when only the lines sought are indexed,
        those not yet in it are found, with what else is sought now, in one pass)."""
        at = self._positions_at()
        if self._counts is not None or all(map(at.__contains__, values)):
            return at
        if self._passes >= _PASSES_BEFORE_COUNTING:
            self._at = None
            return self._positions_at(count_every_line=True)
        wanted = {value for value in values if value not in at}
        wanted.update(line for line in self._draft.sought if line not in at)
        now = len(self._draft.log)
        self._find_in_one_pass(at, wanted)
        for line in wanted:  # found in the lines as they are now
            self._versions[line] = now
            self._written.pop(line, None)
        return at

    def _find_in_one_pass(self, at: dict[str, list[int]], wanted: Collection[str]) -> None:
        """The places of each of `wanted` (none is in `at` yet) put in `at`, found in
        one pass over the lines (in C, but for the places found)."""
        self._passes += 1
        lines = self._draft.lines
        for position in compress(range(len(lines)), map(wanted.__contains__, lines)):
            line = lines[position]
            found = at.get(line)
            if found is None:
                at[line] = [position]
            else:
                found.append(position)
        for line in wanted:
            if line not in at:
                at[line] = []

    def _positions_at(self, *, count_every_line: bool = False) -> dict[str, list[int]]:
        """Every line's positions (each at its version), and the lines written since
        last asked added to `_written`."""
        at = self._at
        log = self._draft.log
        if at is None or len(log) - self._built > _EDITS_BEFORE_RECOUNT:
            at = self._at = {}
            lines = self._draft.lines
            if count_every_line or self._counts is not None or not self._draft.sought:
                self._counts = Counter(lines)
                self._last = dict(zip(lines, range(len(lines)), strict=True))
            else:
                self._find_in_one_pass(at, set(self._draft.sought))
            # the edits made so far are in the lines just read
            self._built = len(log)
            self._versions, self._written = {}, {}
        while len(self._shifts) < len(log):
            start, end, new_lines = log[len(self._shifts)]
            delta = len(new_lines) - (end - start)
            self._shifts.append((start, end, delta))
            self._moved.append(self._moved[-1] + abs(delta))
            version = len(self._shifts)
            if version <= self._built:
                continue  # already in the lines just counted
            for offset, line in enumerate(new_lines):
                self._written.setdefault(line, []).append((version, start + offset))
        return at

    def _known(self, at: dict[str, list[int]], value: str, now: int) -> tuple[list[int], int]:
        """The positions of `value` the index holds and their version; a line
        repeated when first indexed is read off the lines as they are now (which
        hold what was written of it since)."""
        found = at.get(value)
        if found is not None:
            return found, self._versions.get(value, self._built)
        assert self._counts is not None  # (otherwise every line asked for is in `at`)
        count = self._counts.get(value, 0)
        if count <= 1:
            return ([self._last[value]] if count else []), self._built
        self._written.pop(value, None)
        return _scan(self._draft.lines, value), now

    def _still_there(self, value: str, position: int, version: int) -> list[int]:
        """Where the one line `value` that was at `position` at `version`, and that no
        edit has written since, is now: no further from there than the edits since
        added or removed lines, so it is looked for there (in C), unless that is more
        lines than carrying the place through each edit costs."""
        moved = self._moved[-1] - self._moved[version]
        if moved > _LINES_PER_EDIT_CARRIED * (len(self._shifts) - version):
            return self._carried([position], version)
        try:
            return [self._draft.lines.index(value, max(position - moved, 0), position + moved + 1)]
        except ValueError:
            return []  # an edit replaced it

    def _carried(self, positions: list[int], version: int) -> list[int]:
        """Positions at `version` carried through the edits made since; a line an
        edit replaced is gone."""
        shifts = self._shifts[version:]
        if not shifts:
            return list(positions)
        found: list[int] = []
        for position in positions:
            for start, end, delta in shifts:
                if position >= end:
                    position += delta
                elif position >= start:
                    break
            else:
                found.append(position)
        return found

    def _forget_looser_forms(self) -> None:
        if self._looser_built != len(self._draft.log):
            self._looser_built = len(self._draft.log)
            self._keys.clear()
            self._positions.clear()


_SCANS_BEFORE_INDEXING = 16
# Past this many passes for lines sought, counting every line costs less.
_PASSES_BEFORE_COUNTING = 16
# Comparing a line (in C) costs about a fifth of carrying a place through an edit.
_LINES_PER_EDIT_CARRIED = 4
# Past this many edits since the lines were counted, carrying a line's places
# through each edit costs more than counting the lines again (in C).
_EDITS_BEFORE_RECOUNT = 256
# An unindexed search scans up to this many of the block's lines for the rarest,
# stopping once one occurs at most `_FEW_CANDIDATES` times.
_PIVOT_SCANS = 3
_FEW_CANDIDATES = 8


def _scan(lines: Sequence[str], value: str, limit: int | None = None) -> list[int]:
    found: list[int] = []
    if not isinstance(lines, list):
        return [i for i, line in enumerate(lines) if line == value][:limit]
    start = 0
    while limit is None or len(found) < limit:
        try:
            start = lines.index(value, start)
        except ValueError:
            return found
        found.append(start)
        start += 1
    return found


_RECENT: list[tuple[weakref.ref[Text], LineIndex]] = []
_RECENT_SIZE = 8


def index_following(lines: EditedLines) -> LineIndex:
    """An index of lines that are changed in place, which follows their log (made
    at once after their first change when they say what will be sought in them)."""
    return _DraftIndex(lines, indexed_once_edited=bool(lines.sought))


def index_for(text: Text | Draft) -> LineIndex:
    """The index of a text, kept for the few texts used most recently (a server
    places many blocks against the same document version); a draft keeps its own,
    which follows it."""
    if isinstance(text, Draft):
        index = text.line_index
        if not isinstance(index, _DraftIndex):
            index = text.line_index = _DraftIndex(text, indexed_once_edited=True)
        return index
    for ref, index in _RECENT:
        if ref() is text:
            return index
    # only a text outside drafts (the server's documents) is held this way:
    # `lsp-edit apply` places blocks in drafts, and need not import weakref
    from weakref import ref as weak_ref

    index = LineIndex(text.lines)
    _RECENT.insert(0, (weak_ref(text), index))
    del _RECENT[_RECENT_SIZE:]
    return index


@value
class Match:
    """Where old lines were found: file lines `start`..`end` (0-based, end exclusive).

    `lead`/`trail` count the blank old lines left out at each edge (`blank_edges`);
    `reindent` maps the block's indentation to the file's.
    """

    start: int
    end: int
    strategy: str
    reindent: Reindent = SAME_INDENT
    lead: int = 0
    trail: int = 0


Window = tuple[int, int]


def blank_edge_counts(lines: Sequence[str]) -> tuple[int, int]:
    """How many blank lines open and close `lines` (all blank counts as leading)."""
    lead = 0
    while lead < len(lines) and is_blank(lines[lead]):
        lead += 1
    trail = 0
    while trail < len(lines) - lead and is_blank(lines[len(lines) - 1 - trail]):
        trail += 1
    return lead, trail


def find_with(
    index: LineIndex, old: Sequence[str], strategy: Strategy, windows: Sequence[Window]
) -> list[Match]:
    """Every place where `old` matches under one strategy, inside one of `windows`."""
    lead, trail = blank_edge_counts(old) if strategy.blank_edges else (0, 0)
    core = old[lead : len(old) - trail]
    if not core:
        return []
    key = strategy.key
    keys = list(core) if key is _as_written else [key(line) for line in core]
    if key is _as_written and not index.is_indexed(key):
        pivot, pivot_positions = _scanned_pivot(index, keys)
    else:
        rarest = _rarest_pivot(index, key, keys)
        if rarest is None:
            return []
        pivot, pivot_positions = rarest
    size = len(core)
    file_keys = index.keys(key)
    matches = []
    for start in _starts_inside(pivot_positions, pivot, size, windows):
        if list(file_keys[start : start + size]) != keys:
            continue
        reindent: Reindent | None = SAME_INDENT
        if strategy.reindent:
            reindent = detect_reindent(core, index.lines[start : start + size])
        if reindent is not None:
            matches.append(Match(start, start + size, strategy.name, reindent, lead, trail))
    return matches


def _scanned_pivot(index: LineIndex, keys: list[str]) -> tuple[int, list[int]]:
    """For lines not indexed: a scan for the longest line (length stands in for
    rarity), and for the next longest while the lines found are common (a repeated
    `return` would make every occurrence a candidate); every candidate is verified,
    so the choice changes no result."""
    by_length = sorted(range(len(keys)), key=lambda offset: -len(keys[offset]))
    for offset in by_length[:_PIVOT_SCANS]:
        positions = index.positions(_as_written, keys[offset], _FEW_CANDIDATES + 1)
        if len(positions) <= _FEW_CANDIDATES:
            return offset, positions
    # Every line scanned is common: all the places of the longest.
    return by_length[0], index.positions(_as_written, keys[by_length[0]])


def _rarest_pivot(
    index: LineIndex, key: Normaliser, keys: list[str]
) -> tuple[int, list[int]] | None:
    """The rarest of the lines and its places; None when one of them is nowhere.
    Blank lines are poor pivots: the rarest line with text is preferred."""
    counts = index.counts(key, keys)
    if not all(counts):
        return None
    ranks = [(not line, count) for line, count in zip(keys, counts, strict=True)]
    pivot = ranks.index(min(ranks))
    return pivot, index.positions(key, keys[pivot])


def _starts_inside(
    positions: list[int], pivot: int, size: int, windows: Sequence[Window]
) -> list[int]:
    """Where `size` lines would start if line `pivot` of them is at each of
    `positions`, for those that lie inside one of `windows`."""
    starts = [position - pivot for position in positions]
    if len(windows) == 1:
        lo, hi = windows[0]
        return [start for start in starts if lo <= start <= hi - size]
    return [
        start for start in starts if any(lo <= start and start + size <= hi for lo, hi in windows)
    ]


def search(
    index: LineIndex, old: Sequence[str], windows: Sequence[Window] | None = None
) -> list[Match]:
    """The matches of the first strategy in the ladder that finds any; [] if none does."""
    if windows is None:
        windows = ((0, len(index)),)
    for strategy in LADDER:
        found = find_with(index, old, strategy, windows)
        if found:
            return found
    return []


_COMMON_LINE = 50
_CANDIDATE_WINDOWS = 12


def most_similar(
    index: LineIndex, old: Sequence[str], windows: Sequence[Window] | None = None
) -> Window | None:
    """The window of file lines most like `old` (by difflib ratio), looking only
    near lines that `old` shares with the file; None when it shares none."""
    keys = [line.strip() for line in old]
    file_keys = index.keys(_without_edge_space)
    best: tuple[float, int, int] | None = None
    for first, last in candidate_windows(index, old, windows):
        ratio = sequence_matcher(list(file_keys[first:last]), keys, autojunk=True).ratio()
        if best is None or (ratio, -first) > (best[0], -best[1]):
            best = (ratio, first, last)
    return None if best is None else (best[1], best[2])


def candidate_windows(
    index: LineIndex, old: Sequence[str], windows: Sequence[Window] | None = None
) -> list[Window]:
    """The windows of file lines where `old` may have been meant to be: those
    that line up with the most lines `old` shares with the file (common lines,
    such as `}` or `return`, say nothing about where and are not counted)."""
    if windows is None:
        windows = ((0, len(index)),)
    keys = [line.strip() for line in old]
    votes: Counter[int] = Counter()
    for offset, key in enumerate(keys):
        if not key:
            continue
        positions = index.positions(_without_edge_space, key)
        if len(positions) > _COMMON_LINE:
            continue
        for position in positions:
            votes[position - offset] += 1
    found: list[Window] = []
    for start, _ in votes.most_common(_CANDIDATE_WINDOWS):
        for lo, hi in windows:
            first, last = max(lo, start), min(hi, start + len(old))
            if first < last:
                found.append((first, last))
    return found


def text_similarity(index: LineIndex, window: Window, old: Sequence[str]) -> float:
    """How alike the window's lines and `old` read, character by character, with
    each line's surrounding whitespace ignored (0 to 1)."""
    file_keys = index.keys(_without_edge_space)
    mine = "\n".join(file_keys[window[0] : window[1]])
    theirs = "\n".join(line.strip() for line in old)
    return sequence_matcher(mine, theirs).ratio()
