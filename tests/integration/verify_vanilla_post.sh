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
# with their peak memory (about 20 CPU-seconds in all), and a 32GiB
# Winning PoSt and a 100-sector 64GiB Window PoSt are generated and checked.
set -eu
BUILD=$(cd "$1" && pwd)
CUZK="$BUILD/tools/cuzk"
BENCH="$BUILD/tools/cuzk-bench"
WORK="$BUILD/verify-vanilla-post-work"
mkdir -p "$WORK"
cd "$WORK"
passed=0
failed=0
TIMER=

# value NAME FILE: the value gen-vanilla printed for NAME.
value() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }

# check NAME EXIT [EGREP] -- KIND ARGS: cuzk verify-vanilla KIND ARGS exits
# EXIT, its output matching the extended regular expression when given;
# under $TIMER when set.
check() {
    name=$1 want=$2 msg=$3
    shift 4
    set +e
    $TIMER "$CUZK" verify-vanilla "$@" >out.txt 2>&1
    rc=$?
    set -e
    if [ "$rc" != "$want" ]; then
        echo "FAIL $name: exit $rc, expected $want"
        cat out.txt
        failed=$((failed + 1))
    elif [ -n "$msg" ] && ! grep -qE -- "$msg" out.txt; then
        echo "FAIL $name: the output does not match '$msg'"
        cat out.txt
        failed=$((failed + 1))
    else
        echo "ok   $name: $(head -1 out.txt)"
        passed=$((passed + 1))
    fi
}

# alter IN OUT BLOB OFFSET [BYTE]: IN's blob BLOB with byte OFFSET xored
# with 1 (or set to BYTE), written to OUT. 2KiB blobs (Single paths): the
# first proof's root at 60, leaf at 92, its level 0 siblings at 140 and
# that level's position at 364; comm_c 64 bytes before the end.
alter() {
    python3 - "$@" <<'PY'
import base64, json, sys

src, dst, blob, off = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
blobs = [bytearray(base64.b64decode(b)) for b in json.load(open(src))]
b = blobs[blob]
off = off if off >= 0 else len(b) + off
b[off] = int(sys.argv[5]) if len(sys.argv) > 5 else b[off] ^ 1
json.dump([base64.b64encode(x).decode() for x in blobs], open(dst, "w"))
PY
}

"$BENCH" gen-vanilla window-post --sector-size 2KiB --seed 71 --sectors 3 -o window.json \
    >window.txt 2>/dev/null
RND=$(value randomness window.txt)
W="window-post --sector-size 2KiB --randomness $RND"
check "sealed window" 0 "^OK: window.json \(Window PoSt 2KiB, 3 sectors x 10 challenges\)" -- \
    $W --vanilla window.json
check "V1 indexing" 1 "PoSt sector 1 \(id 2\), challenge 0 \(leaf [0-9]+\): the inclusion proof \
opens leaf [0-9]+, not the challenge derived" -- $W --vanilla window.json --registered-proof V1
alter window.json sibling.json 1 140
check "a sibling" 1 "INVALID: sibling.json: PoSt sector 1 \(id 2\), challenge 0 \(leaf [0-9]+\): \
the tree-R path does not hash to comm_r_last" -- $W --vanilla sibling.json
alter window.json position.json 2 364
check "a position" 1 "PoSt sector 2 \(id 3\), challenge 0 \(leaf [0-9]+\): the inclusion proof \
opens leaf" -- $W --vanilla position.json
alter window.json comm-c.json 0 -64
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
OMP_NUM_THREADS=1 /usr/bin/time -f "%e s wall, %U+%S CPU-s, %M KB peak" -o gen-time.txt \
    "$BENCH" gen-vanilla window-post --sector-size 32GiB --seed 73 -o w32.json >w32.txt 2>/dev/null
echo "     gen-vanilla window-post 32GiB, 2349 sectors, one thread: $(cat gen-time.txt)"
TIMER="/usr/bin/time -f %e_s_wall,_%U+%S_CPU-s,_%M_KB_peak -o check-time.txt"
check "sparse 32GiB window partition" 0 "Window PoSt 32GiB, 2349 sectors x 10 challenges" -- \
    window-post --sector-size 32GiB --randomness "$(value randomness w32.txt)" --vanilla w32.json
TIMER=
echo "     verify-vanilla window-post 32GiB (read and check): $(tr _ ' ' <check-time.txt)"
rm -f w32.json
"$BENCH" gen-vanilla winning-post --sector-size 32GiB --seed 74 -o win32.json >win32.txt 2>/dev/null
check "sparse 32GiB winning" 0 "Winning PoSt 32GiB, 1 sector x 66" -- winning-post \
    --sector-size 32GiB --randomness "$(value randomness win32.txt)" --vanilla win32.json
"$BENCH" gen-vanilla window-post --sector-size 64GiB --seed 75 --sectors 100 \
    --registered-proof V1 -o w64.json >w64.txt 2>/dev/null
check "sparse 64GiB window, V1" 0 "Window PoSt 64GiB, 100 sectors" -- window-post \
    --sector-size 64GiB --randomness "$(value randomness w64.txt)" --registered-proof V1 \
    --vanilla w64.json
echo "verify_vanilla_post: $passed passed, $failed failed"
[ "$failed" = 0 ]
