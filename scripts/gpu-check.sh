#!/bin/sh
# gpu-check.sh - build, check and time the CUDA kernels in one run (for a
# machine with a GPU, e.g. one device call).
#
#   scripts/gpu-check.sh [MAX_LOG] [BENCH_WHAT]
#
# Uses prebuilt binaries from build-gpu-bin/ when they run here, else builds
# test_gpu and cuzk-gpu-bench in build-gpu/ (CMake, Ninja when present).
# Runs the correctness checks (test_gpu), then the benchmarks up to 2^MAX_LOG
# (default 24; BENCH_WHAT = all | field | ntt | msm). With GPU_SANITIZE=1, a
# failed check is followed by a quick compute-sanitizer run (minutes). Logs go to
# $OUT (the device tool's output folder) or ./gpu-logs; the table is last.
set -u
MAX_LOG=${1:-24}
WHAT=${2:-all}
OUT=${OUT:-$PWD/gpu-logs}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,driver_version \
    --format=csv >"$OUT/device.txt" 2>&1
cat "$OUT/device.txt"

BIN=build-gpu-bin
if ! [ -x "$BIN/test_gpu" ] || ! "$BIN/test_gpu" --probe >/dev/null 2>&1; then
    GEN="Unix Makefiles"
    command -v ninja >/dev/null && GEN=Ninja
    cmake -S . -B build-gpu -G "$GEN" -DCMAKE_BUILD_TYPE=Release >"$OUT/build.log" 2>&1 &&
        cmake --build build-gpu -j "$(nproc)" --target test_gpu cuzk-gpu-bench \
            >>"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
    BIN=build-gpu/tests/gpu
fi
echo "binaries: $BIN"

# Instruction mix of the field multiplication loops (cuobjdump is there).
# The binary holds one cubin per .cu file, so `cuobjdump -fun NAME` says
# "Function NAME not found" for every cubin but gpu.cu's: dump everything
# once and count the SASS lines of the kernel whose mangled name matches
# (ptxas places the body of the __noinline__ Fp product inside each kernel
# that calls it, so the Fp count includes it once); NOP padding is skipped.
if command -v cuobjdump >/dev/null; then
    cuobjdump -sass "$BIN/cuzk-gpu-bench" >"$OUT/bench.sass" 2>&1
    for pat in _Z15mul_loop_kernelI6mont_tI9fp_params _Z15mul_loop_kernelI6mont_tI9fr_params; do
        awk -v pat="$pat" '
            /Function : / { on = index($3, pat) == 1; if (on) name = $3 }
            on && /^ +\/\*[0-9a-f]+\*\// {
                s = $0
                sub(/^ +\/\*[0-9a-f]+\*\/ +/, "", s)
                sub(/^@!?U?P[0-9T] +/, "", s)
                split(s, w, /[ ;]/)
                if (w[1] == "NOP") next
                n[w[1]]++
                total++
            }
            END {
                printf "== %s: %d instructions\n", name ? name : pat " (not found)", total
                for (op in n) printf "%6d %s\n", n[op], op | "sort -rn | head -14"
            }' "$OUT/bench.sass"
    done >"$OUT/sass-mix.txt" 2>&1
    cat "$OUT/sass-mix.txt"
fi

status=0
"$BIN/test_gpu" ${CUZK_GPU_SEED:-} 2>&1 | tee "$OUT/test.log"
if ! grep -q "all passed" "$OUT/test.log"; then
    status=1
    if [ "${GPU_SANITIZE:-0}" = 1 ] && command -v compute-sanitizer >/dev/null; then
        CUZK_TEST_QUICK=1 timeout 300 compute-sanitizer --tool memcheck "$BIN/test_gpu" \
            >"$OUT/sanitizer.log" 2>&1
        tail -40 "$OUT/sanitizer.log"
    fi
fi
"$BIN/cuzk-gpu-bench" "$MAX_LOG" "$WHAT" >"$OUT/bench.log" 2>&1 || status=1
cat "$OUT/bench.log"
exit $status
