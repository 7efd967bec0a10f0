"""Replies that arrive over time: read incrementally, and kept in step with their
pending changes while the user or the chat edits them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lsp_edit.blocks import parse_reply
from lsp_edit.changes import Status
from lsp_edit.positions import Point
from lsp_edit.server.hunks import Replacement
from lsp_edit.server.replies import (
    ReplyDocument,
    ReplyText,
    changed_blocks,
    matches_any,
)
from lsp_edit.server.store import Store
from tests.test_server_store import FILE, SOURCE, Files, search_replace

REPLY = (
    "I will change two functions.\n\n"
    + search_replace("    return 1\n", "    return 11\n")
    + "\nAnd then:\n\n"
    + search_replace("    return 3\n", "    return 33\n")
    + "\nDone.\n"
)


@given(st.lists(st.integers(1, 40), min_size=1, max_size=40))
def test_a_reply_read_in_pieces_gives_the_blocks_of_the_whole_reply(sizes: list[int]) -> None:
    text = ReplyText()
    position = 0
    for size in sizes:
        text.append(REPLY[position : position + size])
        position += size
    text.append(REPLY[position:])
    assert text.items == parse_reply(REPLY)


def test_a_block_completes_as_soon_as_its_closing_line_arrives() -> None:
    text = ReplyText()
    closer = REPLY.index(">>>>>>> REPLACE")
    first_end = closer + len(">>>>>>> REPLACE")
    text.append(REPLY[: closer + 3])
    assert text.items == []
    text.append(REPLY[closer + 3 : first_end])  # no newline yet: it closes the block
    assert len(text.items) == 1
    text.append("\n")
    assert len(text.items) == 1


def test_an_edit_in_the_middle_reads_again_from_there() -> None:
    text = ReplyText()
    text.append(REPLY)
    before = text.items
    line = next(i for i, raw in enumerate(text.raw) if raw == "    return 11\n")
    text.edit(Point(line, 12), Point(line, 13), "2")  # `return 12`
    after = text.items
    assert after[1] == before[1]
    assert after[0].hunks[0].new_lines == ("    return 12",)  # type: ignore[union-attr]


def test_blocks_before_and_after_an_edit_are_matched() -> None:
    old = parse_reply(REPLY)
    edited = parse_reply(REPLY.replace("return 11", "return 12"))
    assert changed_blocks(old, edited).edited == [(0, 0)]
    moved = parse_reply("Intro line.\n" + REPLY)
    assert changed_blocks(old, moved).kept == [(0, 0), (1, 1)]
    shorter = parse_reply(REPLY.split("And then")[0])
    assert changed_blocks(old, shorter).gone == [1]


def test_reply_globs_match_paths_in_any_folder() -> None:
    assert matches_any("answer.llm.md", ["**/*.llm.md"])
    assert matches_any("chats/2026/answer.llm.md", ["**/*.llm.md"])
    assert not matches_any("answer.md", ["**/*.llm.md"])
    assert matches_any("replies/a.txt", ["replies/*.txt"])
    assert not matches_any("replies/deep/a.txt", ["replies/*.txt"])


def _document(store: Store) -> ReplyDocument:
    session = store.session(None, "auto")
    return ReplyDocument(store.reply(session, Files(SOURCE), document="file:///r.llm.md"))


def test_blocks_of_a_reply_document_become_pending_one_by_one() -> None:
    store = Store()
    document = _document(store)
    second = REPLY.index("And then")
    document.text.append(REPLY[:second])
    document.sync()
    assert [store.changes[i].status for i in document.change_ids] == [Status.PENDING]
    document.text.append(REPLY[second:])
    document.sync()
    assert [store.changes[i].status for i in document.change_ids] == [Status.PENDING] * 2
    change = store.changes[document.change_ids[1]]
    assert change.reply is not None and change.reply.span.start_line == 13


def test_editing_a_block_in_the_reply_updates_its_change_in_place() -> None:
    store = Store()
    document = _document(store)
    document.text.append(REPLY)
    document.sync()
    first_id = document.change_ids[0]
    document.text.replace_all(REPLY.replace("return 11", "return 12"))
    document.sync()
    assert document.change_ids[0] == first_id
    assert store.changes[first_id].hunks[0].new == ("    return 12",)


def test_deleting_a_block_from_the_reply_withdraws_its_change() -> None:
    store = Store()
    document = _document(store)
    document.text.append(REPLY)
    document.sync()
    gone = document.change_ids[1]
    document.text.replace_all(REPLY.split("And then")[0])
    document.sync()
    assert gone not in store.changes
    assert len(document.change_ids) == 1


def test_a_decided_change_stays_decided_when_its_block_is_edited() -> None:
    store = Store()
    document = _document(store)
    document.text.append(REPLY)
    document.sync()
    first = document.change_ids[0]
    store.reject(first)
    document.text.replace_all(REPLY.replace("return 11", "return 12"))
    document.sync()
    assert store.changes[first].status is Status.REJECTED
    assert store.changes[first].hunks[0].new == ("    return 11",)


def test_a_block_that_builds_on_an_earlier_one_of_the_reply_is_chained() -> None:
    store = Store()
    document = _document(store)
    document.text.append(search_replace("    return 1\n", "    return 11\n"))
    document.sync()
    document.text.append("\n" + search_replace("    return 11\n", "    return 111\n"))
    document.sync()
    first, second = (store.changes[i] for i in document.change_ids)
    assert second.pending and second.depends_on == [first.id]


def test_a_block_arriving_after_the_user_accepted_an_earlier_one_still_places() -> None:
    store = Store()
    files = Files(SOURCE)
    document = ReplyDocument(
        store.reply(store.session(None, "auto"), files, mark=lambda path: files.text)
    )
    document.text.append(search_replace("    return 1\n", "    return 11\n"))
    document.sync()
    first = store.changes[document.change_ids[0]]
    # the editor applies it
    store.edited(FILE, [Replacement(Point(1, 0), Point(2, 0), "    return 11\n")])
    files.text = store.buffer_of(FILE).text()  # type: ignore[union-attr]
    assert first.status is Status.APPLIED
    document.text.append("\n" + search_replace("    return 11\n", "    return 111\n"))
    document.sync()
    second = store.changes[document.change_ids[1]]
    assert second.pending and second.depends_on == []
    assert [(h.start, h.new) for h in second.hunks] == [(1, ("    return 111",))]


def test_a_reply_document_forgets_a_failed_block_deleted_from_it() -> None:
    store = Store()
    document = _document(store)
    document.text.append(search_replace("    return 9\n", "    return 99\n"))
    document.sync()
    (failed,) = (store.changes[i] for i in document.change_ids)
    assert failed.code == "not_found"
    document.text.replace_all("")
    document.sync()
    assert document.change_ids == []
    document.text.append(search_replace("    return 2\n", "    return 22\n"))
    document.sync()
    (placed,) = (store.changes[i] for i in document.change_ids)
    assert placed.pending
    assert placed.notes == ()


def test_a_block_after_a_failed_one_in_a_reply_document_is_pending_with_a_note() -> None:
    store = Store()
    document = _document(store)
    document.text.append(search_replace("    return 9\n", "    return 99\n"))
    document.text.append("\n" + search_replace("    return 2\n", "    return 22\n"))
    document.sync()
    failed, later = (store.changes[i] for i in document.change_ids)
    assert failed.status is Status.FAILED
    assert later.pending and len(later.notes) == 1
    # The failed block deleted from the reply: its note goes with it.
    document.text.replace_all("\n" + search_replace("    return 2\n", "    return 22\n"))
    document.sync()
    assert [store.changes[i] for i in document.change_ids] == [later]
    assert later.pending and later.notes == ()
