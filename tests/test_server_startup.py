"""The answer to `initialize` given before the LSP libraries load is the one pygls
gives, for every client."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from typing import Any

import pytest
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import client_capabilities

from lsp_edit.server import startup
from lsp_edit.server.app import create_server
from lsp_edit.server.messages import AnsweringProtocol
from lsp_edit.server.startup import (
    Incoming,
    WithoutSecondAnswer,
    early_answer,
    frame,
    initialize_result,
    read_message,
)


def _pygls_answer(params: types.InitializeParams) -> Any:
    server = create_server()
    steps = server.protocol.lsp_initialize(params)
    handler, args, kwargs = next(steps)
    try:
        steps.send(handler(*args, **(kwargs or {})))
    except StopIteration as done:
        return default_converter().unstructure(done.value)
    raise AssertionError("lsp_initialize did not finish")


@pytest.mark.parametrize("client", ["visual-studio-code", "neovim", "emacs"])
def test_the_early_answer_to_initialize_is_the_servers_own(client: str) -> None:
    params = types.InitializeParams(capabilities=client_capabilities(client), root_uri=None)
    as_json = default_converter().unstructure(params)
    assert initialize_result(as_json) == _pygls_answer(params)


def _answers_in_process(message: Any) -> list[Any]:
    """What the server (pygls, past the early answer) answers to `message`."""
    out = io.BytesIO()
    protocol = create_server().protocol
    assert isinstance(protocol, AnsweringProtocol)
    protocol.set_writer(out)  # type: ignore[arg-type]
    protocol.receive(json.dumps(message).encode("utf-8"))
    frames = out.getvalue().split(b"Content-Length")[1:]
    return [json.loads(data.partition(b"\r\n\r\n")[2]) for data in frames]


@pytest.mark.parametrize(
    "capabilities",
    [
        {"general": {"positionEncodings": [5, {"x": 1}, "utf-8"]}},
        {"general": {"positionEncodings": "utf-8"}},
        {"general": [], "textDocument": {"hover": {"contentFormat": 7}}},
        {"workspace": {"workspaceEdit": {"documentChanges": "yes"}}, "window": 3},
    ],
)
def test_the_early_answer_is_the_servers_own_for_capabilities_it_cannot_read(
    capabilities: dict[str, Any],
) -> None:
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"processId": "x", "capabilities": capabilities},
    }
    early = early_answer(message)
    (answer,) = _answers_in_process(message)
    assert early is not None
    assert early["id"] == answer["id"]
    # The same capabilities (pygls' wire answer leaves out the members that are false).
    assert _without_false(early["result"]) == _without_false(answer["result"])


def _without_false(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_false(v) for k, v in value.items() if v is not False}
    return value


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": [1]},
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": 5}},
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
        {"jsonrpc": "2.0", "id": 1, "method": "initialize"},
        {"jsonrpc": "2.0", "id": [1], "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "1", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
    ],
)
def test_an_initialize_the_server_refuses_gets_no_early_answer(message: dict[str, Any]) -> None:
    assert early_answer(message) is None
    (answer,) = _answers_in_process(message)
    assert answer["error"]["code"] in (-32600, -32602)


def test_the_bytes_read_past_the_first_message_are_handed_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Read a few bytes at a time, as a slow pipe delivers them.
    monkeypatch.setattr(startup, "CHUNK", 7)
    first = frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
    second = frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    read, write = os.pipe()
    os.write(write, first + second)
    os.close(write)
    incoming = Incoming(read)
    raw, message = read_message(incoming)
    assert raw == first
    assert message == {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    rest = incoming.readahead()
    while chunk := os.read(read, 64):
        rest += chunk
    os.close(read)
    assert rest == second


def _serve(messages: bytes) -> bytes:
    """What `lsp-edit serve` writes for `messages`, sent at once, stdin then closed."""
    done = subprocess.run(
        [sys.executable, "-m", "lsp_edit", "serve"],
        input=messages,
        capture_output=True,
        timeout=60,
        check=False,
    )
    return done.stdout


def _ids_answered(output: bytes) -> list[Any]:
    answers = []
    while output:
        header, _, rest = output.partition(b"\r\n\r\n")
        length = int(header.split(b"\r\n")[0].partition(b":")[2])
        answers.append(json.loads(rest[:length]))
        output = rest[length:]
    return [a["id"] for a in answers if "id" in a and ("result" in a or "error" in a)]


def test_messages_sent_in_one_write_are_each_answered_once() -> None:
    sent = b"".join(
        frame(m)
        for m in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "workspace/executeCommand",
                "params": {"command": "lspEdit.list", "arguments": [{}]},
            },
            {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
        )
    )
    assert _ids_answered(_serve(sent)) == [1, 2, 3]


def test_the_server_stops_when_the_client_closes_its_input() -> None:
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
    # _serve's timeout fails the test if the server waits on after its input ends.
    assert _ids_answered(_serve(frame(initialize))) == [1]


def test_only_the_second_answer_to_initialize_is_dropped() -> None:
    out = io.BytesIO()
    writer = WithoutSecondAnswer(out, 1)
    log = frame({"jsonrpc": "2.0", "method": "window/logMessage", "params": {}})
    answer = frame({"jsonrpc": "2.0", "id": 1, "result": {}})
    other = frame({"jsonrpc": "2.0", "id": 1, "result": {"again": True}})
    for data in (log, answer, other):
        writer.write(data)
    assert out.getvalue() == log + other
    assert json.loads(other.partition(b"\r\n\r\n")[2])["result"] == {"again": True}
