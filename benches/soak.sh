#!/usr/bin/env bash
# The soak (tests/e2e/soak.rs): a real Zellij with N agents asking through `ask-popup ask` for T
# minutes, every request ending at random in one of the ways a real one ends, the invariants
# checked after every request and at the end; prints a table (requests, each ending's count,
# Zellij CLI calls asked again, invariant violations, bytes the plugin holds).
#
#   bash benches/soak.sh [--minutes T] [--agents N] [--seed S]
#
# `bash scripts/test.sh` runs it for one minute with four agents, as part of the e2e suite.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

minutes=30
agents=8
seed=0
while [ $# -gt 0 ]; do
    case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --agents) agents=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    *) echo "usage: bash benches/soak.sh [--minutes T] [--agents N] [--seed S]" >&2; exit 2 ;;
    esac
done

bash scripts/ensure-tools.sh >/dev/null
bash scripts/build-plugin.sh
cargo build --release --target wasm32-wasip1 --manifest-path tests/listener/Cargo.toml
SOAK_MINUTES=$minutes SOAK_AGENTS=$agents SOAK_SEED=$seed \
    cargo test --test e2e -- --exact --nocapture \
    soak::a_soak_of_agents_asking_and_every_ending_keeps_every_invariant
