#!/bin/sh
# circuit_info.sh BUILD_DIR SOURCE_DIR - `cuzk circuit-info --shape`: the
# PoRep 2KiB partition's counts and its recorded shape (the tool fails when
# the shape's fingerprint differs from the counter's), as a table and as
# JSON with the entries of A, B and C known from this circuit; a missing
# --kind and an unknown option are exit 2.
set -eu
CUZK="$(cd "$1" && pwd)/tools/cuzk"
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
fail() {
    echo "FAIL: $*"
    cat "$OUT"
    exit 1
}

"$CUZK" circuit-info --kind porep --sector-size 2KiB --shape >"$OUT" || fail "table exit $?"
grep -q '^shape  *14934693 entries (A 6421005, B 2689006, C 5824682)' "$OUT" || fail "table"
"$CUZK" circuit-info --kind porep --sector-size 2KiB --shape --json >"$OUT" || fail "json exit $?"
grep -q '"constraints_with_inputs":2687961' "$OUT" || fail "json counts"
grep -q '"shape_entries":\[6421005,2689006,5824682\]' "$OUT" || fail "json shape"
for args in "--sector-size 2KiB --shape" "--kind porep --sector-size 2KiB --shapes"; do
    set +e
    "$CUZK" circuit-info $args >"$OUT" 2>&1
    rc=$?
    set -e
    [ "$rc" = 2 ] || fail "circuit-info $args: exit $rc, not 2"
done
echo "circuit_info: PoRep 2KiB counted and its shape recorded (14934693 entries), bad usage exit 2"
