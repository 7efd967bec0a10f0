"""The model providers against a local model server that streams as OpenAI-compatible
servers and Ollama do: the events each reply becomes, and every failure as the user
reads it."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from lsp_edit.blocks.tool_calls import tools_for_mode
from lsp_edit.providers import (
    ChatMessage,
    ChatRequest,
    Failed,
    Finished,
    ProviderSettings,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    Usage,
    provider_for,
)
from tests.llm_server import FakeModel, Refusal, Reply

TOOLS = tools_for_mode("ast_path")

APIS = ("openai", "ollama")
REQUEST = ChatRequest(
    "coder", (ChatMessage("system", "Write blocks."), ChatMessage("user", "Fix the cart."))
)


@pytest.fixture
def model() -> Iterator[FakeModel]:
    server = FakeModel().start()
    yield server
    server.stop()


def settings(server: FakeModel, api: str, **more: object) -> ProviderSettings:
    url = server.openai_url if api == "openai" else server.ollama_url
    given: dict[str, object] = {"api": api, "base_url": url, "model": "coder", "backoff": 0.01}
    given.update(more)
    return ProviderSettings(**given)  # type: ignore[arg-type]


async def events_of(
    config: ProviderSettings, request: ChatRequest = REQUEST, environ: dict[str, str] | None = None
) -> list[StreamEvent]:
    provider = provider_for(config, environ or {})
    assert not isinstance(provider, Failed), provider
    try:
        return [event async for event in provider.stream(request)]
    finally:
        await provider.aclose()


def text_of(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


@pytest.mark.parametrize("api", APIS)
async def test_a_reply_streams_as_text_pieces_then_usage_then_the_finish(
    model: FakeModel, api: str
) -> None:
    model.script.append(Reply("Here is the fix:\n\nshop/cart.py\n", chunk=3, usage=(50, 7)))
    events = await events_of(settings(model, api))
    assert text_of(events) == "Here is the fix:\n\nshop/cart.py\n"
    assert len([e for e in events if isinstance(e, TextDelta)]) == 11
    assert events[-2:] == [Usage(50, 7), Finished("stop")]


@pytest.mark.parametrize("api", APIS)
async def test_the_request_carries_the_messages_and_the_tools(model: FakeModel, api: str) -> None:
    model.script.append(Reply("ok"))
    await events_of(settings(model, api), ChatRequest("coder", REQUEST.messages, TOOLS))
    (sent,) = model.chat_requests()
    body = sent["body"]
    assert sent["path"] == ("/v1/chat/completions" if api == "openai" else "/api/chat")
    assert body["stream"] is True
    assert body["messages"] == [
        {"role": "system", "content": "Write blocks."},
        {"role": "user", "content": "Fix the cart."},
    ]
    functions = {t["function"]["name"]: t["function"] for t in body["tools"]}
    assert list(functions) == [t.name for t in TOOLS]
    assert {t["type"] for t in body["tools"]} == {"function"}
    assert functions["delete_lines"]["parameters"]["required"] == [
        "path",
        "start_line",
        "end_line",
    ]
    assert functions["delete_lines"]["description"].startswith("Delete whole lines")


@pytest.mark.parametrize("api", APIS)
async def test_tool_calls_arrive_as_pieces_of_their_arguments(model: FakeModel, api: str) -> None:
    arguments = {"path": "notes.txt", "start_line": 2, "end_line": 3}
    model.script.append(Reply("Deleting.\n", tool_calls=[("delete_lines", arguments)]))
    events = await events_of(settings(model, api), ChatRequest("coder", REQUEST.messages, TOOLS))
    calls = [e for e in events if isinstance(e, ToolCallDelta)]
    assert {c.index for c in calls} == {0}
    assert [c.name for c in calls if c.name] == ["delete_lines"]
    assert json.loads("".join(c.arguments for c in calls)) == arguments
    assert events[-1] == Finished("tool_calls")


async def test_a_key_is_sent_from_the_variable_the_settings_name(model: FakeModel) -> None:
    model.script.append(Reply("ok"))
    await events_of(
        settings(model, "openai", api_key_env="MY_MODEL_KEY"), environ={"MY_MODEL_KEY": "sk-123"}
    )
    assert model.chat_requests()[0]["headers"]["Authorization"] == "Bearer sk-123"


def test_a_key_variable_that_is_not_set_is_said_before_any_request(model: FakeModel) -> None:
    found = provider_for(settings(model, "openai", api_key_env="MY_MODEL_KEY"), {})
    assert found == Failed(
        "no-key",
        "The environment variable lspEdit.llm.apiKeyEnv names, MY_MODEL_KEY, is not set "
        "where the server runs: set it before starting the editor, or clear "
        "lspEdit.llm.apiKeyEnv for a server that needs no key.",
    )
    assert model.requests == []


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("api", APIS)
async def test_a_server_that_is_not_running_names_the_url_and_the_setting(api: str) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    config = ProviderSettings(api, url, "coder")
    assert await events_of(config) == [
        Failed(
            "connection-refused",
            f"Cannot connect to the model server at {url} (connection refused). Start it, or "
            "set lspEdit.llm.baseUrl to where it listens.",
        )
    ]


@pytest.mark.parametrize("status", [401, 403])
async def test_a_refused_key_names_its_environment_variable(model: FakeModel, status: int) -> None:
    model.script.append(
        Refusal(status, json.dumps({"error": {"message": "Incorrect API key provided"}}))
    )
    found = await events_of(
        settings(model, "openai", api_key_env="MY_MODEL_KEY"), environ={"MY_MODEL_KEY": "bad"}
    )
    assert found == [
        Failed(
            "auth",
            f"The model server at {model.openai_url} refused the request ({status}): Incorrect "
            "API key provided. Check the key in the environment variable MY_MODEL_KEY "
            "(lspEdit.llm.apiKeyEnv).",
        )
    ]


async def test_a_refused_request_without_a_key_says_to_name_one(model: FakeModel) -> None:
    model.script.append(Refusal(401, json.dumps({"error": {"message": "missing key"}})))
    (failed,) = await events_of(settings(model, "openai"))
    assert isinstance(failed, Failed)
    assert failed.message.endswith(
        "It needs an API key: set lspEdit.llm.apiKeyEnv to the name of the environment "
        "variable that holds it."
    )


@pytest.mark.parametrize("api", APIS)
async def test_a_model_that_is_not_there_lists_the_models_the_server_offers(
    model: FakeModel, api: str
) -> None:
    said = "model 'codr' not found" if api == "ollama" else "The model `codr` does not exist"
    model.script.append(Refusal(404, json.dumps({"error": said})))
    found = await events_of(settings(model, api, model="codr"))
    url = model.openai_url if api == "openai" else model.ollama_url
    assert found == [
        Failed(
            "model-not-found",
            f"The model 'codr' is not at {url} ({said}). It offers: coder, coder:7b. Set "
            "lspEdit.llm.model to one of them.",
        )
    ]


async def test_a_model_not_found_where_the_server_lists_nothing(model: FakeModel) -> None:
    model.list_models = False
    model.script.append(Refusal(404, json.dumps({"error": "model 'codr' not found"})))
    (failed,) = await events_of(settings(model, "ollama", model="codr"))
    assert failed == Failed(
        "model-not-found",
        f"The model 'codr' is not at {model.ollama_url} (model 'codr' not found); the server "
        "did not list its models. Check lspEdit.llm.model.",
    )


async def test_a_url_where_nothing_answers_says_to_check_the_base_url(model: FakeModel) -> None:
    config = settings(model, "openai", base_url=model.ollama_url)  # /v1 left out
    model.list_models = False
    (failed,) = await events_of(config)
    assert failed == Failed(
        "not-found",
        f"Nothing answers at {model.ollama_url}/chat/completions (404: no route "
        "/chat/completions). Check lspEdit.llm.baseUrl (an OpenAI-compatible server's URL "
        "usually ends in /v1).",
    )


@pytest.mark.parametrize("status", [429, 500, 503])
async def test_a_busy_or_failing_server_is_tried_once_more_after_a_pause(
    model: FakeModel, status: int
) -> None:
    model.script += [
        Refusal(status, json.dumps({"error": {"message": "slow down"}}), {"Retry-After": "0"}),
        Reply("fine now"),
    ]
    events = await events_of(settings(model, "openai"))
    assert text_of(events) == "fine now"
    assert len(model.chat_requests()) == 2


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (
            429,
            "The model server is limiting requests (429): Rate limit reached. It refused again "
            "when tried once more; ask again later.",
        ),
        (
            502,
            "The model server failed (502): Rate limit reached. It failed again when tried "
            "once more.",
        ),
    ],
)
async def test_a_server_that_refuses_twice_gives_its_message(
    model: FakeModel, status: int, said: str
) -> None:
    refusal = Refusal(status, json.dumps({"error": {"message": "Rate limit reached"}}))
    model.script += [refusal, refusal]
    (failed,) = await events_of(settings(model, "openai"))
    assert isinstance(failed, Failed)
    assert failed.message == said
    assert len(model.chat_requests()) == 2


@pytest.mark.parametrize("api", APIS)
async def test_a_stream_that_stalls_past_the_timeout_is_stopped(model: FakeModel, api: str) -> None:
    model.script.append(Reply("first part, then nothing", stall_after=8, stall_for=3))
    events = await events_of(settings(model, api, timeout=0.5))
    assert text_of(events).startswith("first pa")
    assert events[-1] == Failed(
        "stalled",
        "The model server sent nothing for 0.5 s (lspEdit.llm.timeout), so the request was "
        "stopped. What arrived is kept.",
    )


@pytest.mark.parametrize("api", APIS)
async def test_a_stream_cut_before_its_end_is_a_failure_not_a_finish(
    model: FakeModel, api: str
) -> None:
    model.script.append(Reply("shop/cart.py\n<<<<<<< SEARCH\n", cut_after=8))
    events = await events_of(settings(model, api))
    assert text_of(events) == "shop/car"
    last = events[-1]
    assert isinstance(last, Failed)
    assert last.code == "cut"
    assert last.message.endswith("What arrived is kept.")


async def test_a_malformed_event_stops_the_stream_and_says_what_it_was(model: FakeModel) -> None:
    model.script.append(Reply("good text", malformed_after=4))
    events = await events_of(settings(model, "openai"))
    assert text_of(events) == "good"
    assert events[-1] == Failed(
        "malformed",
        "The model server sent an event lsp-edit cannot read (Expecting property name enclosed "
        "in double quotes: line 1 column 2 (char 1)): '{this is not json'. The request was "
        "stopped; what arrived is kept.",
    )


async def test_a_model_that_takes_no_tools_is_told_apart(model: FakeModel) -> None:
    said = "registry.ollama.ai/library/coder does not support tools"
    model.script.append(Refusal(400, json.dumps({"error": said})))
    (failed,) = await events_of(
        settings(model, "ollama"), ChatRequest("coder", REQUEST.messages, TOOLS)
    )
    assert isinstance(failed, Failed)
    assert failed.code == "tools-unsupported"
