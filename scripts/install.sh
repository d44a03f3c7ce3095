#!/usr/bin/env bash
# Installs ask-popup from this clone: the plugin is built for wasm32-wasip1 (the target is added
# if missing) and shrunk, then the `ask-popup` command is installed with `cargo install`, carrying
# that plugin inside it. After this the clone is no longer needed: `ask-popup setup --write` writes
# the plugin into Zellij's config dir and wires the agents it finds, `ask-popup doctor` checks it.
#
#   bash scripts/install.sh [--root DIR]     (cargo install's --root; default ~/.cargo)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

root_args=()
if [ "${1:-}" = "--root" ] && [ -n "${2:-}" ]; then
    root_args=(--root "$2")
fi

if ! rustup target list --installed | grep -qx wasm32-wasip1; then
    rustup target add wasm32-wasip1 >&2
fi
bash scripts/build-plugin.sh
ASK_POPUP_PLUGIN_WASM="$PWD/target/wasm32-wasip1/release/ask-popup.wasm" \
    cargo install --locked --force --path . "${root_args[@]}"
echo
echo "Installed: $(command -v ask-popup || echo "ask-popup (put cargo's bin dir on PATH)")"
echo "Next: ask-popup setup --write    (Zellij, and the agents it finds)"
echo "Then: ask-popup doctor"
