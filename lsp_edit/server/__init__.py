"""`lsp-edit serve`: the language server that shows every edit block as a pending
change the user reviews (docs/protocol.md).

`store` owns the pending changes and their tracking against the buffers (with
`hunks`, the line arithmetic), `replies` reads replies that arrive over time,
`render` turns changes into LSP objects, `edits` builds every WorkspaceEdit from the
client's capabilities, `editor` holds what the handlers share, and `app` holds the
handlers, which only call these.
"""

from __future__ import annotations

import logging


def serve(
    *, tcp: tuple[str, int] | None = None, log_file: str | None = None, log_level: str = "WARNING"
) -> None:
    """Runs the server on stdio, or on a TCP port, until the client exits."""
    from lsp_edit.server.app import create_server

    handler: logging.Handler = (
        logging.FileHandler(log_file, encoding="utf-8") if log_file else logging.StreamHandler()
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    # pygls logs every message, the whole InitializeParams included, at INFO.
    root.setLevel(log_level.upper())
    server = create_server()
    if tcp is not None:
        server.start_tcp(*tcp)
    else:
        server.start_io()
