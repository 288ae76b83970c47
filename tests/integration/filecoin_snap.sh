#!/bin/sh
# Filecoin SnapDeals (empty sector update) 2KiB end to end on the CPU:
# `cuzk-bench gen-vanilla snap-prove` seals a test sector, encodes new data
# into it and writes the partition proof (Curio's JSON blob file; the
# commitments on stdout), `cuzk setup --kind update` makes development
# parameters under the official file name (cached in BUILD/param-cache
# between runs: a 1.7M-constraint setup, about a minute on two cores),
# `cuzk prove --kind update` proves it, `cuzk verify --kind update`
# accepts the proof from the commitments alone, and rejects it for the
# commitments of another sector's update. A sparse update (gen-vanilla
# snap-prove --sparse: the structured test sector of gen.h
# fc_sparse_update, as 32GiB and 64GiB make them) proves and verifies the
# same way.
# Usage: filecoin_snap.sh BUILD_DIR SOURCE_DIR
set -eu
BUILD=$(cd "$1" && pwd)
CUZK="$BUILD/tools/cuzk"
BENCH="$BUILD/tools/cuzk-bench"
WORK="$BUILD/filecoin-snap-work"
CACHE="$BUILD/param-cache"
mkdir -p "$WORK" "$CACHE"
cd "$WORK"

# comms FILE: gen-vanilla's three commitments as cuzk options.
comms() {
    awk '$1 ~ /^comm_/ { gsub("_", "-", $1); printf " --%s %s", $1, $2 }' "$1"
}

"$BENCH" gen-vanilla snap-prove --sector-size 2KiB --seed 41 -o snap.json >snap.txt
"$BENCH" gen-vanilla snap-prove --sector-size 2KiB --seed 42 -o other.json >other.txt
"$BENCH" gen-vanilla snap-prove --sector-size 2KiB --sparse --seed 43 -o sparse.json >sparse.txt
set -- --kind update --sector-size 2KiB --param-cache "$CACHE"
"$CUZK" setup --kind update --sector-size 2KiB --param-cache "$CACHE"
# shellcheck disable=SC2046 # the commitments are one option and value each
"$CUZK" prove "$@" --vanilla snap.json $(comms snap.txt) -o snap.proof
# shellcheck disable=SC2046
"$CUZK" verify "$@" $(comms snap.txt) --proof snap.proof
# shellcheck disable=SC2046
"$CUZK" prove "$@" --vanilla sparse.json $(comms sparse.txt) -o sparse.proof
# shellcheck disable=SC2046
"$CUZK" verify "$@" $(comms sparse.txt) --proof sparse.proof
set +e
# shellcheck disable=SC2046
"$CUZK" verify "$@" $(comms other.txt) --proof snap.proof
rc=$?
set -e
if [ "$rc" != 1 ]; then
    echo "FAILED: a proof verified (or errored, exit $rc) for another update's commitments"
    echo "filecoin_snap: 4 passed, 1 failed"
    exit 1
fi
echo "filecoin_snap: 5 passed, 0 failed"
