#!/bin/bash
# mixed.sh - a day of Curio on one host (issue 24, section 3): replays for
# a given time what Curio sends one machine through one cuzk-daemon: a
# PoRep stream and a SnapDeals stream (NORMAL), a Window PoSt deadline of
# several partitions every few minutes (HIGH, all partitions at once), a
# Winning PoSt every 30 s (CRITICAL), under a memory budget; every proof
# verified independently afterwards (`cuzk verify porep`, `cuzk verify
# --kind`), and a report.
#
#   scripts/mixed.sh [-t SECONDS] [-m BUDGET] [-b BACKEND] [-w BASE]
#                    [-P SIZE] [-S SIZE] [-W SIZE] [-N SIZE]
#                    [-d SECONDS] [-p PARTS] [-n SECONDS] [-c N] [-s N]
#                    [-i IDS] [-r IDS] [-H SECONDS] [-T SECONDS] [BUNDLE]
#
#   BUNDLE  scripts/bundle.sh's folder or a build folder (default gpu-bundle
#           if it exists, else build)
#   -t      replay time in seconds (default 300); requests still running
#           then are waited for (at most -T seconds more, default 600), the
#           daemon stopped, the proofs verified; 0: only make the
#           inputs and parameters (a first call on a machine with a time
#           limit per command)
#   -m      memory.total_budget (default "auto")
#   -b      gpus.backend (default auto)
#   -w      work folder BASE/mixed (inputs and parameters, kept for the next
#           run; default data)
#   -P -S -W -N  sector size of PoRep, SnapDeals, Window PoSt, Winning PoSt
#           (2KiB, 8MiB, 512MiB; PoRep also 32GiB, 64GiB: a sparse C1;
#           default 2KiB each)
#   -d      seconds between Window PoSt deadlines (default 120; the first
#           at 20 s)
#   -p      partitions per deadline (default 4: sectors 2 x PARTS)
#   -n      seconds between Winning PoSts (default 30)
#   -c -s   PoRep / SnapDeals requests kept in flight (default 2 / 1; 0: no
#           such stream, its inputs not made)
#   -i      srs.pinned, comma list of circuit ids (default: the two PoSt
#           circuits); "" for none
#   -r      srs.preload, comma list (default none)
#   -H      read each deadline's Window PoSt set this many seconds ahead of
#           it (`cuzk-bench preload --priority 3 --hold H+10`, the
#           daemon's read-ahead; default 0: none); with -i to leave the
#           Window PoSt circuit out of srs.pinned
#
# Inputs (in BASE/mixed, reused): `cuzk-bench gen-vanilla` per kind (PoRep
# sparse above 512MiB; the PoSt and update vanillas of sectors sealed from
# seeds), DEVELOPMENT parameters by `cuzk setup --kind` (on the GPU when
# usable). The replay: each stream a loop of `cuzk-bench single` clients,
# one line per request (kind, start, end, exit, proof) in LOGS/requests.txt;
# a sampler every 0.5 s (daemon VmRSS, nvidia-smi memory and utilization).
# Report: per kind requests, failures, latency p50 / p99 / max (client
# wall time), proofs per minute; per deadline the time from its first
# request to its last proof; parameter loads, evictions and seconds
# loading per set (metrics); budget and its peak, peak RSS, peak device
# memory, GPU busy (TIMELINE union and nvidia-smi mean); verification.
# Goals checked: nothing failed, every proof verified, budget peak <=
# budget, every deadline within 60 s. Exit 0 when all hold, 1 otherwise.
# The report goes to stdout and $OUT/mixed.md when OUT is set, with the
# logs in $OUT/logs (else BASE/mixed/logs).
set -u
ARGS="$*"
TIME=300 MEM=auto BACKEND=auto BASE=data PS=2KiB SS=2KiB WS=2KiB NS=2KiB
DL=120 PARTS=4 WIN=30 CP=2 CS=1 PIN=- PRE= TAIL=600 AHEAD=0
while getopts t:m:b:w:P:S:W:N:d:p:n:c:s:i:r:H:T:h opt; do
    case $opt in
    t) TIME=$OPTARG ;;
    m) MEM=$OPTARG ;;
    b) BACKEND=$OPTARG ;;
    w) BASE=$OPTARG ;;
    P) PS=$OPTARG ;;
    S) SS=$OPTARG ;;
    W) WS=$OPTARG ;;
    N) NS=$OPTARG ;;
    d) DL=$OPTARG ;;
    p) PARTS=$OPTARG ;;
    n) WIN=$OPTARG ;;
    c) CP=$OPTARG ;;
    s) CS=$OPTARG ;;
    i) PIN=$OPTARG ;;
    r) PRE=$OPTARG ;;
    H) AHEAD=$OPTARG ;;
    T) TAIL=$OPTARG ;;
    *) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ -d gpu-bundle ] && BUNDLE=${1:-gpu-bundle} || BUNDLE=${1:-build}
. "$(dirname "$0")/run-common.sh"
use_bundle mixed "$BUNDLE"
STARTED=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
mkdir -p "$BASE/mixed"
WORK=$(cd "$BASE/mixed" && pwd)
LOGS=${OUT:+$OUT/logs}
LOGS=${LOGS:-$WORK/logs}
rm -rf "$LOGS" "$WORK/proofs"
mkdir -p "$LOGS" "$WORK/proofs" "$WORK/params"
SOCK=$WORK/cuzk.sock
REPORT=$LOGS/report.md
: >"$REPORT"
die() { say "mixed: $*"; stop_daemon; exit 1; }

if [ "$PIN" = - ]; then
    kind_circuit mixed winning "$NS" && PIN=$CIRCUIT
    kind_circuit mixed wpost "$WS" && PIN="$PIN,$CIRCUIT"
fi
ids() { echo "$1" | awk -F, '{ for (i = 1; i <= NF; i++) if ($i != "") printf "%s\"%s\"", (n++ ? ", " : ""), $i }'; }
comms() { awk '$1 ~ /^comm_/ { gsub("_", "-", $1); printf " --%s %s", $1, $2 }' "$1"; }

# ---- inputs: vanilla proofs and parameters, made once per size ----
gen() { # kind size file [args]: gen-vanilla unless the file is there
    local kind=$1 size=$2 file=$3
    shift 3
    [ -s "$file" ] && return 0
    "$BIN/cuzk-bench" gen-vanilla "$kind" --sector-size "$size" "$@" -o "$file.tmp" \
        >"${file%.json}.txt.tmp" 2>>"$LOGS/gen.err" || die "gen-vanilla $kind $size failed (gen.err)"
    mv "${file%.json}.txt.tmp" "${file%.json}.txt" && mv "$file.tmp" "$file"
}
sparse=
case $PS in 32GiB | 64GiB) sparse=--sparse ;; esac
gen porep "$PS" "$WORK/porep-$PS.json" $sparse --seed 1
[ "$CS" = 0 ] || gen snap-prove "$SS" "$WORK/snap-$SS.json" --seed 41
gen window-post "$WS" "$WORK/wpost-$WS-$PARTS.json" --seed 31 --sectors $((2 * PARTS))
gen winning-post "$NS" "$WORK/winning-$NS.json" --seed 21
SETUPS=("porep $PS" "window-post $WS" "winning-post $NS")
[ "$CS" = 0 ] || SETUPS+=("update $SS")
for k in "${SETUPS[@]}"; do
    set -- $k
    "$BIN/cuzk" setup --kind "$1" --sector-size "$2" --param-cache "$WORK/params" \
        >>"$LOGS/setup.out" 2>&1 || die "cuzk setup --kind $1 $2 failed (setup.out)"
done
# Curio sends each partition its own sectors' vanilla proofs: the file's
# JSON array split two sectors a partition (the PoSt partition size below
# 32GiB) into WORK/wpost-SIZE-PARTS-P.json.
python3 - "$WORK/wpost-$WS-$PARTS.json" "$PARTS" <<'PY' || die "cannot split the Window PoSt vanilla"
import json, sys
blobs = json.load(open(sys.argv[1]))
for p in range(int(sys.argv[2])):
    json.dump(blobs[2 * p:2 * p + 2], open(sys.argv[1][:-5] + "-%d.json" % p, "w"))
PY
[ "$TIME" = 0 ] && { echo "mixed: inputs and parameters ready in $WORK"; exit 0; }
WRND=$(value randomness "$WORK/wpost-$WS-$PARTS.txt")
NRND=$(value randomness "$WORK/winning-$NS.txt")

# ---- the daemon ----
cat >"$WORK/cuzk.toml" <<CONF
[daemon]
listen = "unix://$SOCK"
[srs]
param_cache = "$WORK/params"
pinned = [$(ids "$PIN")]
preload = [$(ids "$PRE")]
[memory]
total_budget = $([ "$MEM" = auto ] && echo '"auto"' || echo "\"$MEM\"")
[gpus]
backend = "$BACKEND"
CONF
"$BIN/cuzk-daemon" -c "$WORK/cuzk.toml" 2>"$LOGS/daemon.log" &
PID=$!
daemon_up "unix://$SOCK" || die "cuzk-daemon did not answer: $(tail -1 "$LOGS/daemon.log")"

# ---- the replay ----
T0=$(ms)
END=$((T0 + TIME * 1000))
REQ=$LOGS/requests.txt
: >"$REQ"
# one NAME KIND PRIORITY ARGS...: one request, its line in requests.txt.
one() {
    local name=$1 kind=$2 prio=$3
    shift 3
    local t=$(ms)
    "$BIN/cuzk-bench" -a "unix://$SOCK" single -t "$kind" --priority "$prio" "$@" \
        -o "$WORK/proofs/$name.bin" >"$LOGS/req-$name.out" 2>&1
    local rc=$?
    echo "$kind $name $((t - T0)) $(($(ms) - T0)) $rc" >>"$REQ"
}
stream() { # slot kind: requests one after the other until END
    local i=0
    while [ "$(ms)" -lt "$END" ]; do
        i=$((i + 1))
        case $2 in
        porep) one "porep-$1-$i" porep normal --c1 "$WORK/porep-$PS.json" --sector-num 1 ;;
        snap) one "snap-$1-$i" snap normal --sector-size "$SS" --vanilla "$WORK/snap-$SS.json" $(comms "$WORK/snap-$SS.txt") ;;
        esac
    done
}
every() { # period first kind: a deadline or a winning PoSt every period s,
    # on time whether or not the previous one has finished
    local n=0 next=$((T0 + $2 * 1000))
    while [ "$next" -lt "$END" ]; do
        sleep "$(awk -v d=$((next - $(ms))) 'BEGIN { print (d > 0 ? d / 1000 : 0) }')"
        n=$((n + 1))
        if [ "$3" = wpost ]; then
            for p in $(seq 0 $((PARTS - 1))); do
                one "wpost-$n-$p" wpost high --sector-size "$WS" --vanilla "$WORK/wpost-$WS-$PARTS-$p.json" \
                    --randomness "$WRND" --partition "$p" &
            done
        else
            one "winning-$n" winning critical --sector-size "$NS" --vanilla "$WORK/winning-$NS.json" \
                --randomness "$NRND" &
        fi
        next=$((next + $1 * 1000))
    done
    wait
}
ahead() { # each deadline's Window PoSt set read AHEAD s before it, held
    # until 10 s after it opens (the daemon's read-ahead, PreloadSRS at HIGH)
    local next=$((T0 + 20000)) at
    kind_circuit mixed wpost "$WS"
    while [ "$next" -lt "$END" ]; do
        at=$((next - AHEAD * 1000))
        sleep "$(awk -v d=$((at - $(ms))) 'BEGIN { print (d > 0 ? d / 1000 : 0) }')"
        "$BIN/cuzk-bench" -a "unix://$SOCK" preload -c "$CIRCUIT" --priority 3 \
            --hold $(((next - $(ms)) / 1000 + 10)) >>"$LOGS/readahead.out" 2>&1
        next=$((next + DL * 1000))
    done
}
REPLAY=
[ "$AHEAD" -gt 0 ] && { ahead & REPLAY="$REPLAY $!"; }
for s in $(seq "$CP"); do stream "$s" porep & REPLAY="$REPLAY $!"; done
for s in $(seq "$CS"); do stream "$s" snap & REPLAY="$REPLAY $!"; done
every "$DL" 20 wpost &
REPLAY="$REPLAY $!"
every "$WIN" 5 winning &
REPLAY="$REPLAY $!"
TAIL_END=$(($(now) + TIME + TAIL))
alive() { for p in $REPLAY; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
while alive && [ "$(now)" -lt "$TAIL_END" ]; do sleep 1; done
"$BIN/cuzk-bench" -a "unix://$SOCK" metrics >"$LOGS/metrics.txt" 2>&1
"$BIN/cuzk-bench" -a "unix://$SOCK" status >"$LOGS/status.txt" 2>&1
WALL=$((($(ms) - T0) / 1000))
stop_daemon

# ---- verification, independent of the daemon ----
verify() { # kind name
    local p=$WORK/proofs/$2.bin
    case $1 in
    porep) "$BIN/cuzk" verify porep --c1 "$WORK/porep-$PS.json" --param-cache "$WORK/params" \
        --proof "$p" ;;
    snap) "$BIN/cuzk" verify --kind update --sector-size "$SS" --param-cache "$WORK/params" \
        $(comms "$WORK/snap-$SS.txt") --proof "$p" ;;
    winning) "$BIN/cuzk" verify --kind winning-post --sector-size "$NS" --param-cache \
        "$WORK/params" --vanilla "$WORK/winning-$NS.json" --randomness "$NRND" --proof "$p" ;;
    wpost) "$BIN/cuzk" verify --kind window-post --sector-size "$WS" --param-cache \
        "$WORK/params" --vanilla "$WORK/wpost-$WS-$PARTS.json" --randomness "$WRND" --proof "$p" ;;
    esac >>"$LOGS/verify.out" 2>&1
}
VOK=0 VBAD=0
while read -r kind name _ _ rc; do
    [ "$rc" = 0 ] && [ "$kind" != wpost ] || continue
    if verify "$kind" "$name"; then VOK=$((VOK + 1)); else VBAD=$((VBAD + 1)); echo "rejected: $name" >>"$LOGS/verify.out"; fi
done <"$REQ"
# a deadline's partitions in order make one proof of the whole vanilla file
for d in $(awk '$1 == "wpost" && $5 == 0 { split($2, a, "-"); print a[2] }' "$REQ" | sort -un); do
    parts=$(for p in $(seq 0 $((PARTS - 1))); do echo "$WORK/proofs/wpost-$d-$p.bin"; done)
    if cat $parts >"$WORK/proofs/wpost-$d.bin" 2>/dev/null && verify wpost "wpost-$d"; then
        VOK=$((VOK + PARTS))
    else
        VBAD=$((VBAD + PARTS)); echo "rejected: deadline $d" >>"$LOGS/verify.out"
    fi
done

# ---- the report ----
metric() { awk -v m="$1" '$1 == m { print $2 }' "$LOGS/metrics.txt"; }
per_set() { awk -v m="$1" 'index($1, m "{") == 1 { sub(/.*circuit="/, "", $1); sub(/".*/, "", $1); printf "%s%s %s", s, $1, $2; s = ", " }' "$LOGS/metrics.txt"; }
BUDGET=$(metric cuzk_memory_budget_bytes) PEAK=$(metric cuzk_memory_peak_bytes)
say "# mixed.sh: a day of Curio on one host"
say ""
say "Machine: $(machine). Started $STARTED; command: scripts/mixed.sh $ARGS"
say "Sizes: PoRep $PS, SnapDeals $SS, Window PoSt $WS ($PARTS partitions per deadline every ${DL} s), Winning PoSt $NS (every ${WIN} s); PoRep $CP / Snap $CS in flight; replay ${TIME} s (${WALL} s with the tail); srs.pinned [$PIN], srs.preload [$PRE]; read-ahead ${AHEAD} s; backend $BACKEND."
say ""
say "| kind | requests | failed | p50 s | p99 s | max s | proofs/min (whole run) |"
say "|---|---|---|---|---|---|---|"
for k in porep snap wpost winning; do
    awk -v k=$k -v wall="$WALL" '$1 == k { n++; if ($5 != 0) f++; else { l[++m] = ($4 - $3) / 1000 } }
        END { if (!n) { printf "| %s | 0 | | | | | |\n", k; exit }
              for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (l[j] < l[i]) { t = l[i]; l[i] = l[j]; l[j] = t }
              p50 = m ? l[int((m - 1) * 0.50) + 1] : 0; p99 = m ? l[int((m - 1) * 0.99) + 1] : 0
              printf "| %s | %d | %d | %.2f | %.2f | %.2f | %.2f |\n", k, n, f, p50, p99, m ? l[m] : 0, m * 60 / wall }' "$REQ" |
        tee -a "$REPORT"
done
say ""
DLS=$(awk '$1 == "wpost" { split($2, a, "-"); d = a[2]; if ($5 != 0) bad[d] = 1
        if (!(d in s) || $3 < s[d]) s[d] = $3; if ($4 > e[d]) e[d] = $4 }
    END { for (d in s) if (d in bad) printf "%d:failed\n", d; else printf "%d:%.1f\n", d, (e[d] - s[d]) / 1000 }' "$REQ" | sort -n)
say "Window PoSt deadlines, first request to last proof (s): $(echo $DLS | sed 's/ /, /g')"
say "Parameter loads: $(per_set cuzk_srs_loads_total); evictions: $(per_set cuzk_srs_evictions_total); seconds loading: $(per_set cuzk_srs_load_seconds_total)"
say "Memory: budget $((BUDGET >> 20)) MiB, budget peak $((PEAK >> 20)) MiB, peak RSS $(($(metric cuzk_process_resident_peak_bytes) >> 20)) MiB (metrics)"
samples_summary
BUSY=$("$BIN/cuzk-bench" timeline "$LOGS/daemon.log" 2>/dev/null |
    awk '/^device/ { sub(":", "", $2); printf "%sdevice %s %s", s, $2, $(NF - 3); s = ", " }')
say "GPU busy: ${BUSY:-n/a} (TIMELINE)"
say "Verification (cuzk verify, independent of the daemon): $VOK accepted, $VBAD rejected"
FAILED=$(awk '$5 != 0' "$REQ" | wc -l)
SLOW=$(echo "$DLS" | awk -F: '$2 == "failed" || $2 > 60' | wc -l)
OK=1
[ "$FAILED" = 0 ] || { OK=0; say "GOAL MISSED: $FAILED request(s) failed (LOGS/req-*.out)"; }
[ "$VBAD" = 0 ] || { OK=0; say "GOAL MISSED: $VBAD proof(s) rejected"; }
[ "${PEAK:-0}" -le "${BUDGET:-0}" ] || { OK=0; say "GOAL MISSED: budget peak above the budget"; }
[ "$SLOW" = 0 ] || { OK=0; say "GOAL MISSED: $SLOW deadline(s) over 60 s"; }
[ "$OK" = 1 ] && say "Goals held: nothing failed, every proof verified, budget never exceeded, every deadline within 60 s."
[ -n "${OUT:-}" ] && cp "$REPORT" "$OUT/mixed.md"
[ "$OK" = 1 ]
