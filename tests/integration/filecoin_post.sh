#!/bin/sh
# Filecoin Winning and Window PoSt 2KiB end to end on the CPU, through the
# programs a storage provider would use: `cuzk-bench gen-vanilla` seals
# test sectors and writes their vanilla proofs (Curio's JSON blob files,
# the randomness on stdout), `cuzk setup --kind` makes development
# parameters under the official file names (cached in BUILD/param-cache
# between runs), `cuzk prove --kind` proves every partition, `cuzk verify
# --kind` accepts the proof, and rejects it for other public inputs
# (another randomness; Window PoSt's V1 challenges instead of V1_2); the
# same for sparse committed-capacity sectors (gen-vanilla --sparse).
# Usage: filecoin_post.sh BUILD_DIR SOURCE_DIR
set -eu
BUILD=$(cd "$1" && pwd)
CUZK="$BUILD/tools/cuzk"
BENCH="$BUILD/tools/cuzk-bench"
WORK="$BUILD/filecoin-post-work"
CACHE="$BUILD/param-cache"
mkdir -p "$WORK" "$CACHE"
cd "$WORK"
passed=0

# value NAME FILE: the value gen-vanilla printed for NAME.
value() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }

# rejects WHAT ARGS...: `cuzk verify ARGS` must exit 1 (invalid).
rejects() {
    what=$1
    shift
    set +e
    "$CUZK" verify "$@"
    rc=$?
    set -e
    if [ "$rc" != 1 ]; then
        echo "FAILED: a proof verified (or errored, exit $rc) for $what"
        echo "filecoin_post: $passed passed, 1 failed"
        exit 1
    fi
    passed=$((passed + 1))
}

# Winning PoSt: one sector, 66 challenges, one partition.
"$BENCH" gen-vanilla winning-post --sector-size 2KiB --seed 21 -o winning.json >winning.txt
RND=$(value randomness winning.txt)
OTHER=$(printf '%s' "$RND" | sed 's/^../00/')
set -- --kind winning-post --sector-size 2KiB --param-cache "$CACHE" --vanilla winning.json
"$CUZK" setup --kind winning-post --sector-size 2KiB --param-cache "$CACHE"
"$CUZK" prove "$@" --randomness "$RND" -o winning.proof
"$CUZK" verify "$@" --randomness "$RND" --proof winning.proof
passed=$((passed + 1))
rejects "another randomness" "$@" --randomness "$OTHER" --proof winning.proof

# Window PoSt: three sectors in partitions of two (the second padded).
"$BENCH" gen-vanilla window-post --sector-size 2KiB --seed 31 --sectors 3 -o window.json >window.txt
RND=$(value randomness window.txt)
set -- --kind window-post --sector-size 2KiB --param-cache "$CACHE" --vanilla window.json \
    --randomness "$RND"
"$CUZK" setup --kind window-post --sector-size 2KiB --param-cache "$CACHE"
"$CUZK" prove "$@" -o window.proof
"$CUZK" verify "$@" --proof window.proof
passed=$((passed + 1))
rejects "V1 challenges" "$@" --registered-proof V1 --proof window.proof

# Sparse committed-capacity sectors (gen-vanilla --sparse: test data, only
# the challenged paths computed) prove and verify the same way.
"$BENCH" gen-vanilla winning-post --sector-size 2KiB --sparse --seed 22 -o winning-sparse.json \
    >winning-sparse.txt
RND=$(value randomness winning-sparse.txt)
set -- --kind winning-post --sector-size 2KiB --param-cache "$CACHE" --vanilla winning-sparse.json \
    --randomness "$RND"
"$CUZK" prove "$@" -o winning-sparse.proof
"$CUZK" verify "$@" --proof winning-sparse.proof
passed=$((passed + 1))
"$BENCH" gen-vanilla window-post --sector-size 2KiB --sparse --seed 32 --sectors 3 \
    -o window-sparse.json >window-sparse.txt
RND=$(value randomness window-sparse.txt)
set -- --kind window-post --sector-size 2KiB --param-cache "$CACHE" --vanilla window-sparse.json \
    --randomness "$RND"
"$CUZK" prove "$@" -o window-sparse.proof
"$CUZK" verify "$@" --proof window-sparse.proof
passed=$((passed + 1))
rejects "sparse, V1 challenges" "$@" --registered-proof V1 --proof window-sparse.proof
echo "filecoin_post: $passed passed, 0 failed"
