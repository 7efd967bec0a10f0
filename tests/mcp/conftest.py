"""What the `lsp-edit mcp` tests share: an agent (the MCP SDK's own client, talking to
a real `lsp-edit mcp` over stdio), a copy of the bundled example project, and a real
`lsp-edit serve` driven as an editor drives it, both using a private bridge folder of
the tests' own."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import TextContent
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from lsp_edit import bridge
from tests.lsp.conftest import _read_code_actions_whole
from tests.lsp.editor import Editor

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "project"
LSP_EDIT = Path(sys.executable).parent / "lsp-edit"
# The bridge folder of these tests: `$XDG_RUNTIME_DIR/lsp-edit` (mkdtemp makes it 0700),
# short, since a socket's path holds at most 107 bytes.
RUNTIME = Path(tempfile.mkdtemp(prefix="le-"))
ENV = {**os.environ, "XDG_RUNTIME_DIR": str(RUNTIME), "PYTHONUNBUFFERED": "1"}


@pytest.fixture(autouse=True)
def _runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process looks for editors where the servers the tests start publish."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(RUNTIME))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of examples/project."""
    copy = tmp_path / "project"
    shutil.copytree(EXAMPLE, copy)
    return copy


class Agent:
    """An agent's session with `lsp-edit mcp`."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def call(self, tool: str, **arguments: object) -> tuple[str, bool]:
        """What the model sees of a call: the result's text, and whether it is an error."""
        result = await self.session.call_tool(tool, arguments)
        (content,) = result.content
        assert isinstance(content, TextContent)
        return content.text, bool(result.is_error)


@asynccontextmanager
async def agent(root: Path, *options: str, runtime: Path = RUNTIME) -> AsyncIterator[Agent]:
    """`lsp-edit mcp --root ROOT OPTIONS`, started by the SDK's client, initialized;
    it looks for editors in the bridge folder under `runtime`."""
    params = StdioServerParameters(
        command=str(LSP_EDIT),
        args=["mcp", "--root", str(root), *options],
        env={**ENV, "XDG_RUNTIME_DIR": str(runtime)},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield Agent(session)


# --- a real editor server --------------------------------------------------------------------

SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "lsp_edit", "serve"], server_env=ENV
)


@pytest_lsp.fixture(config=SERVER, params=("visual-studio-code",))
async def client(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, project: Path
) -> AsyncIterator[None]:
    editor = Editor(lsp_client, project, request.param)
    lsp_client.editor = editor  # type: ignore[attr-defined]
    _read_code_actions_whole(lsp_client)

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def on_apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        return editor.apply_workspace_edit(params)

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def on_lens_refresh(params: None) -> None:
        return None

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def on_register(params: types.RegistrationParams) -> None:
        editor.registrations.extend(params.registrations)

    @lsp_client.feature(types.WORKSPACE_TEXT_DOCUMENT_CONTENT_REFRESH)
    def on_content_refresh(params: types.TextDocumentContentRefreshParams) -> None:
        return None

    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(request.param),
            root_uri=project.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="project")],
        )
    )
    await published(project)
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def editor(client: LanguageClient) -> Editor:
    found: Editor = client.editor  # type: ignore[attr-defined]
    return found


async def published(folder: Path, timeout: float = 20) -> bridge.Publication:
    """The editor server's published file for `folder`, once it is there."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = bridge.editors_for(os.path.realpath(folder))
        assert not isinstance(found, bridge.Refusal), found.message
        if found.found:
            return found.found[0]
        assert loop.time() < deadline, f"no editor server published {folder}"
        await asyncio.sleep(0.05)
