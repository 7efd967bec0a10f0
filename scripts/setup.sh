#!/usr/bin/env bash
# Installs everything lsp-edit needs into .venv (the pinned Python packages and the
# development tools) and Neovim for the editor tests, then runs the main job on the
# bundled example: it places the edit blocks of examples/reply.md in examples/project/
# and prints the diff, without writing (remove --dry-run to write).
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev]'
touch .venv/.installed
# Neovim for the editor tests (docs/neovim.md): the system's, and a current build.
bash scripts/install-neovim.sh

.venv/bin/lsp-edit apply examples/reply.md --root examples/project --dry-run --diff
