#!/bin/sh
# snarkjs interoperability, both directions, on circuits compiled with
# circom2 --prime bls12381 and a small powers-of-tau setup (2^9, cached in
# the build directory between runs):
#   snarkjs proves  -> cuzk snarkjs verify accepts; tampered inputs/proof rejected
#   cuzk proves     -> snarkjs groth16 verify accepts
#   bad files (another curve, truncated, wrong witness) -> clear errors, exit 2
# Usage: snarkjs.sh BUILD_DIR SOURCE_DIR
set -eu
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
CUZK="$BUILD/tools/cuzk"
PKG="$SRC/tests/snarkjs"
WORK="$BUILD/snarkjs-work"
mkdir -p "$WORK"
cd "$WORK"
# The digest cache of checked parameter files, fresh for this run.
export XDG_CACHE_HOME="$WORK/cache"
rm -rf "$XDG_CACHE_HOME"

if [ ! -f "$PKG/node_modules/.package-lock.json" ] ||
    [ "$PKG/package-lock.json" -nt "$PKG/node_modules/.package-lock.json" ]; then
    npm ci --prefix "$PKG" --no-audit --no-fund >/dev/null
fi
SNARKJS="$PKG/node_modules/.bin/snarkjs"
CIRCOM="$PKG/node_modules/.bin/circom2"

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAILED: $*"; }
# expect CODE DESCRIPTION CMD...: runs CMD, checks its exit code
expect() {
    want=$1; what=$2; shift 2
    set +e
    "$@" >out.log 2>err.log
    got=$?
    set -e
    if [ "$got" = "$want" ]; then ok "$what"; else bad "$what (exit $got, want $want)"; cat out.log err.log; fi
}

if [ ! -f pot9.ptau ]; then
    "$SNARKJS" powersoftau new bls12381 9 pot9_0.ptau >/dev/null
    "$SNARKJS" powersoftau contribute pot9_0.ptau pot9_1.ptau -e="cuzk test entropy" >/dev/null
    "$SNARKJS" powersoftau prepare phase2 pot9_1.ptau pot9.ptau.tmp >/dev/null
    mv pot9.ptau.tmp pot9.ptau
    rm -f pot9_0.ptau pot9_1.ptau
fi

prepare() { # name input-json
    name=$1
    "$CIRCOM" "$SRC/tests/snarkjs/circuits/$name.circom" --r1cs --wasm --prime bls12381 -o . >/dev/null
    "$SNARKJS" groth16 setup "$name.r1cs" pot9.ptau "${name}_0.zkey" >/dev/null
    "$SNARKJS" zkey contribute "${name}_0.zkey" "$name.zkey" -e="cuzk zkey entropy" >/dev/null
    "$SNARKJS" zkey export verificationkey "$name.zkey" "$name.vk.json" >/dev/null
    echo "$2" >"$name.input.json"
    node "${name}_js/generate_witness.js" "${name}_js/$name.wasm" "$name.input.json" "$name.wtns"
}

roundtrip() { # name
    name=$1
    "$SNARKJS" groth16 prove "$name.zkey" "$name.wtns" "$name.sj.proof.json" "$name.sj.public.json"
    expect 0 "$name: cuzk verifies snarkjs' proof" \
        "$CUZK" snarkjs verify "$name.vk.json" "$name.sj.public.json" "$name.sj.proof.json"
    # wrong public input: the first value plus one
    node -e 'const f=require("fs");const p=JSON.parse(f.readFileSync(process.argv[1]));p[0]=(BigInt(p[0])+1n).toString();f.writeFileSync(process.argv[2],JSON.stringify(p))' \
        "$name.sj.public.json" "$name.wrong.public.json"
    expect 1 "$name: cuzk rejects wrong public inputs" \
        "$CUZK" snarkjs verify "$name.vk.json" "$name.wrong.public.json" "$name.sj.proof.json"
    # tampered proof: pi_a and pi_c swapped (valid points, wrong proof)
    node -e 'const f=require("fs");const p=JSON.parse(f.readFileSync(process.argv[1]));[p.pi_a,p.pi_c]=[p.pi_c,p.pi_a];f.writeFileSync(process.argv[2],JSON.stringify(p))' \
        "$name.sj.proof.json" "$name.tampered.proof.json"
    expect 1 "$name: cuzk rejects a tampered proof" \
        "$CUZK" snarkjs verify "$name.vk.json" "$name.sj.public.json" "$name.tampered.proof.json"

    expect 0 "$name: cuzk proves with the zkey" \
        "$CUZK" snarkjs prove "$name.zkey" "$name.wtns" "$name.cz.proof.json" "$name.cz.public.json"
    if cmp -s "$name.cz.public.json" "$name.sj.public.json"; then ok "$name: same public.json as snarkjs"
    else bad "$name: public.json differs from snarkjs'"; fi
    if "$SNARKJS" groth16 verify "$name.vk.json" "$name.cz.public.json" "$name.cz.proof.json" | grep -q "OK"; then
        ok "$name: snarkjs verifies cuzk's proof"
    else
        bad "$name: snarkjs rejects cuzk's proof"
    fi
    if "$SNARKJS" groth16 verify "$name.vk.json" "$name.wrong.public.json" "$name.cz.proof.json" | grep -q "OK"; then
        bad "$name: snarkjs accepts cuzk's proof with wrong inputs"
    else
        ok "$name: snarkjs rejects cuzk's proof with wrong inputs"
    fi
}

# import: the zkey as .params, proved natively from the r1cs and witness,
# verified by snarkjs and by cuzk; without snarkjs' row order it must fail
native() { # name
    name=$1
    expect 0 "$name: cuzk snarkjs import" "$CUZK" snarkjs import "$name.zkey" -o "$name.params" --vk "$name.vk"
    expect 0 "$name: cuzk params info" "$CUZK" params info "$name.params"
    expect 0 "$name: cuzk params info --check" "$CUZK" params info --check "$name.params"
    expect 0 "$name: native prove with imported params" "$CUZK" prove --params "$name.params" \
        --r1cs "$name.r1cs" --wtns "$name.wtns" -o "$name.bin" --proof-json "$name.np.json" \
        --public "$name.npub.json" --row-order snarkjs
    if "$SNARKJS" groth16 verify "$name.vk.json" "$name.npub.json" "$name.np.json" | grep -q "OK"; then
        ok "$name: snarkjs verifies the native proof"
    else
        bad "$name: snarkjs rejects the native proof"
    fi
    expect 0 "$name: cuzk verify with the imported vk" "$CUZK" verify --vk "$name.vk" --public "$name.npub.json" --proof "$name.bin"
    expect 0 "$name: native prove in bellperson row order" "$CUZK" prove --params "$name.params" \
        --r1cs "$name.r1cs" --wtns "$name.wtns" -o "$name.bp.bin"
    expect 1 "$name: ...which the zkey's key rejects" "$CUZK" verify --vk "$name.vk" --public "$name.npub.json" --proof "$name.bp.bin"
    # our own development setup from the r1cs
    expect 0 "$name: cuzk setup" "$CUZK" setup --r1cs "$name.r1cs" -o "$name.dev.params" --vk "$name.dev.vk"
    expect 0 "$name: cuzk prove" "$CUZK" prove --params "$name.dev.params" --r1cs "$name.r1cs" \
        --wtns "$name.wtns" -o "$name.dev.bin" --public "$name.dev.public.json"
    expect 0 "$name: cuzk verify" "$CUZK" verify --vk "$name.dev.vk" --public "$name.dev.public.json" --proof "$name.dev.bin"
    expect 1 "$name: cuzk verify, wrong inputs" "$CUZK" verify --vk "$name.dev.vk" --public "$name.wrong.public.json" --proof "$name.dev.bin"
}

# a development zkey written by cuzk: snarkjs exports its key, proves with it,
# and accepts cuzk's proofs from it
devzkey() { # name
    name=$1
    expect 0 "$name: cuzk snarkjs setup" "$CUZK" snarkjs setup "$name.r1cs" -o "$name.dev.zkey"
    "$SNARKJS" zkey export verificationkey "$name.dev.zkey" "$name.devvk.json" >/dev/null
    "$SNARKJS" groth16 prove "$name.dev.zkey" "$name.wtns" "$name.dsj.json" "$name.dsjpub.json"
    expect 0 "$name: cuzk verifies snarkjs' proof from cuzk's zkey" \
        "$CUZK" snarkjs verify "$name.devvk.json" "$name.dsjpub.json" "$name.dsj.json"
    expect 0 "$name: cuzk proves with its own zkey" \
        "$CUZK" snarkjs prove "$name.dev.zkey" "$name.wtns" "$name.dcz.json" "$name.dczpub.json"
    if "$SNARKJS" groth16 verify "$name.devvk.json" "$name.dczpub.json" "$name.dcz.json" | grep -q "OK"; then
        ok "$name: snarkjs verifies cuzk's proof from cuzk's zkey"
    else
        bad "$name: snarkjs rejects cuzk's proof from cuzk's zkey"
    fi
}

prepare mul3 '{"a": "3", "b": "5", "c": "7"}'
if [ ! -f bn128.zkey ]; then # the same circuit over bn128, for the wrong-curve checks
    mkdir -p bn128
    "$CIRCOM" "$SRC/tests/snarkjs/circuits/mul3.circom" --r1cs --wasm -o bn128 >/dev/null
    "$SNARKJS" powersoftau new bn128 4 bn128/p0.ptau >/dev/null
    "$SNARKJS" powersoftau contribute bn128/p0.ptau bn128/p1.ptau -e="cuzk" >/dev/null
    "$SNARKJS" powersoftau prepare phase2 bn128/p1.ptau bn128/p.ptau >/dev/null
    "$SNARKJS" groth16 setup bn128/mul3.r1cs bn128/p.ptau bn128/mul3.zkey >/dev/null
    node bn128/mul3_js/generate_witness.js bn128/mul3_js/mul3.wasm mul3.input.json bn128.wtns
    mv bn128/mul3.zkey bn128.zkey
fi
prepare bits '{"x": "1606938044258990275541962092341162602522202993782792835301375", "y": "12345"}'
roundtrip mul3
roundtrip bits
native mul3
native bits
devzkey mul3
devzkey bits

# The digest cache: every zkey and .params file proved with above passed
# the full check once and is remembered by the SHA-256 of its content.
cached() { # format file description
    if [ -f "$XDG_CACHE_HOME/cuzk/checked/$1-$(sha256sum "$2" | cut -c1-64)" ]; then ok "$3"; else bad "$3"; fi
}
cached zkey bits.zkey "bits.zkey remembered as checked"
cached zkey bits.dev.zkey "bits.dev.zkey remembered as checked"
cached params bits.params "bits.params remembered as checked"
rm "$XDG_CACHE_HOME"/cuzk/checked/zkey-*
expect 0 "check-params: full check" "$CUZK" snarkjs prove --check-params bits.zkey bits.wtns x.json y.json
if ls "$XDG_CACHE_HOME"/cuzk/checked/zkey-* >/dev/null 2>&1; then bad "check-params leaves the cache alone"; else ok "check-params leaves the cache alone"; fi
expect 0 "a forgotten zkey is checked again" "$CUZK" snarkjs prove bits.zkey bits.wtns x.json y.json
cached zkey bits.zkey "and remembered again"

# Bad input: each gives exit 2 and a message naming the problem.
expect_msg() { # pattern description cmd...
    pat=$1; what=$2; shift 2
    expect 2 "$what" "$@"
    if grep -q "$pat" err.log; then ok "$what: message names it"; else bad "$what: message '$(cat err.log)' lacks '$pat'"; fi
}
head -c 2000 bits.zkey >truncated.zkey
expect_msg "truncated" "truncated zkey" "$CUZK" snarkjs prove truncated.zkey bits.wtns x.json y.json
expect_msg "witness has" "witness of another circuit" "$CUZK" snarkjs prove bits.zkey mul3.wtns x.json y.json
expect_msg "another curve" "a bn128 zkey" "$CUZK" snarkjs prove bn128.zkey mul3.wtns x.json y.json
expect_msg "another curve" "a bn128 witness" "$CUZK" snarkjs prove mul3.zkey bn128.wtns x.json y.json
expect_msg "not a zkey" "a witness given as zkey" "$CUZK" snarkjs prove bits.wtns bits.wtns x.json y.json
expect_msg "exclude each other" "--trusted with --check-params" "$CUZK" snarkjs prove --trusted --check-params bits.zkey bits.wtns x.json y.json
head -c 1000 bits.params >truncated.params
expect_msg "truncated" "truncated params" "$CUZK" params info truncated.params
head -c 100 bits.bin >short.bin
expect_msg "192" "proof of the wrong length" "$CUZK" verify --vk bits.vk --public bits.npub.json --proof short.bin
expect_msg "JSON" "garbage vk json" "$CUZK" snarkjs verify bits.wtns bits.sj.public.json bits.sj.proof.json

echo "snarkjs interop: $pass passed, $fail failed"
[ "$fail" = 0 ]
