# run-common.sh - sourced by the GPU-machine run scripts (throughput.sh,
# porep32.sh, multigpu.sh): where the programs are, the clock against a
# deadline, a command boxed by it, one line describing the machine, the
# PoRep circuit id of a sector size, the PoRep run scripts' common start,
# and stopping the daemon a script started.

# use_bundle NAME BUNDLE: BIN := BUNDLE/bin of a scripts/bundle.sh folder
# (its lib/ put on LD_LIBRARY_PATH) or BUNDLE/tools of a build folder;
# exits 2 naming the script when neither holds cuzk-daemon.
use_bundle() {
    if [ -x "$2/bin/cuzk-daemon" ]; then
        BIN=$2/bin
        export LD_LIBRARY_PATH=$2/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    elif [ -x "$2/tools/cuzk-daemon" ]; then
        BIN=$2/tools
    else
        echo "$1: no cuzk-daemon in $2/bin or $2/tools" >&2
        exit 2
    fi
}

now() { date +%s; }
ms() { date +%s%3N; }
# Seconds left before $DEADLINE.
left() { echo $((DEADLINE - $(now))); }

# boxed LIMIT CMD...: CMD under `timeout`, never past $DEADLINE (124 when
# no time is left).
boxed() {
    local limit=$1
    shift
    local l
    l=$(left)
    [ "$limit" -le "$l" ] || limit=$l
    [ "$limit" -gt 0 ] || return 124
    timeout -k 5 "$limit" "$@"
}

# stop_daemon: the daemon the script started ($PID; its sampler $SAMPLER
# first, when one runs): SIGTERM, up to $STOP_WAIT half-seconds (default
# 40) for it to drain and exit, then SIGKILL; its socket $SOCK removed.
stop_daemon() {
    [ -n "${SAMPLER:-}" ] && kill "$SAMPLER" 2>/dev/null && wait "$SAMPLER" 2>/dev/null
    SAMPLER=
    [ -n "${PID:-}" ] || return 0
    kill -TERM "$PID" 2>/dev/null
    for _ in $(seq "${STOP_WAIT:-40}"); do kill -0 "$PID" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$PID" 2>/dev/null
    wait "$PID" 2>/dev/null
    PID=
    rm -f "$SOCK"
}

machine() {
    local cpu mem gpu
    cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
    mem=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
    gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sort |
        uniq -c | awk '{ n = $1; sub(/^ *[0-9]+ /, ""); printf "%s%s%s", s, (n > 1 ? n " x " : ""), $0
            s = "; " }')
    echo "$(uname -n), ${cpu:-unknown CPU} x $(nproc) threads, $mem RAM, GPU: ${gpu:-none}"
}

# porep_circuit NAME SIZE: CIRCUIT := the daemon's PoRep circuit id of a
# sector size; exits 2 naming the script for another size.
porep_circuit() {
    case $2 in
    2KiB) CIRCUIT=porep-2k ;;
    8MiB) CIRCUIT=porep-8m ;;
    512MiB) CIRCUIT=porep-512m ;;
    32GiB) CIRCUIT=porep-32g ;;
    64GiB) CIRCUIT=porep-64g ;;
    *) echo "$1: SIZE is 2KiB, 8MiB, 512MiB, 32GiB or 64GiB, not $2" >&2; exit 2 ;;
    esac
}

# run_begin NAME [BUNDLE] [SIZE]: the PoRep run scripts' start: BUNDLE
# (default gpu-bundle if it exists, else build) and SIZE (default 32GiB)
# resolved through use_bundle and porep_circuit, the clock started
# (START, DEADLINE = START + $BUDGET, STARTED as UTC text).
run_begin() {
    [ -d gpu-bundle ] && BUNDLE=${2:-gpu-bundle} || BUNDLE=${2:-build}
    SIZE=${3:-32GiB}
    START=$(date +%s)
    DEADLINE=$((START + BUDGET))
    STARTED=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
    use_bundle "$1" "$BUNDLE"
    porep_circuit "$1" "$SIZE"
}
