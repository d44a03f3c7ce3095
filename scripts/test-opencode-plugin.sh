#!/usr/bin/env bash
# The opencode plugin's unit tests (integrations/opencode/test/*.test.js) on Node's own test
# runner. The plugin is plain JavaScript that opencode loads as it is, and imports nothing but
# Node's own modules, so the tests load it as it is too.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "--- the opencode plugin's tests (node $(node --version)) ---"
# Node 20 takes no folder after --test: the files, as the shell finds them.
exec node --test --test-reporter=tap integrations/opencode/test/*.test.js
