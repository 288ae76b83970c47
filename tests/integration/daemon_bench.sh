#!/bin/sh
# daemon_bench.sh BUILD_DIR SOURCE_DIR - cuzk-bench against a cuzk-daemon on
# a unix socket: every command, its output format (reference/cuzk-api.md)
# and its exit status.
set -eu
BUILD=$1
DAEMON=$BUILD/tools/cuzk-daemon
BENCH=$BUILD/tools/cuzk-bench
DIR=$(mktemp -d /tmp/cuzk-bench-test.XXXXXX)
mkdir "$DIR/params"
cat >"$DIR/cuzk.toml" <<CONF
[daemon]
listen = "unix://$DIR/d.sock"
[srs]
param_cache = "$DIR/params"
[memory]
total_budget = "1GiB"
CONF
"$DAEMON" -c "$DIR/cuzk.toml" --test-circuits 2>"$DIR/daemon.log" &
PID=$!
fail() {
    echo "daemon_bench: $*" >&2
    tail -20 "$DIR/daemon.log" >&2
    kill "$PID" 2>/dev/null || true
    exit 1
}
A="-a unix://$DIR/d.sock"
i=0
until $BENCH $A status >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 100 ] || fail "daemon did not start"
    sleep 0.1
done

$BENCH gen-vanilla test --constraints 2048 --partitions 2 -o "$DIR/t.bin"
$BENCH $A single -t porep --vanilla "$DIR/t.bin" >"$DIR/single.out" || fail "single failed"
grep -q '^=== Proof Result ===$' "$DIR/single.out" || fail "single: no header"
grep -q '^status:    COMPLETED$' "$DIR/single.out" || fail "single: not COMPLETED"
grep -Eq '^timings:   total=[0-9]+ ms \(queue=[0-9]+ ms, srs=[0-9]+ ms, synth=[0-9]+ ms, gpu=[0-9]+ ms\)$' \
    "$DIR/single.out" || fail "single: timings line"
grep -Eq '^proof:     384 bytes \(hex: [0-9a-f]{64}\.\.\.\)$' "$DIR/single.out" || fail "single: proof line"

$BENCH $A batch -t porep --vanilla "$DIR/t.bin" -c 4 -j 2 >"$DIR/batch.out" || fail "batch failed"
[ "$(grep -c '^\[[1-4]/4\] COMPLETED' "$DIR/batch.out")" = 4 ] || fail "batch: per-proof lines"
grep -q '^completed:   4$' "$DIR/batch.out" || fail "batch: summary"
grep -Eq '^throughput:  [0-9.]+ proofs/min$' "$DIR/batch.out" || fail "batch: throughput"
mkdir "$DIR/proofs"
$BENCH $A batch -t porep --vanilla "$DIR/t.bin" -c 3 -j 3 -o "$DIR/proofs" >"$DIR/batch-o.out" ||
    fail "batch -o failed"
for i in 0 1 2; do
    grep -q " -> $DIR/proofs/proof-$i.bin\$" "$DIR/batch-o.out" || fail "batch -o: line of proof $i"
    [ "$(wc -c <"$DIR/proofs/proof-$i.bin")" = 384 ] || fail "batch -o: proof-$i.bin is not 384 bytes"
done
[ "$(cat "$DIR/proofs"/proof-*.bin | sha256sum)" != "$(cat "$DIR/proofs/proof-0.bin" "$DIR/proofs/proof-0.bin" "$DIR/proofs/proof-0.bin" | sha256sum)" ] ||
    fail "batch -o: the three proofs are one proof written three times"
if $BENCH $A batch -t porep --vanilla "$DIR/t.bin" -c 1 -o "$DIR/no/such/dir" >"$DIR/batch-bad.out" 2>&1; then
    fail "batch -o into a missing folder succeeded"
fi

$BENCH $A status | grep -q 'srs:       test-2048' || fail "status: no SRS line"
$BENCH $A preload -c test-4096 | grep -q 'already_loaded=false' || fail "preload"
$BENCH $A preload -c test-4096 --priority 3 --hold 1 | grep -q 'already_loaded=true' ||
    fail "preload --priority --hold"
if $BENCH $A preload -c test-4096 --priority 7 2>/dev/null; then fail "preload --priority 7 accepted"; fi
$BENCH $A evict -c test-4096 | grep -q 'was_loaded=true' || fail "evict"
$BENCH $A metrics | grep -q '^cuzk_proofs_completed_total 9$' || fail "metrics"
$BENCH $A metrics >"$DIR/metrics.out"
rss=$(awk '$1 == "cuzk_process_resident_bytes" { print $2 }' "$DIR/metrics.out")
peak=$(awk '$1 == "cuzk_process_resident_peak_bytes" { print $2 }' "$DIR/metrics.out")
real=$(awk '/^VmRSS/ { print $2 * 1024 }' /proc/"$PID"/status)
[ "${rss:-0}" -gt 0 ] && [ "${peak:-0}" -ge "$rss" ] || fail "metrics: resident memory $rss, peak $peak"
[ "$rss" -gt $((real / 2)) ] && [ "$rss" -lt $((real * 2)) ] || fail "metrics: RSS $rss vs /proc's $real"
if $BENCH $A cancel no-such-job 2>/dev/null; then fail "cancel of an unknown job succeeded"; fi
$BENCH gen-vanilla test --constraints 2048 --bad-partition 0 -o "$DIR/bad.bin"
if $BENCH $A single -t winning --vanilla "$DIR/bad.bin" >"$DIR/bad.out"; then fail "bad proof succeeded"; fi
grep -q 'partition 0: self-verification failed' "$DIR/bad.out" || fail "bad: message"

kill -TERM "$PID"
wait "$PID" || fail "daemon exit status $?"
$BENCH timeline "$DIR/daemon.log" >"$DIR/timeline.out" || fail "timeline failed"
grep -Eq '^device 0:    [0-9]+ items, busy [0-9]+ ms = [0-9.]+% of the span$' "$DIR/timeline.out" ||
    fail "timeline: no device line"
rm -rf "$DIR"
echo "daemon_bench: ok"
