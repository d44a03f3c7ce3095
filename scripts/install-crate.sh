#!/usr/bin/env bash
# Installs the `ask-popup` command as `cargo install ask-popup` does, from the packaged crates
# alone: target/release-assets/ask-popup-<version>.crate and the ask-popup-protocol crate it
# builds on (what scripts/release.sh built) are unpacked outside the clone and the command is
# installed from there with `cargo install --path`, offline (from the registry cache this
# machine has), the protocol taken from its unpacked crate where crates.io would give it, and
# with nothing of the clone's builds to find, into
#
#   target/crate-installed/bin/ask-popup     (or the --root given)
#
# then set up and checked in a fresh HOME: `ask-popup setup zellij --write` must write the
# released plugin byte for byte, and `ask-popup doctor` must find the plugin file, the alias and
# the binding in place. The e2e tests (tests/e2e/release.rs) run that command in a real Zellij.
#
#   bash scripts/install-crate.sh [--root DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

root=$PWD/target/crate-installed
if [ "${1:-}" = "--root" ] && [ -n "${2:-}" ]; then
    root=$(mkdir -p "$2" && cd "$2" && pwd)
fi
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
[ -n "$version" ] || { echo "no version in Cargo.toml" >&2; exit 1; }
assets=$PWD/target/release-assets
crate=$assets/ask-popup-$version.crate
[ -f "$crate" ] || { echo "no $crate: run bash scripts/release.sh first" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
protocol=$assets/ask-popup-protocol-$version.crate
[ -f "$protocol" ] || { echo "no $protocol: run bash scripts/release.sh first" >&2; exit 1; }
tar -xzf "$crate" -C "$work"
tar -xzf "$protocol" -C "$work"
src=$work/ask-popup-$version
# The clone's own target dir, where scripts/install.sh and scripts/release.sh built the command
# with the same profile: only the registry's crates are reused from it (the crate and the
# protocol, at other paths, are built anew from the unpacked files, with the plugin the crate
# carries). A cache of its own built every dependency a second time.
cache=${CARGO_TARGET_DIR:-target}
case $cache in /*) ;; *) cache=$PWD/$cache ;; esac
rm -rf "$root"
echo "--- cargo install --offline --locked --path <the unpacked ask-popup-$version.crate> ---" >&2
started=$SECONDS
(
    cd "$work"
    env -u ASK_POPUP_PLUGIN_WASM -u CARGO_TARGET_DIR \
        cargo install --offline --locked --path "$src" --root "$root" --target-dir "$cache" \
            --config "patch.crates-io.ask-popup-protocol.path='$work/ask-popup-protocol-$version'" >&2
)
echo "installed in $((SECONDS - started)) s: $root/bin/ask-popup" >&2

# A new user's first steps, in a HOME of its own.
home=$work/home
mkdir -p "$home"
run() {
    env -i HOME="$home" PATH="$(dirname "$(command -v zellij)"):/usr/bin:/bin" \
        "$root/bin/ask-popup" "$@"
}
said=$(run --version)
[ "$said" = "ask-popup $version" ] || { echo "ask-popup --version says $said" >&2; exit 1; }
run setup zellij --write >&2
if ! cmp -s "$home/.config/zellij/plugins/ask-popup.wasm" "$assets/ask-popup.wasm"; then
    echo "the command installed from the crate does not carry the released plugin" >&2
    exit 1
fi
report=$(run doctor) || true
echo "$report" >&2
for check in "plugin file" alias binding; do
    if ! grep -q "^✓ $check:" <<<"$report"; then
        echo "the doctor of the command installed from the crate does not pass $check" >&2
        exit 1
    fi
done
echo "ask-popup $version from the packaged crate: installed, set up and checked" >&2
