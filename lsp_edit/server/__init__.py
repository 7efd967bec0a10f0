"""`lsp-edit serve`: the language server that shows every edit block as a pending
change the user reviews (docs/protocol.md).

`store` owns the pending changes and their tracking against the buffers (with
`hunks`, the line arithmetic), `replies` reads replies that arrive over time,
`render` turns changes into LSP objects, `edits` builds every WorkspaceEdit from the
client's capabilities, `editor` holds what the handlers share, and `app` holds the
handlers, which only call these. `ask` is `lspEdit.ask`, which asks the model and
streams its reply into a reply document through `reply_writer`. `startup` answers
`initialize` before they load, `stdio` reads the client's messages in chunks,
`frames` cuts them into bodies, and `messages` checks each against the protocol and
answers every request it cannot hand on.
"""

from __future__ import annotations

import logging
import sys


def serve(
    *, tcp: tuple[str, int] | None = None, log_file: str | None = None, log_level: str = "WARNING"
) -> None:
    """Runs the server on stdio, or on a TCP port, until the client exits."""
    handler: logging.Handler = (
        logging.FileHandler(log_file, encoding="utf-8") if log_file else logging.StreamHandler()
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    # pygls logs every message, the whole InitializeParams included, at INFO.
    root.setLevel(log_level.upper())
    if tcp is not None:
        from lsp_edit.server.app import create_server
        from lsp_edit.server.stdio import serve_tcp

        serve_tcp(create_server(), *tcp)
        return
    from lsp_edit.server import startup

    incoming, stdout = startup.Incoming(sys.stdin.fileno()), sys.stdout.buffer
    first, message = startup.read_message(incoming)
    answered = None
    answer = startup.early_answer(message)
    if answer is not None:
        stdout.write(startup.frame(answer))
        stdout.flush()
        answered = answer["id"]
    from lsp_edit.server.app import create_server  # the slow imports, after the answer
    from lsp_edit.server.stdio import serve_stdio

    output = startup.WithoutSecondAnswer(stdout, answered)
    serve_stdio(create_server(), incoming, first, output)
