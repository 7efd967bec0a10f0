#!/usr/bin/env bash
# Installs lsp-edit and its pinned packages, with the development tools, into .venv.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
# Editable: the checkout is on the path through a plain path file (pyproject.toml's
# package-dir), which costs nothing when Python starts, unlike an import hook.
.venv/bin/python -m pip install --quiet -e '.[dev]'
# The setuptools the venv comes with is not needed (building uses its own copy); its
# path file would import a module at every start of Python, `lsp-edit apply` included.
.venv/bin/python -m pip uninstall --quiet --yes setuptools
# Bytecode now, so that the first `lsp-edit apply` or `serve` starts as fast as the next.
.venv/bin/python -m compileall -q lsp_edit
touch .venv/.installed
