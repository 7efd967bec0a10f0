"""End-to-end fixtures: the real server over stdio, driven as VS Code, Neovim and
Emacs drive it (their recorded capabilities differ where edits are built)."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Union

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.lsp.editor import Editor

CLIENTS = ("visual-studio-code", "neovim", "emacs")
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "lsp_edit", "serve"],
    server_env={**os.environ, "PYTHONUNBUFFERED": "1"},
)


@pytest_lsp.fixture(config=SERVER, params=CLIENTS)
async def client(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, tmp_path: Path
) -> AsyncIterator[None]:
    # `@pytest.mark.folders("a", "b")` opens several workspace folders under one
    # root; `@pytest.mark.settings({...})` passes initializationOptions.lspEdit.
    folders = request.node.get_closest_marker("folders")
    names = folders.args if folders else ("project",)
    root = tmp_path / "project" if not folders else tmp_path
    for name in names:
        (tmp_path / name).mkdir(exist_ok=True)
    editor = Editor(lsp_client, root, request.param)
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

    settings = request.node.get_closest_marker("settings")
    result = await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(request.param),
            root_uri=(tmp_path / names[0]).as_uri(),
            workspace_folders=[
                types.WorkspaceFolder(uri=(tmp_path / name).as_uri(), name=name) for name in names
            ],
            initialization_options={"lspEdit": settings.args[0]} if settings else None,
        )
    )
    negotiated = result.capabilities.position_encoding or "utf-16"
    editor.encoding = str(getattr(negotiated, "value", negotiated))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def editor(client: LanguageClient) -> Editor:
    """The editor (VS Code, Neovim or Emacs, by capabilities) with the server started."""
    found: Editor = client.editor  # type: ignore[attr-defined]
    return found


def _read_code_actions_whole(client: LanguageClient) -> None:
    """lsprotocol's client side reads a CodeAction that carries a `command` as a bare
    Command (a library bug): tell the two apart by what `command` holds."""
    converter = client.protocol._converter

    def structure(value: Any, _: Any) -> types.Command | types.CodeAction:
        if isinstance(value.get("command"), str):
            return converter.structure(value, types.Command)
        return converter.structure(value, types.CodeAction)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], structure)  # noqa: UP007
