#!/usr/bin/env bash
# Runs the e2e suite N times in a row (default 10), one test at a time as the test command does,
# and prints a table of every test that failed with how often. Each failing run's whole output
# (what each failed test waited for and last saw, its screen and the tail of its Zellij log) is
# kept in target/test-repeat/<date>/run-K.log. Exits non-zero if any run failed.
#
#   bash scripts/test-repeat.sh [N] [TEST-NAME-FILTER]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

runs=${1:-10}
filter=${2:-}

bash scripts/ensure-tools.sh >/dev/null
bash scripts/ensure-agents.sh >/dev/null
bash scripts/build-plugin.sh
cargo build --release --target wasm32-wasip1 --manifest-path tests/listener/Cargo.toml
cargo test --test e2e --no-run

dir=target/test-repeat/$(date +%Y%m%d-%H%M%S)
mkdir -p "$dir"
failures="$dir/failures.txt"
: >"$failures"
failed_runs=0
started=$(date +%s)
for k in $(seq 1 "$runs"); do
    log="$dir/run-$k.log"
    run_started=$(date +%s)
    status=0
    # shellcheck disable=SC2086
    cargo test --test e2e -- --test-threads=1 $filter >"$log" 2>&1 || status=$?
    seconds=$(($(date +%s) - run_started))
    failed=$(grep -E '^test .* \.\.\. FAILED$' "$log" | sed -E 's/^test (.*) \.\.\. FAILED$/\1/' || true)
    summary=$(grep -E '^test result:' "$log" | tail -n 1 || true)
    if [ "$status" -ne 0 ] || [ -n "$failed" ]; then
        failed_runs=$((failed_runs + 1))
        [ -n "$failed" ] || failed="(the run failed without a failed test: see $log)"
        printf '%s\n' "$failed" >>"$failures"
        echo "run $k/$runs: FAILED in ${seconds}s: $(echo "$failed" | tr '\n' ' ') ($log)"
    else
        rm -f "$log"
        echo "run $k/$runs: passed in ${seconds}s: $summary"
    fi
done
total=$(($(date +%s) - started))

echo
echo "e2e suite, $runs runs in ${total}s ($((total / runs))s a run): $failed_runs failed"
echo
echo "| test | failures |"
echo "| --- | --- |"
if [ -s "$failures" ]; then
    sort "$failures" | uniq -c | sort -rn | while read -r count name; do
        echo "| $name | $count of $runs |"
    done
else
    echo "| (none) | 0 of $runs |"
fi
[ "$failed_runs" -eq 0 ]
