#!/usr/bin/env bash
# The Pi extension's unit tests (integrations/pi/test/*.test.ts) on Node's own test runner.
# The extension is TypeScript that Pi loads as it is; the tests load it the same way, through
# the jiti that Pi's pinned install ships, and find the packages it imports (typebox, Pi's own)
# in that install's node_modules (NODE_PATH, which jiti's resolver honours), on the Node Pi runs
# with (Pi 1.6 needs Node 22.19+). Pi's and Node's versions are the ones scripts/agents.txt pins;
# scripts/ensure-agents.sh installs them.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${ASK_POPUP_CACHE:-$HOME/.cache/ask-popup}"
version=$(awk '$1 == "pi" { print $3 }' scripts/agents.txt)
if [ -z "$version" ]; then
    echo "scripts/agents.txt names no pi" >&2
    exit 1
fi
node_version=$(awk '$1 == "node" { print $3 }' scripts/agents.txt)
modules="$cache/npm/pi-$version/node_modules"
node="$cache/npm/node-$node_version/node_modules/.bin/node"
register="$modules/jiti/lib/jiti-register.mjs"
if [ ! -f "$register" ] || [ ! -d "$modules/typebox" ] || [ ! -d "$modules/@earendil-works/pi-ai" ] \
    || [ ! -d "$modules/@earendil-works/pi-schema" ] || [ ! -x "$node" ]; then
    echo "Pi $version or Node $node_version is not installed in $cache/npm: run \`bash scripts/ensure-agents.sh\` first" >&2
    exit 1
fi

echo "--- the Pi extension's tests (Pi $version's jiti, node $("$node" --version)) ---"
# The files, as the shell finds them.
NODE_PATH="$modules" exec "$node" --import "$register" --test --test-reporter=tap integrations/pi/test/*.test.ts
