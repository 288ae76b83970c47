#!/bin/sh
# verify_vanilla_post.sh BUILD_DIR SOURCE_DIR - `cuzk verify-vanilla
# winning-post | window-post` on vanilla files from cuzk-bench gen-vanilla:
# sealed 2KiB Window PoSt sectors and sparse 2KiB Winning PoSt check (exit
# 0); the wrong challenge indexing, another randomness and single byte
# alterations made here in a blob (a path sibling, a level's position,
# comm_c) are refused (exit 1) naming the sector, the challenge and the
# fault; garbage, a missing file, a truncated blob, a missing option and
# two Winning sectors are exit 2. Then a full 32GiB Window PoSt partition
# (2349 sparse sectors) is generated on one thread and checked, both timed
# with their peak memory (about 3 CPU-seconds in all with AVX-512 IFMA,
# 12 without), and a sibling altered in sector 1700 is refused naming
# that sector and challenge; a 32GiB Winning PoSt and a 100-sector 64GiB
# Window PoSt are generated and checked.
set -eu
. "$2/tests/integration/lib/verify_vanilla.sh"
vv_start "$1" verify-vanilla-post-work ""
VV_GREP=E

# Blobs (bincode sector proofs): 2KiB (Single paths): the first proof's
# root at 60, leaf at 92, its level 0 siblings at 140 and that level's
# position at 364; comm_c 64 bytes before the end. 32GiB (Sub paths): the
# first proof's level 0 siblings at 76..299.
"$BENCH" gen-vanilla window-post --sector-size 2KiB --seed 71 --sectors 3 -o window.json \
    >window.txt 2>/dev/null
RND=$(value randomness window.txt)
W="window-post --sector-size 2KiB --randomness $RND"
check "sealed window" 0 "^OK: window.json \(Window PoSt 2KiB, 3 sectors x 10 challenges\)" -- \
    $W --vanilla window.json
check "V1 indexing" 1 "PoSt sector 1 \(id 2\), challenge 0 \(leaf [0-9]+\): the inclusion proof \
opens leaf [0-9]+, not the challenge derived" -- $W --vanilla window.json --registered-proof V1
alter_blob window.json sibling.json 1 140
check "a sibling" 1 "INVALID: sibling.json: PoSt sector 1 \(id 2\), challenge 0 \(leaf [0-9]+\): \
the tree-R path does not hash to comm_r_last" -- $W --vanilla sibling.json
alter_blob window.json position.json 2 364
check "a position" 1 "PoSt sector 2 \(id 3\), challenge 0 \(leaf [0-9]+\): the inclusion proof \
opens leaf" -- $W --vanilla position.json
alter_blob window.json comm-c.json 0 -64
check "comm_c" 1 "PoSt sector 0 \(id 1\): comm_r is not Poseidon\(comm_c, comm_r_last\)" -- \
    $W --vanilla comm-c.json

"$BENCH" gen-vanilla winning-post --sector-size 2KiB --sparse --seed 72 -o winning.json \
    >winning.txt 2>/dev/null
RND=$(value randomness winning.txt)
check "sparse winning" 0 "Winning PoSt 2KiB, 1 sector x 66 challenges" -- \
    winning-post --sector-size 2KiB --randomness "$RND" --vanilla winning.json
check "another randomness" 1 "PoSt sector 0 \(id 1\), challenge 0 \(leaf [0-9]+\)" -- \
    winning-post --sector-size 2KiB --randomness "00${RND#??}" --vanilla winning.json

echo garbage >garbage.json
check "garbage" 2 "garbage.json" -- $W --vanilla garbage.json
check "missing file" 2 "missing.json" -- $W --vanilla missing.json
python3 -c "import json,sys; b=json.load(open('window.json')); b[1]=b[1][:200]; \
json.dump(b, open('truncated.json','w'))"
check "truncated blob" 2 "truncated.json: sector proof 1: " -- $W --vanilla truncated.json
check "no --randomness" 2 "missing --randomness" -- window-post --sector-size 2KiB \
    --vanilla window.json
check "two winning sectors" 2 "Winning PoSt proves one sector" -- \
    winning-post --sector-size 2KiB --randomness "$RND" --vanilla window.json

# A full 32GiB partition on one thread, then its check; time and peak RSS.
timed "gen-vanilla window-post 32GiB, 2349 sectors, one thread" w32.txt -- \
    "$BENCH" gen-vanilla window-post --sector-size 32GiB --seed 73 -o w32.json
W32="window-post --sector-size 32GiB --randomness $(value randomness w32.txt)"
VV_TIME=check-time.txt
check "sparse 32GiB window partition" 0 "Window PoSt 32GiB, 2349 sectors x 10 challenges" -- \
    $W32 --vanilla w32.json
VV_TIME=
echo "     verify-vanilla window-post 32GiB (read and check): $(cat check-time.txt)"
alter_blob w32.json w32-sibling.json 1700 140
check "32GiB partition, a sibling in sector 1700" 1 "INVALID: w32-sibling.json: PoSt sector 1700 \
\(id 1701\), challenge 0 \(leaf [0-9]+\): the tree-R path does not hash to comm_r_last" -- \
    $W32 --vanilla w32-sibling.json
rm -f w32.json w32-sibling.json
"$BENCH" gen-vanilla winning-post --sector-size 32GiB --seed 74 -o win32.json >win32.txt 2>/dev/null
check "sparse 32GiB winning" 0 "Winning PoSt 32GiB, 1 sector x 66" -- winning-post \
    --sector-size 32GiB --randomness "$(value randomness win32.txt)" --vanilla win32.json
"$BENCH" gen-vanilla window-post --sector-size 64GiB --seed 75 --sectors 100 \
    --registered-proof V1 -o w64.json >w64.txt 2>/dev/null
check "sparse 64GiB window, V1" 0 "Window PoSt 64GiB, 100 sectors" -- window-post \
    --sector-size 64GiB --randomness "$(value randomness w64.txt)" --registered-proof V1 \
    --vanilla w64.json
vv_finish verify_vanilla_post
