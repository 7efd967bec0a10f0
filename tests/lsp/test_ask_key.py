"""An API key reaches the model server and nothing else: not the settings, not the
server's log, even at its most verbose (issue 21)."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.llm_server import FakeModel, Reply

pytestmark = pytest.mark.timeout(60)

KEY = "sk-test-9f8e7d6c5b4a39281706"
LOG = Path(tempfile.mkdtemp()) / "lsp-edit.log"


@pytest.fixture(scope="module")
def model() -> Iterator[FakeModel]:
    server = FakeModel().start()
    yield server
    server.stop()


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[
            sys.executable,
            "-m",
            "lsp_edit",
            "serve",
            "--log-file",
            str(LOG),
            "--log-level",
            "DEBUG",
        ],
        server_env={**os.environ, "LSP_EDIT_TEST_MODEL_KEY": KEY},
    )
)
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def on_lens_refresh(params: None) -> None:
        return None

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def on_register(params: types.RegistrationParams) -> None:
        return None

    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri()
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_the_key_goes_to_the_model_and_never_into_the_log(
    client: LanguageClient, model: FakeModel, tmp_path: Path
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    llm = {
        "baseUrl": model.openai_url,
        "model": "coder",
        "apiKeyEnv": "LSP_EDIT_TEST_MODEL_KEY",
    }
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"lspEdit": {"llm": llm}})
    )
    model.script.append(Reply("a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"))
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="lspEdit.ask",
            arguments=[{"prompt": "Two.", "uri": (tmp_path / "a.py").as_uri()}],
        )
    )
    assert result["status"] == "done"
    assert model.chat_requests()[-1]["headers"]["Authorization"] == f"Bearer {KEY}"
    log = LOG.read_text()
    assert "lspEdit.ask" in log  # the log is verbose: it holds every message
    assert KEY not in log
    assert KEY not in (tmp_path / "a.py.llm.md").read_text()
