#!/bin/bash
# porep32.sh - the headline run (issue 14): a 32 GiB PoRep C2 proved
# through cuzk-daemon on this machine, every proof verified, timed and
# measured, in one or two time-boxed commands.
#
#   scripts/porep32.sh [-p PHASES] [-t SECONDS] [-w BASE] [-n COUNT] [-j J]
#                      [-b BACKEND] [-m BUDGET] [-P N] [-Q N] [-R] [-F] [-G GIB] [-C LOG]
#                      [-K MODE]
#                      [BUNDLE] [SIZE]
#
#   BUNDLE    scripts/bundle.sh's folder (bin/, lib/) or a build folder
#             (tools/); default gpu-bundle if it exists, else build
#   SIZE      sector size, 32GiB (default); 2KiB .. 512MiB make the same run
#             small (a check of the script itself on any machine)
#   -p        comma list of phases, in this order (default gen,setup,prove):
#             gen    two sparse test C1s, A (seed 1, sector 1) and B (seed 2,
#                    sector 2: the rejection's wrong statement), each checked
#                    by `cuzk verify-vanilla porep`; kept in WORK for reuse
#             setup  `cuzk setup --kind porep` (DEVELOPMENT parameters from
#                    seed 1, on the GPU when one is usable) into WORK/params
#                    under the official file name; skipped when present
#             prove  cuzk-daemon on an ordinary configuration (the parameters
#                    found in srs.param_cache by their official name; no
#                    development flag): page cache dropped (when root), one
#                    proof of A cold (SRS load included), one warm, a batch
#                    of COUNT proofs of A with J requests in flight; every
#                    proof verified by `cuzk verify porep` against A, and
#                    the warm one rejected against B
#             same   one partition (3, or 0 when there is one) of A proved by
#                    `cuzk prove --kind porep --partition K --rs-seed 9`
#                    twice, --synthesis witness and full: the bytes must be
#                    equal; each run's phases (wall s / CPU-s of shape
#                    recording, parameter read, synthesis, proving)
#   -t        wall-clock budget in seconds for everything asked (default 570);
#             the batch ends TAIL_S seconds (environment, default 60) before
#             it, for the daemon's drain, the tables and the verification
#   -w        work folder (default data/porep32-SIZE; kept: C1s, parameters)
#   -n, -j    batch size (default 8) and requests in flight (default 3)
#   -b        gpus.backend: auto (default), cuda, cpu
#   -m        memory.total_budget (default auto: the host's memory less the
#             safety margin), e.g. 96GiB to hold the daemon under 100 GiB
#   -P, -Q    pipeline.partitions_per_start (queued partitions a start takes;
#             default the daemon's, 2) and pipeline.max_gpu_queue_depth
#             (default the daemon's, 2), for an A/B
#   -R        memory.reuse_partitions = false: the partition pool off (each
#             partition synthesized into fresh memory), for an A/B
#   -F        synthesis.witness_only = false: the prover backend's full
#             synthesis (a, b, c on the host) instead of the witness-only
#             path (a, b, c from the recorded shape on the device), for an A/B
#   -G        a smaller card emulated for real: cuzk-gpu-hold (tests/gpu,
#             in BUNDLE or BUNDLE/tests/gpu) takes all but GIB GiB of device
#             0's free memory before the daemon starts and holds it until
#             the daemon is stopped; nothing else is set (the daemon plans
#             with what it finds free)
#   -C        gpus.stream_chunk_log (default the daemon's, 21): the MSM calls
#             a streamed plan wants before it gives a/b/c rows up, for an
#             A/B (at 16 GiB free 19 keeps two rows and parks nothing)
#   -K        gpus.witness_kept (default the daemon's, tight): when the
#             device keeps the witness packed (residency rule 4), for an
#             A/B: first (at 24 GiB free: MSM calls of 2^23, B_G2's of
#             2^20), off (at 16 GiB free: one row, 8 GiB parked each way)
#
# Measured: C1 generation and vanilla check (wall, CPU-seconds), the setup
# (wall, CPU-seconds, peak RSS), the cold SRS load, the single proofs'
# latency with the daemon's synthesis / GPU split, the batch's seconds
# per proof from its first completion to its last beside its own rate
# (proofs over its wall time; run-common.sh's steady), GPU busy
# (`cuzk-bench timeline` over the daemon's TIMELINE lines, and nvidia-smi's
# utilization), the daemon's peak RSS (VmHWM), the device's peak memory
# (nvidia-smi, sampled every 0.5 s), the daemon's CPU-seconds per proof
# over the batch, and per partition the bytes over PCIe by what they carry,
# the copy time and rate, the kernel time and the copy time hidden under
# kernels, the H step's, L/A/B_G1's and B_G2's times and the MSM calls
# (the daemon's per-partition log lines, run-common.sh's xfer_table), with an ESTIMATE for a PCIe 4.0 x16 card at 25 GB/s. The
# report goes to stdout and to $OUT/porep32.md when OUT is set, with the
# logs packed into $OUT/porep32-logs.tar.gz, however the script ends (a
# kill by an outer timeout too: both are written before the daemon is
# stopped).
set -u
ARGS="$*"
PHASES=gen,setup,prove BUDGET=570 WORK= COUNT=8 J=3 BACKEND=auto MEM=auto REUSE=true WITNESS=true
PER_START= DEPTH= HOLD_GIB= CHUNK_LOG= KEPT=
while getopts p:t:w:n:j:b:m:P:Q:RFG:C:K:h opt; do
    case $opt in
    p) PHASES=$OPTARG ;;
    t) BUDGET=$OPTARG ;;
    w) WORK=$OPTARG ;;
    n) COUNT=$OPTARG ;;
    j) J=$OPTARG ;;
    b) BACKEND=$OPTARG ;;
    m) MEM=$OPTARG ;;
    P) PER_START=$OPTARG ;;
    Q) DEPTH=$OPTARG ;;
    R) REUSE=false ;;
    F) WITNESS=false ;;
    G) HOLD_GIB=$OPTARG ;;
    C) CHUNK_LOG=$OPTARG ;;
    K) KEPT=$OPTARG ;;
    *) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
. "$(dirname "$0")/run-common.sh"
run_begin porep32 "${1:-}" "${2:-}"
WORK=${WORK:-data/porep32-$SIZE}
mkdir -p "$WORK/params" "$WORK/logs"
WORK=$(cd "$WORK" && pwd)
LOGS=$WORK/logs
rm -rf "$LOGS"/* "$WORK/proofs"
REPORT=$WORK/report.md
: >"$REPORT"
A=$WORK/c1-a.json B=$WORK/c1-b.json
SOCK=/tmp/cuzk-porep32-$$.sock
PID= SAMPLER= FAILED=0

trap 'out_save porep32.md porep32-logs.tar.gz "$WORK" logs; stop_daemon; hold_stop' EXIT
trap 'exit 130' INT TERM

say "# PoRep $SIZE through cuzk-daemon ($STARTED)"
say ""
say "machine: $(machine)"
[ -s "$BUNDLE/MANIFEST" ] && FROM=$(sed -n 2p "$BUNDLE/MANIFEST") || FROM="a build tree"
say "binaries: $BIN ($FROM)"
say "command: scripts/porep32.sh $ARGS  (phases $PHASES, budget $BUDGET s, batch $COUNT x $J in flight)"
say "OpenMP: OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset (libgomp default)}, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}"
say ""

# ---- gen: two sparse C1s, each checked natively ----
gen_one() { # name seed sector file
    [ -s "$4" ] && { say "- C1 $1: reused $4"; return 0; }
    measured "gen-$1" 120 "$BIN/cuzk-bench" gen-vanilla porep --sparse --sector-size "$SIZE" \
        --seed "$2" --sector-id "$3" -o "$4.tmp" ||
        { bad "gen-vanilla $1 (exit $(ru "gen-$1" exit)): $(tail -1 "$LOGS/gen-$1.err")"; return 1; }
    mv "$4.tmp" "$4"
    say "- C1 $1 (sparse, seed $2, sector $3): $(ru "gen-$1" wall) s wall, $(ru "gen-$1" cpu) CPU-s," \
        "peak RSS $(ru "gen-$1" rss) GiB, $(($(stat -c %s "$4") / 1000000)) MB"
}
if has gen; then
    say "## C1 inputs"
    gen_one a 1 1 "$A" && gen_one b 2 2 "$B"
    for c in a b; do
        f=$WORK/c1-$c.json
        [ -s "$f" ] || continue
        if measured "vv-$c" 60 "$BIN/cuzk" verify-vanilla porep --c1 "$f"; then
            say "- verify-vanilla $c: accepted, $(ru "vv-$c" wall) s wall, $(ru "vv-$c" cpu) CPU-s"
        else
            bad "verify-vanilla $c (exit $(ru "vv-$c" exit)): $(tail -1 "$LOGS/vv-$c.err")"
        fi
    done
    say ""
fi

# ---- setup: the parameters under their official name ----
if has setup; then
    say "## Parameters"
    if ls "$WORK/params"/*.params >/dev/null 2>&1; then
        say "- reused: $(ls "$WORK/params"/*.params)"
    elif measured setup 420 "$BIN/cuzk" setup --kind porep --sector-size "$SIZE" \
        --param-cache "$WORK/params"; then
        say "- cuzk setup --kind porep --sector-size $SIZE: $(ru setup wall) s wall," \
            "$(ru setup cpu) CPU-s, peak RSS $(ru setup rss) GiB"
        grep -h '^setup \[' "$LOGS/setup.err" | tail -2 | sed 's/^/  /' | tee -a "$REPORT"
    else
        bad "cuzk setup (exit $(ru setup exit)): $(tail -1 "$LOGS/setup.err")"
    fi
    for f in "$WORK/params"/*; do
        [ -f "$f" ] && say "- $(basename "$f"): $(stat -c %s "$f") bytes"
    done
    say ""
fi

# ---- prove: the daemon ----
daemon_start() {
    cat >"$WORK/cuzk.toml" <<CONF
[daemon]
listen = "unix://$SOCK"
[srs]
param_cache = "$WORK/params"
[gpus]
backend = "$BACKEND"
${CHUNK_LOG:+stream_chunk_log = $CHUNK_LOG}
${KEPT:+witness_kept = \"$KEPT\"}
[memory]
total_budget = "$MEM"
reuse_partitions = $REUSE
[synthesis]
witness_only = $WITNESS
[pipeline]
${PER_START:+partitions_per_start = $PER_START}
${DEPTH:+max_gpu_queue_depth = $DEPTH}
CONF
    "$BIN/cuzk-daemon" -c "$WORK/cuzk.toml" 2>"$LOGS/daemon.log" &
    PID=$!
    daemon_up "unix://$SOCK"
}
field() { sed -n "s/.*$2=\([0-9]*\) ms.*/\1/p" "$LOGS/$1.out" | head -1; }
single() { # name file
    measured "$1" 300 "$BIN/cuzk-bench" -a "unix://$SOCK" single -t porep --c1 "$A" \
        --sector-num 1 -o "$2"
    local rc=$?
    if [ $rc != 0 ]; then
        bad "single $1 (exit $rc): $(tail -q -n 2 "$LOGS/$1.out" "$LOGS/$1.err" | grep -v '^$' | tail -1)"
        return 1
    fi
    say "- $1: $(ru "$1" wall) s wall; daemon: total $(field "$1" total) ms, srs load" \
        "$(field "$1" srs) ms, synthesis $(field "$1" synth) ms, gpu $(field "$1" gpu) ms"
}
verify_proof() { # proof c1 -> exit of cuzk verify porep
    "$BIN/cuzk" verify porep --c1 "$2" --param-cache "$WORK/params" --proof "$1" \
        >>"$LOGS/verify.out" 2>&1
}

if has prove; then
    say "## Proving through cuzk-daemon (gpus.backend = $BACKEND, memory.total_budget = $MEM, reuse_partitions = $REUSE, witness_only = $WITNESS${CHUNK_LOG:+, stream_chunk_log = $CHUNK_LOG}${KEPT:+, witness_kept = $KEPT})"
    mkdir -p "$WORK/proofs"
    if cold_daemon; then
        single cold "$WORK/proofs/cold.bin"
        srs_lines "$CIRCUIT"
        single warm "$WORK/proofs/warm.bin"
        # the plan the proofs ran under, in the report before the batch (a
        # kill during the batch or the drain still leaves it there)
        boxed 20 "$BIN/cuzk-bench" -a "unix://$SOCK" status >"$LOGS/status-warm.out" 2>&1
        grep 'plan:' "$LOGS/status-warm.out" | sed 's/^ */- device memory plan (after the warm proof): /' |
            tee -a "$REPORT"
        thread_ticks >"$LOGS/threads0.txt"
        t0=$(cpu_ticks) b0=$(ms) mark=$(wc -l <"$LOGS/daemon.log")
        mkdir -p "$WORK/proofs/batch"
        # the batch leaves TAIL_S (default 60) of the budget for the
        # drain, the tables and the verification
        blim=$((COUNT * 60 + 60)) tail_left=$(($(left) - ${TAIL_S:-60}))
        [ "$tail_left" -lt "$blim" ] && blim=$tail_left
        [ "$blim" -gt 0 ] || blim=1
        measured batch "$blim" "$BIN/cuzk-bench" -a "unix://$SOCK" batch -t porep \
            --c1 "$A" --sector-num 1 -c "$COUNT" -j "$J" -o "$WORK/proofs/batch" ||
            bad "batch (exit $(ru batch exit)): $(tail -1 "$LOGS/batch.err")"
        t1=$(cpu_ticks) b1=$(ms)
        thread_ticks >"$LOGS/threads1.txt"
        hz=$(getconf CLK_TCK)
        sed -n '/=== Batch Summary/,$p' "$LOGS/batch.out" | sed 's/^/  /' | tee -a "$REPORT"
        n_done=$(grep -c ' COMPLETED ' "$LOGS/batch.out")
        steady "$mark" "$n_done" $((b1 - b0))
        say "- daemon CPU over the batch: $(((t1 - t0) / hz)) CPU-s for $n_done proofs" \
            "($(awk -v c=$((t1 - t0)) -v h="$hz" -v n="$n_done" 'BEGIN { if (n) printf "%.0f", c / h / n; else print "?" }')" \
            "CPU-s per proof; batch wall $(((b1 - b0) / 1000)) s)"
        [ "$n_done" -gt 0 ] && say "  by thread, CPU-s per proof: $(thread_split "$LOGS/threads0.txt" \
            "$LOGS/threads1.txt" $((t1 - t0)) "$n_done")"
        peak=$(awk '/^VmHWM/ { printf "%.1f", $2 / 1048576 }' /proc/"$PID"/status 2>/dev/null)
        "$BIN/cuzk-bench" -a "unix://$SOCK" status >"$LOGS/status.out" 2>&1
        stop_daemon
        hold_stop
        grep 'plan:' "$LOGS/status.out" | sed 's/^ */- device memory plan: /' | tee -a "$REPORT"
        say "- daemon peak RSS (VmHWM): ${peak:-?} GiB"
        samples_summary
        "$BIN/cuzk-bench" timeline "$LOGS/daemon.log" >"$LOGS/timeline.out" 2>&1 &&
            sed 's/^/  /' "$LOGS/timeline.out" | tee -a "$REPORT"
        say ""
        say "## Bytes over PCIe per partition (counted at the copy sites, timed by CUDA events)"
        say ""
        xfer_table "$LOGS/daemon.log" >"$LOGS/xfer.md"
        awk '/^\|/ { if (++r <= 32) print; else more++; next }
             { if (more) { print "(" more " more rows: logs/xfer.md)"; more = 0 } print }
             END { if (more) print "(" more " more rows: logs/xfer.md)" }' \
            "$LOGS/xfer.md" | tee -a "$REPORT"
        planned=$(sed -n 's/.*moved_per_partition_mib=\([0-9.]*\).*/\1/p' "$LOGS/status.out" | head -1)
        [ -n "$planned" ] && say "- planned by the device's plan (residency.cu rule 8, jobs and" \
            "results not included): $(awk -v m="$planned" 'BEGIN { printf "%.2f", m / 1024 }') GiB per partition"
        say ""
        say "## Verification (cuzk verify porep, independent of the daemon)"
        ok=0 all=0
        for p in "$WORK/proofs"/*.bin "$WORK/proofs/batch"/*.bin; do
            [ -s "$p" ] || continue
            all=$((all + 1))
            [ "$(left)" -gt 3 ] || { bad "$(basename "$p") not verified: no time left"; continue; }
            if verify_proof "$p" "$A"; then ok=$((ok + 1)); else bad "$(basename "$p") rejected"; fi
        done
        say "- $ok of $all proofs valid against C1 A (expected: 2 + $COUNT)"
        [ "$all" = $((COUNT + 2)) ] || bad "$all proofs written, $((COUNT + 2)) expected"
        # a work folder made by priority.sh (C1 A only) lacks C1 B: made here (a second)
        if [ -s "$WORK/proofs/warm.bin" ] && { [ -s "$B" ] || gen_one b 2 2 "$B"; }; then
            verify_proof "$WORK/proofs/warm.bin" "$B"
            rc=$?
            [ $rc = 1 ] && say "- the warm proof against C1 B: rejected (exit 1), as it must be" ||
                bad "the warm proof against C1 B: exit $rc, expected 1 (invalid)"
        fi
    fi
    say ""
fi

# ---- same: one partition both ways, the same bytes ----
if has same && [ -s "$A" ]; then
    say "## One partition, witness-only and full synthesis (cuzk prove, --rs-seed 9)"
    PART=3
    [ "$SIZE" = 32GiB ] || [ "$SIZE" = 64GiB ] || PART=0
    for syn in witness full; do
        if measured "same-$syn" 240 "$BIN/cuzk" prove --kind porep --c1 "$A" \
            --param-cache "$WORK/params" --partition $PART --rs-seed 9 --synthesis $syn \
            -o "$WORK/same-$syn.bin"; then
            say "- $syn: $(ru "same-$syn" wall) s wall, $(ru "same-$syn" cpu) CPU-s, peak RSS" \
                "$(ru "same-$syn" rss) GiB"
            grep -h "phases\|^partition" "$LOGS/same-$syn.err" | sed 's/^/  /' | tee -a "$REPORT"
        else
            bad "cuzk prove --synthesis $syn (exit $(ru "same-$syn" exit)):" \
                "$(tail -1 "$LOGS/same-$syn.err")"
        fi
    done
    if [ -s "$WORK/same-witness.bin" ] && [ -s "$WORK/same-full.bin" ]; then
        cmp -s "$WORK/same-witness.bin" "$WORK/same-full.bin" &&
            say "- partition $PART: the two paths wrote the same 192 bytes" ||
            bad "partition $PART: the witness-only and full proofs differ"
    fi
    say ""
fi

say "finished in $(($(now) - START)) s; $([ $FAILED = 0 ] && echo 'every step passed' || echo 'SOME STEPS FAILED')"
exit $FAILED
