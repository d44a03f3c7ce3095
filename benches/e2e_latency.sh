#!/usr/bin/env bash
# End-to-end latency of ask-popup in a real Zellij 0.45.1 (in tmux), next to a floor plugin
# (benches/floor) that does the least a pipe-answering plugin can do and replies as many bytes
# as ask-popup does; and the `ask-popup ask` command's own cost, against a bare `zellij pipe`. Needs what
# `bash scripts/ensure-tools.sh` provides (tmux, zellij 0.45.1, the wasm32-wasip1 target),
# python3 (standard library only) and valgrind (for the key's instructions, counted first by
# `benches/first_frame_instructions.sh`). Every ratio of docs/performance.md's table comes from one run:
#
#   bash benches/e2e_latency.sh --cold 30    # docs/performance.md's table
#
#   bash benches/e2e_latency.sh              # the cold start (20 fresh sessions per plugin, one
#                                            # client then two), 30 runs per cell, then 32 agents
#   bash benches/e2e_latency.sh --cold 6 --skip-warm --skip-many --skip-command   # cold start only
#   bash benches/e2e_latency.sh --runs 5 --skip-many
#   bash benches/e2e_latency.sh --runs 3 --warmup 1 --skip-many --skip-command   # quickest
#
# Prints a table; also writes target/e2e-latency/results.{md,json}. The Zellij session and its
# tmux server live in a temp dir and are torn down on exit, also on Ctrl-C or an error.
set -euo pipefail

cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
mkdir -p "$TARGET_DIR"
TARGET_DIR="$(cd "$TARGET_DIR" && pwd)"
OUT="$TARGET_DIR/e2e-latency"

if [ "$(zellij --version 2>/dev/null || true)" != "zellij 0.45.1" ]; then
    echo "needs zellij 0.45.1 on PATH: run \`bash scripts/ensure-tools.sh\`" >&2
    exit 1
fi
command -v tmux >/dev/null || { echo "needs tmux: run \`bash scripts/ensure-tools.sh\`" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "needs valgrind: apt-get install valgrind" >&2; exit 1; }

echo "building ask-popup (plugin and command), the floor plugin and the worst-case payloads" >&2
cargo build --quiet -p ask-popup-plugin --profile plugin --target wasm32-wasip1
cargo build --quiet --release --bin ask-popup
cargo build --quiet --release --target wasm32-wasip1 \
    --manifest-path benches/floor/Cargo.toml --target-dir "$TARGET_DIR/bench-floor"
mkdir -p "$OUT"
echo "counting the key's instructions (benches/first_frame_instructions.sh)" >&2
bash benches/first_frame_instructions.sh >"$OUT/instructions.txt"
cargo run --quiet -p ask-popup-plugin --example worst_case -- 8192 >"$OUT/worst-case.json"
cargo run --quiet -p ask-popup-plugin --example worst_case -- 8192 one >"$OUT/one-question.json"

# A short path: Zellij's socket path must stay under 108 bytes.
ROOT="$(mktemp -d /tmp/apb-XXXXXX)"
PY=""
cleanup() {
    trap - EXIT INT TERM HUP
    if [ -n "$PY" ] && kill -0 "$PY" 2>/dev/null; then
        kill -TERM "$PY" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$PY" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$PY" 2>/dev/null || true
    fi
    # Normally python has torn the world down already; this is for when it could not.
    env ZELLIJ_SOCKET_DIR="$ROOT/s" TMUX_TMPDIR="$ROOT" HOME="$ROOT/home" \
        timeout 10 zellij kill-session apb >/dev/null 2>&1 || true
    env TMUX_TMPDIR="$ROOT" timeout 10 tmux -L apb kill-server >/dev/null 2>&1 || true
    # Anything of this world still running after 5 s (its path is in every command line).
    for _ in $(seq 50); do pgrep -f "$ROOT/" >/dev/null || break; sleep 0.1; done
    for pid in $(pgrep -f "$ROOT/" || true); do
        echo "e2e_latency: killing leftover process $(ps -o pid=,args= -p "$pid" | cut -c1-120)" >&2
        kill -KILL "$pid" 2>/dev/null || true
    done
    rm -rf "$ROOT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

python3 benches/e2e_latency.py \
    --root "$ROOT" \
    --zellij "$(command -v zellij)" \
    --tmux "$(command -v tmux)" \
    --ours "$TARGET_DIR/wasm32-wasip1/plugin/ask-popup-plugin.wasm" \
    --floor "$TARGET_DIR/bench-floor/wasm32-wasip1/release/bench-floor.wasm" \
    --worst "$OUT/worst-case.json" \
    --one "$OUT/one-question.json" \
    --command "$TARGET_DIR/release/ask-popup" \
    --out "$OUT" \
    --instructions "$OUT/instructions.txt" \
    "$@" &
PY=$!
wait "$PY"
