#!/bin/bash
# priority.sh - issue 24's measurement: Winning PoSt at CRITICAL and Window
# PoSt at HIGH sent while a PoRep batch keeps the GPU busy, through one
# cuzk-daemon; their latency against the same proofs on the idle daemon,
# the PoRep throughput with and without them, every proof verified.
#
#   scripts/priority.sh [-t SECONDS] [-w BASE] [-n COUNT] [-j J] [-b BACKEND]
#                       [-m BUDGET] [-W N] [-H N] [-P N] [-Q N] [-L LOG] [-N NICE]
#                       [-S SIZE]
#                       [BUNDLE] [SIZE]
#
#   BUNDLE    scripts/bundle.sh's folder (bin/, lib/) or a build folder
#             (tools/); default gpu-bundle if it exists, else build
#   SIZE      the PoRep sector size, 32GiB (default); 2KiB .. 512MiB make the
#             same run small (a check of the script on any machine). The
#             Window PoSt proofs are 2KiB ones (parameters of a few MB)
#   -t        wall-clock budget in seconds (default 570)
#   -w        work folder (default data/porep32-SIZE, shared with
#             scripts/porep32.sh: its C1 A and parameters are reused, made
#             here the same way when missing; the PoSt inputs go to post/)
#   -n, -j    PoRep proofs per batch (default 12) and requests in flight (3)
#   -b, -m    gpus.backend (auto) and memory.total_budget (auto)
#   -W, -H    Winning PoSt proofs sent during the loaded batch (default 36)
#             and Window PoSt ones (default 12); 5 of each also on the idle
#             daemon
#   -P, -Q    pipeline.partitions_per_start and max_gpu_queue_depth (the
#             daemon's defaults when not given)
#   -L        gpus.small_lane_max_log (the daemon's default, 19, when not
#             given; 0: no small-circuit lane, so the PoSt proofs wait for
#             the running PoRep partitions as before it)
#   -N        synthesis.nice (0, the daemon's default, when not given): the
#             ordinary synthesis workers niced, so the threads that feed
#             the GPU and the lane get the host's cores first
#   -S        the Winning PoSt sector size (default 2KiB; 32GiB: the
#             production circuit, 370,590 constraints, 192 MB of
#             parameters, which fits the small-circuit lane at 2^19)
#
# The run: inputs and parameters (reused when present); the daemon; one
# PoRep proof (the parameters' load) and the idle PoSt proofs, one at a
# time; a PoRep batch alone (the baseline); the same batch again with the
# PoSt proofs sent spaced over it (from 10% of the baseline's wall time
# in, at intervals that spread them over 80% of it), each as its own
# `cuzk-bench single` request; the daemon stopped; every proof verified by
# `cuzk verify` (PoRep against C1 A, PoSt against their vanilla proofs and
# randomness). Reported: latency p50 / p99 / max per kind, idle and
# loaded (the client's wall time of each request), how many were sent while
# the batch ran, their GPU time (the daemon's gpu= timing), the PoRep
# throughput and steady seconds per proof of both batches and the loss
# beyond the PoSt proofs' GPU time, nvidia-smi's utilization during the
# loaded batch. To stdout and to $OUT/priority.md when OUT is set, the logs
# packed into $OUT/priority-logs.tar.gz, however the script ends.
set -u
ARGS="$*"
BUDGET=570 WORK= COUNT=12 J=3 BACKEND=auto MEM=auto N_WIN=36 N_WIN_W=12 PER_START= DEPTH= LANE= NICE=
WSIZE=2KiB
while getopts t:w:n:j:b:m:W:H:P:Q:L:N:S:h opt; do
    case $opt in
    t) BUDGET=$OPTARG ;;
    w) WORK=$OPTARG ;;
    n) COUNT=$OPTARG ;;
    j) J=$OPTARG ;;
    b) BACKEND=$OPTARG ;;
    m) MEM=$OPTARG ;;
    W) N_WIN=$OPTARG ;;
    H) N_WIN_W=$OPTARG ;;
    P) PER_START=$OPTARG ;;
    Q) DEPTH=$OPTARG ;;
    L) LANE=$OPTARG ;;
    N) NICE=$OPTARG ;;
    S) WSIZE=$OPTARG ;;
    *) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
. "$(dirname "$0")/run-common.sh"
run_begin priority "${1:-}" "${2:-}"
WORK=${WORK:-data/porep32-$SIZE}
mkdir -p "$WORK/params" "$WORK/post" "$WORK/prio-logs"
WORK=$(cd "$WORK" && pwd)
LOGS=$WORK/prio-logs PROOFS=$WORK/prio-proofs POST=$WORK/post
rm -rf "$LOGS"/* "$PROOFS"
mkdir -p "$PROOFS"
REPORT=$LOGS/report.md
: >"$REPORT"
A=$WORK/c1-a.json
SOCK=/tmp/cuzk-priority-$$.sock
PID= SAMPLER= FAILED=0 SENDERS=

cleanup() {
    out_save priority.md priority-logs.tar.gz "$WORK" prio-logs
    for p in $SENDERS; do kill "$p" 2>/dev/null; done
    stop_daemon
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "# Priority under a PoRep $SIZE stream through cuzk-daemon ($STARTED)"
say ""
say "machine: $(machine)"
say "binaries: $BIN"
say "command: scripts/priority.sh $ARGS  (budget $BUDGET s, batches of $COUNT x $J in flight," \
    "$N_WIN Winning PoSt $WSIZE CRITICAL + $N_WIN_W Window PoSt 2KiB HIGH)"
say ""

# ---- inputs and parameters (reused when present) ----
# post_size KIND: the sector size of that PoSt kind's requests;
# post_input KIND: its files' stem (.json vanilla, .txt values, .setup).
post_size() { [ "$1" = winning-post ] && echo "$WSIZE" || echo 2KiB; }
post_input() { local s; s=$(post_size "$1"); [ "$s" = 2KiB ] && echo "$POST/$1" || echo "$POST/$1-$s"; }
inputs() {
    if [ ! -s "$A" ]; then
        boxed 120 "$BIN/cuzk-bench" gen-vanilla porep --sparse --sector-size "$SIZE" --seed 1 \
            --sector-id 1 -o "$A.tmp" >"$LOGS/gen-a.out" 2>&1 && mv "$A.tmp" "$A" ||
            { bad "gen-vanilla porep: $(tail -1 "$LOGS/gen-a.out")"; return 1; }
    fi
    if ! ls "$WORK/params"/*stacked-proof-of-replication*.params >/dev/null 2>&1; then
        boxed "$BUDGET" "$BIN/cuzk" setup --kind porep --sector-size "$SIZE" \
            --param-cache "$WORK/params" >"$LOGS/setup-porep.out" 2>&1 ||
            { bad "cuzk setup porep: $(tail -1 "$LOGS/setup-porep.out")"; return 1; }
    fi
    for k in winning-post:21:1 window-post:31:2; do
        local kind=${k%%:*} rest=${k#*:}
        local seed=${rest%%:*} sectors=${rest#*:} size v
        size=$(post_size "$kind") v=$(post_input "$kind")
        if [ ! -s "$v.json" ]; then
            boxed 120 "$BIN/cuzk-bench" gen-vanilla "$kind" --sector-size "$size" --seed "$seed" \
                --sectors "$sectors" -o "$v.json" >"$v.txt" \
                2>"$LOGS/gen-$kind.err" ||
                { bad "gen-vanilla $kind $size: $(tail -1 "$LOGS/gen-$kind.err")"; return 1; }
        fi
        if [ ! -e "$v.setup" ]; then
            boxed 300 "$BIN/cuzk" setup --kind "$kind" --sector-size "$size" \
                --param-cache "$WORK/params" >"$LOGS/setup-$kind.out" 2>&1 &&
                touch "$v.setup" ||
                { bad "cuzk setup $kind $size: $(tail -1 "$LOGS/setup-$kind.out")"; return 1; }
        fi
    done
    say "- inputs: C1 A $A, Winning PoSt $WSIZE and Window PoSt 2KiB vanilla proofs and" \
        "parameters in $POST and $WORK/params"
}

daemon_start() {
    cat >"$LOGS/cuzk.toml" <<CONF
[daemon]
listen = "unix://$SOCK"
[srs]
param_cache = "$WORK/params"
[gpus]
backend = "$BACKEND"
${LANE:+small_lane_max_log = $LANE}
[synthesis]
${NICE:+nice = $NICE}
[memory]
total_budget = "$MEM"
[pipeline]
${PER_START:+partitions_per_start = $PER_START}
${DEPTH:+max_gpu_queue_depth = $DEPTH}
CONF
    "$BIN/cuzk-daemon" -c "$LOGS/cuzk.toml" 2>"$LOGS/daemon.log" &
    PID=$!
    daemon_up "unix://$SOCK"
}

# post KIND TAG: one PoSt request (winning at CRITICAL, window at HIGH); its
# log LOGS/TAG.out gets "sent <ms>" first, the proof PROOFS/TAG.bin.
post() {
    local kind=$1 tag=$2 t prio v
    [ "$kind" = winning ] && t=winning-post prio=critical || t=window-post prio=high
    v=$(post_input $t)
    echo "sent $(ms)" >"$LOGS/$tag.out"
    boxed "$BUDGET" "$BIN/cuzk-bench" -a "unix://$SOCK" single -t "$kind" --vanilla "$v.json" \
        --randomness "$(value randomness "$v.txt")" --registered-proof \
        "$(value registered_proof "$v.txt")" --sector-size "$(post_size $t)" --priority "$prio" \
        -o "$PROOFS/$tag.bin" >>"$LOGS/$tag.out" 2>&1 || echo "exit $?" >>"$LOGS/$tag.out"
}

# senders DELAY_MS PERIOD_MS: the loaded batch's PoSt requests, each in the
# background: Winning every PERIOD, Window every 3 PERIOD (offset by half).
senders() {
    local delay=$1 period=$2 i
    sleep "$(awk -v d="$delay" 'BEGIN { print d / 1000 }')"
    local t0
    t0=$(ms)
    for ((i = 0; i < N_WIN || i < N_WIN_W * 3; i++)); do
        if [ $i -lt "$N_WIN" ]; then post winning "load-win-$i" & fi
        if [ $((i % 3)) = 1 ] && [ $((i / 3)) -lt "$N_WIN_W" ]; then
            sleep "$(awk -v p="$period" 'BEGIN { print p / 2000 }')"
            post wpost "load-wpost-$((i / 3))" &
            sleep "$(awk -v p="$period" 'BEGIN { print p / 2000 }')"
        else
            sleep "$(awk -v p="$period" 'BEGIN { print p / 1000 }')"
        fi
    done
    wait
    echo "senders $t0 $(ms)" >"$LOGS/senders.span"
}

# batch NAME: COUNT PoRep proofs of A, J in flight; "start end" in NAME.span.
batch() {
    mkdir -p "$PROOFS/$1"
    local b0
    b0=$(ms)
    boxed "$BUDGET" "$BIN/cuzk-bench" -a "unix://$SOCK" batch -t porep --c1 "$A" \
        --sector-num 1 -c "$COUNT" -j "$J" -o "$PROOFS/$1" >"$LOGS/$1.out" 2>&1 ||
        bad "batch $1 (exit $?): $(tail -1 "$LOGS/$1.out")"
    echo "$b0 $(ms)" >"$LOGS/$1.span"
}

# Latency table rows of the requests LOGS/PREFIX-*.out: n, p50, p99, max of
# the client's wall time, the daemon's GPU ms summed, and how many were
# sent inside the span file's interval (when given).
stats() {
    python3 - "$LOGS" "$1" "${2:-}" <<'PY'
import glob, math, re, sys
logs, prefix, span = sys.argv[1:4]
lo = hi = None
if span:
    lo, hi = map(int, open(span).read().split()[:2])
walls, gpu, inside, failed = [], 0, 0, 0
for f in sorted(glob.glob("%s/%s-*.out" % (logs, prefix))):
    t = open(f).read()
    w = re.search(r"wall time: (\d+) ms", t)
    if not w or "status:    COMPLETED" not in t:
        failed += 1
        continue
    walls.append(int(w.group(1)))
    g = re.search(r"gpu=(\d+) ms", t)
    gpu += int(g.group(1)) if g else 0
    s = re.search(r"sent (\d+)", t)
    if lo is not None and s and lo <= int(s.group(1)) <= hi:
        inside += 1
walls.sort()
pct = lambda p: walls[max(0, math.ceil(p * len(walls)) - 1)] if walls else 0
print("%d %d %d %d %d %d %d" % (len(walls), pct(0.5), pct(0.99), walls[-1] if walls else 0,
                                gpu, inside, failed))
PY
}
row() { # label prefix [span]
    local r
    r=($(stats "$2" "${3:-}"))
    say "| $1 | ${r[0]} | ${r[1]} | ${r[2]} | ${r[3]} | ${r[4]} | ${3:+${r[5]}} |"
    [ "${r[6]}" = 0 ] || bad "$1: ${r[6]} request(s) did not complete"
    POST_GPU=$((POST_GPU + r[4]))
}
# Proofs per minute and steady seconds per proof of batch NAME.
tput() {
    local span wall n
    span=($(cat "$LOGS/$1.span"))
    wall=$((span[1] - span[0]))
    n=$(grep -c ' COMPLETED ' "$LOGS/$1.out")
    awk -v n="$n" -v w="$wall" 'BEGIN { printf "%d %.1f %.2f\n", n, w / 1000, w ? n * 60000 / w : 0 }'
}

if inputs && daemon_start; then
    say "- daemon: $(grep -m1 -io 'backend[^,]*' "$LOGS/daemon.log" || echo '?')"
    boxed "$BUDGET" "$BIN/cuzk-bench" -a "unix://$SOCK" single -t porep --c1 "$A" --sector-num 1 \
        -o "$PROOFS/first.bin" >"$LOGS/first.out" 2>&1 || bad "first PoRep: $(tail -1 "$LOGS/first.out")"
    say "- first PoRep (parameters loaded): $(grep -m1 '^timings' "$LOGS/first.out")"
    for i in 0 1 2 3 4; do post winning "idle-win-$i"; post wpost "idle-wpost-$i"; done
    batch base
    span=($(cat "$LOGS/base.span"))
    base_ms=$((span[1] - span[0]))
    period=$((base_ms * 8 / 10 / (N_WIN > N_WIN_W * 3 ? N_WIN : N_WIN_W * 3)))
    senders $((base_ms / 10)) "$period" &
    SENDERS=$!
    batch load
    wait "$SENDERS"
    SENDERS=
    "$BIN/cuzk-bench" -a "unix://$SOCK" status >"$LOGS/status.out" 2>&1
    stop_daemon
    say ""
    say "## Latency (ms, the client's wall time of each request)"
    say ""
    say "| requests | n | p50 | p99 | max | daemon GPU ms (sum) | sent during the loaded batch |"
    say "|---|---|---|---|---|---|---|"
    POST_GPU=0
    row "Winning PoSt $WSIZE, CRITICAL, idle" idle-win
    row "Window PoSt 2KiB, HIGH, idle" idle-wpost
    POST_GPU=0
    row "Winning PoSt $WSIZE, CRITICAL, during the batch" load-win "$LOGS/load.span"
    row "Window PoSt 2KiB, HIGH, during the batch" load-wpost "$LOGS/load.span"
    say ""
    b=($(tput base)) l=($(tput load))
    lo=$(cut -d' ' -f1 "$LOGS/load.span") hi=$(cut -d' ' -f2 "$LOGS/load.span")
    util=$(awk -v lo="$lo" -v hi="$hi" '$1 >= lo && $1 <= hi { split($3, g, ",") }
        $1 >= lo && $1 <= hi && g[2] != "" { s += g[2]; n++ }
        END { if (n) printf "%.0f%% (%d samples)", s / n, n; else print "n/a (no nvidia-smi)" }' \
        "$LOGS/samples.txt")
    say "## PoRep $SIZE throughput"
    say ""
    say "- alone: ${b[0]} proofs in ${b[1]} s, ${b[2]} proofs/min"
    say "- with the PoSt requests: ${l[0]} proofs in ${l[1]} s, ${l[2]} proofs/min; GPU" \
        "utilization (nvidia-smi) $util"
    say "- $(awk -v b="${b[1]}" -v l="${l[1]}" -v g="$POST_GPU" 'BEGIN {
        extra = l - b; printf "the loaded batch took %.1f s more; the PoSt proofs'"'"' GPU time %.1f s; lost beyond it: %.1f s, %.1f%% of the baseline", extra, g / 1000, extra - g / 1000, b ? (extra - g / 1000) * 100 / b : 0 }')"
    sed -n '/=== Batch Summary/,$p' "$LOGS/load.out" | sed 's/^/  /' | tee -a "$REPORT"
    say ""
else
    bad "inputs or daemon: $(tail -3 "$LOGS/daemon.log" 2>/dev/null)"
fi

# ---- every proof verified, independently of the daemon ----
say "## Verification (cuzk verify)"
ok=0 all=0
verify() { # proof args...
    local p=$1
    shift
    all=$((all + 1))
    if "$BIN/cuzk" verify "$@" --param-cache "$WORK/params" --proof "$p" >>"$LOGS/verify.out" 2>&1
    then ok=$((ok + 1)); else bad "$(basename "$p") rejected"; fi
}
for p in "$PROOFS"/first.bin "$PROOFS"/base/*.bin "$PROOFS"/load/*.bin; do
    [ -s "$p" ] && verify "$p" porep --c1 "$A"
done
for kind in winning-post window-post; do
    tag=win
    [ $kind = window-post ] && tag=wpost
    for p in "$PROOFS"/*-$tag-*.bin; do
        [ -s "$p" ] && verify "$p" --kind $kind --sector-size "$(post_size $kind)" \
            --vanilla "$(post_input $kind).json" --randomness "$(value randomness "$(post_input $kind).txt")"
    done
done
want=$((1 + 2 * COUNT + 10 + N_WIN + N_WIN_W))
say "- $ok of $all proofs valid ($want expected)"
[ "$all" = "$want" ] || bad "$all proofs written, $want expected"
say ""
say "finished in $(($(now) - START)) s; $([ $FAILED = 0 ] && echo 'every step passed' || echo 'SOME STEPS FAILED')"
exit $FAILED
