"""Every request gets exactly one answer, whatever the client sends: what JSON-RPC 2.0
and LSP say of malformed params, unknown methods, bad JSON, bad frames, bad ids, a
handler that fails, and requests out of the session's order (docs/protocol.md,
"Errors"). All over stdio, byte for byte."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.wire import SERVE, UNANSWERED, Error, Message, Wire, frame

pytestmark = pytest.mark.timeout(60)

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = (
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
)
NOT_INITIALIZED = -32002
CAPABILITIES = {
    "general": {"positionEncodings": ["utf-16"]},
    "workspace": {"workspaceEdit": {"documentChanges": True}, "applyEdit": True},
}


def _started(root: Path, command: tuple[str, ...] = SERVE, **options: Any) -> Wire:
    wire = Wire(argv=command, cwd=str(root), **options)
    wire.initialize(root.as_uri(), CAPABILITIES)
    return wire


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wire]:
    """One server for the tests that change nothing in it."""
    wire = _started(tmp_path_factory.mktemp("project"))
    yield wire
    wire.close()


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[Wire]:
    wire = Wire(cwd=str(tmp_path))
    yield wire
    wire.close()


def _still_answers(wire: Wire) -> list[Message]:
    """Checks that the server is running and reads the next message as usual, and
    that it showed the user nothing instead of an answer; returns the answers that
    arrived and that no test took (an error answer to bytes sent raw, or a second
    answer to a request)."""
    params = {"command": "lspEdit.list", "arguments": []}
    assert "changes" in wire.result("workspace/executeCommand", params)
    wire.drain(0.1)
    assert [n for n in wire.notifications if n["method"] == "window/showMessage"] == []
    return wire.take_answers()


def json_bytes(message: Any) -> bytes:
    return json.dumps(message).encode("utf-8")


def _error(answer: Message, code: int) -> str:
    assert "result" not in answer, answer
    assert answer["error"]["code"] == code, answer
    message = answer["error"]["message"]
    assert isinstance(message, str)
    return message


DOC = {"uri": "file:///project/a.py"}
ORIGIN = {"line": 0, "character": 0}


@pytest.mark.parametrize(
    ("method", "params", "named"),
    [
        (
            "textDocument/codeAction",
            {"textDocument": DOC, "context": {"diagnostics": []}},
            "`params.range` is missing",
        ),
        (
            "textDocument/codeAction",
            {"textDocument": DOC, "range": {"start": ORIGIN}, "context": {"diagnostics": []}},
            "`params.range.end` is missing",
        ),
        (
            "textDocument/codeAction",
            {"textDocument": DOC, "range": "all", "context": {"diagnostics": []}},
            "`params.range` must be an object, not a string",
        ),
        (
            "textDocument/hover",
            {"textDocument": DOC, "position": {"line": -1, "character": 0}},
            "`params.position.line` must be from 0 to 2147483647, not -1",
        ),
        ("textDocument/hover", [1, 2, 3], "`params` must be an object, not an array"),
        (
            "textDocument/hover",
            {"textDocument": 5, "position": ORIGIN},
            "`params.textDocument` must be an object, not a number",
        ),
        (
            "textDocument/hover",
            {"textDocument": {"uri": 5}, "position": ORIGIN},
            "`params.textDocument.uri` must be a string, not a number",
        ),
        ("textDocument/hover", None, "`params` is missing"),
        ("textDocument/codeLens", {"textDocument": {}}, "`params.textDocument.uri` is missing"),
        (
            "textDocument/documentSymbol",
            {"textDocument": {"uri": ["file:///a.py"]}},
            "`params.textDocument.uri` must be a string, not an array",
        ),
        (
            "workspace/executeCommand",
            {"command": {"name": "lspEdit.list"}},
            "`params.command` must be a string, not an object",
        ),
        (
            "workspace/executeCommand",
            {"command": "lspEdit.list", "arguments": "junk"},
            "`params.arguments` must be an array, not a string",
        ),
        ("workspace/textDocumentContent", {"uri": True}, "`params.uri` must be a string"),
    ],
)
def test_malformed_params_are_answered_with_invalid_params_naming_the_member(
    server: Wire, method: str, params: Any, named: str
) -> None:
    message = _error(server.request(method, params), INVALID_PARAMS)
    assert message.startswith(f"{method}: ")
    assert named in message
    assert _still_answers(server) == []


@pytest.mark.parametrize("method", ["foo/bar", "$/unknown", "textDocument/completion"])
def test_a_method_the_server_does_not_have_is_answered_method_not_found(
    server: Wire, method: str
) -> None:
    message = _error(server.request(method, {}), METHOD_NOT_FOUND)
    assert method in message
    assert _still_answers(server) == []


def test_an_unknown_command_is_answered_invalid_params(server: Wire) -> None:
    answer = server.command("lspEdit.nothing", {})
    assert "lspEdit.nothing" in _error(answer, INVALID_PARAMS)
    assert _still_answers(server) == []


def test_a_request_refused_on_purpose_is_logged_as_one_line_not_as_a_crash(
    tmp_path: Path,
) -> None:
    wire = _started(tmp_path)
    try:
        answer = wire.command("lspEdit.restore", {"id": "nope"})
        assert _error(answer, INVALID_PARAMS) == "lspEdit.restore: no change with id 'nope'."
        assert _still_answers(wire) == []
        log = wire.log()
        assert "Answered" in log and "no change with id 'nope'" in log
        assert "Traceback" not in log and "ERROR" not in log
    finally:
        wire.close()


def test_the_answer_carries_the_requests_id_as_sent(server: Wire) -> None:
    for msg_id in ("7", 7, "", 0, -3, "a-b/c"):
        server.send({"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover", "params": [1]})
        _error(server.answer_to(msg_id), INVALID_PARAMS)
        server.send({"jsonrpc": "2.0", "id": msg_id, "method": "shutdown/not"})
        _error(server.answer_to(msg_id), METHOD_NOT_FOUND)
    assert _still_answers(server) == []


def test_a_body_that_is_not_json_is_answered_with_a_parse_error(server: Wire) -> None:
    for body in (b"{not json", b'{"jsonrpc": "2.0", "id": 1,', b"\xff\xfe\x00", b""):
        server.send_raw(frame(body))
        assert _error(server.answer_to(None), PARSE_ERROR).startswith("Parse error")
    assert _still_answers(server) == []


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (
            b'Content-Type: application/json\r\n\r\n{"jsonrpc":"2.0","id":40,"method":"x"}',
            "without Content-Length",
        ),
        (b'{"jsonrpc":"2.0","id":41,"method":"x"}', "not a message"),
        (b"Content-Length: lots\r\n\r\n{}", "is not a number"),
        (b"Content-Length: 2\r\nno header here\r\n\r\n{}", "not a header"),
    ],
)
def test_bytes_that_are_not_a_message_get_one_parse_error_and_the_next_message_is_read(
    server: Wire, data: bytes, problem: str
) -> None:
    server.send_raw(data)
    # Bytes without a final newline end where the next message begins.
    (answer,) = _still_answers(server)  # one parse error, not one per line
    assert answer["id"] is None
    assert problem in _error(answer, PARSE_ERROR)


@pytest.mark.parametrize(
    ("message", "answered_id", "problem"),
    [
        ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "shutdown"}, None, "`id`"),
        ({"jsonrpc": "2.0", "id": [1], "method": "shutdown"}, None, "`id`"),
        ({"jsonrpc": "2.0", "id": True, "method": "shutdown"}, None, "`id`"),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "shutdown"}, None, "`id`"),
        ({"jsonrpc": "2.0", "id": None, "method": "shutdown"}, None, "`id`"),
        ({"jsonrpc": "1.0", "id": 50, "method": "shutdown"}, 50, "`jsonrpc`"),
        ({"id": 51, "method": "shutdown"}, 51, "`jsonrpc`"),
        ({"jsonrpc": "2.0", "id": 52, "method": 5}, 52, "`method`"),
        ({"jsonrpc": "2.0", "id": 53}, 53, "`method`"),
        (
            {"jsonrpc": "2.0", "id": 55, "method": "textDocument/didClose", "params": {}},
            55,
            "notification",
        ),
        ([{"jsonrpc": "2.0", "id": 54, "method": "shutdown"}], None, "batches"),
        ("shutdown", None, "JSON object"),
    ],
)
def test_a_message_that_is_no_request_is_answered_invalid_request(
    server: Wire, message: Any, answered_id: Any, problem: str
) -> None:
    server.send_raw(frame(json_bytes(message)))
    assert problem in _error(server.answer_to(answered_id), INVALID_REQUEST)
    assert _still_answers(server) == []


def test_a_notification_with_bad_params_is_dropped_without_an_answer(server: Wire) -> None:
    uri = (Path(str(server.cwd)) / "bad.py").as_uri()
    good_open = {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "A\n"}}
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri}})
    server.notify("textDocument/didOpen", good_open)
    server.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": {"start": ORIGIN, "end": ORIGIN}, "text": 5}],
        },
    )
    server.notify("textDocument/didChange", [])
    server.notify("textDocument/didClose", {"textDocument": 3})
    server.notify("$/cancelRequest", {"id": {"no": "such"}})
    server.notify("workspace/didChangeConfiguration", "loud")
    server.send_raw(frame(json_bytes({"jsonrpc": "2.0", "method": "x/y", "params": [1]})))
    # The document's text is as it was opened: the bad change changed nothing.
    proposed = server.command("lspEdit.proposed", {"uri": uri})
    assert proposed["result"] == {"text": "A\n", "changes": []}
    assert _still_answers(server) == []


CRASHING_SERVER = """
import lsp_edit.server.app as app
make = app.create_server

def create_server():
    server = make()

    @server.command("test.crash")
    def crash(ls, *arguments):
        raise RuntimeError("a bug in a handler")

    @server.command("test.unwritable")
    def unwritable(ls, *arguments):
        return {"ids": {1, 2}}

    return server

app.create_server = create_server
from lsp_edit.cli import run
run()
"""


def test_a_handler_that_fails_is_answered_internal_error_and_the_server_keeps_running(
    tmp_path: Path,
) -> None:
    command = (sys.executable, "-c", CRASHING_SERVER, "serve")
    wire = _started(tmp_path, command)
    try:
        assert "a bug in a handler" in _error(wire.command("test.crash", {}), INTERNAL_ERROR)
        assert "could not be sent" in _error(wire.command("test.unwritable", {}), INTERNAL_ERROR)
        assert _still_answers(wire) == []
    finally:
        wire.close()


def test_a_malformed_answer_to_apply_edit_still_ends_the_accept(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("A = 1\n")

    def answer(method: str, params: Any) -> Any:
        return {"applied": "yes"} if method == "workspace/applyEdit" else None

    wire = _started(tmp_path, answer=answer)
    try:
        reply = "a.py\n<<<<<<< SEARCH\nA = 1\n=======\nA = 2\n>>>>>>> REPLACE\n"
        (change,) = wire.command("lspEdit.propose", {"response": reply})["result"]["changes"]
        result = wire.command("lspEdit.accept", {"id": change["id"]})["result"]
        assert result["status"] == "pending"
        assert "malformed" in result["message"]
        assert _still_answers(wire) == []
    finally:
        wire.close()


def test_an_error_answer_to_apply_edit_leaves_the_change_pending(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("A = 1\n")

    def answer(method: str, params: Any) -> Any:
        return Error(-32603, "cannot") if method == "workspace/applyEdit" else None

    wire = _started(tmp_path, answer=answer)
    try:
        reply = "a.py\n<<<<<<< SEARCH\nA = 1\n=======\nA = 2\n>>>>>>> REPLACE\n"
        (change,) = wire.command("lspEdit.propose", {"response": reply})["result"]["changes"]
        result = wire.command("lspEdit.accept", {"id": change["id"]})["result"]
        assert result["status"] == "pending"
        assert _still_answers(wire) == []
    finally:
        wire.close()


def test_shutdown_while_an_accept_waits_for_the_editor_is_answered_null(tmp_path: Path) -> None:
    # The editor quits before it answers the accept's `workspace/applyEdit`.
    (tmp_path / "a.py").write_text("A = 1\n")

    def answer(method: str, params: Any) -> Any:
        return UNANSWERED if method == "workspace/applyEdit" else None

    wire = _started(tmp_path, answer=answer)
    try:
        reply = "a.py\n<<<<<<< SEARCH\nA = 1\n=======\nA = 2\n>>>>>>> REPLACE\n"
        (change,) = wire.command("lspEdit.propose", {"response": reply})["result"]["changes"]
        accept = {"command": "lspEdit.accept", "arguments": [{"id": change["id"]}]}
        wire.send(
            {
                "jsonrpc": "2.0",
                "id": "accept",
                "method": "workspace/executeCommand",
                "params": accept,
            }
        )
        deadline = time.monotonic() + 10
        while not any(r["method"] == "workspace/applyEdit" for r in wire.server_requests):
            assert time.monotonic() < deadline, "no workspace/applyEdit"
            wire.pump(1)
        assert wire.request("shutdown") == {"jsonrpc": "2.0", "id": 3, "result": None}
    finally:
        wire.close()


def test_requests_before_initialize_are_answered_server_not_initialized(fresh: Wire) -> None:
    answer = fresh.command("lspEdit.list", {})
    assert "initialize" in _error(answer, NOT_INITIALIZED)
    fresh.notify("textDocument/didOpen", {"textDocument": {}})  # dropped, no answer
    fresh.initialize(None, CAPABILITIES)
    assert _still_answers(fresh) == []


def test_a_second_initialize_and_requests_after_shutdown_are_invalid_requests(
    fresh: Wire,
) -> None:
    fresh.initialize(None, CAPABILITIES)
    again = fresh.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    assert "initialized" in _error(again, INVALID_REQUEST)
    assert fresh.result("shutdown") is None
    after = fresh.command("lspEdit.list", {})
    assert "shutting down" in _error(after, INVALID_REQUEST)
    fresh.notify("exit", None)
    assert fresh.process.wait(timeout=10) == 0


@pytest.mark.parametrize(
    "params",
    [
        [1, 2, 3],
        None,
        {"processId": None},
        {"processId": None, "capabilities": "all"},
    ],
)
def test_a_malformed_first_initialize_is_answered_invalid_params_and_can_be_sent_again(
    fresh: Wire, params: Any
) -> None:
    message: Message = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
    if params is not None:
        message["params"] = params
    fresh.send(message)
    assert "params" in _error(fresh.answer_to(1), INVALID_PARAMS)
    fresh.initialize(None, CAPABILITIES)
    assert _still_answers(fresh) == []


@pytest.mark.parametrize(
    ("first", "answered_id"),
    [
        (frame(b"{oops"), None),
        (b"Content-Type: x\r\n\r\n{}", None),
        (frame(json_bytes({"jsonrpc": "2.0", "id": [1], "method": "initialize"})), None),
        (frame(json_bytes({"jsonrpc": "1.0", "id": 9, "method": "initialize"})), 9),
    ],
)
def test_a_first_message_that_is_no_initialize_request_gets_its_error_answer(
    fresh: Wire, first: bytes, answered_id: Any
) -> None:
    fresh.send_raw(first)
    assert fresh.answer_to(answered_id)["error"]["code"] in (PARSE_ERROR, INVALID_REQUEST)
    fresh.initialize(None, CAPABILITIES)
    assert _still_answers(fresh) == []


def test_capabilities_the_server_cannot_read_are_left_out_and_the_server_starts(
    fresh: Wire,
) -> None:
    capabilities = {
        "general": {"positionEncodings": [5, "utf-32", "utf-8"]},
        "textDocument": {"hover": {"contentFormat": 7}, "codeAction": "yes"},
        "workspace": {"workspaceEdit": {"documentChanges": "sure"}, "applyEdit": True},
        "someFutureCapability": {"x": [1]},
    }
    result = fresh.initialize(None, capabilities, processId="me", rootUri=5)
    assert result["capabilities"]["positionEncoding"] == "utf-32"
    assert _still_answers(fresh) == []


def test_bytes_that_are_not_a_message_get_a_parse_error_over_tcp_too(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [*SERVE, "--tcp", f"127.0.0.1:{port}"], cwd=tmp_path, stderr=subprocess.DEVNULL
    )
    try:
        connection = _connect(port)
        stream = connection.makefile("rwb")
        initialize = {"processId": None, "rootUri": None, "capabilities": {}}
        for data in (
            b"Content-Type: x\r\n\r\n{}",
            frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize}),
            frame({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": []}),
        ):
            stream.write(data)
        stream.flush()
        answers = [_read_frame(stream) for _ in range(3)]
        assert [(a["id"], a.get("error", {}).get("code")) for a in answers] == [
            (None, PARSE_ERROR),
            (1, None),
            (2, INVALID_PARAMS),
        ]
        connection.close()
    finally:
        process.kill()
        process.wait()


def _connect(port: int) -> socket.socket:
    deadline = time.monotonic() + 30
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=30)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _read_frame(stream: Any) -> Message:
    length = 0
    while line := stream.readline():
        if not line.strip():
            break
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    answer: Message = json.loads(stream.read(length))
    return answer
