#!/usr/bin/env bash
# The project's one test command: tools, the plugin's wasm build, then every test (host tests and
# the e2e tests against a real Zellij in tmux).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

bash scripts/ensure-tools.sh
# The plugin the e2e tests load: built and shrunk as it ships.
bash scripts/build-plugin.sh
# The listener plugin the e2e tests load beside ask-popup to hear its broadcasts; its own
# workspace and target dir (tests/listener/target).
cargo build --release --target wasm32-wasip1 --manifest-path tests/listener/Cargo.toml
cargo test
