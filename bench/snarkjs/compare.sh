#!/bin/sh
# Side by side with snarkjs on the same zkey and witness: bits65k.circom
# (65,130 constraints, 2^16 domain) compiled with circom2 --prime bls12381,
# `snarkjs groth16 prove` against `cuzk snarkjs prove`: with every zkey
# point checked (--check-params), checked on the first run and by digest on
# the next (the default), and unchecked (--trusted); every proof checked
# with `snarkjs groth16 verify`. The zkey is a development one written by
# `cuzk snarkjs setup` (snarkjs would need a prepared 2^16 powers of tau, 35
# minutes on 2 cores), or snarkjs' own from PTAU when given.
# Usage: compare.sh BUILD_DIR SOURCE_DIR [PTAU]
set -eu
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
PTAU=${3:-}
PKG="$SRC/tests/snarkjs"
WORK="$BUILD/snarkjs-bench"
mkdir -p "$WORK"
cd "$WORK"
[ -d "$PKG/node_modules" ] || npm ci --prefix "$PKG" --no-audit --no-fund >/dev/null
SNARKJS="$PKG/node_modules/.bin/snarkjs"
if [ ! -f bits65k.zkey ]; then
    "$PKG/node_modules/.bin/circom2" "$SRC/bench/snarkjs/bits65k.circom" --r1cs --wasm --prime bls12381 -o . >/dev/null
    if [ -n "$PTAU" ]; then
        "$SNARKJS" groth16 setup bits65k.r1cs "$PTAU" bits65k.zkey >/dev/null
    else
        "$BUILD/tools/cuzk" snarkjs setup bits65k.r1cs -o bits65k.zkey
    fi
    "$SNARKJS" zkey export verificationkey bits65k.zkey bits65k.vk.json >/dev/null
    node -e 'const x=[];let v=1n;for(let i=0;i<130;i++){v=(v*6364136223846793005n+1442695040888963407n)%(1n<<250n);x.push(v.toString())}require("fs").writeFileSync("input.json",JSON.stringify({x,y:"12345"}))'
    node bits65k_js/generate_witness.js bits65k_js/bits65k.wasm input.json bits65k.wtns
fi
# cuzk's digest cache of checked zkeys, empty before the first checked run.
export XDG_CACHE_HOME="$WORK/cache"
rm -rf "$XDG_CACHE_HOME"
now() { date +%s.%N; }
# run LABEL CMD...: times CMD, then has snarkjs verify the proof it wrote.
run() {
    label=$1
    shift
    t0=$(now)
    "$@" bits65k.zkey bits65k.wtns proof.json public.json
    t1=$(now)
    "$SNARKJS" groth16 verify bits65k.vk.json public.json proof.json | grep -q OK
    awk -v l="$label" -v a="$t0" -v b="$t1" 'BEGIN { printf "%-44s %6.2f s\n", l, b - a }' | tee -a times.txt
}
: >times.txt
run "snarkjs groth16 prove" "$SNARKJS" groth16 prove
run "cuzk snarkjs prove --check-params" "$BUILD/tools/cuzk" snarkjs prove --check-params
run "cuzk snarkjs prove (first run, checked)" "$BUILD/tools/cuzk" snarkjs prove
run "cuzk snarkjs prove (later run, digest)" "$BUILD/tools/cuzk" snarkjs prove
run "cuzk snarkjs prove --trusted" "$BUILD/tools/cuzk" snarkjs prove --trusted
awk '{ t[NR] = $(NF - 1) } END {
    printf "speed-up over snarkjs: checked first run %.1fx, later run %.1fx, --trusted %.1fx\n", t[1] / t[3], t[1] / t[4], t[1] / t[5]
    printf "later run / --trusted: %.2f; first run / --check-params: %.2f (all proofs verified by snarkjs)\n", t[4] / t[5], t[3] / t[2] }' times.txt
