#!/bin/sh
# Filecoin PoRep 2KiB end to end on the CPU, through the programs a storage
# provider would use: cuzk-seal seals a 2KiB sector and writes its C1
# output, `cuzk setup --kind porep` makes development parameters under the
# official file name (cached in the build directory between runs), `cuzk
# prove porep` proves it, `cuzk verify porep` accepts the proof, and rejects
# it for another sector's C1 (other public inputs).
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
echo "filecoin: 3 passed, 0 failed"
