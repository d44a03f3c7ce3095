#!/usr/bin/env bash
# The first frame of each worst case counted in instructions (valgrind's callgrind), step by
# step, and then the worst key (Down, to the next option and its preview) with what a key could
# show laid out ahead as the plugin does while the user reads, and without (as before that was
# done): what `crates/plugin/examples/first_frame.rs` does the way the plugin does it. Instruction
# counts do not change with the load on the machine, and on the host they stand in for the
# work Zellij's interpreter does. Needs valgrind (callgrind_annotate comes with it).
#
#   bash benches/first_frame_instructions.sh            # both worst cases, 8 KiB previews
#   bash benches/first_frame_instructions.sh markdown   # also the 1 MiB preview of the host bench
#
# Prints the steps, then one line per case for the report of `benches/e2e_latency.sh`:
#   key-instructions CASE WITH_AHEAD WITHOUT_AHEAD
set -euo pipefail

cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
# The release profile strips symbols; callgrind needs them to name the steps.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/instructions"
export CARGO_PROFILE_RELEASE_STRIP=none CARGO_PROFILE_RELEASE_DEBUG=line-tables-only
# The example needs no plugin in the command it is built beside (see build.rs).
export ASK_POPUP_PLUGIN_WASM=""
cargo build --quiet --release -p ask-popup-plugin --example first_frame
BIN="$CARGO_TARGET_DIR/release/examples/first_frame"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

# The instructions of `steps` (functions of the example) in callgrind's output `$1`, one line each
# (`  STEP  N.NNM`), then their sum under `label`; the sum alone in $SUM.
steps() {
    local out="$1" label="$2"
    shift 2
    local annotated n
    annotated="$(callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null)"
    SUM=0
    for step in "$@"; do
        # The function's own line: callgrind names it with or without its object file.
        n="$(grep -E "examples/first_frame.rs:first_frame::$step( \[.*\])?\$" <<<"$annotated" \
            | awk '{gsub(",", "", $1); print $1}' | sort -n | tail -1 || true)"
        [ -n "$n" ] || continue
        SUM=$((SUM + n))
        awk -v s="$step" -v n="$n" 'BEGIN { printf "  %-14s %9.2fM\n", s, n / 1e6 }'
    done
    awk -v s="$label" -v n="$SUM" 'BEGIN { printf "  %-14s %9.2fM\n", s, n / 1e6 }'
}

cases=(one four)
[ "${1:-}" = markdown ] && cases+=(markdown)
summary=()
for case in "${cases[@]}"; do
    args=("$case")
    [ "$case" = markdown ] && args+=(1048576)
    valgrind --tool=callgrind --callgrind-out-file="$OUT/$case.out" "$BIN" "${args[@]}" 2>/dev/null
    echo "$case (instructions):"
    steps "$OUT/$case.out" "first frame" read_wire receive fit draw to_ansi preview_frame
    [ "$case" = markdown ] && continue
    steps "$OUT/$case.out" "laid out ahead" lay_out_ahead
    steps "$OUT/$case.out" "key (Down)" key key_draw key_to_ansi
    with="$SUM"
    valgrind --tool=callgrind --callgrind-out-file="$OUT/$case-no-ahead.out" "$BIN" "$case" no-ahead 2>/dev/null
    echo "$case, nothing laid out ahead (instructions):"
    steps "$OUT/$case-no-ahead.out" "key (Down)" key key_draw key_to_ansi
    summary+=("key-instructions $case $with $SUM")
done
printf '%s\n' "${summary[@]}"
