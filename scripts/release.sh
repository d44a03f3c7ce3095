#!/usr/bin/env bash
# Builds the release's files into target/release-assets/, each of what this machine can build:
#
#   ask-popup.wasm                            the plugin (wasm32-wasip1, shrunk by wasm-opt), which
#                                             config.kdl loads from the release's URL
#   ask-popup-<version>-<target>.tar.gz       the command for one target (it carries the plugin)
#   ask-popup-<version>.crate                 the packaged crate (`cargo install`), the plugin in it
#   ask-popup-protocol-<version>.crate        the crate it builds on (published first)
#   pi-ask-popup-<version>.tgz                the Pi extension's npm package (`npm pack`)
#   SHA256SUMS                                the checksums of every file above that is there
#
# and target/release-notes.md, the CHANGELOG's entry for this version (the release's text).
#
#   bash scripts/release.sh [--target TRIPLE] [--tag vX.Y.Z] [--no-verify] [PART...]
#
# PART is plugin, command, crate, pi, sums or notes; without any, all of them, for this
# machine's target. The release workflow (.github/workflows/release.yml) runs the parts on several runners:
# the plugin, crate and Pi package once, the command once per target (`--target`, or
# $ASK_POPUP_RELEASE_TARGET), each with the one plugin ($ASK_POPUP_PLUGIN_WASM: a plugin built
# before is taken rather than built again), then the sums over everything. --tag checks that the
# tag being released is this version's. --no-verify packages the crates without building them
# (`cargo package --no-verify`): for the test command, where scripts/install-crate.sh builds
# and installs them from the packaged files right after, as `cargo install` will. The version is the crate's, and the Pi package, the
# CHANGELOG and the tag must say the same.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

fail() {
    echo "release.sh: $*" >&2
    exit 1
}

target=${ASK_POPUP_RELEASE_TARGET:-}
tag=
verify=()
parts=()
while [ $# -gt 0 ]; do
    case $1 in
    --target) target=${2:?--target needs a target triple}; shift 2 ;;
    --tag) tag=${2:?--tag needs a tag}; shift 2 ;;
    --no-verify) verify=(--no-verify); shift ;;
    plugin | command | crate | pi | sums | notes) parts+=("$1"); shift ;;
    *) fail "unknown argument $1 (see the top of scripts/release.sh)" ;;
    esac
done
[ ${#parts[@]} -gt 0 ] || parts=(plugin command crate pi sums notes)
wants() {
    local part
    for part in "${parts[@]}"; do [ "$part" = "$1" ] && return 0; done
    return 1
}

# One version everywhere.
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
[ -n "$version" ] || fail "no version in Cargo.toml"
pi_version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' integrations/pi/package.json)
[ "$pi_version" = "$version" ] ||
    fail "integrations/pi/package.json says $pi_version, Cargo.toml $version"
grep -Eq "^## $version( |$)" CHANGELOG.md || fail "CHANGELOG.md has no entry for $version"
if [ -n "$tag" ] && [ "$tag" != "v$version" ]; then
    fail "the tag $tag is not this version's (v$version)"
fi
host=$(rustc -vV | sed -n 's/^host: //p')
target=${target:-$host}

out=target/release-assets
mkdir -p "$out"
started=$SECONDS
say() { echo "--- release $version: $* ($((SECONDS - started)) s) ---" >&2; }

# The plugin: built here, or the one given. `embedded` is the file the command's build embeds
# (the same bytes): the one built here is named where scripts/install.sh names it, so that the
# two builds of the command share their work.
plugin="$PWD/$out/ask-popup.wasm"
embedded=$plugin
if [ -n "${ASK_POPUP_PLUGIN_WASM:-}" ]; then
    given=$(cd "$(dirname "$ASK_POPUP_PLUGIN_WASM")" && pwd)/$(basename "$ASK_POPUP_PLUGIN_WASM")
    [ "$given" = "$plugin" ] || cp "$given" "$plugin"
elif wants plugin; then
    say "the plugin"
    command -v wasm-opt >/dev/null 2>&1 ||
        fail "a release's plugin is shrunk by binaryen's wasm-opt, which is not on PATH (bash scripts/ensure-tools.sh installs it)"
    bash scripts/build-plugin.sh
    built_in=${CARGO_TARGET_DIR:-target}
    case $built_in in /*) ;; *) built_in=$PWD/$built_in ;; esac
    embedded=$built_in/wasm32-wasip1/plugin/ask-popup.wasm
    cp "$embedded" "$plugin"
fi
if wants command || wants crate; then
    [ -s "$plugin" ] || fail "no plugin at $out/ask-popup.wasm: run the plugin part first, or set ASK_POPUP_PLUGIN_WASM"
fi
[ ! -e "$plugin" ] || head -c 4 "$plugin" | cmp -s - <(printf '\0asm') || fail "$plugin is not a wasm module"

# The command for `target`, as a tarball with the README, the CHANGELOG and the licence.
if wants command; then
    say "the command for $target"
    if [ "$target" = "$host" ]; then
        # Where `cargo build --release` (and scripts/install.sh) build, to share their work.
        ASK_POPUP_PLUGIN_WASM="$embedded" cargo build --release --locked --bin ask-popup
        bin=${CARGO_TARGET_DIR:-target}/release/ask-popup
    else
        ASK_POPUP_PLUGIN_WASM="$embedded" cargo build --release --locked --bin ask-popup --target "$target"
        bin=${CARGO_TARGET_DIR:-target}/$target/release/ask-popup
    fi
    # What the command says and carries, where this machine can run it.
    if said=$("$bin" --version 2>/dev/null); then
        [ "$said" = "ask-popup $version" ] || fail "the command says \"$said\", not ask-popup $version"
        check=$(mktemp -d)
        HOME="$check" ZELLIJ_CONFIG_DIR="$check/zellij" PATH=/usr/bin:/bin \
            "$bin" setup zellij --write >/dev/null
        cmp -s "$check/zellij/plugins/ask-popup.wasm" "$plugin" ||
            fail "the command does not carry $out/ask-popup.wasm"
        rm -rf "$check"
    fi
    name=ask-popup-$version-$target
    stage=$(mktemp -d)
    mkdir "$stage/$name"
    cp "$bin" README.md CHANGELOG.md LICENSE "$stage/$name/"
    tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
    rm -rf "$stage"
fi

# The crate, with the plugin in it (build.rs embeds assets/ask-popup.wasm when there), and the
# protocol crate it builds on: `cargo package` builds the command once from the packaged files
# alone, against the packaged protocol, as `cargo install` will once both are published.
if wants crate; then
    say "the crate"
    rm -rf assets
    mkdir assets
    trap 'rm -rf assets' EXIT
    cp "$plugin" assets/ask-popup.wasm
    # The untracked plugin is all that differs from the commit (the check's own).
    dirty=$(git status --porcelain --untracked-files=no 2>/dev/null || true)
    [ -z "$dirty" ] || echo "release.sh: packaging uncommitted changes:"$'\n'"$dirty" >&2
    # cargo builds the command against the packaged protocol from a registry of its own, and
    # takes a registry's package of one version for unchanging: the protocol it unpacked
    # ($CARGO_HOME/registry/src/) and built (the build whose dep-info names that folder) for an
    # earlier packaging of this version would stand in for this one.
    rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ask-popup-protocol-"$version"
    built=${CARGO_TARGET_DIR:-target}/debug
    for info in "$built"/deps/ask_popup_protocol-*.d; do
        [ -f "$info" ] && grep -q "registry/src/" "$info" || continue
        hash=${info##*-}
        hash=${hash%.d}
        rm -rf "$built/.fingerprint/ask-popup-protocol-$hash" "$built"/deps/*ask_popup_protocol-"$hash".*
    done
    env -u ASK_POPUP_PLUGIN_WASM cargo package -p ask-popup-protocol -p ask-popup --locked "${verify[@]}" \
        --allow-dirty >&2
    rm -rf assets
    crate=${CARGO_TARGET_DIR:-target}/package/ask-popup-$version.crate
    tar -tzf "$crate" | grep -x "ask-popup-$version/assets/ask-popup.wasm" >/dev/null ||
        fail "$crate does not carry the plugin"
    cp "$crate" "${CARGO_TARGET_DIR:-target}/package/ask-popup-protocol-$version.crate" "$out/"
fi

# The Pi extension's npm package: only what Pi loads (package.json's `files`).
if wants pi; then
    say "the Pi package"
    command -v npm >/dev/null 2>&1 || fail "npm is not on PATH (Node.js 20 or later)"
    packed=$(cd integrations/pi && npm pack --silent --pack-destination "$PWD/../../$out")
    packed=$out/$(echo "$packed" | tail -n 1)
    [ "$(basename "$packed")" = "pi-ask-popup-$version.tgz" ] || fail "npm packed $packed"
    expected=$( (echo package/package.json; echo package/README.md
        for f in integrations/pi/src/*; do echo "package/src/${f##*/}"; done
        for f in integrations/pi/skills/*/SKILL.md; do echo "package/${f#integrations/pi/}"; done) | sort)
    found=$(tar -tzf "$packed" | sort)
    [ "$found" = "$expected" ] ||
        fail "$packed holds"$'\n'"$found"$'\n'"and not what Pi loads:"$'\n'"$expected"
fi

# The checksums of every file of the release that is there.
if wants sums; then
    say "the checksums"
    (
        cd "$out"
        rm -f SHA256SUMS
        files=(ask-popup.wasm ask-popup-"$version"-*.tar.gz ask-popup-"$version".crate ask-popup-protocol-"$version".crate pi-ask-popup-"$version".tgz)
        present=()
        for f in "${files[@]}"; do [ -e "$f" ] && present+=("$f"); done
        [ ${#present[@]} -gt 0 ] || exit 0
        if command -v sha256sum >/dev/null 2>&1; then
            sha256sum "${present[@]}" >SHA256SUMS
        else
            shasum -a 256 "${present[@]}" >SHA256SUMS
        fi
    )
fi

# The release's text: this version's entry, without its heading.
if wants notes; then
    awk -v heading="## $version" '
        index($0, heading) == 1 && (length($0) == length(heading) || substr($0, length(heading) + 1, 1) == " ") { on = 1; next }
        on && /^## / { exit }
        on { print }
    ' CHANGELOG.md >target/release-notes.md
    [ -s target/release-notes.md ] || fail "CHANGELOG.md's entry for $version is empty"
fi

say "done"
ls -l "$out" >&2
