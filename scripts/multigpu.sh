#!/bin/bash
# multigpu.sh - issue 17's run: the PoRep headline run through one
# cuzk-daemon on one GPU (gpus.devices = [0]) and on every GPU of the
# machine (gpus.devices = []), the same binary and the same calls: per
# configuration the single-proof latency (with several devices a proof's
# partitions are split over them) and the proofs per minute of a batch,
# every proof verified, then the ratios. Meant for nvidia-h200-x2; any
# machine with one GPU or more runs it (one GPU: both rows alike).
#
#   scripts/multigpu.sh [-t SECONDS] [-w WORK] [-n COUNT] [-j J] [-m BUDGET]
#                       [-s SYNTH] [-b BACKEND] [BUNDLE] [SIZE]
#
#   BUNDLE    scripts/bundle.sh's folder (bin/, lib/) or a build folder
#             (tools/); default gpu-bundle if it exists, else build
#   SIZE      sector size, 32GiB (default); 2KiB .. 512MiB make the run
#             small (a check of the script itself)
#   -t        wall-clock budget in seconds for everything (default 570)
#   -w        work folder, shared with scripts/porep32.sh (default
#             data/porep32-SIZE): its C1 A (c1-a.json) and parameters
#             (params/); when either is missing, `scripts/porep32.sh -p
#             gen,setup` makes them first, within 60% of the budget
#   -n        proofs per batch run (default 8)
#   -j        requests in flight per device in use (default 3)
#   -m        memory.total_budget (default 200GiB): set, not "auto", since
#             the two-GPU machine reports a small MemTotal at boot that
#             grows only as memory is touched
#   -s        pipeline.synthesis_concurrency (default: the daemon's)
#   -b        gpus.backend (default cuda; cpu checks the script itself on a
#             machine without a GPU: one device in both rows)
#
# Per configuration, in the time left shared equally (its last RESERVE
# seconds kept for the daemon's stop and the verification): cuzk-daemon on a
# generated config (gpus.backend, the devices, the budget), the
# circuit preloaded (SRS load not timed in the proofs), one proof of A
# (`cuzk-bench single`: its wall time and the daemon's synthesis / GPU
# split), then `cuzk-bench batch -c COUNT -j J x devices`: proofs/min as
# cuzk-bench reports it and steady proofs/min from the daemon's job
# completions after the first; `cuzk-bench status` at the end gives each
# device's partitions and busy seconds. Every proof is then checked by
# `cuzk verify porep` against A. The table (machine, command, date) goes
# to stdout and to $OUT/multigpu.md when OUT is set, the logs to
# $OUT/multigpu-logs.tar.gz. NCCL and NVLink are not used: each device
# proves its own partitions.
set -u
ARGS="$*"
BUDGET=570 WORK='' COUNT=8 J=3 MEM=200GiB SYNTH='' BACKEND=cuda
while getopts t:w:n:j:m:s:b:h opt; do
    case $opt in
    t) BUDGET=$OPTARG ;;
    w) WORK=$OPTARG ;;
    n) COUNT=$OPTARG ;;
    j) J=$OPTARG ;;
    m) MEM=$OPTARG ;;
    s) SYNTH=$OPTARG ;;
    b) BACKEND=$OPTARG ;;
    *) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
. "$(dirname "$0")/run-common.sh"
run_begin multigpu "${1:-}" "${2:-}"
WORK=${WORK:-data/porep32-$SIZE}
mkdir -p "$WORK/params"
WORK=$(cd "$WORK" && pwd)
A=$WORK/c1-a.json
RUN=$WORK/multigpu
rm -rf "$RUN"
mkdir -p "$RUN/logs"
LOGS=$RUN/logs ROWS=$RUN/rows.md NOTES=$RUN/notes.txt
: >"$ROWS"
: >"$NOTES"
SOCK=/tmp/cuzk-multigpu-$$.sock
ADDR=unix://$SOCK
PID=
RESERVE=30

note() { echo "$*" | tee -a "$NOTES" >&2; }
trap stop_daemon EXIT
trap 'exit 130' INT TERM

# The C1 and the parameters, from porep32.sh's gen and setup phases.
prepare() {
    if [ -s "$A" ] && ls "$WORK/params"/*.params >/dev/null 2>&1; then
        echo "reused: $A and $(ls "$WORK/params"/*.params | head -1)"
        return 0
    fi
    local script
    script=$(dirname "$0")/porep32.sh
    if [ ! -x "$script" ]; then
        note "no C1 / parameters in $WORK and no $script to make them"
        return 1
    fi
    echo "== making the inputs: $script -p gen,setup" >&2
    boxed $((BUDGET * 60 / 100)) "$script" -p gen,setup -t $((BUDGET * 60 / 100)) -w "$WORK" \
        "$BUNDLE" "$SIZE" >"$LOGS/prepare.out" 2>&1
    if [ ! -s "$A" ] || ! ls "$WORK/params"/*.params >/dev/null 2>&1; then
        note "porep32.sh -p gen,setup did not make the inputs: $(tail -1 "$LOGS/prepare.out")"
        return 1
    fi
    echo "made by porep32.sh -p gen,setup in $(($(now) - START)) s"
}

write_config() { # devices-list
    cat <<CONF
# Written by scripts/multigpu.sh
[daemon]
listen = "$ADDR"
shutdown_grace = "10s"
[srs]
param_cache = "$WORK/params"
[memory]
total_budget = "$MEM"
[gpus]
backend = "$BACKEND"
devices = [$1]
CONF
    [ -z "$SYNTH" ] || printf '[pipeline]\nsynthesis_concurrency = %s\n' "$SYNTH"
}

start_daemon() { # conf log end
    rm -f "$SOCK"
    "$BIN/cuzk-daemon" -c "$1" 2>"$2" &
    PID=$!
    until "$BIN/cuzk-bench" -a "$ADDR" status >/dev/null 2>&1; do
        if ! kill -0 "$PID" 2>/dev/null || [ "$(now)" -ge "$3" ]; then
            note "cuzk-daemon ($1) did not come up: $(tail -1 "$2")"
            stop_daemon
            return 1
        fi
        sleep 0.2
    done
}

# Proofs per minute after the first completion, from the daemon's lines
# "<ISO time> INFO job ID (porep) completed in N ms".
steady_rate() {
    awk '/ INFO job .* completed in / {
        split(substr($1, 12, 12), h, ":"); t = h[1] * 3600 + h[2] * 60 + h[3]
        if (k && t < last) t += 86400
        last = t; times[++k] = t }
        END { if (k > 1 && times[k] > times[1]) printf "%.2f", (k - 1) * 60 / (times[k] - times[1]);
              else printf "-" }'
}

# One configuration: tag, devices list, its share in seconds. Appends a
# row and sets LATS[tag], RATES[tag].
declare -A LATS RATES
run_config() {
    local tag=$1 list=$2 end=$(($(now) + $3)) log=$LOGS/$1-daemon.log
    local lat=- split=- rate=- steady=- proofs=- per=- ndev=0 verified=- mark n j
    write_config "$list" >"$RUN/$tag.toml"
    echo "== $tag: gpus.devices = [$list] ($3 s share)" >&2
    if start_daemon "$RUN/$tag.toml" "$log" "$end"; then
        "$BIN/cuzk-bench" -a "$ADDR" status >"$LOGS/$tag-status0.out" 2>&1
        ndev=$(grep -c '^gpu [0-9]*:' "$LOGS/$tag-status0.out")
        mkdir -p "$RUN/proofs-$tag/batch"
        if ! boxed $((end - $(now))) "$BIN/cuzk-bench" -a "$ADDR" preload -c "$CIRCUIT" \
            >"$LOGS/$tag-preload.out" 2>&1; then
            note "$tag: preload $CIRCUIT failed: $(tail -1 "$LOGS/$tag-preload.out")"
        else
            local t0
            t0=$(ms)
            if boxed $((end - $(now))) "$BIN/cuzk-bench" -a "$ADDR" single -t porep --c1 "$A" \
                --sector-num 1 -o "$RUN/proofs-$tag/single.bin" >"$LOGS/$tag-single.out" 2>&1; then
                lat=$(awk -v t=$(($(ms) - t0)) 'BEGIN { printf "%.1f", t / 1e3 }')
                LATS[$tag]=$lat
                split=$(sed -n 's/.*synth=\([0-9]*\) ms, gpu=\([0-9]*\) ms.*/\1 \2/p' \
                    "$LOGS/$tag-single.out" | awk '{ printf "%.1f + %.1f", $1 / 1e3, $2 / 1e3 }')
            else
                note "$tag: the single proof failed: $(tail -1 "$LOGS/$tag-single.out")"
            fi
            n=$COUNT j=$((J * (ndev > 0 ? ndev : 1)))
            proofs="$n / $j"
            mark=$(wc -l <"$log")
            boxed $((end - $(now) - RESERVE)) "$BIN/cuzk-bench" -a "$ADDR" batch -t porep --c1 "$A" \
                --sector-num 1 -c "$n" -j "$j" -o "$RUN/proofs-$tag/batch" \
                >"$LOGS/$tag-batch.out" 2>&1 || note "$tag: cuzk-bench batch exit $? (see logs)"
            rate=$(awk '/^throughput:/ { print $2 }' "$LOGS/$tag-batch.out")
            [ "$(awk '/^completed:/ { print $2 }' "$LOGS/$tag-batch.out")" = "$n" ] ||
                rate="${rate:--} (partial)"
            steady=$(tail -n +$((mark + 1)) "$log" | steady_rate)
            RATES[$tag]=$steady
        fi
        "$BIN/cuzk-bench" -a "$ADDR" status >"$LOGS/$tag-status.out" 2>&1
        per=$(awk '/^gpu [0-9]*:/ { g = $2 } /partitions_proved=/ {
                for (i = 1; i <= NF; i++) { if ($i ~ /^busy=/) b = substr($i, 6)
                    if ($i ~ /^partitions_proved=/) p = substr($i, 19)
                    if ($i ~ /^state=/) s = substr($i, 7) }
                printf "%s%s %s partitions, %s s busy%s", n++ ? "; " : "", g, p, b,
                    s == "failed" ? " (FAILED)" : "" }' "$LOGS/$tag-status.out")
        stop_daemon
        local ok=0 all=0 p
        for p in "$RUN/proofs-$tag"/single.bin "$RUN/proofs-$tag"/batch/*.bin; do
            [ -s "$p" ] || continue
            all=$((all + 1))
            timeout -k 5 120 "$BIN/cuzk" verify porep --c1 "$A" --param-cache "$WORK/params" \
                --proof "$p" >>"$LOGS/$tag-verify.out" 2>&1 && ok=$((ok + 1))
        done
        verified="$ok of $all"
        [ "$ok" = "$all" ] && [ "$all" = $((COUNT + 1)) ] ||
            note "$tag: $ok of $all proofs verified ($((COUNT + 1)) expected)"
    fi
    echo "| [$list] | $ndev | $lat ($split) | $proofs | $rate | $steady | $per | $verified |" |
        tee -a "$ROWS" >&2
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else printf "-" }'; }

report() {
    echo "### PoRep $SIZE on one GPU and on all GPUs, one daemon (issue 17)"
    echo
    echo "- machine: $(machine)"
    echo "- command: \`scripts/multigpu.sh $ARGS\` (binaries: $BIN)"
    echo "- date: $STARTED, $(($(now) - START)) s wall in all (budget $BUDGET s)"
    echo "- inputs: ${PREPARED:-not made}; gpus.backend $BACKEND, memory.total_budget $MEM," \
        "synthesis_concurrency ${SYNTH:-default}, other keys default"
    echo
    echo "| gpus.devices | devices | single proof s (synth + gpu) | batch -c / -j |" \
        "proofs/min | steady proofs/min | per device (cuzk-bench status) | verified |"
    echo "|---|---|---|---|---|---|---|---|"
    cat "$ROWS"
    echo
    echo "- all / one: steady throughput x$(ratio "${RATES[all]:-}" "${RATES[one]:-}")" \
        "(goal >= 1.9), single-proof latency x$(ratio "${LATS[all]:-}" "${LATS[one]:-}")" \
        "(goal < 1)"
    [ -s "$NOTES" ] && sed 's/^/- /' "$NOTES"
}

echo "== multigpu: $SIZE, budget $BUDGET s, work $WORK" >&2
if PREPARED=$(prepare); then
    run_config one 0 $(((DEADLINE - $(now) - 10) / 2))
    run_config all "" $((DEADLINE - $(now) - 5))
fi
report >"$RUN/multigpu.md"
cat "$RUN/multigpu.md"
if [ -n "${OUT:-}" ]; then
    cp "$RUN/multigpu.md" "$OUT/"
    tar -C "$RUN" -czf "$OUT/multigpu-logs.tar.gz" logs
fi
