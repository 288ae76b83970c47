# lib/verify_vanilla.sh - what the `cuzk verify-vanilla` integration
# scripts share (verify_vanilla.sh, verify_vanilla_post.sh,
# verify_vanilla_update.sh source it; not a test itself):
#
#   vv_start BUILD_DIR WORK_NAME VERB   the tools, a fresh work folder under
#                                       BUILD_DIR (the current folder from
#                                       then on), the subcommand ("porep",
#                                       "update", or "" when each check names it)
#   check NAME EXIT PATTERN -- ARGS     cuzk verify-vanilla VERB ARGS exits
#                                       EXIT, its output matching PATTERN
#                                       (grep -F, or -E when VV_GREP=E; none
#                                       when empty); when VV_TIME names a
#                                       file, timed into it (as `timed`)
#   value NAME FILE                     the value gen-vanilla printed for NAME
#   alter_blob IN OUT BLOB OFFSET       blob BLOB of a JSON list of base64 blobs
#                                       (Curio's format) with byte OFFSET
#                                       (from the end when negative) xored with 1
#   timed LABEL OUT -- CMD...           CMD on one thread, its output to the
#                                       file OUT, its wall and CPU seconds and
#                                       peak RSS printed after LABEL
#   vv_finish NAME                      the count of passed and failed checks;
#                                       the exit status
# shellcheck shell=sh

vv_start() {
    BUILD=$(cd "$1" && pwd)
    CUZK="$BUILD/tools/cuzk"
    BENCH="$BUILD/tools/cuzk-bench"
    SEAL="$BUILD/tools/cuzk-seal"
    WORK="$BUILD/$2"
    VERB=$3
    rm -rf "$WORK"
    mkdir -p "$WORK"
    cd "$WORK"
    passed=0
    failed=0
    VV_TIME=
    VV_GREP=F
}

VV_FORMAT="%e s wall, %U+%S CPU-s, %M KB peak"

# cuzk verify-vanilla VERB ARGS, timed into $VV_TIME when set.
vv_run() {
    # shellcheck disable=SC2086 # VERB is one word or none
    if [ -n "$VV_TIME" ]; then
        /usr/bin/time -f "$VV_FORMAT" -o "$VV_TIME" "$CUZK" verify-vanilla $VERB "$@"
    else
        "$CUZK" verify-vanilla $VERB "$@"
    fi
}

check() {
    name=$1 want=$2 msg=$3
    shift 4
    set +e
    vv_run "$@" >out.txt 2>&1
    rc=$?
    set -e
    if [ "$rc" != "$want" ]; then
        echo "FAIL $name: exit $rc, expected $want"
        cat out.txt
        failed=$((failed + 1))
    elif [ -n "$msg" ] && ! grep -q"$VV_GREP" -- "$msg" out.txt; then
        echo "FAIL $name: the output does not match '$msg'"
        cat out.txt
        failed=$((failed + 1))
    else
        echo "ok   $name: $(head -1 out.txt)"
        passed=$((passed + 1))
    fi
}

value() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }

alter_blob() {
    python3 - "$@" <<'PY'
import base64, json, sys

src, dst, blob, off = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
blobs = [bytearray(base64.b64decode(b)) for b in json.load(open(src))]
b = blobs[blob]
b[off if off >= 0 else len(b) + off] ^= 1
json.dump([base64.b64encode(bytes(x)).decode() for x in blobs], open(dst, "w"))
PY
}

timed() {
    label=$1 out=$2
    shift 3
    OMP_NUM_THREADS=1 /usr/bin/time -f "$VV_FORMAT" -o time.txt "$@" >"$out"
    echo "     $label: $(cat time.txt)"
}

vv_finish() {
    echo "$1: $passed passed, $failed failed"
    [ "$failed" = 0 ]
}
