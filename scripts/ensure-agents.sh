#!/usr/bin/env bash
# Makes sure this machine has the real agents (and MCP clients) the integration tests run, at
# pinned versions, installed into a cache folder that later runs reuse: from the npm registry
#   $ASK_POPUP_CACHE (default ~/.cache/ask-popup)/npm/<name>-<version>/node_modules/.bin/<bin>
# and, for a package written `pypi:<package>`, from PyPI into a virtual environment
#   $ASK_POPUP_CACHE/python/<name>-<version>/bin/<bin>
# An agent whose line names a runtime (Pi: `node`, Node 22 from the registry's `node` package,
# which ships the binary) is installed and run with that runtime's folder first on PATH.
# Needs Node.js 20+ with npm, and Python 3.10+ with venv. Idempotent: a second run only prints
# what it found.
set -euo pipefail

cache="${ASK_POPUP_CACHE:-$HOME/.cache/ask-popup}"

if ! command -v npm >/dev/null 2>&1; then
    echo "npm not found: install Node.js 20 or later (https://nodejs.org), then run this again" >&2
    exit 1
fi

# A PyPI package in a virtual environment of its own.
install_python() {
    local dir=$1 package=$2 version=$3
    if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
        echo "python3 with venv not found: install Python 3.10 or later with its venv module (Debian: apt-get install python3-venv), then run this again" >&2
        exit 1
    fi
    rm -rf "$dir"
    python3 -m venv "$dir" >&2
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$package==$version" </dev/null >&2
    touch "$dir/.installed"
}

# The folder of the executable of the npm line `$1` (installed by an earlier line).
bin_dir_of() {
    local line
    line=$(awk -v n="$1" '$1 == n && $2 !~ /^pypi:/ { print $1 "-" $3; exit }' "$(dirname "$0")/agents.txt")
    if [ -z "$line" ]; then
        echo "scripts/agents.txt names no npm package $1" >&2
        exit 1
    fi
    echo "$cache/npm/$line/node_modules/.bin"
}

# scripts/agents.txt: name, package, version, the executable it installs, the runtime it needs.
while read -r name package version bin runtime; do
    case $name in '' | '#'*) continue ;; esac
    path=$PATH
    if [ -n "${runtime:-}" ]; then
        path="$(bin_dir_of "$runtime"):$PATH"
    fi
    case $package in
    pypi:*)
        dir="$cache/python/$name-$version"
        if [ -f "$dir/.installed" ] && "$dir/bin/$bin" --version </dev/null >/dev/null 2>&1; then
            echo "$name: $version"
        else
            echo "$name $version not found: installing ${package#pypi:}==$version from PyPI" >&2
            install_python "$dir" "${package#pypi:}" "$version"
            echo "$name: installed $version"
        fi
        continue
        ;;
    esac
    dir="$cache/npm/$name-$version"
    if PATH=$path "$dir/node_modules/.bin/$bin" --version </dev/null >/dev/null 2>&1; then
        echo "$name: $version"
        continue
    fi
    echo "$name $version not found: installing $package@$version from npm" >&2
    rm -rf "$dir.tmp"
    mkdir -p "$dir.tmp"
    PATH=$path npm install --prefix "$dir.tmp" --no-audit --no-fund --save-exact "$package@$version" </dev/null >&2
    rm -rf "$dir"
    mv "$dir.tmp" "$dir"
    # An install whose scripts did not run leaves a stub that only prints an error.
    if ! PATH=$path "$dir/node_modules/.bin/$bin" --version </dev/null >/dev/null 2>&1; then
        echo "$package@$version installed but \`$bin --version\` fails; see $dir" >&2
        exit 1
    fi
    echo "$name: installed $version"
done <"$(dirname "$0")/agents.txt"

