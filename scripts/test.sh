#!/usr/bin/env bash
# The project's one test command: tools, the plugin's wasm build, the demo as a new user runs it,
# then every test (host tests and the e2e tests against a real Zellij in tmux).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

bash scripts/ensure-tools.sh
# The real agents and MCP clients the integration tests run (Claude Code, Pi, Codex, opencode,
# the MCP Python SDK), at pinned versions.
bash scripts/ensure-agents.sh
# The Pi extension's unit tests (Node's test runner, through Pi's own TypeScript loader).
bash scripts/test-pi-extension.sh
# The opencode plugin's unit tests (Node's test runner).
bash scripts/test-opencode-plugin.sh
# The plugin the e2e tests load: built and shrunk as it ships.
bash scripts/build-plugin.sh
# Lints, for the command and the tests on the host and for the plugin as it ships.
cargo fmt --all --check
cargo clippy --workspace --all-targets --all-features -- -D warnings
cargo clippy -p ask-popup-plugin --profile plugin --target wasm32-wasip1 -- -D warnings
# The command as a user installs it (into target/installed, not ~/.cargo): the e2e test of a
# fresh machine's path sets everything up with it.
bash scripts/install.sh --root target/installed
# The release's files as scripts/release.sh builds them into target/release-assets (offline:
# everything they need is fetched by now), and the command installed from the packaged crate
# alone, as `cargo install ask-popup` installs it: the e2e tests of a release
# (tests/e2e/release.rs, and Pi installing the packed package in tests/e2e/pi.rs) use them.
# The packaged crates are built once, by install-crate.sh (in release, as `cargo install`
# builds them), not a second time by `cargo package`'s own check.
CARGO_NET_OFFLINE=true bash scripts/release.sh --no-verify
bash scripts/install-crate.sh
# The listener plugin the e2e tests load beside ask-popup to hear its broadcasts; its own
# workspace and target dir (tests/listener/target).
cargo build --release --target wasm32-wasip1 --manifest-path tests/listener/Cargo.toml

# The README's first command, without a terminal (it then answers the questions itself and fails
# unless the agent gets the answers), from a clean state: a fresh target/demo (demo.sh makes it)
# and a HOME of its own, so that no ~/.config/zellij can hide what a fresh machine lacks. Cargo
# and rustup keep their real homes; the tools and the plugin are already there, so the demo's own
# setup steps only find them.
cargo_home=${CARGO_HOME:-$HOME/.cargo}
rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
demo_home=$(mktemp -d)
trap 'rm -rf "$demo_home"' EXIT
echo "--- the demo (bash scripts/demo.sh), from a clean state ---"
HOME="$demo_home" CARGO_HOME="$cargo_home" RUSTUP_HOME="$rustup_home" \
    bash scripts/demo.sh </dev/null
echo "--- the tests ---"

# One test at a time: an e2e test runs a real Zellij and often a real agent, and on two cores
# two of them at once starve each other into the timing windows where Zellij 0.45.1's CLI drops
# calls (the host tests are fast either way).
# Every test binary runs even after a failure (--no-fail-fast), and the last lines name each
# failed test (above them, each failure says what it waited for and what it saw).
test_log=$(mktemp)
trap 'rm -rf "$demo_home" "$test_log"' EXIT
status=0
cargo test --workspace --no-fail-fast -- --test-threads=1 2>&1 | tee "$test_log" || status=$?
if [ "$status" -ne 0 ]; then
    echo
    echo "--- failed tests ---"
    grep -E '^test .* \.\.\. FAILED$' "$test_log" | sed -E 's/^test (.*) \.\.\. FAILED$/\1/' || echo "(none named: see the output above)"
    exit "$status"
fi
