#!/bin/sh
# Side by side with snarkjs on the same zkey and witness: bits65k.circom
# (65,130 constraints, 2^16 domain) compiled with circom2 --prime bls12381,
# `snarkjs groth16 prove` against `cuzk snarkjs prove`, both proofs checked
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
now() { date +%s.%N; }
t0=$(now)
"$SNARKJS" groth16 prove bits65k.zkey bits65k.wtns sj.proof.json sj.public.json
t1=$(now)
"$BUILD/tools/cuzk" snarkjs prove --trusted bits65k.zkey bits65k.wtns cz.proof.json cz.public.json
t2=$(now)
"$SNARKJS" groth16 verify bits65k.vk.json sj.public.json sj.proof.json | grep -q OK
"$SNARKJS" groth16 verify bits65k.vk.json cz.public.json cz.proof.json | grep -q OK
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
    printf "snarkjs groth16 prove: %.2f s\ncuzk snarkjs prove:    %.2f s\nspeed-up: %.1fx (both proofs verified by snarkjs)\n",
        b - a, c - b, (b - a) / (c - b) }'
