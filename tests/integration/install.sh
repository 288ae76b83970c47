#!/bin/sh
# install.sh BUILD_DIR SOURCE_DIR - `make install` into a temporary DESTDIR
# (PREFIX /opt/cuzk) and the commands of docs/curio.md against what it
# installed: the files, the unit's paths and limits (and systemd's own check
# of the unit), the configuration equal to --print-default-config, the
# installed daemon started by the unit's own ExecStart line (on a unix socket
# and a free HTTP port), cuzk-bench status and evict, GET /status and
# /metrics, SIGTERM and exit 0; a reinstall keeping the edited configuration;
# then `make uninstall` leaving no file behind.
set -eu
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
DIR=$(mktemp -d /tmp/cuzk-install-test.XXXXXX)
DEST=$DIR/root
PREFIX=/opt/cuzk
ROOT=$DEST$PREFIX
PID=
fail() {
    echo "install: $*" >&2
    if [ -f "$DIR/daemon.log" ]; then tail -20 "$DIR/daemon.log" >&2; fi
    if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; fi
    exit 1
}
mk() { # make TARGET with this build, prefix and DESTDIR
    make -C "$SRC" --no-print-directory "$1" BUILD="$BUILD" PREFIX=$PREFIX DESTDIR="$DEST" \
        >"$DIR/make-$1.log" 2>&1 || { cat "$DIR/make-$1.log" >&2; fail "make $1 failed"; }
}

mk install
for f in bin/cuzk bin/cuzk-daemon bin/cuzk-bench bin/cuzk-seal etc/cuzk/cuzk.toml \
    lib/systemd/system/cuzk-daemon.service share/doc/cuzk/curio.md; do
    [ -f "$ROOT/$f" ] || fail "not installed: $ROOT/$f"
done
[ -x "$ROOT/bin/cuzk-daemon" ] || fail "cuzk-daemon is not executable"
CONF=$ROOT/etc/cuzk/cuzk.toml
UNIT=$ROOT/lib/systemd/system/cuzk-daemon.service
"$ROOT/bin/cuzk-daemon" --print-default-config | cmp -s - "$CONF" ||
    fail "$CONF differs from cuzk-daemon --print-default-config"
grep -q '^listen = "127.0.0.1:9820"' "$CONF" || fail "default listen address (Curio's) not in $CONF"
grep -qx "ExecStart=$PREFIX/bin/cuzk-daemon -c $PREFIX/etc/cuzk/cuzk.toml" "$UNIT" ||
    fail "ExecStart does not name the installed daemon and configuration"
for line in Restart=on-failure KillSignal=SIGTERM TimeoutStopSec=120 MemoryMax=infinity \
    LimitMEMLOCK=infinity LimitNOFILE=65536 CacheDirectory=cuzk; do
    grep -qx "$line" "$UNIT" || fail "unit lacks $line"
done
if command -v systemd-analyze >/dev/null 2>&1; then # the unit, its paths moved into DESTDIR
    sed "s|$PREFIX/|$ROOT/|g" "$UNIT" >"$DIR/cuzk-daemon.service"
    systemd-analyze verify "$DIR/cuzk-daemon.service" >"$DIR/verify.log" 2>&1 ||
        { cat "$DIR/verify.log" >&2; fail "systemd-analyze verify rejects the unit"; }
fi

# The operator's edits: a unix socket, the HTTP status page on a free port,
# a parameter directory of the test's own.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SOCK=unix://$DIR/cuzk.sock
mkdir "$DIR/params"
sed -i -e "s|^listen = .*|listen = \"$SOCK\"|" -e "s|^status_listen = .*|status_listen = \"127.0.0.1:$PORT\"|" \
    -e "s|^param_cache = .*|param_cache = \"$DIR/params\"|" "$CONF"

# cuzk-daemon -c /usr/local/etc/cuzk/cuzk.toml, as the unit runs it.
EXEC=$(sed -n 's/^ExecStart=//p' "$UNIT" | sed "s|$PREFIX/|$ROOT/|g")
# shellcheck disable=SC2086 # the unit's command line, split into words as systemd does
$EXEC 2>"$DIR/daemon.log" &
PID=$!
BENCH="$ROOT/bin/cuzk-bench -a $SOCK"
i=0
until $BENCH status >"$DIR/status.out" 2>&1; do
    kill -0 "$PID" 2>/dev/null || { PID=; fail "the installed daemon exited"; }
    i=$((i + 1))
    [ $i -lt 100 ] || fail "the installed daemon did not answer on $SOCK"
    sleep 0.1
done
for kind in POREP_SEAL_COMMIT SNAP_DEALS_UPDATE WINDOW_POST_PARTITION WINNING_POST; do
    grep -Eq "^queue: +$kind +pending=0 in_progress=0$" "$DIR/status.out" || fail "status: no $kind queue"
done
curl -sf "http://127.0.0.1:$PORT/status" >"$DIR/status.json" || fail "GET /status failed"
python3 - "$DIR/status.json" <<'PY' || fail "GET /status: unexpected JSON"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["memory"]["budget_bytes"] > 0 and s["memory"]["used_bytes"] == 0, s["memory"]
assert s["proofs"] == {"completed": 0, "failed": 0, "cancelled": 0}, s["proofs"]
assert s["srs"] == [] and s["jobs"] == [] and s["pipeline"]["enabled"] is True, s
PY
curl -sf "http://127.0.0.1:$PORT/metrics" >"$DIR/metrics.txt" || fail "GET /metrics failed"
grep -Eq '^cuzk_memory_budget_bytes [1-9][0-9]*$' "$DIR/metrics.txt" || fail "metrics: no budget"
grep -qx 'cuzk_proofs_completed_total 0' "$DIR/metrics.txt" || fail "metrics: no completed counter"
grep -qx 'cuzk_queue_depth 0' "$DIR/metrics.txt" || fail "metrics: no queue depth"
$BENCH evict -c porep-32g | grep -q 'was_loaded=false' || fail "evict of a set never loaded"

kill -TERM "$PID"
rc=0
wait "$PID" || rc=$?
PID=
[ "$rc" = 0 ] || fail "the installed daemon exited with $rc on SIGTERM"
grep -q 'SIGTERM: shutting down' "$DIR/daemon.log" || fail "no graceful shutdown in the log"
grep -q 'cuzk-daemon stopped' "$DIR/daemon.log" || fail "the daemon did not say it stopped"

mk install
grep -q "^listen = \"$SOCK\"" "$CONF" || fail "a reinstall replaced the edited $CONF"
grep -q "Keeping: $CONF" "$DIR/make-install.log" || fail "the reinstall did not say it kept $CONF"

mk uninstall
left=$(find "$DEST" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
[ ! -e "$BUILD/install_manifest.txt" ] || fail "make uninstall left the manifest"
rm -rf "$DIR"
echo "install: ok"
