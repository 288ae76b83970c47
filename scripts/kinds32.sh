#!/bin/bash
# kinds32.sh - the other proofs Curio sends (issue 23): Winning PoSt,
# Window PoSt or SnapDeals at 32 or 64 GiB proved through cuzk-daemon on
# this machine, every proof verified, timed and measured, in one
# time-boxed command per kind (porep32.sh does PoRep).
#
#   scripts/kinds32.sh [-p PHASES] [-t SECONDS] [-w BASE] [-n COUNT] [-j J]
#                      [-b BACKEND] [-m BUDGET] [-S SECTORS] [-G GIB] KIND [BUNDLE] [SIZE]
#
#   KIND      winning-post, window-post or snap
#   BUNDLE    scripts/bundle.sh's folder (bin/, lib/) or a build folder
#             (tools/); default gpu-bundle if it exists, else build
#   SIZE      sector size, 32GiB (default) or 64GiB; 2KiB .. 512MiB make
#             the same run small (a check of the script on any machine)
#   -p        comma list of phases, in this order (default gen,setup,prove):
#             gen    two test inputs, A (seed 1) and B (seed 2: the
#                    rejection's other data), by `cuzk-bench gen-vanilla`
#                    (sparse above 512MiB: TEST DATA); the values it prints
#                    (randomness, commitments, registered proof) kept beside
#                    each; kept in WORK for reuse
#             setup  `cuzk setup --kind` (DEVELOPMENT parameters from seed
#                    1, on the GPU when one is usable) into WORK/params under
#                    the official file name; every other parameter file there
#                    removed first (a 32 GiB Window PoSt file is about 61 GB:
#                    the disk holds one); skipped when present
#             prove  cuzk-daemon on an ordinary configuration (the parameters
#                    found in srs.param_cache by their official name; no
#                    development flag), Curio's priority for the kind: page
#                    cache dropped (when root), one proof of A cold (SRS load
#                    included), one warm, a batch of COUNT proofs of A with J
#                    requests in flight; every proof verified by `cuzk verify
#                    --kind` against A, and the warm one rejected against B
#   -t        wall-clock budget in seconds for everything asked (default 570)
#   -w        work folder (default data/kinds32-SIZE; the parameters are
#             shared by the kinds, the inputs and logs are per kind)
#   -n, -j    batch size and requests in flight (default 10 and 3 for snap,
#             10 and 1 for winning-post, 10 and 2 for window-post)
#   -b        gpus.backend: auto (default), cuda, cpu
#   -m        memory.total_budget (default auto)
#   -S        gen-vanilla --sectors (Window PoSt: default a full partition)
#   -G        a smaller card emulated for real, as porep32.sh's -G:
#             cuzk-gpu-hold keeps all but GIB GiB of device 0's free memory
#             from before the daemon starts until it is stopped
#
# Measured: input generation (wall, CPU-seconds, peak RSS, size), the
# setup (wall, CPU-seconds, peak RSS, file size), the cold proof with its
# SRS load, each single proof's end-to-end latency (cuzk-bench's wall) with
# the daemon's timings and the daemon's CPU-seconds for it, the batch's
# steady seconds per proof first to last beside the batch's own rate (run-common.sh),
# the daemon's CPU-seconds per proof over the batch by thread, its peak RSS
# (VmHWM) and the device's peak memory (nvidia-smi every 0.5 s). The report
# goes to stdout and to $OUT/kinds32-KIND.md when OUT is set, with the logs
# packed into $OUT/kinds32-KIND-logs.tar.gz, however the script ends.
set -u
ARGS="$*"
PHASES=gen,setup,prove BUDGET=570 WORK= COUNT= J= BACKEND=auto MEM=auto SECTORS= HOLD_GIB=
while getopts p:t:w:n:j:b:m:S:G:h opt; do
    case $opt in
    p) PHASES=$OPTARG ;;
    t) BUDGET=$OPTARG ;;
    w) WORK=$OPTARG ;;
    n) COUNT=$OPTARG ;;
    j) J=$OPTARG ;;
    b) BACKEND=$OPTARG ;;
    m) MEM=$OPTARG ;;
    S) SECTORS=$OPTARG ;;
    G) HOLD_GIB=$OPTARG ;;
    *) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
KIND=${1:-}
# Each kind's names: gen-vanilla, cuzk --kind, cuzk-bench -t, circuit id
# prefix, Curio's priority, default batch and requests in flight.
case $KIND in
winning-post) GEN=winning-post CK=winning-post BT=winning PREFIX=winning PRIO=critical N0=10 J0=1 ;;
window-post) GEN=window-post CK=window-post BT=wpost PREFIX=wpost PRIO=high N0=10 J0=2 ;;
snap) GEN=snap-prove CK=update BT=snap PREFIX=snap PRIO=normal N0=10 J0=3 ;;
*) echo "kinds32.sh: KIND is winning-post, window-post or snap, not '$KIND' (-h: usage)" >&2; exit 2 ;;
esac
COUNT=${COUNT:-$N0} J=${J:-$J0}
. "$(dirname "$0")/run-common.sh"
run_begin "kinds32.sh" "${2:-}" "${3:-}"
kind_circuit kinds32.sh "$PREFIX" "$SIZE"
WORK=${WORK:-data/kinds32-$SIZE}
mkdir -p "$WORK/params" "$WORK/$KIND/logs"
WORK=$(cd "$WORK" && pwd)
PARAMS=$WORK/params
RUN=$WORK/$KIND
LOGS=$RUN/logs
rm -rf "$LOGS"/* "$RUN/proofs"
REPORT=$RUN/report.md
: >"$REPORT"
SOCK=/tmp/cuzk-kinds32-$$.sock
PID= SAMPLER= FAILED=0

trap 'out_save "kinds32-$KIND.md" "kinds32-$KIND-logs.tar.gz" "$RUN" logs; stop_daemon; hold_stop' EXIT
trap 'exit 130' INT TERM

say "# $KIND $SIZE through cuzk-daemon ($STARTED)"
say ""
say "machine: $(machine)"
[ -s "$BUNDLE/MANIFEST" ] && FROM=$(sed -n 2p "$BUNDLE/MANIFEST") || FROM="a build tree"
say "binaries: $BIN ($FROM)"
say "command: scripts/kinds32.sh $ARGS  (phases $PHASES, budget $BUDGET s, circuit $CIRCUIT," \
    "batch $COUNT x $J in flight)"
say ""

# value INPUT NAME: a value gen-vanilla printed for input a or b.
value() { awk -v k="$2" '$1 == k { print $2; exit }' "$RUN/$1.txt"; }
# The request's values of input a or b as cuzk options (cuzk prove --kind's
# names): the randomness for PoSt, the three commitments for SnapDeals.
kind_args() {
    case $KIND in
    snap) echo "--comm-r-old $(value "$1" comm_r_old) --comm-d-new $(value "$1" comm_d_new)" \
        "--comm-r-new $(value "$1" comm_r_new)" ;;
    *) echo "--randomness $(value "$1" randomness)" ;;
    esac
}

# ---- gen: two inputs ----
gen_one() { # name seed
    local f=$RUN/$1.json
    [ -s "$f" ] && [ -s "$RUN/$1.txt" ] && { say "- input $1: reused $f"; return 0; }
    measured "gen-$1" 120 "$BIN/cuzk-bench" gen-vanilla "$GEN" --sector-size "$SIZE" \
        --seed "$2" ${SECTORS:+--sectors "$SECTORS"} -o "$f.tmp" ||
        { bad "gen-vanilla $1 (exit $(ru "gen-$1" exit)): $(tail -1 "$LOGS/gen-$1.err")"; return 1; }
    mv "$f.tmp" "$f"
    grep -E '^[a-z_]+ [0-9a-fA-F]+$' "$LOGS/gen-$1.out" >"$RUN/$1.txt"
    say "- input $1 (seed $2): $(ru "gen-$1" wall) s wall, $(ru "gen-$1" cpu) CPU-s," \
        "peak RSS $(ru "gen-$1" rss) GiB, $(($(stat -c %s "$f") / 1000)) kB;" \
        "$(tr '\n' ' ' <"$RUN/$1.txt" | cut -c1-160)"
}
if has gen; then
    say "## Inputs (cuzk-bench gen-vanilla $GEN --sector-size $SIZE)"
    gen_one a 1 && gen_one b 2
    say ""
fi

# ---- setup: this kind's parameters alone on the disk ----
param_name() { "$BIN/cuzk-daemon" --list-circuits | awk -v id="$CIRCUIT" '$1 == id { print $2 }'; }
if has setup; then
    say "## Parameters"
    NAME=$(param_name)
    for f in "$PARAMS"/*; do
        [ -f "$f" ] || continue
        case $(basename "$f") in
        "$NAME".*) ;;
        *) say "- removed $(basename "$f") ($(stat -c %s "$f") bytes)"; rm -f "$f" ;;
        esac
    done
    if [ -s "$PARAMS/$NAME.params" ]; then
        say "- reused: $NAME.params"
    elif measured setup 420 "$BIN/cuzk" setup --kind "$CK" --sector-size "$SIZE" \
        --param-cache "$PARAMS"; then
        say "- cuzk setup --kind $CK --sector-size $SIZE: $(ru setup wall) s wall," \
            "$(ru setup cpu) CPU-s, peak RSS $(ru setup rss) GiB"
        grep -h '^setup \[' "$LOGS/setup.err" | tail -2 | sed 's/^/  /' | tee -a "$REPORT"
    else
        bad "cuzk setup (exit $(ru setup exit)): $(tail -1 "$LOGS/setup.err")"
    fi
    for f in "$PARAMS/$NAME".*; do
        [ -f "$f" ] && say "- $(basename "$f"): $(stat -c %s "$f") bytes"
    done
    say "- disk left: $(df -h --output=avail "$PARAMS" | tail -1 | tr -d ' ')"
    say ""
fi

# ---- prove: the daemon ----
daemon_start() {
    cat >"$RUN/cuzk.toml" <<CONF
[daemon]
listen = "unix://$SOCK"
[srs]
param_cache = "$PARAMS"
[gpus]
backend = "$BACKEND"
[memory]
total_budget = "$MEM"
CONF
    "$BIN/cuzk-daemon" -c "$RUN/cuzk.toml" 2>"$LOGS/daemon.log" &
    PID=$!
    daemon_up "unix://$SOCK"
}
# cuzk-bench's request of input a: the vanilla file and its values.
request() {
    echo -t "$BT" --vanilla "$RUN/a.json" --priority "$PRIO" \
        --registered-proof "$(value a registered_proof)" --sector-size "$(value a sector_size)" \
        "$(kind_args a)"
}
field() { sed -n "s/.*$2=\([0-9]*\) ms.*/\1/p" "$LOGS/$1.out" | head -1; }
single() { # name file
    local c0
    c0=$(cpu_ticks)
    # shellcheck disable=SC2046 # the request is options and values
    measured "$1" 300 "$BIN/cuzk-bench" -a "unix://$SOCK" single $(request) -o "$2"
    local rc=$?
    if [ $rc != 0 ]; then
        bad "single $1 (exit $rc): $(tail -q -n 2 "$LOGS/$1.out" "$LOGS/$1.err" | grep -v '^$' | tail -1)"
        return 1
    fi
    say "- $1: $(ru "$1" wall) s end to end; daemon: total $(field "$1" total) ms, srs" \
        "$(field "$1" srs) ms, synthesis $(field "$1" synth) ms, gpu $(field "$1" gpu) ms;" \
        "daemon CPU $(awk -v c=$(($(cpu_ticks) - c0)) -v h="$(getconf CLK_TCK)" \
            'BEGIN { printf "%.1f", c / h }') CPU-s"
}
# verify_proof PROOF INPUT: exit of cuzk verify --kind against input a or
# b (PoSt: its vanilla file and randomness; SnapDeals: its commitments).
verify_proof() {
    local vanilla="--vanilla $RUN/$2.json"
    [ "$KIND" = snap ] && vanilla=
    # shellcheck disable=SC2046,SC2086
    "$BIN/cuzk" verify --kind "$CK" --sector-size "$SIZE" --param-cache "$PARAMS" \
        $vanilla $(kind_args "$2") --proof "$1" >>"$LOGS/verify.out" 2>&1
}
batch() {
    local t0 t1 b0 b1 mark hz n_done
    thread_ticks >"$LOGS/threads0.txt"
    t0=$(cpu_ticks) b0=$(ms) mark=$(wc -l <"$LOGS/daemon.log")
    mkdir -p "$RUN/proofs/batch"
    # shellcheck disable=SC2046
    measured batch $((COUNT * 60 + 60)) "$BIN/cuzk-bench" -a "unix://$SOCK" batch $(request) \
        -c "$COUNT" -j "$J" -o "$RUN/proofs/batch" ||
        bad "batch (exit $(ru batch exit)): $(tail -1 "$LOGS/batch.err")"
    t1=$(cpu_ticks) b1=$(ms)
    thread_ticks >"$LOGS/threads1.txt"
    hz=$(getconf CLK_TCK)
    sed -n '/=== Batch Summary/,$p' "$LOGS/batch.out" | sed 's/^/  /' | tee -a "$REPORT"
    n_done=$(grep -c ' COMPLETED ' "$LOGS/batch.out" 2>/dev/null || echo 0)
    steady "$mark" "$n_done" $((b1 - b0))
    say "- daemon CPU over the batch: $(((t1 - t0) / hz)) CPU-s for $n_done proofs" \
        "($(awk -v c=$((t1 - t0)) -v h="$hz" -v n="$n_done" \
            'BEGIN { if (n) printf "%.1f", c / h / n; else print "?" }')" \
        "CPU-s per proof; batch wall $(((b1 - b0) / 1000)) s)"
    [ "$n_done" -gt 0 ] && say "  by thread, CPU-s per proof: $(thread_split "$LOGS/threads0.txt" \
        "$LOGS/threads1.txt" $((t1 - t0)) "$n_done")"
}
verify_all() {
    say "## Verification (cuzk verify --kind $CK, independent of the daemon)"
    local ok=0 all=0 p rc
    for p in "$RUN/proofs"/*.bin "$RUN/proofs/batch"/*.bin; do
        [ -s "$p" ] || continue
        all=$((all + 1))
        if verify_proof "$p" a; then ok=$((ok + 1)); else bad "$(basename "$p") rejected"; fi
    done
    say "- $ok of $all proofs valid against input A (expected: 2 + $COUNT)"
    [ "$all" = $((COUNT + 2)) ] || bad "$all proofs written, $((COUNT + 2)) expected"
    [ -s "$RUN/proofs/warm.bin" ] || return 0
    verify_proof "$RUN/proofs/warm.bin" b
    rc=$?
    [ $rc = 1 ] && say "- the warm proof against input B: rejected (exit 1), as it must be" ||
        bad "the warm proof against input B: exit $rc, expected 1 (invalid)"
}

if has prove; then
    say "## Proving through cuzk-daemon (gpus.backend = $BACKEND, memory.total_budget = $MEM," \
        "priority $PRIO)"
    mkdir -p "$RUN/proofs"
    if cold_daemon; then
        single cold "$RUN/proofs/cold.bin"
        srs_lines "$CIRCUIT"
        single warm "$RUN/proofs/warm.bin"
        batch
        peak=$(awk '/^VmHWM/ { printf "%.1f", $2 / 1048576 }' /proc/"$PID"/status 2>/dev/null)
        "$BIN/cuzk-bench" -a "unix://$SOCK" status >"$LOGS/status.out" 2>&1
        stop_daemon
        hold_stop
        say "- daemon peak RSS (VmHWM): ${peak:-?} GiB"
        samples_summary
        "$BIN/cuzk-bench" timeline "$LOGS/daemon.log" >"$LOGS/timeline.out" 2>&1 &&
            sed 's/^/  /' "$LOGS/timeline.out" | tee -a "$REPORT"
        say ""
        verify_all
    fi
    say ""
fi

say "finished in $(($(now) - START)) s; $([ $FAILED = 0 ] && echo 'every step passed' || echo 'SOME STEPS FAILED')"
exit $FAILED
