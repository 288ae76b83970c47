#!/bin/sh
# verify_vanilla.sh BUILD_DIR SOURCE_DIR - `cuzk verify-vanilla porep` on
# the C1 outputs of sealed 2KiB sectors (cuzk-seal): V1_1 as the c1.json
# wrapper and as bare JSON, V1, Synthetic and NI check (exit 0), and so do
# sparse committed-capacity C1s of 2KiB and 32GiB (cuzk-bench gen-vanilla
# porep --sparse; the 32GiB check is timed); single alterations made here
# in the JSON (a label in a parent's column, a tree-R path sibling, a
# tree-D proof's root, the challenged column's index, the seed) are
# refused (exit 1) with the message naming the partition, the challenge,
# its node and the fault; garbage, a truncated file, a missing file, a C1
# short of a partition and a missing --c1 are exit 2.
set -eu
. "$2/tests/integration/lib/verify_vanilla.sh"
vv_start "$1" verify-vanilla-work porep

# alter IN OUT WHAT: writes IN's C1 with one alteration to OUT (the wrapper
# kept, or bare JSON for WHAT=bare) and prints the message expected for it.
alter() {
    python3 - "$@" <<'PY'
import base64, json, sys

src, dst, what = sys.argv[1:4]
wrapper = json.load(open(src))
c1 = json.loads(base64.b64decode(wrapper["Phase1Out"]))
parts = next(iter(c1["vanilla_proofs"].values()))
p = parts[0][1]
node = p["replica_column_proofs"]["c_x"]["column"]["index"]
at = "C1 partition 0, challenge 1 (node %d): " % node
expect = ""
if what == "label":
    rows = p["replica_column_proofs"]["drg_parents"][2]["column"]["rows"]
    assert rows[0] != rows[1]
    rows[0] = rows[1]
    expect = at + "the tree-C path of DRG parent 2 does not hash to comm_c"
elif what == "sibling":
    hashes = p["comm_r_last_proof"]["data"]["Single"]["path"]["path"][0]["hashes"]
    assert hashes[0] != hashes[1]
    hashes[1] = hashes[0]
    expect = at + "the tree-R path does not hash to comm_r_last"
elif what == "root":
    p["comm_d_proofs"]["data"]["Single"]["root"] = c1["comm_r"]
    expect = at + "the tree-D proof's root is not comm_d"
elif what == "index":
    p["replica_column_proofs"]["c_x"]["column"]["index"] = node ^ 1
    expect = at + ("the challenged column is for node %d, not the challenge from "
                   "replica_id and seed" % (node ^ 1))
elif what == "seed":
    c1["seed"][0] ^= 1
    expect = "not the challenge from replica_id and seed"
elif what == "short":
    parts.pop()
if what == "bare":
    out = json.dumps(c1)
else:
    wrapper["Phase1Out"] = base64.b64encode(json.dumps(c1).encode()).decode()
    out = json.dumps(wrapper)
open(dst, "w").write(out)
print(expect)
PY
}

"$SEAL" seal --sector-size 2KiB --seed 41 --c1 c1.json -o sector >/dev/null 2>&1
check "sealed V1_1" 0 "OK: c1.json (StackedDrg2KiBV1_1" -- --c1 c1.json
alter c1.json bare.json bare >/dev/null
check "bare JSON" 0 "" -- --c1 bare.json
for proof in V1 Synthetic NI; do
    "$SEAL" seal --sector-size 2KiB --seed 42 --registered-proof $proof --c1 "c1-$proof.json" \
        -o "sector-$proof" >/dev/null 2>&1
    check "sealed $proof" 0 "" -- --c1 "c1-$proof.json"
done
"$BENCH" gen-vanilla porep --sector-size 2KiB --sparse --seed 43 -o sparse-2k.json >/dev/null
check "sparse 2KiB" 0 "" -- --c1 sparse-2k.json
"$BENCH" gen-vanilla porep --sector-size 32GiB --sparse --seed 44 -o sparse-32g.json >/dev/null
check "sparse 32GiB" 0 "StackedDrg32GiBV1_1, 10 partitions x 18 challenges" -- --c1 sparse-32g.json
rm -f sparse-32g.json
for what in label sibling root index seed; do
    msg=$(alter c1.json "$what.json" "$what")
    check "altered $what" 1 "$msg" -- --c1 "$what.json"
done

echo garbage >garbage.json
check "garbage" 2 "garbage.json: C1 JSON byte 1" -- --c1 garbage.json
head -c 5000 c1.json >truncated.json
check "truncated" 2 "truncated.json" -- --c1 truncated.json
check "missing file" 2 "missing.json" -- --c1 missing.json
alter c1.json short.json short >/dev/null
check "a partition short" 2 "0 partitions, StackedDrg2KiBV1_1 has 1" -- --c1 short.json
check "no --c1" 2 "missing --c1" --
vv_finish verify_vanilla
