# run-common.sh - sourced by the GPU-machine run scripts (throughput.sh,
# porep32.sh, kinds32.sh, multigpu.sh, priority.sh, mixed.sh): where the
# programs are, the clock against a deadline, a command boxed by it, one
# line describing the machine, the circuit id of a kind and sector size,
# the run scripts' common start, a value of a "key value" file, and
# stopping the daemon a script started; for porep32.sh, kinds32.sh,
# priority.sh and mixed.sh also the report ($REPORT, $FAILED), measured
# commands ($LOGS), the started daemon's samples and CPU ($PID) and -G's
# device memory holder (HOLD_GIB).

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

# out_save MD TAR BASE SUB: when OUT is set, the report ($REPORT) as
# $OUT/MD and BASE/SUB packed into $OUT/TAR. The run scripts call it first
# in their EXIT trap, before the daemon's drain, so that a kill by an
# outer timeout still leaves both.
out_save() {
    [ -n "${OUT:-}" ] || return 0
    cp "$REPORT" "$OUT/$1"
    tar -C "$3" -czf "$OUT/$2" "$4"
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

# kind_circuit NAME PREFIX SIZE: CIRCUIT := the daemon's circuit id of a
# kind (its id's prefix: porep, winning, wpost, snap; cuzk-daemon
# --list-circuits) and sector size; exits 2 naming the script for another
# size.
kind_circuit() {
    case $3 in
    2KiB) CIRCUIT=$2-2k ;;
    8MiB) CIRCUIT=$2-8m ;;
    512MiB) CIRCUIT=$2-512m ;;
    32GiB) CIRCUIT=$2-32g ;;
    64GiB) CIRCUIT=$2-64g ;;
    *) echo "$1: SIZE is 2KiB, 8MiB, 512MiB, 32GiB or 64GiB, not $3" >&2; exit 2 ;;
    esac
}
porep_circuit() { kind_circuit "$1" porep "$2"; }

# value KEY FILE: the second field of FILE's first line whose first is KEY
# (gen-vanilla's summaries: randomness, registered_proof, comm_*).
value() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }

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

# ---- the report, measured commands, the daemon's samples (porep32.sh, kinds32.sh, priority.sh, mixed.sh) ----

say() { echo "$*" | tee -a "$REPORT"; }
bad() {
    FAILED=1
    say "FAILED: $*"
}
has() { case ",$PHASES," in *",$1,"*) return 0 ;; esac; return 1; }

# Runs a command under `timeout` (never past the deadline) and appends
# "wall_s user_s sys_s maxrss_kib exit" of it and its children to $LOGS/$1.rusage;
# stdout and stderr go to $LOGS/$1.out / .err.
measured() {
    local name=$1 limit=$2
    shift 2
    [ "$limit" -le "$(left)" ] || limit=$(left)
    [ "$limit" -gt 0 ] || { echo "0 0 0 0 124" >"$LOGS/$name.rusage"; return 124; }
    python3 - "$LOGS/$name" "$limit" "$@" <<'PY'
import resource, subprocess, sys, time
base, limit, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
t = time.time()
with open(base + ".out", "w") as o, open(base + ".err", "w") as e:
    try:
        rc = subprocess.call(["timeout", "-k", "5", str(limit)] + cmd, stdout=o, stderr=e)
    except OSError as x:
        e.write(str(x) + "\n"); rc = 127
u = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(base + ".rusage", "w") as f:
    f.write("%.2f %.2f %.2f %d %d\n" % (time.time() - t, u.ru_utime, u.ru_stime, u.ru_maxrss, rc))
sys.exit(rc)
PY
}
# Fields of a .rusage file: wall, cpu (user + sys), rss in GiB, exit.
ru() { awk -v f="$2" '{ if (f == "wall") print $1; else if (f == "cpu") printf "%.1f\n", $2 + $3;
    else if (f == "rss") printf "%.2f\n", $4 / 1048576; else print $5 }' "$LOGS/$1.rusage"; }

# daemon_up ADDR: waits up to 30 s for the daemon $PID to answer status at
# ADDR (1 when it exits or does not), then samples its RSS and the
# device's memory and utilization every 0.5 s into $LOGS/samples.txt.
daemon_up() {
    local i=0
    until "$BIN/cuzk-bench" -a "$1" status >/dev/null 2>&1; do
        i=$((i + 1))
        kill -0 "$PID" 2>/dev/null && [ $i -lt 300 ] || return 1
        sleep 0.1
    done
    (
        while kill -0 "$PID" 2>/dev/null; do
            echo "$(ms) $(awk '/^VmRSS/ { print $2 }' /proc/"$PID"/status 2>/dev/null)" \
                "$(nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv,noheader,nounits \
                    2>/dev/null | head -1 | tr -d ' ')"
            sleep 0.5
        done
    ) >"$LOGS/samples.txt" &
    SAMPLER=$!
}
# The samples' peaks: one report line; device memory less what -G's
# holder took ($LOGS/hold.out).
samples_summary() {
    local held
    held=$(awk '/^held/ { print $2 }' "$LOGS/hold.out" 2>/dev/null)
    awk -v held="${held:-0}" '{ if ($2 > r) r = $2; split($3, g, ","); if (g[1] > m) m = g[1];
           if (g[2] != "") { s += g[2]; n++ } }
         END { printf "- sampled: peak RSS %.1f GiB, device memory peak %.1f GiB%s, nvidia-smi utilization mean %.0f%% over the daemon'"'"'s life\n",
               r / 1048576, (m - held) / 1024, held ? sprintf(" (less %.1f GiB held by -G)", held / 1024) : "", n ? s / n : 0 }' "$LOGS/samples.txt" | tee -a "$REPORT"
}
# The bytes over PCIe per partition, from the daemon's per-partition log
# lines ("gpu prove: circuit i/n: ... h2d_mib=... copy_ms=... kernel_ms=..."
# of src/gpu/prove: counted at the copy sites, timed by CUDA events): a
# markdown table to stdout, one row a partition in log order, and the
# mean over the partitions that uploaded no parameters (warm), with an
# ESTIMATE for a PCIe 4.0 x16 card at 25 GB/s: the same bytes at that
# rate against the same kernel time, the partition between
# max(kernels, copies) (every copy under kernels) and kernels + copies
# (none). Measured here: the bytes, copy s, GB/s, kernel s, hidden s,
# and the partition's steps: its H step (ntt_msm_h), L/A/B_G1 (batch
# additions and tails), B_G2, and the MSM calls of L/A/B_G1/B_G2 (a
# group's pass: its share of the wall time, each member's own calls),
# and the CPU its helper threads spent (loader, prep, the staging pool's
# copy threads working for it: helper_cpu_ms; the synthesis and the
# prover thread itself are not in it).
xfer_table() { # daemon.log
    awk '
    / gpu prove: circuit [0-9]+\/[0-9]+: / {
        delete f
        for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) f[kv[1]] = kv[2]
        if (!("h2d_mib" in f)) next
        split(f["xfer_mib"], kinds, ",")
        delete b
        for (k in kinds) { split(kinds[k], p, ":"); b[p[1]] = p[2] }
        n++
        gib = (f["h2d_mib"] + f["d2h_mib"]) / 1024
        est = gib * 1073741824 / 25e9
        ks = f["kernel_ms"] / 1000
        if (n == 1) {
            print "| # | circuit | H2D GiB | D2H GiB | points GiB | parked GiB (down/back) | input GiB | shape GiB | params GiB | copies | copy s | GB/s | kernel s | hidden s | gpu_total s | H step s | L/A/B_G1 s | B_G2 s | MSM calls | helper CPU s | ESTIMATE copy s at 25 GB/s | ESTIMATE partition s at 25 GB/s |"
            print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        }
        for (i = 1; i <= NF; i++) if ($i == "circuit") c = $(i + 1)
        sub(":", "", c)
        printf "| %d | %s | %.2f | %.2f | %.2f | %.2f/%.2f | %.2f | %.2f | %.2f | %d | %.2f | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %s | %.2f | %.2f-%.2f |%s\n",
            n, c, f["h2d_mib"] / 1024, f["d2h_mib"] / 1024,
            (b["points"] + b["points_g2"]) / 1024, b["park"] / 1024, b["unpark"] / 1024,
            b["input"] / 1024, b["shape"] / 1024, b["params"] / 1024, f["copies"], f["copy_ms"] / 1000,
            f["link_gbps"], ks, f["hidden_ms"] / 1000, f["gpu_total_ms"] / 1000,
            f["ntt_msm_h_ms"] / 1000, (f["batch_add_ms"] + f["tail_msm_ms"]) / 1000,
            f["b_g2_msm_ms"] / 1000, ("msm_calls" in f) ? f["msm_calls"] : "-",
            ("helper_cpu_ms" in f) ? sprintf("%.2f", f["helper_cpu_ms"] / 1000) : "-", est,
            (est > ks ? est : ks), ks + est, f["timed"] == 1 ? "" : " (times not measured)"
        if (b["params"] > 0) next
        w++; sg += gib; sc += f["copy_ms"] / 1000; sk += ks; sh += f["hidden_ms"] / 1000
        st += f["gpu_total_ms"] / 1000; su += f["helper_cpu_ms"] / 1000
    }
    END {
        if (!n) { print "- no per-partition transfer lines in the log"; exit }
        if (!w) exit
        e = sg / w * 1073741824 / 25e9
        printf "\n- warm partitions (%d, no parameters uploaded), per partition: %.2f GiB over PCIe in %.2f s of copies (%.1f GB/s), %.2f s of which under kernels; kernels %.2f s; gpu_total %.2f s; helper threads %.2f CPU-s\n",
            w, sg / w, sc / w, sc ? sg * 1.073741824 / sc : 0, sh / w, sk / w, st / w, su / w
        printf "- ESTIMATE (not measured) for a PCIe 4.0 x16 card at 25 GB/s, the same kernels: %.2f s of copies per partition, so %.2f s (copies all under kernels) to %.2f s (none) per partition; at the overlap measured here (%.0f%% of the copy time under kernels) %.2f s\n",
            e, (e > sk / w ? e : sk / w), sk / w + e, sc ? 100 * sh / sc : 0,
            sk / w + e * (sc ? 1 - sh / sc : 1)
    }' "$1"
}
# The memory holder of -G: started before the daemon, stopped after it.
HOLDER=
hold_start() {
    [ -n "${HOLD_GIB:-}" ] || return 0
    local root=${BIN%/*} tool=
    for tool in "$root/cuzk-gpu-hold" "$root/tests/gpu/cuzk-gpu-hold"; do
        [ -x "$tool" ] && break
    done
    [ -x "$tool" ] || { bad "-G: no cuzk-gpu-hold in $root or $root/tests/gpu"; return 1; }
    "$tool" "$HOLD_GIB" >"$LOGS/hold.out" 2>&1 &
    HOLDER=$!
    local i=0
    until grep -q '^held' "$LOGS/hold.out"; do
        i=$((i + 1))
        kill -0 "$HOLDER" 2>/dev/null && [ $i -lt 600 ] || { bad "-G: $(cat "$LOGS/hold.out")"; return 1; }
        sleep 0.1
    done
    say "- device memory held by cuzk-gpu-hold: $(cat "$LOGS/hold.out")"
}
hold_stop() {
    [ -n "$HOLDER" ] || return 0
    kill "$HOLDER" 2>/dev/null
    wait "$HOLDER" 2>/dev/null
    HOLDER=
}
cpu_ticks() { awk '{ print $14 + $15 }' /proc/"$PID"/stat 2>/dev/null || echo 0; }
# "tid name ticks" of every live thread of the daemon (user + system).
thread_ticks() {
    python3 - "$PID" <<'PY'
import os, sys
d = "/proc/%s/task" % sys.argv[1]
for t in os.listdir(d):
    try:
        s = open("%s/%s/stat" % (d, t)).read()
    except OSError:
        continue
    f = s[s.rindex(")") + 2:].split()
    print(t, s[s.index("(") + 1:s.rindex(")")].replace(" ", "_"), int(f[11]) + int(f[12]))
PY
}
# The batch's CPU by thread name (the engine names its synthesis workers,
# whose OpenMP teams inherit the name, and its prover workers), from
# snapshots before ($1) and after ($2); threads that ended meanwhile (the
# prover's per-circuit loaders and staging copies, among others) are the
# rest of the process total ($3 ticks). Per proof ($4 proofs).
thread_split() {
    awk -v total="$3" -v n="$4" -v hz="$(getconf CLK_TCK)" '
        FNR == NR { before[$1] = $3; next }
        { d = $3 - before[$1]; by[$2] += d; sum += d }
        END { line = ""; for (k in by) if (by[k] > 0)
                  line = line sprintf("%s %.1f, ", k, by[k] / hz / n)
              printf "%sthreads that ended %.1f\n", line, (total - sum) / hz / n }' "$1" "$2"
}
# steady MARK PROOFS WALL_MS: the batch's rate two ways, on one line (a
# steady figure needs a batch of at least 10): seconds per proof from its
# first completion to its last (the daemon's "INFO job ID (...) completed
# in N ms" lines after line MARK of daemon.log), which flatters a short
# batch, and beside it the batch's own rate, PROOFS completed over its
# WALL_MS from the first request to the last answer.
steady() {
    tail -n +$(($1 + 1)) "$LOGS/daemon.log" | grep ' INFO job .* completed in ' | awk -v n="$2" -v w="$3" '
        { split(substr($1, 12, 12), h, ":"); t = h[1] * 3600 + h[2] * 60 + h[3]
          if (k && t < last) t += 86400; last = t; times[++k] = t }
        END { own = (n > 0 && w > 0) ? sprintf("; the batch'"'"'s own rate %.2f proofs/min, %.2f s a proof (%d over %.1f s)",
                                               60000 * n / w, w / 1000 / n, n, w / 1000) : ""
              if (k > 2) { s = (times[k] - times[1]) / (k - 1)
                  printf "- steady: %.2f s per proof, %.2f proofs/min first to last (%d completions)%s%s\n",
                      s, (s > 0 ? 60 / s : 0), k, own, (k < 10 ? "; a short batch, not a steady figure" : "") }
              else printf "- steady: too few completions to say%s\n", own }' | tee -a "$REPORT"
}
# cold_daemon: the page cache dropped (when root: the daemon's first
# parameter read is then cold, and the report says which), the device
# holder of -G started (hold_start) and the caller's daemon_start; the
# daemon's backend said. Status 0 when the daemon is up, else 1 with the
# failure said (bad).
cold_daemon() {
    if [ "$(id -u)" = 0 ] && sync && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then
        say "- page cache dropped before the daemon started: the first load is cold"
    else
        say "- page cache NOT dropped (not root): the first load may be warm"
    fi
    hold_start || return 1
    if ! daemon_start; then
        bad "cuzk-daemon did not start: $(tail -3 "$LOGS/daemon.log")"
        return 1
    fi
    say "- daemon backend: $(grep -m1 -io 'backend[^,]*' "$LOGS/daemon.log" || echo '?')"
}
# srs_lines CIRCUIT: the daemon's last parameter read and shape recording
# of CIRCUIT, indented into the report.
srs_lines() {
    grep -h "srs $1: read" "$LOGS/daemon.log" | tail -1 | sed 's/^/  /' | tee -a "$REPORT"
    grep -h "srs $1: shape" "$LOGS/daemon.log" | tail -1 | sed 's/^/  /' | tee -a "$REPORT"
}
