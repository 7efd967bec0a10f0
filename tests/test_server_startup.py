"""The answer to `initialize` given before the LSP libraries load is the one pygls
gives, for every client."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import client_capabilities

from lsp_edit.server.app import create_server
from lsp_edit.server.startup import (
    Replayed,
    WithoutSecondAnswer,
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


def test_a_message_read_early_is_read_again_whole() -> None:
    first = frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
    second = frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    stream = io.BytesIO(first + second)
    raw, message = read_message(stream)
    assert message is not None and message["method"] == "initialize"
    again = Replayed(raw, stream)
    assert read_message(again)[1] == message  # type: ignore[arg-type]
    assert read_message(again)[1] == {"jsonrpc": "2.0", "method": "initialized", "params": {}}  # type: ignore[arg-type]


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
