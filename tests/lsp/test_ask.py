"""lspEdit.ask over stdio, as VS Code, Neovim and Emacs drive it: the model's reply
streams into a reply document beside the file, each block becomes a pending change
as it arrives, and the next ask carries what the user decided (issue 21).

The model is a local server (tests/llm_server.py) streaming scripted replies a few
characters per event. VS Code and Neovim are shown the reply document
(`window/showDocument`) and open it, so the reply is written into their buffer;
Emacs is not, so it is written to the file on disk.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from lsprotocol import types

from lsp_edit.blocks.tool_calls import tools_for_mode
from tests.llm_server import FakeModel, Refusal, Reply, realworld_replies
from tests.lsp.editor import Editor
from tests.lsp.test_review import ADD, CART, TOTAL, WITH_ADD, search_replace
from tests.mcp.conftest import agent

pytestmark = pytest.mark.timeout(90)

TRANSCRIPT = "shop/cart.py.llm.md"
REPLY = "Two changes to the cart.\n\n" + ADD + "Then the total:\n\n" + TOTAL + "That is all.\n"


@pytest.fixture
def model() -> Iterator[FakeModel]:
    server = FakeModel().start()
    yield server
    server.stop()


async def configure(editor: Editor, **llm: Any) -> None:
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"lspEdit": {"llm": llm}})
    )
    await editor.settle()


@pytest.fixture
async def asking(editor: Editor, model: FakeModel) -> AsyncIterator[Editor]:
    """The editor with lspEdit.llm pointing at the local model, which opens a reply
    document it is shown, as VS Code and Neovim 0.8+ do."""

    def show(params: types.ShowDocumentParams) -> types.ShowDocumentResult:
        editor.client.shown_documents.append(params)
        path = Path(unquote(urlparse(params.uri).path))
        relative = path.relative_to(os.path.realpath(editor.root)).as_posix()
        if editor.uri(relative) not in editor.documents:
            editor.open(relative)
        return types.ShowDocumentResult(success=True)

    # In place of pytest-lsp's own handler, which only records what it is shown.
    editor.client.protocol.fm.features[types.WINDOW_SHOW_DOCUMENT] = show
    await configure(editor, baseUrl=model.openai_url, model="coder", timeout=5)
    editor.open("shop/cart.py", CART)
    yield editor


async def ask(editor: Editor, prompt: str, **more: Any) -> dict[str, Any]:
    argument = {"prompt": prompt, "uri": editor.uri("shop/cart.py"), **more}
    result: dict[str, Any] = await editor.command("lspEdit.ask", argument)
    return result


def transcript(editor: Editor) -> str:
    """The reply document as the user sees it: the editor's buffer, or the file."""
    uri = editor.uri(TRANSCRIPT)
    if uri in editor.documents:
        return editor.documents[uri].text
    return editor.disk(TRANSCRIPT)


def in_buffer(editor: Editor) -> bool:
    return editor.name != "emacs"  # the only one of the three without window/showDocument


async def listed(editor: Editor) -> list[dict[str, Any]]:
    result = await editor.command("lspEdit.list", {})
    changes: list[dict[str, Any]] = result["changes"]
    return changes


async def test_the_reply_streams_into_a_reply_document_and_its_blocks_become_pending(
    asking: Editor, model: FakeModel
) -> None:
    model.script.append(Reply(REPLY))
    result = await ask(asking, "Skip duplicates and count quantities.")
    assert result["status"] == "done"
    assert result["uri"] == asking.uri(TRANSCRIPT)
    assert result["finish"] == "stop"
    assert result["usage"] == {"promptTokens": 120, "completionTokens": 40}
    assert [c["status"] for c in result["changes"]] == ["pending", "pending"]
    assert result["summary"] == "2 changes are pending review: 2 in 'shop/cart.py'."
    text = transcript(asking)
    assert text.startswith(
        "<!-- lsp-edit: user -->\n### You\n\n> Skip duplicates and count quantities.\n\n"
        "<!-- lsp-edit: assistant coder -->\n### coder\n\n" + REPLY
    )
    assert text.endswith("<!-- lsp-edit: note finished (stop), 120 tokens in, 40 out -->\n\n")
    assert asking.text("shop/cart.py") == CART
    await asking.settle()
    assert [d.code for d in asking.diagnostics("shop/cart.py")] == ["pending-change"] * 2
    shown = [d.uri for d in asking.client.shown_documents]
    assert shown == ([asking.uri(TRANSCRIPT)] if in_buffer(asking) else [])
    assert (asking.uri(TRANSCRIPT) in asking.documents) is in_buffer(asking)


async def test_an_editor_slow_to_report_its_edits_gets_no_blank_line_after_the_last_block(
    asking: Editor, model: FakeModel
) -> None:
    # Neovim reports each edit of the reply after a pause: the reply's last newline is
    # still on its way when the stream ends, and the note must follow it directly.
    asking.debounce = 0.3
    # Two characters an event: `>>>>>>` goes at once, `> REPLACE\n` when its newline
    # arrives, and the stream ends while the editor has not yet reported that edit.
    reply = "Once.\n\n" + ADD.rstrip("\n") + "\n"
    reply = " " * (reply.rindex(">>>>>>>") % 2) + reply
    model.script.append(Reply(reply, chunk=2, delay=0.06))
    result = await ask(asking, "Skip duplicates.")
    assert result["status"] == "done"
    await asking.debounced()
    assert reply + "<!-- lsp-edit: note finished (stop)" in transcript(asking)


async def test_the_request_carries_the_modes_instructions_the_file_and_the_tools(
    asking: Editor, model: FakeModel
) -> None:
    model.script.append(Reply("Nothing to change.\n"))
    selection = {"start": {"line": 4, "character": 0}, "end": {"line": 6, "character": 0}}
    await ask(asking, "Is add right?", range=selection)
    (sent,) = model.chat_requests()
    body = sent["body"]
    assert body["model"] == "coder"
    system, user = body["messages"]
    assert system["role"] == "system"
    assert "Default mode: AST path." in system["content"]
    assert "shop/cart.py:\n```python\n" + CART + "```" in user["content"]
    assert "- Cart-add (method, 5-6)" in user["content"]
    assert "The user selected lines 5-6 of shop/cart.py:\n```\n    def add" in user["content"]
    assert user["content"].endswith("Is add right?")
    # every editing tool but propose_reply (tests/test_tool_calls.py lists them)
    offered = [t["function"]["name"] for t in body["tools"]]
    assert offered == [t.name for t in tools_for_mode("ast_path")]
    assert "replace_symbol" in offered
    assert "Authorization" not in sent["headers"]


async def test_line_number_mode_sends_the_file_numbered(asking: Editor, model: FakeModel) -> None:
    model.script.append(Reply("Nothing to change.\n"))
    await ask(asking, "Look.", mode="line_numbers")
    body = model.chat_requests()[0]["body"]
    system, user = body["messages"]
    assert system["content"].count("Line-number mode.") == 1
    assert "1\tclass Cart:\n2\t    def __init__(self):" in user["content"]
    # the AST path edits would be refused in this mode: they are not offered
    names = [t["function"]["name"] for t in body["tools"]]
    assert names == ["chunk_diff", "delete_lines", "insert_lines"]


@pytest.mark.parametrize("newline", [True, False], ids=["closing-line", "closer-without-newline"])
async def test_the_first_pending_change_appears_before_the_stream_ends(
    asking: Editor, model: FakeModel, newline: bool
) -> None:
    closer = REPLY.index(">>>>>>> REPLACE") + len(">>>>>>> REPLACE")
    # The model pauses after the first block's closing line, or inside it, before its
    # newline (one character per event, so the pause is exactly there).
    reply = Reply(REPLY, chunk=1, hold_after=closer + 1 if newline else closer)
    model.script.append(reply)
    asked = asyncio.create_task(ask(asking, "Go."))
    for _ in range(200):
        changes = await listed(asking)
        if changes:
            break
        await asyncio.sleep(0.05)
    assert [c["status"] for c in changes] == ["pending"]
    assert not asked.done()
    assert not model.streamed.is_set()
    reply.release.set()
    result = await asked
    assert [c["status"] for c in result["changes"]] == ["pending", "pending"]


async def test_the_second_ask_sends_the_history_with_the_users_decisions_first(
    asking: Editor, model: FakeModel
) -> None:
    model.script += [Reply(REPLY), Reply("Understood.\n")]
    first = await ask(asking, "Fix the cart.")
    add, total = first["changes"]
    await asking.command("lspEdit.accept", {"id": add["id"]})
    await asking.command("lspEdit.reject", {"id": total["id"]})
    second = await ask(asking, "Why not the total?")
    assert second["session"] == first["session"]
    messages = model.chat_requests()[1]["body"]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == "Fix the cart."
    assert messages[2]["content"] == REPLY.rstrip("\n")
    latest = messages[3]["content"]
    assert latest.startswith(
        "File 'shop/cart.py' has been updated. It now has 10 lines.\n\nSome changes were "
        "applied.\n\n  • Change to `shop/cart.py` (SEARCH/REPLACE, reply line 22) was rejected "
        "by the user.\n\n"
    )
    assert "shop/cart.py:\n```python\n" + WITH_ADD + "```" in latest
    assert latest.endswith("Why not the total?")
    text = transcript(asking)
    assert "> File 'shop/cart.py' has been updated. It now has 10 lines.\n" in text
    assert text.count("<!-- lsp-edit: user -->") == 2


async def test_cancelling_the_progress_stops_the_request_and_keeps_what_arrived(
    asking: Editor, model: FakeModel
) -> None:
    held = REPLY.index(TOTAL) + 40  # inside the second block
    reply = Reply(REPLY, hold_after=held)
    model.script.append(reply)
    asked = asyncio.create_task(ask(asking, "Go."))
    for _ in range(200):
        if await listed(asking):
            break
        await asyncio.sleep(0.05)
    progress = asking.client.progress_reports
    (token,) = progress
    begun = progress[token][0]
    assert isinstance(begun, types.WorkDoneProgressBegin)
    assert begun.title == "lsp-edit: asking coder"
    assert begun.cancellable
    asking.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(asked, 10)
    reply.release.set()
    assert result["status"] == "cancelled"
    assert [c["status"] for c in result["changes"]] == ["pending"]
    assert result["message"].startswith("Cancelled: what arrived is kept. The reply ended inside")
    assert isinstance(progress[token][-1], types.WorkDoneProgressEnd)
    text = transcript(asking)
    assert "> <<<<<<< SEARCH\n" in text  # the cut block, quoted
    assert text.endswith("-->\n\n")
    assert [c["status"] for c in await listed(asking)] == ["pending"]


async def test_the_reply_document_opened_or_closed_while_it_streams_loses_nothing(
    asking: Editor, model: FakeModel
) -> None:
    reply = Reply(REPLY, hold_after=REPLY.index(TOTAL) + 20)
    model.script.append(reply)
    asked = asyncio.create_task(ask(asking, "Go."))
    for _ in range(200):
        if await listed(asking):
            break
        await asyncio.sleep(0.05)
    was_open = asking.uri(TRANSCRIPT) in asking.documents
    if was_open:
        asking.close(TRANSCRIPT)  # closed without saving: the server writes the file
    else:
        asking.open(TRANSCRIPT)  # read from the disk, the rest is written into its buffer
    reply.release.set()
    result = await asked
    assert [c["status"] for c in result["changes"]] == ["pending", "pending"]
    expected = (
        "<!-- lsp-edit: user -->\n### You\n\n> Go.\n\n<!-- lsp-edit: assistant coder -->\n"
        "### coder\n\n" + REPLY + "<!-- lsp-edit: note finished (stop), 120 tokens in, 40 out"
        " -->\n\n"
    )
    assert transcript(asking) == expected
    assert (asking.uri(TRANSCRIPT) in asking.documents) is not was_open
    await asking.settle()
    assert len(asking.diagnostics("shop/cart.py")) == 2


async def test_a_second_ask_in_a_session_still_answering_is_refused(
    asking: Editor, model: FakeModel
) -> None:
    reply = Reply(REPLY, hold_after=10)
    model.script.append(reply)
    asked = asyncio.create_task(ask(asking, "Go."))
    while not model.chat_requests():
        await asyncio.sleep(0.05)
    with pytest.raises(Exception, match=r"session s\d+ is still answering"):
        await ask(asking, "And again.")
    reply.release.set()
    assert (await asked)["status"] == "done"


async def test_a_stream_cut_inside_a_block_reports_it_and_never_applies_it(
    asking: Editor, model: FakeModel
) -> None:
    cut = REPLY.index(TOTAL) + len(TOTAL) // 2
    model.script.append(Reply(REPLY, cut_after=cut))
    result = await ask(asking, "Go.")
    assert result["status"] == "failed"
    assert result["code"] == "cut"
    lines = transcript(asking).split("\n")
    start = lines.index("> <<<<<<< SEARCH") + 1
    assert result["message"].endswith(
        f"What arrived is kept. The reply ended inside a block (lines {start}-{len(lines) - 3} "
        f"of {TRANSCRIPT}): that block is not applied."
    )
    assert [c["status"] for c in result["changes"]] == ["pending"]
    assert lines[start - 2] == "<!-- lsp-edit: note cut off: the block below is not applied -->"
    assert asking.client.messages[-1].message == "lsp-edit: " + result["message"]
    assert asking.client.messages[-1].type == types.MessageType.Error


FAILURES = {
    "unauthorized": (
        Refusal(401, json.dumps({"error": {"message": "Incorrect API key provided"}})),
        "The model server at {url} refused the request (401): Incorrect API key provided. It "
        "needs an API key: set lspEdit.llm.apiKeyEnv to the name of the environment variable "
        "that holds it.",
    ),
    "no such model": (
        Refusal(404, json.dumps({"error": {"message": "The model `coder` does not exist"}})),
        "The model 'coder' is not at {url} (The model `coder` does not exist). It offers: "
        "llama3, qwen2.5-coder. Set lspEdit.llm.model to one of them.",
    ),
    "rate limited": (
        Refusal(429, json.dumps({"error": {"message": "Slow down"}}), {"Retry-After": "0"}),
        "The model server is limiting requests (429): Slow down. It refused again when tried "
        "once more; ask again later.",
    ),
    "server error": (
        Refusal(503, "upstream unavailable", {"Retry-After": "0"}),
        "The model server failed (503): upstream unavailable. It failed again when tried once "
        "more.",
    ),
}


@pytest.mark.parametrize("failure", list(FAILURES))
async def test_a_refused_request_tells_the_user_what_to_change(
    asking: Editor, model: FakeModel, failure: str
) -> None:
    refusal, said = FAILURES[failure]
    model.models = ["llama3", "qwen2.5-coder"]
    model.script += [refusal, refusal]
    result = await ask(asking, "Go.")
    message = said.format(url=model.openai_url)
    assert result["status"] == "failed"
    assert result["message"] == message
    assert asking.client.messages[-1].message == "lsp-edit: " + message
    assert result["changes"] == []
    assert transcript(asking).endswith(f"<!-- lsp-edit: note failed, {message} -->\n\n")


async def test_a_server_that_is_down_names_the_url_and_the_setting(
    asking: Editor, model: FakeModel
) -> None:
    url = model.openai_url
    model.stop()
    result = await ask(asking, "Go.")
    assert result["message"] == (
        f"Cannot connect to the model server at {url} (connection refused). Start it, or set "
        "lspEdit.llm.baseUrl to where it listens."
    )
    assert asking.client.messages[-1].type == types.MessageType.Error


async def test_a_stream_that_stalls_is_stopped_after_the_timeout(
    asking: Editor, model: FakeModel
) -> None:
    await configure(asking, timeout=0.5)
    model.script.append(Reply(REPLY, stall_after=len(REPLY) - 30, stall_for=3))
    result = await ask(asking, "Go.")
    lines = transcript(asking).split("\n")
    start = lines.index("> <<<<<<< SEARCH") + 1
    assert result["message"] == (
        "The model server sent nothing for 0.5 s (lspEdit.llm.timeout), so the request was "
        "stopped. What arrived is kept. The reply ended inside a block (lines "
        f"{start}-{len(lines) - 3} of {TRANSCRIPT}): that block is not applied."
    )
    assert [c["status"] for c in result["changes"]] == ["pending"]


async def test_a_malformed_event_is_reported_and_what_arrived_kept(
    asking: Editor, model: FakeModel
) -> None:
    model.script.append(Reply(REPLY, malformed_after=REPLY.index("Then")))
    result = await ask(asking, "Go.")
    assert result["code"] == "malformed"
    assert result["message"].startswith("The model server sent an event lsp-edit cannot read")
    assert [c["status"] for c in result["changes"]] == ["pending"]


async def test_an_ask_with_no_model_set_says_which_setting_to_set(asking: Editor) -> None:
    await configure(asking, model=None)
    with pytest.raises(Exception, match=r"no model is set\. Set lspEdit\.llm\.model"):
        await ask(asking, "Go.")


async def test_retry_failed_sends_the_failures_back_once_and_the_corrections_become_pending(
    asking: Editor, model: FakeModel
) -> None:
    asking.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"lspEdit": {"retryFailed": True}})
    )
    wrong = search_replace("shop/cart.py", "        return total\n", "        return 0\n")
    model.script += [Reply("First try.\n\n" + ADD + wrong), Reply("Corrected:\n\n" + TOTAL)]
    result = await ask(asking, "Go.")
    assert result["retried"] is True
    assert [c["status"] for c in result["changes"]] == ["pending", "failed", "pending"]
    retry = model.chat_requests()[1]["body"]["messages"]
    assert [m["role"] for m in retry] == ["system", "user", "assistant", "user"]
    assert "was not applied: SEARCH text not found" in retry[3]["content"]
    assert "is still pending review" in retry[3]["content"]
    assert len(model.chat_requests()) == 2


COUNT = {
    "path": "shop/cart.py",
    "ast_path": "Cart-total",
    "content": "def count(self):\n    return len(self.items)\n",
}


async def test_a_tool_call_becomes_a_pending_change_and_its_result_goes_back(
    asking: Editor, model: FakeModel
) -> None:
    model.script += [
        Reply("Adding count.\n", tool_calls=[("insert_after_symbol", COUNT)]),
        Reply("Added count after total.\n"),
    ]
    result = await ask(asking, "Add count.")
    (change,) = result["changes"]
    assert change["status"] == "pending"
    second = model.chat_requests()[1]["body"]["messages"]
    assistant, tool = second[-2:]
    assert assistant["tool_calls"][0]["function"]["name"] == "insert_after_symbol"
    # in the words `lsp-edit mcp` gives an agent for a change pending in the editor
    assert tool == {
        "role": "tool",
        "content": "1 change is pending review: 1 in 'shop/cart.py'.\n\n"
        f"Pending in the user's editor: change {change['id']} ({change['description']}). "
        "The user accepts or rejects each there; the next user message tells what they "
        "decided.",
        "tool_call_id": "call_1",
    }
    text = transcript(asking)
    call = (
        "<!-- lsp-edit: tool call_1 insert_after_symbol -->\n`shop/cart.py`\n"
        "```py:Cart-total:after\ndef count(self):\n    return len(self.items)\n```\n"
    )
    assert call in text
    assert "<!-- lsp-edit: result call_1: 1 change is pending review: 1 in 'shop/cart.py'. -->" in (
        text
    )
    assert text.index("Added count after total.") > text.index("<!-- lsp-edit: result call_1")


async def test_a_call_the_model_was_not_offered_is_refused_and_the_model_told_why(
    asking: Editor, model: FakeModel
) -> None:
    model.script += [
        Reply("Rewriting.\n", tool_calls=[("propose_reply", {"text": TOTAL})]),
        Reply("I will write the block instead.\n"),
    ]
    result = await ask(asking, "Fix the total.", mode="line_numbers")
    assert result["changes"] == []
    tool = model.chat_requests()[1]["body"]["messages"][-1]
    assert tool["content"] == (
        "There is no editing tool `propose_reply`; use one of chunk_diff, delete_lines, "
        "insert_lines."
    )
    assert "<!-- lsp-edit: tool call_1 propose_reply refused: There is no editing tool" in (
        transcript(asking)
    )


async def until(condition: Any, what: str) -> None:
    for _ in range(200):
        if await condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")


def progress_messages(editor: Editor) -> list[str]:
    return [
        report.message or ""
        for reports in editor.client.progress_reports.values()
        for report in reports
        if isinstance(report, types.WorkDoneProgressReport)
    ]


async def test_a_call_that_waits_returns_what_the_user_decided(
    asking: Editor, model: FakeModel
) -> None:
    model.script += [
        Reply("Adding count.\n", tool_calls=[("insert_after_symbol", {**COUNT, "wait": True})]),
        Reply("Count is in.\n"),
    ]
    asked = asyncio.create_task(ask(asking, "Add count."))
    await until(lambda: listed(asking), "a pending change")
    waiting = "waiting for your review of 1 change"

    async def shown() -> bool:
        return waiting in progress_messages(asking)

    await until(shown, "the progress says the model waits for the review")
    assert not asked.done()
    assert len(model.chat_requests()) == 1  # the model is not answered before the decision
    (change,) = await listed(asking)
    await asking.command("lspEdit.accept", {"id": change["id"]})
    result = await asyncio.wait_for(asked, 10)
    assert [c["status"] for c in result["changes"]] == ["applied"]
    lines = asking.text("shop/cart.py").count("\n")
    tool = model.chat_requests()[1]["body"]["messages"][-1]
    assert tool["content"] == (
        f"File 'shop/cart.py' has been updated. It now has {lines} lines.\n\n"
        "All changes were applied."
    )
    assert "<!-- lsp-edit: result call_1: File 'shop/cart.py' has been updated." in (
        transcript(asking)
    )


async def test_cancelling_an_ask_that_waits_for_the_review_stops_it_and_keeps_the_change(
    asking: Editor, model: FakeModel
) -> None:
    size = {**COUNT, "ast_path": "Cart-add", "content": "def size(self):\n    return 0\n"}
    calls = [
        ("insert_after_symbol", {**COUNT, "wait": True}),
        ("insert_before_symbol", {**size, "wait": True}),
    ]
    model.script += [Reply("Adding count and size.\n", tool_calls=calls), Reply("Never sent.\n")]
    asked = asyncio.create_task(ask(asking, "Add count."))

    async def waiting() -> bool:
        return "waiting for your review of 1 change" in progress_messages(asking)

    await until(waiting, "the progress says the model waits for the review")
    (token,) = asking.client.progress_reports
    asking.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    # the second call arrived, so it is kept, and waits for nothing
    result = await asyncio.wait_for(asked, 10)
    assert result["status"] == "cancelled"
    assert [c["status"] for c in await listed(asking)] == ["pending", "pending"]
    assert len(model.chat_requests()) == 1


async def test_the_model_is_offered_the_edit_tools_of_lsp_edit_mcp_with_the_same_schemas(
    asking: Editor, model: FakeModel
) -> None:
    model.script.append(Reply("Nothing to change.\n"))
    await ask(asking, "Look.")
    tools = model.chat_requests()[0]["body"]["tools"]
    offered = {tool["function"]["name"]: tool["function"] for tool in tools}
    async with agent(asking.root) as mcp:
        served = {tool.name: tool for tool in (await mcp.session.list_tools()).tools}
    editing = [
        name
        for name, tool in served.items()
        if tool.annotations is not None and not tool.annotations.read_only_hint
    ]
    assert list(offered) == [name for name in editing if name != "propose_reply"]
    for name, function in offered.items():
        assert function["description"] == served[name].description
        assert function["parameters"] == served[name].input_schema


async def test_the_ollama_api_streams_the_same_way(asking: Editor, model: FakeModel) -> None:
    await configure(asking, api="ollama", baseUrl=model.ollama_url)
    model.script.append(Reply(REPLY))
    result = await ask(asking, "Go.")
    assert [c["status"] for c in result["changes"]] == ["pending", "pending"]
    assert model.chat_requests()[0]["path"] == "/api/chat"


async def test_the_server_answers_code_actions_while_a_reply_streams(
    asking: Editor, model: FakeModel
) -> None:
    reply = Reply(REPLY, hold_after=REPLY.index(TOTAL))
    model.script.append(reply)
    asked = asyncio.create_task(ask(asking, "Go."))
    for _ in range(200):
        if await listed(asking):
            break
        await asyncio.sleep(0.05)
    actions = await asyncio.wait_for(asking.code_actions("shop/cart.py", 5), 5)
    assert actions[0].title.startswith("Accept change")
    accepted = await asyncio.wait_for(
        asking.command("lspEdit.accept", {"id": (await listed(asking))[0]["id"]}), 5
    )
    assert accepted["status"] == "applied"
    assert not asked.done()
    reply.release.set()
    result = await asked
    assert [c["status"] for c in result["changes"]] == ["applied", "pending"]


def real_replies() -> list[str]:
    """The committed inline reply, and real model replies when ../shared is there
    (`LSP_EDIT_REAL_REPLIES` of them, 3 by default)."""
    return [REPLY, *realworld_replies(int(os.environ.get("LSP_EDIT_REAL_REPLIES", "3")))]


@pytest.mark.parametrize("reply", real_replies(), ids=lambda r: f"{len(r)}-chars")
async def test_a_reply_streamed_in_pieces_gives_the_changes_it_gives_whole(
    asking: Editor, model: FakeModel, reply: str
) -> None:
    model.script.append(Reply(reply, chunk=5))
    result = await ask(asking, "Go.")
    assert REPLY_MARK + reply.rstrip("\n") in transcript(asking)
    # The streamed changes are withdrawn first: a reply already pending is not proposed
    # twice (`already-pending`).
    await asking.command("lspEdit.rejectAll", {})
    whole = await asking.command(
        "lspEdit.propose", {"response": reply, "uri": asking.uri("shop/cart.py")}
    )
    assert [(c["status"], c.get("code"), c["uri"]) for c in result["changes"]] == [
        (c["status"], c.get("code"), c["uri"]) for c in whole["changes"]
    ]


REPLY_MARK = "<!-- lsp-edit: assistant coder -->\n### coder\n\n"
