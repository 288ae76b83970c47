#!/bin/sh
# fuzz-run.sh BUILD_FUZZ SECONDS [TARGET ...] - runs each libFuzzer target
# (default: every BUILD_FUZZ/tests/fuzz_*) for SECONDS from its committed seed
# corpus tests/fuzz/corpus/<target>/ (read only) plus BUILD_FUZZ/corpus/<target>/
# (where the new inputs it finds go, kept between runs), and prints one line
# per target: executions, executions per second, corpus size, coverage and
# findings (crash, leak or timeout files in BUILD_FUZZ/findings/<target>/).
# Exit status 1 when any target found something. `make fuzz-run SECONDS=N`.
set -eu
build=$1
seconds=$2
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -eq 0 ]; then
    for f in "$build"/tests/fuzz_*; do [ -x "$f" ] && set -- "$@" "$(basename "$f")"; done
fi
[ $# -gt 0 ] || { echo "fuzz-run: no fuzz targets in $build/tests (make fuzz)" >&2; exit 2; }
found=0
for t in "$@"; do
    seeds=$here/tests/fuzz/corpus/$t
    [ -d "$seeds" ] || { echo "fuzz-run: $t has no seed corpus $seeds" >&2; exit 2; }
    corpus=$build/corpus/$t
    findings=$build/findings/$t
    log=$build/fuzz-$t.log
    mkdir -p "$corpus" "$findings"
    set +e
    "$build/tests/$t" -max_total_time="$seconds" -print_final_stats=1 -timeout=25 \
        -rss_limit_mb=4096 -artifact_prefix="$findings/" "$corpus" "$seeds" >"$log" 2>&1
    rc=$?
    set -e
    execs=$(awk '/stat::number_of_executed_units:/ { print $2 }' "$log")
    speed=$(awk '/stat::average_exec_per_sec:/ { print $2 }' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    n=$(find "$findings" -type f | wc -l)
    printf '%-24s %6s s  %10s execs  %6s/s  cov %6s  corpus %5d  findings %d%s\n' "$t" \
        "$seconds" "${execs:-?}" "${speed:-?}" "${cov:-?}" "$(ls "$corpus" | wc -l)" "$n" \
        "$([ "$rc" = 0 ] || echo "  (exit $rc, see $log)")"
    [ "$n" = 0 ] && [ "$rc" = 0 ] || found=1
done
exit "$found"
