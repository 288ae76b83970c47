#!/bin/sh
# `make run`: the proving daemon end to end on this machine. Seals a 2KiB
# test sector with cuzk-seal (once, kept in ./data), starts cuzk-daemon on
# a unix socket in ./data with --dev-params (DEVELOPMENT parameters made
# into data/params on first use: a 2^22 setup, several minutes on a small
# machine; later runs reuse them), proves the sector's C1 output through
# the daemon with cuzk-bench, stops the daemon with SIGTERM, verifies the
# proof independently with `cuzk verify porep`, then prints the quick
# benchmark table of the arithmetic layer.
# Usage: run.sh BUILD_DIR
set -eu
BUILD=$1
TOOLS="$BUILD/tools"
DATA="$PWD/data"
PARAMS="$DATA/params"
SOCK="$DATA/cuzk.sock"
ADDR="unix://$SOCK"
C1="$DATA/c1-2k.json"
PROOF="$DATA/proof-2k.bin"
LOG="$DATA/daemon.log"
PID=

say() {
    printf '\n== %s\n' "$*"
}

fail() {
    echo "run: $*" >&2
    exit 1
}

# If anything fails while the daemon runs, stop it.
cleanup() {
    if [ -n "$PID" ]; then kill -TERM "$PID" 2>/dev/null || true; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$DATA" "$PARAMS"
if [ -f "$C1" ]; then
    say "reusing the sealed 2KiB test sector ($C1)"
else
    say "sealing a 2KiB test sector with cuzk-seal into $DATA/sector-2k"
    "$TOOLS/cuzk-seal" seal --sector-size 2KiB --seed 1 --c1 "$C1" -o "$DATA/sector-2k"
fi

# Development parameters the integration tests made in the build directory
# are the same files (same seed): link them instead of a second setup.
for f in "$BUILD"/param-cache/v28-stacked-proof-of-replication-*; do
    if [ -f "$f" ] && [ ! -f "$PARAMS/${f##*/}" ]; then
        ln "$f" "$PARAMS/" 2>/dev/null || cp "$f" "$PARAMS/"
        echo "parameters: $PARAMS/${f##*/} (from $BUILD/param-cache)"
    fi
done

cat >"$DATA/cuzk.toml" <<EOF
# Written by scripts/run.sh (make run).
[daemon]
listen = "$ADDR"
[srs]
param_cache = "$PARAMS"
EOF

say "starting cuzk-daemon -c $DATA/cuzk.toml --dev-params (log: $LOG)"
rm -f "$SOCK"
"$TOOLS/cuzk-daemon" -c "$DATA/cuzk.toml" --dev-params 2>"$LOG" &
PID=$!
tries=0
until "$TOOLS/cuzk-bench" -a "$ADDR" status >/dev/null 2>&1; do
    kill -0 "$PID" 2>/dev/null || { PID=; tail -20 "$LOG" >&2; fail "cuzk-daemon exited; see $LOG"; }
    tries=$((tries + 1))
    [ "$tries" -le 30 ] || fail "cuzk-daemon did not answer on $ADDR within 30 s; see $LOG"
    sleep 1
done
"$TOOLS/cuzk-bench" -a "$ADDR" status

set -- "$PARAMS"/v28-stacked-proof-of-replication-*.params
if [ -f "$1" ]; then
    say "proving the C1 output through the daemon (parameters cached in $PARAMS)"
else
    say "proving the C1 output through the daemon; first run: the daemon makes DEVELOPMENT" \
        "parameters for porep-2k into $PARAMS first (several minutes; not a trusted setup)"
fi
rc=0
"$TOOLS/cuzk-bench" -a "$ADDR" single -t porep --c1 "$C1" -o "$PROOF" || rc=$?

say "stopping cuzk-daemon (SIGTERM)"
kill -TERM "$PID"
drc=0
wait "$PID" || drc=$?
PID=
[ "$drc" = 0 ] || fail "cuzk-daemon exited with status $drc; see $LOG"
echo "cuzk-daemon stopped"
[ "$rc" = 0 ] || fail "the daemon did not prove the sector (cuzk-bench exit $rc); see $LOG"

say "verifying the daemon's proof independently (cuzk verify porep)"
"$TOOLS/cuzk" verify porep --c1 "$C1" --param-cache "$PARAMS" --proof "$PROOF"

say "quick benchmark table"
"$BUILD/bench/cuzk-microbench" --quick
