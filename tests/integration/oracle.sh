#!/bin/sh
# oracle.sh BUILD_DIR SOURCE_DIR - the independent oracle of issue 2: checks
# cuzk's field, curve and pairing arithmetic against @noble/curves on fresh
# random values (tests/oracle/oracle.mjs prints the seed; ORACLE_SEED=...
# replays a run).
#
# Installs the pinned packages (tests/oracle/package-lock.json) with
# `npm ci` only when node_modules is missing or was installed from another
# lock file, then runs the check with the driver BUILD_DIR/tools/cuzk-oracle.
# node and npm are required: without them the test fails, it does not skip.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: oracle.sh BUILD_DIR SOURCE_DIR" >&2
    exit 2
fi
build=$1
oracle_dir=$2/tests/oracle
driver=$build/tools/cuzk-oracle

for tool in node npm; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "oracle.sh: FAIL: '$tool' is not installed (the oracle needs node >= 20.19 and npm)" >&2
        exit 1
    fi
done
if [ ! -x "$driver" ]; then
    echo "oracle.sh: FAIL: driver $driver is missing (build the target cuzk-oracle)" >&2
    exit 1
fi

# npm ci replaces node_modules wholesale, so concurrent test runs from
# several build directories take turns (flock, when util-linux has it).
stamp=$oracle_dir/node_modules/.cuzk-installed-lock
install() {
    if [ -f "$stamp" ] && cmp -s "$stamp" "$oracle_dir/package-lock.json"; then return 0; fi
    echo "oracle.sh: installing the pinned packages (npm ci --prefix $oracle_dir)"
    npm ci --prefix "$oracle_dir" --no-audit --no-fund --loglevel=error
    cp "$oracle_dir/package-lock.json" "$stamp"
}
if command -v flock >/dev/null 2>&1; then
    exec 9>"${TMPDIR:-/tmp}/cuzk-oracle-npm.lock"
    flock 9
    install
    flock -u 9
else
    install
fi

exec node "$oracle_dir/oracle.mjs" "$driver"
