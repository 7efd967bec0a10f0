"""Replies that arrive over time: a reply document the user (or a chat) writes in
the editor, or `lspEdit.stream` deltas. No LSP types here.

`ReplyText` reads a reply incrementally. Complete lines are fed to the engine's
`ReplyStream` once, so text appended at the end (the common case) never makes it
read what came before. An edit before the end rolls the stream back to the last
checkpoint before the edit and reads on from there. `changed_blocks` then says
which blocks are new, which were edited and which are gone, so that their pending
changes are added, updated in place, or withdrawn.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher

from lsp_edit.blocks import ReplyStream
from lsp_edit.blocks.model import ReplyItem, ReplySpan, ShellSuggestion
from lsp_edit.positions import Point
from lsp_edit.server.hunks import TrackedBuffer
from lsp_edit.server.store import Reply
from lsp_edit.text import Text, strip_ending

# A checkpoint is kept at most this often (in lines), when blocks were found.
_CHECKPOINT_LINES = 40
# A last line without its ending is read before it ends only when it could close
# a block (a fence, a REPLACE or END marker, the end of a patch or of JSON).
_CLOSER = re.compile(r"\s*(?:```|~~~|>>>>>>>|»»»|\*\*\* End|[}\]])")


@dataclass(frozen=True)
class _Checkpoint:
    lines: int  # lines fed before it
    stream: ReplyStream
    items: int  # items found before it


class ReplyText:
    """One reply's text and the blocks found in it so far."""

    def __init__(self) -> None:
        self.buffer = TrackedBuffer(())
        self._stream = ReplyStream()
        self._fed = 0
        self._items: list[ReplyItem] = []
        self._tentative: list[ReplyItem] = []
        self._checkpoints = [_Checkpoint(0, copy.deepcopy(self._stream), 0)]

    @property
    def raw(self) -> list[str]:
        """The reply's lines, with their endings."""
        return self.buffer.raw

    @property
    def items(self) -> list[ReplyItem]:
        """Every block found, in reply order (shell suggestions left out)."""
        return [i for i in self._items + self._tentative if not isinstance(i, ShellSuggestion)]

    def append(self, text: str) -> None:
        """Text added at the end (a streamed delta)."""
        if not text:
            return
        raw = self.raw
        if raw and strip_ending(raw[-1]) == raw[-1]:
            end = Point(len(raw) - 1, len(raw[-1]))
        else:
            end = Point(len(raw), 0)
        self._read_from(self.buffer.edit(end, end, text).start)

    def edit(self, start: Point, end: Point, text: str) -> None:
        """The text between two points (code point columns) became `text`."""
        self._read_from(self.buffer.edit(start, end, text).start)

    def replace_all(self, text: str) -> None:
        """A whole new text: only what follows the first changed line is read again."""
        splices = self.buffer.replace_all(Text.from_string(text))
        if splices:
            self._read_from(min(splice.start for splice in splices))

    def finish(self) -> list[ReplyItem]:
        """The reply is complete: an open block becomes a problem saying it was cut
        off. Returns the items that finishing found."""
        self._tentative = []
        remaining = "".join(self.raw[self._fed :])
        found = (self._stream.feed(remaining) if remaining else []) + self._stream.finish()
        self._fed = len(self.raw)
        self._items.extend(found)
        return [i for i in found if not isinstance(i, ShellSuggestion)]

    def _read_from(self, line: int) -> None:
        """Reads on after a change at `line`: from where the stream is when the change
        is past it, else from the last checkpoint before it."""
        if line < self._fed:
            while self._checkpoints[-1].lines > line:
                self._checkpoints.pop()
            checkpoint = self._checkpoints[-1]
            self._stream = copy.deepcopy(checkpoint.stream)
            self._fed = checkpoint.lines
            del self._items[checkpoint.items :]
        complete = len(self.raw)
        if self.raw and strip_ending(self.raw[-1]) == self.raw[-1]:
            complete -= 1
        if complete > self._fed:
            found = self._stream.feed("".join(self.raw[self._fed : complete]))
            self._fed = complete
            if found:
                self._items.extend(found)
                if self._fed - self._checkpoints[-1].lines >= _CHECKPOINT_LINES:
                    self._checkpoints.append(
                        _Checkpoint(self._fed, copy.deepcopy(self._stream), len(self._items))
                    )
        self._tentative = self._read_last_line()

    def _read_last_line(self) -> list[ReplyItem]:
        """The blocks a last line without its ending would close, read on a copy."""
        if self._fed >= len(self.raw):
            return []
        last = self.raw[-1]
        if not _CLOSER.match(last):
            return []
        trial = copy.deepcopy(self._stream)
        return trial.feed(last + "\n")


def without_span(item: ReplyItem) -> ReplyItem:
    """The block as text, wherever it sits: what tells an edited block from a moved one."""
    return replace(item, span=ReplySpan(0, 0))


@dataclass(frozen=True)
class BlockChanges:
    """How the blocks of a reply changed: pairs (old index, new index) kept or
    edited, old indices gone, new indices added."""

    kept: list[tuple[int, int]]
    edited: list[tuple[int, int]]
    gone: list[int]
    added: list[int]


def changed_blocks(old: Sequence[ReplyItem], new: Sequence[ReplyItem]) -> BlockChanges:
    """Matches the blocks before and after an edit of the reply. Blocks equal but for
    where they sit are kept; blocks in a replaced run are paired in order as edited."""
    head = 0
    while head < len(old) and head < len(new) and old[head] == new[head]:
        head += 1
    kept = [(i, i) for i in range(head)]
    edited: list[tuple[int, int]] = []
    gone: list[int] = []
    added: list[int] = []
    old_keys = [without_span(item) for item in old[head:]]
    new_keys = [without_span(item) for item in new[head:]]
    matcher = SequenceMatcher(None, old_keys, new_keys, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
        if tag == "equal":
            kept.extend(zip(range(i1, i2), range(j1, j2), strict=True))
            continue
        pairs = min(i2 - i1, j2 - j1)
        edited.extend((i1 + k, j1 + k) for k in range(pairs))
        gone.extend(range(i1 + pairs, i2))
        added.extend(range(j1 + pairs, j2))
    return BlockChanges(kept, edited, gone, added)


def glob_pattern(glob: str) -> re.Pattern[str]:
    """A `**/*.llm.md` style glob as a regular expression over `/`-separated paths:
    `**/` is any number of folders, `*` and `?` stay within one."""
    out = []
    index = 0
    while index < len(glob):
        if glob.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif glob.startswith("**", index):
            out.append(".*")
            index += 2
        elif glob[index] == "*":
            out.append("[^/]*")
            index += 1
        elif glob[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(glob[index]))
            index += 1
    return re.compile("".join(out))


def matches_any(path: str, globs: Sequence[str]) -> bool:
    """Whether a `/`-separated path (relative to a workspace folder, or absolute)
    matches one of the globs."""
    path = path.lstrip("/")
    return any(glob_pattern(glob.lstrip("/")).fullmatch(path) for glob in globs)


class ReplyDocument:
    """A reply that arrives over time (a document the editor has open, a file a chat
    writes, `lspEdit.stream` deltas): its text, its blocks, and the change of each.

    The reply is the source of truth while its changes are pending: a block edited
    in it updates its change in place, a block deleted from it withdraws its change,
    and a change the user decided stays decided.
    """

    def __init__(self, reply: Reply) -> None:
        self.text = ReplyText()
        self.reply = reply
        self.blocks: list[tuple[ReplyItem, str | None]] = []  # each block and its change
        self.finished = False  # a stream that was told it is done

    @property
    def change_ids(self) -> list[str]:
        return [change_id for _, change_id in self.blocks if change_id is not None]

    def sync(self) -> None:
        """Brings the changes in line with the blocks the text holds now."""
        old = [item for item, _ in self.blocks]
        new = self.text.items
        if old == new:
            return
        ids = [change_id for _, change_id in self.blocks]
        matched = changed_blocks(old, new)
        records: list[tuple[ReplyItem, str | None]] = [(item, None) for item in new]
        in_order = True
        for i, j in matched.kept:
            records[j] = (new[j], ids[i])
            if ids[i] is not None and old[i].span != new[j].span:
                self.reply.move(ids[i], new[j].span)  # type: ignore[arg-type]
        for i in matched.gone:
            if ids[i] is not None:
                self.reply.withdraw(ids[i])  # type: ignore[arg-type]
        for i, j in matched.edited:
            change_id = ids[i]
            item = new[j]
            if change_id is not None and not isinstance(item, ShellSuggestion):
                self.reply.edit(change_id, item)
                records[j] = (item, change_id)
            else:
                matched.added.append(j)
        last_kept = max((j for _, j in matched.kept + matched.edited), default=-1)
        for j in sorted(matched.added):
            in_order &= j > last_kept
            made = self.reply.add([new[j]])
            records[j] = (new[j], made[0].id if made else None)
        self.blocks = records
        if not in_order:
            self.reply.reorder([change_id for _, change_id in records if change_id])
