"""`python -m lsp_edit` runs the command-line interface."""

from lsp_edit.cli import run

run()
