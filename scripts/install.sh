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
bin="${CARGO_HOME:-$HOME/.cargo}/bin"
if [ "${1:-}" = "--root" ] && [ -n "${2:-}" ]; then
    root_args=(--root "$2")
    bin="$2/bin"
fi

if ! rustup target list --installed | grep -qx wasm32-wasip1; then
    rustup target add wasm32-wasip1 >&2
fi
bash scripts/build-plugin.sh
# Built in the clone's target dir, where a later install (and `cargo build --release`) reuses
# the build.
target_dir=${CARGO_TARGET_DIR:-target}
case $target_dir in /*) ;; *) target_dir=$PWD/$target_dir ;; esac
ASK_POPUP_PLUGIN_WASM="$target_dir/wasm32-wasip1/plugin/ask-popup.wasm" \
    cargo install --locked --force --path . --target-dir "${CARGO_TARGET_DIR:-target}" \
    "${root_args[@]}"
echo
echo "Installed: $bin/ask-popup"
case ":$PATH:" in
*":$bin:"*) ;;
*) echo "(put $bin on your PATH)" ;;
esac
echo "Next: ask-popup setup --write    (Zellij, and the agents it finds)"
echo "Then: ask-popup doctor"
