#!/bin/sh
# soak.sh [-d SECONDS] [-o DIR] [-b cpu|cuda] [-s SIZE] [--seed N] [--clients N]
#         [--inputs DIR] [--prepare] [--kinds LIST] [--faults LIST]
#         [--fault-every S] [--every-fault] [--budget S] [--seal] [--stall S]
#
# Starts cuzk-daemon (the systemd unit's command, with --test-circuits and
# --dev-params) and drives it for SECONDS (default 180) with a random mix of
# PoRep, Winning / Window PoSt, SnapDeals (at SIZE, default 2KiB) and test
# circuits from several clients while injecting faults: disconnects,
# cancels, expired deadlines, resubmitted request ids, malformed requests,
# SIGKILL and SIGTERM with restarts, too small memory budgets. Every
# COMPLETED proof is checked by `cuzk verify` as it runs. The last line is
#   soak: N requests, N answered, N completed, N refused with a status,
#         lost N, wrong N, faults: ...
# and the exit status is 0 only when lost and wrong are 0
# (tests/soak/soak.py says what is checked).
#
# -o DIR keeps everything in DIR: DIR/ok/<request_id>.bin and .cmd (one
# line of shell that runs `cuzk verify` on it, exit 0 when valid), the
# daemon's log and configuration, the inputs (elsewhere with --inputs DIR,
# kept and reused by the next run). Without -o a temporary folder is used
# and removed when the soak passes. --prepare makes the inputs and the
# parameters (the warm-up) and stops. --kinds / --faults narrow the run
# (tests/soak/soak_faults.py's names).
#
# --stall SECONDS ends the run (exit 1, its last line ending "STALLED") when
# no request has been answered for that long while some are open, with the
# open requests and, when SOAK_GDB names a gdb command (the GPU machine has
# none: pack one), every thread of the daemon in DIR/stall-stacks.txt.
#
# --every-fault keeps the load going past -d until every fault was injected
# once (at most -d again plus a minute, never past --budget) and fails the
# run when one still was not; --budget SECONDS caps the whole run (inputs, warm-up, load, drain)
# by shortening the load, and a run still going 5 s before it ends prints its
# report (open requests counted as lost, OUT OF TIME) and fails; --seal
# seals a sector above 2KiB instead of the
# sparse test data of `cuzk-bench gen-vanilla --sparse`.
#
# On the H200 (one device call of at most 9.5 minutes, carry gpu-bundle;
# docs/performance.md, "The H200 run"): here
#   scripts/bundle.sh gpu-bundle build && scripts/soak-python.sh gpu-bundle
# there
#   export CUZK_BUILD=$PWD/gpu-bundle CUZK_PARAM_CACHE=/tmp/soak-pc;
#   timeout -k 5 560 scripts/soak.sh -b cuda -s 512MiB -d 480 --budget 550
#     --seed 8 --every-fault -o /tmp/soak >$OUT/soak.log 2>&1; ...
#
# Without a GPU, -b cuda runs on the stand-in CUDA runtime with
# CUZK_DAEMON=build/tests/gpuhost/cuzk-daemon-standin (the daemon with the
# CUDA backend's host code on a stand-in device: its locks, hooks, lane and
# pinned memory, the kernels on the CPU; CI's integration_soak_cuda).
#
# Environment: CUZK_DAEMON (the daemon binary; default the build's
# cuzk-daemon), CUZK_BUILD (default ./build; or a scripts/bundle.sh folder:
# its bin/, lib/ and proto-py/), CUZK_PARAM_CACHE (default
# $CUZK_BUILD/param-cache: development parameters are made there on first
# use and kept), PYTHON (a python3 with grpcio and protobuf; default: the
# first of these that imports them and the build's stubs: the Python that
# scripts/soak-python.sh packed into $CUZK_BUILD/python, /usr/bin/python3
# (Debian's python3-grpcio), python3 on the PATH).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${CUZK_BUILD:-$here/build}" && pwd)
tools=$build/tools
if [ -x "$build/bin/cuzk-daemon" ]; then # a scripts/bundle.sh folder
    tools=$build/bin
    LD_LIBRARY_PATH=$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH
fi
args=""
out=""
while [ $# -gt 0 ]; do
    case "$1" in
    -d | -b | -s | --seed | --clients | --kinds | --faults | --fault-every | --inputs | --budget | --stall)
        [ $# -ge 2 ] || { echo "soak.sh: $1 needs a value" >&2; exit 2; }
        args="$args $1 $2"
        shift 2
        ;;
    -o)
        [ $# -ge 2 ] || { echo "soak.sh: -o needs a folder" >&2; exit 2; }
        out=$2
        shift 2
        ;;
    --prepare | --seal | --every-fault)
        args="$args $1"
        shift
        ;;
    -h | --help)
        sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "soak.sh: unknown option $1 (see --help)" >&2
        exit 2
        ;;
    esac
done
for f in cuzk cuzk-daemon cuzk-bench cuzk-seal; do
    [ -x "$tools/$f" ] || { echo "soak.sh: $tools/$f missing (make build)" >&2; exit 2; }
done
[ -f "$build/proto-py/cuzk/v1/proving_pb2.py" ] ||
    { echo "soak.sh: $build/proto-py missing (make build)" >&2; exit 2; }
# The Python: $PYTHON, else the first that imports grpc, protobuf and the
# build's stubs of: the pack of scripts/soak-python.sh in $CUZK_BUILD,
# /usr/bin/python3, python3 on the PATH (the GPU machine's has its own).
stubs_import() {
    "$1" -c 'import sys; sys.path.insert(0, sys.argv[1]); import grpc, google.protobuf
from cuzk.v1 import proving_pb2, proving_pb2_grpc' "$build/proto-py" >/dev/null 2>&1
}
pack=$build/python
py=${PYTHON:-}
if [ -z "$py" ] && [ -x "$pack/bin/python3" ] &&
    (PYTHONHOME=$pack PYTHONPATH=$pack/packages PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python &&
        export PYTHONHOME PYTHONPATH PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION &&
        stubs_import "$pack/bin/python3"); then
    py=$pack/bin/python3
    PYTHONHOME=$pack PYTHONPATH=$pack/packages PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python
    export PYTHONHOME PYTHONPATH PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION
fi
if [ -z "$py" ]; then
    for c in /usr/bin/python3 python3; do
        if stubs_import "$c"; then py=$c && break; fi
    done
fi
if [ -z "$py" ] || ! stubs_import "$py"; then
    echo "soak.sh: no Python with grpcio and protobuf that imports $build/proto-py" \
        "(${PYTHON:-the pack, /usr/bin/python3, python3}): install python3-grpcio, or pack" \
        "a Python with scripts/soak-python.sh into \$CUZK_BUILD" >&2
    exit 2
fi
echo "soak: $py ($("$py" -c 'import sys, grpc, google.protobuf as p
print("Python %s, grpcio %s, protobuf %s" % (sys.version.split()[0], grpc.__version__, p.__version__))'))"
cache=${CUZK_PARAM_CACHE:-$build/param-cache}
mkdir -p "$cache"
if [ -n "$out" ]; then
    mkdir -p "$out"
    work=$(cd "$out" && pwd)
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-soak.XXXXXX")
fi
set +e
# shellcheck disable=SC2086 # the options are words
"$py" "$here/tests/soak/soak.py" --tools "$tools" --proto-py "$build/proto-py" \
    --unit "$here/dist/cuzk-daemon.service.in" --work "$work" --param-cache "$cache" \
    ${CUZK_DAEMON:+--daemon "$CUZK_DAEMON"} $args
rc=$?
set -e
if [ -z "$out" ]; then
    if [ "$rc" = 0 ]; then rm -rf "$work"; else echo "soak.sh: kept $work" >&2; fi
fi
exit "$rc"
