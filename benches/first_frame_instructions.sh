#!/usr/bin/env bash
# The first frame of each worst case counted in instructions (valgrind's callgrind), step by
# step: what `crates/plugin/examples/first_frame.rs` does the way the plugin does it. Instruction counts do not
# change with the load on the machine, and on the host they stand in for the work Zellij's
# interpreter does. Needs valgrind (callgrind_annotate comes with it).
#
#   bash benches/first_frame_instructions.sh            # both worst cases, 8 KiB previews
#   bash benches/first_frame_instructions.sh markdown   # also the 1 MiB preview of the host bench
set -euo pipefail

cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 1; }
# The release profile strips symbols; callgrind needs them to name the steps.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/instructions"
export CARGO_PROFILE_RELEASE_STRIP=none CARGO_PROFILE_RELEASE_DEBUG=line-tables-only
# The example needs no plugin in the command it is built beside (see build.rs).
export ASK_POPUP_PLUGIN_WASM=""
cargo build --quiet --release -p ask-popup-plugin --example first_frame
BIN="$CARGO_TARGET_DIR/release/examples/first_frame"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

cases=(one four)
[ "${1:-}" = markdown ] && cases+=(markdown)
for case in "${cases[@]}"; do
    args=("$case")
    [ "$case" = markdown ] && args+=(1048576)
    valgrind --tool=callgrind --callgrind-out-file="$OUT/$case.out" "$BIN" "${args[@]}" 2>/dev/null
    echo "$case (instructions):"
    annotated="$(callgrind_annotate --inclusive=yes --threshold=100 "$OUT/$case.out" 2>/dev/null)"
    total=0
    for step in read_wire receive fit draw to_ansi preview_frame; do
        n="$(grep -E "first_frame::$step \[" <<<"$annotated" | head -1 | awk '{print $1}' | tr -d , || true)"
        [ -n "$n" ] || continue
        total=$((total + n))
        awk -v s="$step" -v n="$n" 'BEGIN { printf "  %-14s %9.2fM\n", s, n / 1e6 }'
    done
    awk -v n="$total" 'BEGIN { printf "  %-14s %9.2fM\n", "all", n / 1e6 }'
done
