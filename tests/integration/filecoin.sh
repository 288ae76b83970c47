#!/bin/sh
# Filecoin PoRep 2KiB end to end on the CPU, through the programs a storage
# provider would use: cuzk-seal seals a 2KiB sector and writes its C1
# output, `cuzk setup --kind porep` makes development parameters under the
# official file name (cached in the build directory between runs), `cuzk
# prove porep` proves it, `cuzk verify porep` accepts the proof, and rejects
# it for another sector's C1 (other public inputs). With r and s from a
# seed, the witness-only path (the default) and the prover backend's
# (--synthesis full) write the same bytes, whole and as --partition 0,
# and a partition out of range is refused.
# Usage: filecoin.sh BUILD_DIR SOURCE_DIR
set -eu
BUILD=$(cd "$1" && pwd)
CUZK="$BUILD/tools/cuzk"
SEAL="$BUILD/tools/cuzk-seal"
WORK="$BUILD/filecoin-work"
CACHE="$BUILD/param-cache"
mkdir -p "$WORK" "$CACHE"
cd "$WORK"

"$SEAL" seal --sector-size 2KiB --seed 11 --c1 c1.json -o sector-a >/dev/null
"$SEAL" seal --sector-size 2KiB --seed 12 --c1 other.json -o sector-b >/dev/null
"$CUZK" setup --kind porep --sector-size 2KiB --param-cache "$CACHE"
"$CUZK" prove porep --c1 c1.json --param-cache "$CACHE" -o proof.bin
"$CUZK" verify porep --c1 c1.json --param-cache "$CACHE" --proof proof.bin
set +e
"$CUZK" verify porep --c1 other.json --param-cache "$CACHE" --proof proof.bin
rc=$?
set -e
if [ "$rc" != 1 ]; then
    echo "FAILED: a proof verified (or errored, exit $rc) for another sector's C1"
    echo "filecoin: 0 passed, 1 failed"
    exit 1
fi
for syn in witness full; do
    "$CUZK" prove porep --c1 c1.json --param-cache "$CACHE" --synthesis $syn --rs-seed 5 \
        -o "seeded-$syn.bin" --backend cpu
done
cmp seeded-witness.bin seeded-full.bin || { echo "FAILED: witness path bytes differ"; exit 1; }
# the sector has one partition: partition 0 alone is the whole proof, r and s included
"$CUZK" prove porep --c1 c1.json --param-cache "$CACHE" --rs-seed 5 --partition 0 \
    -o part0.bin --backend cpu
cmp part0.bin seeded-full.bin || { echo "FAILED: --partition 0 is not partition 0"; exit 1; }
"$CUZK" verify porep --c1 c1.json --param-cache "$CACHE" --proof seeded-witness.bin
set +e
"$CUZK" prove porep --c1 c1.json --param-cache "$CACHE" --partition 1 -o none.bin 2>err.txt
rc=$?
set -e
if [ "$rc" != 2 ] || ! grep -q "partition 1: the proof has 1 partition" err.txt; then
    echo "FAILED: --partition 1 of 1 partition (exit $rc): $(cat err.txt)"
    exit 1
fi
echo "filecoin: 7 passed, 0 failed"
