#!/usr/bin/env bash
# Installs everything lsp-edit needs into .venv (the pinned Python packages and the
# development tools), the editors the editor tests use and the VS Code extension
# (scripts/install-editors.sh), then runs the main job on
# the bundled example: it places the edit blocks of examples/reply.md in
# examples/project/ and prints the diff, without writing (remove --dry-run to write).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-python.sh
# The editors the editor tests run in and the VS Code extension (docs/vscode.md).
bash scripts/install-editors.sh

.venv/bin/lsp-edit apply examples/reply.md --root examples/project --dry-run --diff
