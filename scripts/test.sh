#!/usr/bin/env bash
# The project's one test command: tools, the plugin's wasm build, then every test (host tests and
# the e2e tests against a real Zellij in tmux).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

bash scripts/ensure-tools.sh
cargo build --release --target wasm32-wasip1
cargo test
