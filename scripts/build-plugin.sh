#!/usr/bin/env bash
# Builds the plugin (crates/plugin, the `plugin` profile) as target/wasm32-wasip1/plugin/ask-popup.wasm, and shrinks it with binaryen's
# wasm-opt when that is installed (scripts/ensure-tools.sh installs it): about an eighth off.
# Zellij runs the file either way.
#
# cargo links its own artifact back into place on every build, even when nothing changed, so the
# shrunk file is cached beside it with the build it came from and put back when that build is
# still the current one.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

cargo build -p ask-popup-plugin --profile plugin --target wasm32-wasip1
out=${CARGO_TARGET_DIR:-target}/wasm32-wasip1/plugin
# cargo's build, named after the crate's bin, and the plugin as it ships.
cargo_wasm=$out/ask-popup-plugin.wasm
wasm=$out/ask-popup.wasm
built=$out/.ask-popup.cargo.wasm
shrunk=$out/.ask-popup.opt.wasm

if ! command -v wasm-opt >/dev/null 2>&1; then
    cp "$cargo_wasm" "$wasm.tmp"
    mv -f "$wasm.tmp" "$wasm"
    echo "ask-popup.wasm: $(wc -c <"$wasm") bytes (install binaryen's wasm-opt to shrink it)" >&2
    exit 0
fi
if [ -e "$built" ] && [ -e "$shrunk" ] && cmp -s "$cargo_wasm" "$built"; then
    cp "$shrunk" "$wasm.tmp"
else
    wasm-opt -Oz --converge --zero-filled-memory --low-memory-unused --strip-producers \
        --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int \
        --enable-mutable-globals "$cargo_wasm" -o "$wasm.tmp"
    cp "$cargo_wasm" "$built"
    cp "$wasm.tmp" "$shrunk"
    echo "ask-popup.wasm: $(wc -c <"$built") bytes from cargo, $(wc -c <"$shrunk") after wasm-opt" >&2
fi
mv -f "$wasm.tmp" "$wasm"
