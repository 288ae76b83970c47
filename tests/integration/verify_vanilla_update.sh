#!/bin/sh
# verify_vanilla_update.sh BUILD_DIR SOURCE_DIR - `cuzk verify-vanilla
# update` on SnapDeals vanilla proofs from cuzk-bench gen-vanilla
# snap-prove: a sealed 2KiB sector's update and sparse updates of 2KiB,
# 8MiB and 32GiB (the 32GiB one timed, generation and check) check (exit
# 0); another update's commitments, another comm_d_new, and an apex leaf
# or comm_c altered here in a blob are refused (exit 1) with the message
# naming the partition and the fault (unit tests: every other fault, with
# challenge and node); a missing
# file, garbage, the wrong sector size, a bad commitment and a missing
# option are exit 2. About 10 s on two cores.
set -eu
. "$2/tests/integration/lib/verify_vanilla.sh"
vv_start "$1" verify-vanilla-update-work update

# comms FILE: gen-vanilla's three commitments as cuzk options.
comms() {
    awk '$1 ~ /^comm_/ { gsub("_", "-", $1); printf " --%s %s", $1, $2 }' "$1"
}

# A blob (bincode PartitionProof) opens with comm_c (32 bytes), then the
# apex leaf count (8) and the apex leaves (leaf 0 at byte 40).
"$BENCH" gen-vanilla snap-prove --sector-size 2KiB --seed 61 -o sealed.json >sealed.txt 2>/dev/null
"$BENCH" gen-vanilla snap-prove --sector-size 2KiB --sparse --seed 62 -o sparse.json >sparse.txt
"$BENCH" gen-vanilla snap-prove --sector-size 8MiB --sparse --seed 63 -o s8m.json >s8m.txt
timed "gen-vanilla snap-prove 32GiB, one thread" s32g.txt -- \
    "$BENCH" gen-vanilla snap-prove --sector-size 32GiB --seed 64 -o s32g.json
echo "32GiB sparse update: $(wc -c <s32g.json) bytes"

# shellcheck disable=SC2046 # the commitments are one option and value each
check "sealed 2KiB" 0 "OK: sealed.json" -- --sector-size 2KiB --vanilla sealed.json $(comms sealed.txt)
# shellcheck disable=SC2046
check "sparse 2KiB" 0 "OK: sparse.json" -- --sector-size 2KiB --vanilla sparse.json $(comms sparse.txt)
# shellcheck disable=SC2046
check "sparse 8MiB" 0 "4 partitions x 10" -- --sector-size 8MiB --vanilla s8m.json $(comms s8m.txt)
# shellcheck disable=SC2046
check "sparse 32GiB (timed)" 0 "16 partitions x 86" -- --sector-size 32GiB --vanilla s32g.json $(comms s32g.txt)

# shellcheck disable=SC2046
check "other update's commitments" 1 "update partition 0: comm_r_old is not Poseidon" -- \
    --sector-size 2KiB --vanilla sealed.json $(comms sparse.txt)
alter_blob s8m.json apex.json 0 40
# shellcheck disable=SC2046
check "apex leaf altered" 1 "INVALID: apex.json: update partition 0: the apex leaves do not hash to comm_d_new" -- \
    --sector-size 8MiB --vanilla apex.json $(comms s8m.txt)
alter_blob s8m.json commc.json 0 0
# shellcheck disable=SC2046
check "comm_c altered" 1 "update partition 0: comm_r_old is not Poseidon(comm_c" -- \
    --sector-size 8MiB --vanilla commc.json $(comms s8m.txt)
# the new data's root claimed for another: the apex tree fails first
old_d=$(awk '$1 == "comm_d_new" { print $2 }' s8m.txt)
new_d=$(awk '$1 == "comm_d_new" { print $2 }' sparse.txt)
# shellcheck disable=SC2046
check "comm_d_new of another" 1 "update partition 0: the apex leaves do not hash to comm_d_new" -- \
    --sector-size 8MiB --vanilla s8m.json $(comms s8m.txt | sed "s/$old_d/$new_d/")

# shellcheck disable=SC2046
check "missing file" 2 "missing.json" -- --sector-size 2KiB --vanilla missing.json $(comms sparse.txt)
echo "not json" >garbage.json
# shellcheck disable=SC2046
check "garbage" 2 "garbage.json" -- --sector-size 2KiB --vanilla garbage.json $(comms sparse.txt)
# shellcheck disable=SC2046
check "wrong sector size" 2 "4 partition proofs, a 2KiB sector has 1" -- \
    --sector-size 2KiB --vanilla s8m.json $(comms s8m.txt)
check "bad commitment" 2 "--comm-r-old takes 64 hex digits" -- --sector-size 2KiB \
    --vanilla sparse.json --comm-r-old 12 --comm-d-new 00 --comm-r-new 00
check "missing --vanilla" 2 "--vanilla" -- --sector-size 2KiB

vv_finish verify_vanilla_update
