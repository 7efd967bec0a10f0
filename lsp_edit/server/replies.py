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
from difflib import SequenceMatcher
from pathlib import Path

from lsp_edit.blocks import ReplyStream
from lsp_edit.blocks.model import Notice, ParseProblem, ReplyItem, ReplySpan
from lsp_edit.positions import Point
from lsp_edit.server.hunks import TrackedBuffer
from lsp_edit.server.store import Reply
from lsp_edit.text import Text
from lsp_edit.values import replace, value

# A checkpoint is kept at most this often (in lines), when blocks were found.
_CHECKPOINT_LINES = 100
# A last line without its ending is read before it ends only when it could close
# a block (a fence, a REPLACE or END marker, the end of a patch or of JSON).
_CLOSER = re.compile(r"\s*(?:```|~~~|>>>>>>>|»»»|\*\*\* End|[}\]])")


@value
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
        # How many of the items found are the same as when `settled` was last called:
        # an append never changes the ones before it.
        self._unchanged = 0

    @property
    def raw(self) -> list[str]:
        """The reply's lines, with their endings."""
        return self.buffer.raw

    @property
    def items(self) -> list[ReplyItem]:
        """Every block found, in reply order (shell suggestions left out)."""
        return self._items + self._tentative

    def items_from(self, start: int) -> list[ReplyItem]:
        return self._items[start:] + self._tentative

    def append(self, text: str) -> None:
        """Text added at the end (a streamed delta)."""
        if not text:
            return
        self._read_from(self.buffer.append(text))

    def edit(self, start: Point, end: Point, text: str) -> None:
        """The text between two points (code point columns) became `text`."""
        if start == end and self._at_end(start):
            self.append(text)
        else:
            self._read_from(self.buffer.edit(start, end, text).start)

    def _at_end(self, point: Point) -> bool:
        raw = self.raw
        if not raw:
            return point.line == 0 and point.column == 0
        if raw[-1].endswith("\n"):
            return point.line == len(raw) and point.column == 0
        return point.line == len(raw) - 1 and point.column >= len(raw[-1])

    def replace_all(self, text: str) -> None:
        """A whole new text: only what follows the first changed line is read again."""
        splices = self.buffer.replace_all(Text.from_string(text))
        if splices:
            self._read_from(min(splice.start for splice in splices))

    def settled(self) -> int:
        """How many leading blocks (of `items`) are unchanged since the last call."""
        unchanged, self._unchanged = self._unchanged, len(self._items)
        return unchanged

    def finish(self) -> list[ReplyItem]:
        """The reply is complete: an open block becomes a problem saying it was cut
        off. Returns the items that finishing found."""
        self._tentative = []
        remaining = "".join(self.raw[self._fed :])
        found = (self._stream.feed(remaining) if remaining else []) + self._stream.finish()
        self._fed = len(self.raw)
        self._items.extend(_blocks(found))
        return _blocks(found)

    def cut_block(self) -> ParseProblem | None:
        """The block the text ends inside, as finishing would report it (cut off before
        its closing line), read on a copy: the text is not finished."""
        if not self._stream.in_block:
            return None
        trial = copy.deepcopy(self._stream)
        rest = "".join(self.raw[self._fed :])
        found = (trial.feed(rest) if rest else []) + trial.finish()
        cut = [item for item in found if isinstance(item, ParseProblem)]
        return cut[-1] if cut else None

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
            self._unchanged = min(self._unchanged, checkpoint.items)
        complete = len(self.raw)
        if self.raw and not self.raw[-1].endswith("\n"):
            complete -= 1  # not ended yet (or only by a "\r" whose "\n" may follow)
        if complete > self._fed:
            found = _blocks(self._stream.feed("".join(self.raw[self._fed : complete])))
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
        if not self._stream.in_block or not _CLOSER.match(last):
            return []
        trial = copy.deepcopy(self._stream)
        return _blocks(trial.feed(last + "\n"))


def _blocks(items: list[ReplyItem]) -> list[ReplyItem]:
    """Items that can become changes (a shell suggestion or an ignored block is
    only reported)."""
    return [item for item in items if not isinstance(item, Notice)]


def without_span(item: ReplyItem) -> ReplyItem:
    """The block as text, wherever it sits: what tells an edited block from a moved one."""
    return replace(item, span=ReplySpan(0, 0))


@value
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
    if head == len(old):  # only blocks added at the end: the streaming case
        return BlockChanges(kept, [], [], list(range(head, len(new))))
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
        self.change_ids: list[str] = []  # the changes of its blocks, in reply order
        self.finished = False  # a stream that was told it is done

    def sync(self) -> set[Path] | None:
        """Brings the changes in line with the blocks the text holds now. Returns the
        files whose changes it touched (None when no block changed). Only blocks after
        those the text says are unchanged are compared."""
        unchanged = self.text.settled()
        old = [item for item, _ in self.blocks[unchanged:]]
        new = self.text.items_from(unchanged)
        if old == new:
            return None
        ids = [change_id for _, change_id in self.blocks[unchanged:]]
        matched = changed_blocks(old, new)
        records: list[tuple[ReplyItem, str | None]] = [(item, None) for item in new]
        touched: set[Path] = set()
        for i, j in matched.kept:
            change_id = ids[i]
            records[j] = (new[j], change_id)
            if change_id is not None and old[i].span != new[j].span:
                self.reply.move(change_id, new[j].span)
        for i in matched.gone:
            change_id = ids[i]
            if change_id is not None:
                touched |= self._paths(change_id)
                self.reply.withdraw(change_id)
        for i, j in matched.edited:
            change_id = ids[i]
            item = new[j]
            if change_id is not None and not isinstance(item, Notice):
                touched |= self._paths(change_id)
                self.reply.edit(change_id, item)
                touched |= self._paths(change_id)
                records[j] = (item, change_id)
            else:
                matched.added.append(j)
        last_kept = max((j for _, j in matched.kept + matched.edited), default=-1)
        in_order = all(j > last_kept for j in matched.added)
        for j in sorted(matched.added):
            made = self.reply.add([new[j]])
            records[j] = (new[j], made[0].id if made else None)
            if made:
                touched |= self._paths(made[0].id)
        if in_order and not (matched.edited or matched.gone or len(matched.kept) != len(old)):
            # Only blocks added after the ones there: the ids extend (streaming).
            self.change_ids.extend(i for _, i in records[len(old) :] if i is not None)
        else:
            self.change_ids = [i for _, i in self.blocks[:unchanged] + records if i is not None]
        self.blocks[unchanged:] = records
        if not in_order:
            self.reply.reorder(self.change_ids)
            for change_id in self.change_ids:
                touched |= self._paths(change_id)
        return touched

    def _paths(self, change_id: str) -> set[Path]:
        change = self.reply.store.get(change_id)
        return {change.path} if change is not None else set()
