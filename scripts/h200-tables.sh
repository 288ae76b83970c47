#!/bin/bash
# h200-tables.sh - the runs whose goals are set for the H200 (issues 22,
# 24), each in one device call, only on an H200: on any other card it
# says which card it found and exits 3 at once, so that a probe of a
# fresh machine costs seconds (give the machine back then).
#
#   scripts/h200-tables.sh TABLE [BUNDLE]
#
#   TABLE   small16 issue 22: 32 GiB PoRep with all but 16 GiB of the
#                   device held, a batch of 10 (the inputs and parameters
#                   made first when /var/tmp/p32 lacks them): about 330 s
#                   on an H100 (323 s), 560 s allowed
#           small24 the same with all but 24 GiB held and
#                   gpus.witness_kept "first": about 240 s after small16
#                   on the same machine, 560 s allowed (room for the
#                   setup when the machine is a fresh one)
#           busy    issue 24: priority.sh, 30 Winning PoSt 32 GiB proofs at
#                   CRITICAL and 6 Window PoSt at HIGH beside a 32 GiB PoRep
#                   stream (batches of 6), about 450 s; right after `small16`
#                   on the same machine it reuses /var/tmp/p32
#           mix     issue 24: five minutes of mixed.sh (PoRep and Winning
#                   PoSt 32 GiB, SnapDeals and Window PoSt 8MiB), about 450
#                   s; the PoRep parameters are linked from /var/tmp/p32
#                   when there (the disk holds one 32 GiB set)
#           wpost32 issue 23: a 32 GiB Window PoSt partition (2349
#                   sectors), cold, warm and 3 in a row, its parameters
#                   made first in /var/tmp/k32 (kinds32.sh -n 3 -j 1), 300 s
#                   allowed: what fits in a call when ~400 s of device
#                   time are left
#   BUNDLE  scripts/bundle.sh's folder (default gpu-bundle)
#
# Each run's report and logs go to $OUT/<run>/ (OUT: the device's output
# folder); the lines that carry the figures are printed at the end. Every
# proof is verified by the scripts it calls (porep32.sh, priority.sh,
# mixed.sh), whose options are as docs/performance.md's "Next device
# session" gives them.
set -u
TABLE=${1:-}
BUNDLE=${2:-gpu-bundle}
OUT=${OUT:-out}
HERE=$(dirname "$0")
case "$TABLE" in small16 | small24 | busy | mix | wpost32) ;; *)
    echo "usage: h200-tables.sh small16|small24|busy|mix|wpost32 [BUNDLE]" >&2
    exit 2
    ;;
esac
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "device: ${name:-none}"
case "$name" in *H200*) ;; *)
    echo "h200-tables: not an H200 (${name:-no GPU}): nothing run"
    exit 3
    ;;
esac
run() { # NAME LIMIT_S SCRIPT ARGS...
    local n=$1 lim=$2
    shift 2
    mkdir -p "$OUT/$n"
    OUT=$OUT/$n timeout -k 5 "$lim" "$@" >"$OUT/$n/run.log" 2>&1
    echo "$n: exit $?"
}
if [ "$TABLE" = small16 ] || [ "$TABLE" = small24 ]; then
    n=g${TABLE#small} kept=
    [ "$n" = g24 ] && kept="-K first"
    # shellcheck disable=SC2086
    TAIL_S=30 run "$n" 570 "$HERE/porep32.sh" -p gen,setup,prove -G "${TABLE#small}" $kept \
        -m 96GiB -n 10 -j 3 -t 560 -w /var/tmp/p32 "$BUNDLE" 32GiB
    grep -E '^- (warm|steady|daemon peak|sampled)|^- [0-9]+ of [0-9]+ proofs valid|rejected|warm partitions' \
        "$OUT/$n/run.log"
elif [ "$TABLE" = wpost32 ]; then
    run wpost32 310 "$HERE/kinds32.sh" -t 300 -n 3 -j 1 -w /var/tmp/k32 window-post "$BUNDLE" 32GiB
    tail -45 "$OUT/wpost32/run.log"
elif [ "$TABLE" = busy ]; then
    run priority 470 "$HERE/priority.sh" -t 460 -n 6 -j 3 -W 30 -H 6 -N 5 -S 32GiB \
        -w /var/tmp/p32 "$BUNDLE" 32GiB
    grep -vE '^\| *[0-9]' "$OUT/priority/run.log" | tail -30
else
    mkdir -p /var/tmp/mixed/params
    for f in /var/tmp/p32/params/*stacked-proof-of-replication*; do
        [ -e "$f" ] && ln -f "$f" /var/tmp/mixed/params/
    done
    run mix-prep 120 "$HERE/mixed.sh" -t 0 -w /var/tmp -P 32GiB -N 32GiB -W 8MiB -S 8MiB "$BUNDLE"
    run mix 420 "$HERE/mixed.sh" -t 300 -T 60 -w /var/tmp -P 32GiB -N 32GiB -W 8MiB -S 8MiB \
        "$BUNDLE"
    grep -vE '^\| *[0-9]' "$OUT/mix/run.log" | tail -25
fi
