#!/usr/bin/env bash
# Makes sure this machine has the tools named, reusing whatever is already there:
#
#   bash scripts/ensure-tools.sh [TOOL...]
#
#   wasm32-wasip1   the Rust target the plugin is built for (rustup)
#   tmux            a real terminal: the e2e tests', and the demo's when it runs without one
#   wasm-opt        binaryen's, which shrinks the built plugin (scripts/build-plugin.sh)
#   openssl         OpenSSL's headers and pkg-config, which the host tests link (and Zellij's build)
#   zellij          Zellij 0.45.1, built from crates.io when missing (with its web server)
#   zellij-web      the same, and a Zellij 0.45.1 built without the web server is built again
#   chromium        headless, the browser of the web client's e2e tests
#   sshd            OpenSSH's server and client, the other machine of the remote e2e tests
#   desktop         a session bus (dbus-daemon, dbus-send, gdbus) and a notification server
#                   (dunst, dunstctl) on an X server (Xvfb): the desktop notification's e2e tests
#
# Without a TOOL, all of them: what `scripts/test.sh` needs. The demo asks for what it needs
# only (scripts/demo.sh). Idempotent: a second run only prints what it found.
set -euo pipefail

ZELLIJ_VERSION=0.45.1
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}
apt_install() {
    as_root apt-get update >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" >&2
}

wasm_target() {
    if rustup target list --installed | grep -qx wasm32-wasip1; then
        echo "wasm32-wasip1: installed"
    else
        rustup target add wasm32-wasip1 >&2
        echo "wasm32-wasip1: added"
    fi
}

tmux_() {
    if command -v tmux >/dev/null 2>&1; then
        echo "tmux: $(tmux -V)"
    else
        apt_install tmux
        echo "tmux: installed $(tmux -V)"
    fi
}

wasm_opt() {
    if command -v wasm-opt >/dev/null 2>&1; then
        echo "wasm-opt: $(wasm-opt --version)"
    else
        apt_install binaryen
        echo "wasm-opt: installed $(wasm-opt --version)"
    fi
}

openssl() {
    if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists openssl 2>/dev/null; then
        echo "openssl: $(pkg-config --modversion openssl) (pkg-config)"
    else
        apt_install pkg-config libssl-dev
        echo "openssl: installed $(pkg-config --modversion openssl)"
    fi
}

# Zellij, exactly the version the plugin is built against, built with its web server (the
# `web_server_capability` feature, one of its defaults). With `web`, a Zellij built without it
# (which says so when asked for the server's status) is built again.
zellij_ok() {
    [ "$(zellij --version 2>/dev/null || true)" = "zellij $ZELLIJ_VERSION" ] || return 1
    [ "$1" = web ] || return 0
    local status
    status=$(zellij web --status --timeout 1 2>&1 || true)
    case "$status" in
        *"compiled without web server support"*) return 1 ;;
    esac
}
zellij_() {
    if zellij_ok "$1"; then
        if [ "$1" = web ]; then
            echo "zellij: $ZELLIJ_VERSION (with the web server)"
        else
            echo "zellij: $ZELLIJ_VERSION"
        fi
        return
    fi
    openssl
    if [ "$1" = web ]; then
        echo "zellij $ZELLIJ_VERSION with its web server not found: building it from crates.io (takes ~40 minutes)" >&2
    else
        echo "zellij $ZELLIJ_VERSION not found: building it from crates.io (takes ~40 minutes)" >&2
    fi
    cargo install --locked --force zellij --version "$ZELLIJ_VERSION" >&2
    zellij_ok web || { echo "the zellij built has no web server" >&2; exit 1; }
    echo "zellij: installed $(zellij --version)"
}

# Debian's package; offline.
chromium() {
    if [ -x /usr/bin/chromium ]; then
        echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo installed)"
    else
        apt_install chromium
        echo "chromium: installed $(/usr/bin/chromium --version)"
    fi
}

# A real sshd on 127.0.0.1 with keys the test makes (Debian's package).
sshd() {
    if [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null 2>&1 && command -v ssh-keygen >/dev/null 2>&1; then
        echo "sshd: $(ssh -V 2>&1)"
    else
        apt_install openssh-server openssh-client
        echo "sshd: installed $(ssh -V 2>&1)"
    fi
}

# Debian's packages; dunst draws on Xvfb, dunstctl talks to it with dbus-send.
desktop() {
    local missing=()
    command -v dbus-daemon >/dev/null 2>&1 || missing+=(dbus-daemon)
    command -v dbus-send >/dev/null 2>&1 || missing+=(dbus-bin)
    command -v gdbus >/dev/null 2>&1 || missing+=(libglib2.0-bin)
    command -v Xvfb >/dev/null 2>&1 || missing+=(xvfb)
    command -v dunst >/dev/null 2>&1 && command -v dunstctl >/dev/null 2>&1 || missing+=(dunst)
    if [ ${#missing[@]} -eq 0 ]; then
        echo "desktop: $(dunst -v 2>/dev/null | head -n 1)"
    else
        apt_install "${missing[@]}"
        echo "desktop: installed ${missing[*]}"
    fi
}

[ $# -gt 0 ] || set -- wasm32-wasip1 tmux wasm-opt openssl zellij-web chromium sshd desktop
for tool in "$@"; do
    case $tool in
    wasm32-wasip1) wasm_target ;;
    tmux) tmux_ ;;
    wasm-opt) wasm_opt ;;
    openssl) openssl ;;
    zellij) zellij_ any ;;
    zellij-web) zellij_ web ;;
    chromium) chromium ;;
    sshd) sshd ;;
    desktop) desktop ;;
    *)
        echo "ensure-tools.sh: no tool $tool (see the top of scripts/ensure-tools.sh)" >&2
        exit 2
        ;;
    esac
done
