#!/bin/sh
# `make run`: the main job on an embedded default. Until the daemon proves
# Filecoin sectors, that is a Groth16 round trip on the circom circuit in
# tests/data/snarkjs (development setup kept in ./data between runs, prove,
# verify, and a proof for wrong public inputs rejected), then the quick
# benchmark table of the arithmetic layer.
# Usage: run.sh BUILD_DIR
set -eu
BUILD=$1
CUZK="$BUILD/tools/cuzk"
CIRCUIT=tests/data/snarkjs/mul3
DATA=data/demo
mkdir -p "$DATA"
if [ ! -f "$DATA/mul3.params" ]; then
    "$CUZK" setup --r1cs "$CIRCUIT.r1cs" -o "$DATA/mul3.params" --vk "$DATA/mul3.vk"
fi
"$CUZK" params info "$DATA/mul3.params"
"$CUZK" prove --params "$DATA/mul3.params" --r1cs "$CIRCUIT.r1cs" --wtns "$CIRCUIT.wtns" \
    -o "$DATA/proof.bin" --public "$DATA/public.json"
"$CUZK" verify --vk "$DATA/mul3.vk" --public "$DATA/public.json" --proof "$DATA/proof.bin"
echo '["109", "3"]' >"$DATA/wrong.json"
if "$CUZK" verify --vk "$DATA/mul3.vk" --public "$DATA/wrong.json" --proof "$DATA/proof.bin" 2>/dev/null; then
    echo "run: a proof verified for wrong public inputs" >&2
    exit 1
fi
echo "wrong public inputs: rejected, as they must be"
"$BUILD/bench/cuzk-microbench" --quick
