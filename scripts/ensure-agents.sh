#!/usr/bin/env bash
# Makes sure this machine has the real agents the integration tests run, at pinned versions,
# installed from the npm registry into a cache folder that later runs reuse:
#   $ASK_POPUP_CACHE (default ~/.cache/ask-popup)/npm/<name>-<version>/node_modules/.bin/<bin>
# Needs Node.js 20+ and npm. Idempotent: a second run only prints what it found.
set -euo pipefail

cache="${ASK_POPUP_CACHE:-$HOME/.cache/ask-popup}/npm"

if ! command -v npm >/dev/null 2>&1; then
    echo "npm not found: install Node.js 20 or later (https://nodejs.org), then run this again" >&2
    exit 1
fi

# scripts/agents.txt: name, npm package, version, the executable it installs.
while read -r name package version bin; do
    case $name in '' | '#'*) continue ;; esac
    dir="$cache/$name-$version"
    if "$dir/node_modules/.bin/$bin" --version </dev/null >/dev/null 2>&1; then
        echo "$name: $version"
        continue
    fi
    echo "$name $version not found: installing $package@$version from npm" >&2
    rm -rf "$dir.tmp"
    mkdir -p "$dir.tmp"
    npm install --prefix "$dir.tmp" --no-audit --no-fund --save-exact "$package@$version" </dev/null >&2
    rm -rf "$dir"
    mv "$dir.tmp" "$dir"
    # An install whose scripts did not run leaves a stub that only prints an error.
    if ! "$dir/node_modules/.bin/$bin" --version </dev/null >/dev/null 2>&1; then
        echo "$package@$version installed but \`$bin --version\` fails; see $dir" >&2
        exit 1
    fi
    echo "$name: installed $version"
done <"$(dirname "$0")/agents.txt"
