"""lspEdit.ask with the editor's own language models (`lspEdit.llm.api: "vscode"`,
VS Code's `vscode.lm`) over stdio: the server asks the client `lspEdit/chat`, the
client streams the reply back as `lspEdit/chatChunk` notifications and answers the
request when the model is done; the reply document, its pending changes, the next
turn's summary, cancel and failures work as with a model server (issue 21).

The client here answers `lspEdit/chat` as the VS Code extension does, from a script
of replies (client-vscode/src/models.ts does it with `vscode.lm`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from lsprotocol import types

from tests.lsp.editor import Editor
from tests.lsp.test_ask import ADD, REPLY, TOTAL, TRANSCRIPT, ask, configure, listed, transcript
from tests.lsp.test_review import CART

pytestmark = [
    pytest.mark.timeout(60),
    # Only VS Code has vscode.lm; it opens the reply document it is shown.
    pytest.mark.parametrize("client", ["visual-studio-code"], indirect=True),
]


@dataclass
class Script:
    """One reply of the editor's model: `text` in pieces of `chunk` characters, then
    the answer (`error`: the client's `{code, message, models?}`); `hold_after`
    characters in, it waits for `release`."""

    text: str
    chunk: int = 3
    error: dict[str, Any] | None = None
    hold_after: int | None = None
    release: asyncio.Event = field(default_factory=asyncio.Event)


class EditorModel:
    """The client's side of `lspEdit/chat`: records each request and each cancel."""

    def __init__(self, editor: Editor) -> None:
        self.client = editor.client
        self.script: list[Script] = []
        self.requests: list[dict[str, Any]] = []
        self.cancelled: list[str] = []
        self.ended = asyncio.Event()  # the last answer was sent
        features = self.client.protocol.fm.features
        features["lspEdit/chat"] = self.chat
        features["lspEdit/chatCancel"] = self.cancel

    async def chat(self, params: Any) -> dict[str, Any]:
        given = _plain(params)
        self.requests.append(given)
        chat_id = given["id"]
        reply = self.script.pop(0)
        sent = 0
        while sent < len(reply.text):
            if reply.hold_after is not None and sent >= reply.hold_after:
                await reply.release.wait()
            if chat_id in self.cancelled:
                return {"finish": "cancelled"}
            piece = reply.text[sent : sent + reply.chunk]
            if reply.hold_after is not None and sent < reply.hold_after < sent + len(piece):
                piece = reply.text[sent : reply.hold_after]
            self.client.protocol.notify("lspEdit/chatChunk", {"id": chat_id, "text": piece})
            sent += len(piece)
            await asyncio.sleep(0)
        self.ended.set()
        return {"error": reply.error} if reply.error else {"finish": "stop"}

    def cancel(self, params: Any) -> None:
        self.cancelled.append(_plain(params)["id"])


def _plain(given: Any) -> Any:
    if isinstance(given, tuple) and hasattr(given, "_asdict"):
        return {k: _plain(v) for k, v in given._asdict().items()}
    if isinstance(given, list | tuple):
        return [_plain(v) for v in given]
    return given


@pytest.fixture
async def vscode_lm(editor: Editor) -> AsyncIterator[EditorModel]:
    model = EditorModel(editor)

    def show(params: types.ShowDocumentParams) -> types.ShowDocumentResult:
        if editor.uri(TRANSCRIPT) not in editor.documents:
            editor.open(TRANSCRIPT)
        return types.ShowDocumentResult(success=True)

    editor.client.protocol.fm.features[types.WINDOW_SHOW_DOCUMENT] = show
    await configure(editor, api="vscode", timeout=5)
    editor.open("shop/cart.py", CART)
    yield model


async def until_pending(editor: Editor) -> list[dict[str, Any]]:
    for _ in range(200):
        changes = await listed(editor)
        if changes:
            return changes
        await asyncio.sleep(0.05)
    return []


async def test_the_editors_model_streams_into_the_reply_and_a_change_appears_before_the_end(
    editor: Editor, vscode_lm: EditorModel
) -> None:
    closer = REPLY.index(">>>>>>> REPLACE") + len(">>>>>>> REPLACE\n")
    reply = Script(REPLY, hold_after=closer)
    vscode_lm.script.append(reply)
    asked = asyncio.create_task(ask(editor, "Skip duplicates."))
    changes = await until_pending(editor)
    assert [c["status"] for c in changes] == ["pending"]
    assert not asked.done()
    assert not vscode_lm.ended.is_set()
    reply.release.set()
    result = await asked
    assert result["status"] == "done"
    assert result["finish"] == "stop"
    assert [c["status"] for c in result["changes"]] == ["pending", "pending"]
    (request,) = vscode_lm.requests
    assert "model" not in request  # not set: the editor's first model
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    assert "Default mode: AST path." in request["messages"][0]["content"]
    assert request["messages"][1]["content"].endswith("Skip duplicates.")
    assert transcript(editor).startswith(
        "<!-- lsp-edit: user -->\n### You\n\n> Skip duplicates.\n\n"
        "<!-- lsp-edit: assistant VS Code's language model -->\n"
        "### VS Code's language model\n\n" + REPLY
    )
    assert transcript(editor).endswith("<!-- lsp-edit: note finished (stop) -->\n\n")
    (token,) = editor.client.progress_reports
    begun = editor.client.progress_reports[token][0]
    assert isinstance(begun, types.WorkDoneProgressBegin)
    assert begun.title == "lsp-edit: asking VS Code's language model"


async def test_the_model_setting_is_sent_and_names_the_turn_and_no_tools_are_offered(
    editor: Editor, vscode_lm: EditorModel
) -> None:
    await configure(editor, api="vscode", model="gpt-4o")
    vscode_lm.script.append(Script("Nothing to change.\n"))
    await ask(editor, "Is add right?")
    (request,) = vscode_lm.requests
    assert request["model"] == "gpt-4o"
    assert set(request) == {"id", "model", "messages"}
    assert "tool" not in request["messages"][0]["content"].lower()
    assert "<!-- lsp-edit: assistant gpt-4o -->\n### gpt-4o\n\n" in transcript(editor)


async def test_cancelling_the_ask_cancels_the_editors_request_and_keeps_what_arrived(
    editor: Editor, vscode_lm: EditorModel
) -> None:
    reply = Script(REPLY, hold_after=REPLY.index(TOTAL) + 40)  # inside the second block
    vscode_lm.script.append(reply)
    asked = asyncio.create_task(ask(editor, "Go."))
    await until_pending(editor)
    (token,) = editor.client.progress_reports
    editor.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(asked, 10)
    for _ in range(100):
        if vscode_lm.cancelled:
            break
        await asyncio.sleep(0.02)
    assert vscode_lm.cancelled == [vscode_lm.requests[0]["id"]]
    reply.release.set()
    assert result["status"] == "cancelled"
    assert [c["status"] for c in result["changes"]] == ["pending"]
    assert "> <<<<<<< SEARCH\n" in transcript(editor)  # the cut block, quoted


FAILURES = {
    "no-permission": (
        {"code": "NoPermissions", "message": "Access denied."},
        "auth",
        "VS Code did not let LSP Edit use the language model (Access denied.). Allow it when "
        "VS Code asks (or in the Accounts menu: Manage Language Model Access), then ask again.",
    ),
    "blocked": (
        {"code": "Blocked", "message": "Quota exceeded."},
        "blocked",
        "VS Code's language model blocked the request (Quota exceeded.); it may be over its "
        "quota or rate limit: ask again later.",
    ),
    "not-found": (
        {"code": "NotFound", "message": "Not found.", "models": ["gpt-4o", "claude"]},
        "model-not-found",
        "VS Code has no language model 'gpt-5' (Not found.). It offers: gpt-4o, claude. "
        "Set lspEdit.llm.model to one of them (a family or an id), or clear it to use the "
        "first.",
    ),
    "no-model": (
        {"code": "no-model", "message": "No language model."},
        "model-not-found",
        "VS Code offers no language model: install and sign in to an extension that provides "
        "one (such as GitHub Copilot Chat), or set lspEdit.llm.api to openai or ollama.",
    ),
    "other": (
        {"code": "Unknown", "message": "Server said 500."},
        "server-error",
        "VS Code's language model failed: Server said 500.",
    ),
}


@pytest.mark.parametrize("failure", list(FAILURES))
async def test_a_failure_of_the_editors_model_tells_the_user_what_to_do(
    editor: Editor, vscode_lm: EditorModel, failure: str
) -> None:
    error, code, message = FAILURES[failure]
    await configure(editor, api="vscode", model="gpt-5", timeout=5)
    vscode_lm.script.append(Script("Let me see.\n\n" + ADD, error=error))
    result = await ask(editor, "Go.")
    assert result["status"] == "failed"
    assert result["code"] == code
    assert result["message"] == message
    assert editor.client.messages[-1].message == "lsp-edit: " + message
    assert editor.client.messages[-1].type == types.MessageType.Error
    assert [c["status"] for c in result["changes"]] == ["pending"]  # what arrived is kept
    assert transcript(editor).endswith(f"<!-- lsp-edit: note failed, {message} -->\n\n")


async def test_an_editor_without_language_models_says_which_setting_to_change(
    editor: Editor, vscode_lm: EditorModel
) -> None:
    # An editor that has no such request answers "method not found" (which
    # pytest-lsp would otherwise report as the test's failure).
    del editor.client.protocol.fm.features["lspEdit/chat"]
    editor.client.report_server_error = lambda error, source: None  # type: ignore[method-assign]
    result = await ask(editor, "Go.")
    assert result["code"] == "unsupported"
    assert result["message"].startswith("The editor does not offer its language models")
    assert result["message"].endswith(
        'lspEdit.llm.api "vscode" needs VS Code with the LSP Edit extension; or set '
        "lspEdit.llm.api to openai or ollama."
    )


async def test_an_editor_that_fails_to_answer_says_so_and_keeps_what_arrived(
    editor: Editor, vscode_lm: EditorModel
) -> None:
    async def broken(params: Any) -> None:
        chat_id = _plain(params)["id"]
        editor.client.protocol.notify("lspEdit/chatChunk", {"id": chat_id, "text": "Let me see.\n"})
        raise RuntimeError("the extension broke")

    editor.client.protocol.fm.features["lspEdit/chat"] = broken
    editor.client.report_server_error = lambda error, source: None  # type: ignore[method-assign]
    result = await ask(editor, "Go.")
    assert result["code"] == "server-error"
    assert result["message"].startswith("The editor failed to ask its language model: ")
    assert "the extension broke" in result["message"]
    assert "Let me see.\n" in transcript(editor)


async def test_a_stalled_editor_model_is_stopped_and_its_request_cancelled(
    editor: Editor, vscode_lm: EditorModel
) -> None:
    await configure(editor, api="vscode", timeout=0.5)
    reply = Script(REPLY, hold_after=REPLY.index(TOTAL))
    vscode_lm.script.append(reply)
    result = await ask(editor, "Go.")
    reply.release.set()
    assert result["code"] == "stalled"
    assert result["message"] == (
        "VS Code's language model sent nothing for 0.5 s (lspEdit.llm.timeout), so the "
        "request was stopped. What arrived is kept."
    )
    assert vscode_lm.cancelled == [vscode_lm.requests[0]["id"]]
    assert [c["status"] for c in result["changes"]] == ["pending"]


async def test_the_second_turn_sends_the_history_with_the_users_decisions_first(
    editor: Editor, vscode_lm: EditorModel
) -> None:
    vscode_lm.script += [Script(REPLY), Script("Understood.\n")]
    first = await ask(editor, "Fix the cart.")
    add, total = first["changes"]
    await editor.command("lspEdit.accept", {"id": add["id"]})
    await editor.command("lspEdit.reject", {"id": total["id"]})
    second = await ask(editor, "Why not the total?")
    assert second["session"] == first["session"]
    messages = vscode_lm.requests[1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == REPLY.rstrip("\n")
    assert messages[3]["content"].startswith(
        "File 'shop/cart.py' has been updated. It now has 10 lines.\n\nSome changes were "
        "applied.\n\n  • Change to `shop/cart.py` (SEARCH/REPLACE, reply line 22) was rejected "
        "by the user.\n\n"
    )
    assert messages[3]["content"].endswith("Why not the total?")
