#!/usr/bin/env bash
# Makes sure this machine has what `scripts/test.sh` needs, reusing whatever is already there:
# the wasm32-wasip1 Rust target, tmux (a real terminal for the e2e tests), binaryen's wasm-opt,
# Zellij 0.45.1 with its web server, Chromium (the browser of the web client's e2e tests) and
# OpenSSH's server (the other machine of the remote e2e tests).
# Idempotent: a second run only prints what it found.
set -euo pipefail

ZELLIJ_VERSION=0.45.1
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# 1. The wasm target the plugin is built for.
if rustup target list --installed | grep -qx wasm32-wasip1; then
    echo "wasm32-wasip1: installed"
else
    rustup target add wasm32-wasip1 >&2
    echo "wasm32-wasip1: added"
fi

# 2. tmux, the terminal the e2e tests attach a Zellij client to.
if command -v tmux >/dev/null 2>&1; then
    echo "tmux: $(tmux -V)"
else
    as_root apt-get update >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y tmux >&2
    echo "tmux: installed $(tmux -V)"
fi

# 3. binaryen's wasm-opt, which shrinks the built plugin (scripts/build-plugin.sh).
if command -v wasm-opt >/dev/null 2>&1; then
    echo "wasm-opt: $(wasm-opt --version)"
else
    as_root apt-get update >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y binaryen >&2
    echo "wasm-opt: installed $(wasm-opt --version)"
fi

# 3b. OpenSSL's headers and pkg-config: Zellij's build links them, and so do the host tests,
# which encode real events and commands with zellij-utils.
if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists openssl 2>/dev/null; then
    echo "openssl: $(pkg-config --modversion openssl) (pkg-config)"
else
    as_root apt-get update >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y pkg-config libssl-dev >&2
    echo "openssl: installed $(pkg-config --modversion openssl)"
fi

# 4. Zellij, exactly the version the plugin is built against, with its web server (the
# `web_server_capability` feature, one of its defaults): a Zellij built without it says so
# when asked for the server's status, and is built again.
zellij_ok() {
    [ "$(zellij --version 2>/dev/null || true)" = "zellij $ZELLIJ_VERSION" ] || return 1
    local status
    status=$(zellij web --status --timeout 1 2>&1 || true)
    case "$status" in
        *"compiled without web server support"*) return 1 ;;
    esac
}
if zellij_ok; then
    echo "zellij: $ZELLIJ_VERSION (with the web server)"
else
    echo "zellij $ZELLIJ_VERSION with its web server not found: building it from crates.io (takes ~40 minutes)" >&2
    cargo install --locked --force zellij --version "$ZELLIJ_VERSION" >&2
    zellij_ok || { echo "the zellij built has no web server" >&2; exit 1; }
    echo "zellij: installed $(zellij --version)"
fi

# 5. Chromium, headless, for the web client's e2e tests (Debian's package; offline).
if [ -x /usr/bin/chromium ]; then
    echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo installed)"
else
    as_root apt-get update >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >&2
    echo "chromium: installed $(/usr/bin/chromium --version)"
fi

# 6. OpenSSH's server and client, for the e2e tests of questions from another machine: a real
# sshd on 127.0.0.1 with keys the test makes (Debian's package).
if [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null 2>&1 && command -v ssh-keygen >/dev/null 2>&1; then
    echo "sshd: $(ssh -V 2>&1)"
else
    as_root apt-get update >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y openssh-server openssh-client >&2
    echo "sshd: installed $(ssh -V 2>&1)"
fi
