#!/bin/sh
# fuzz_corpus.sh BUILD_DIR SOURCE_DIR - every libFuzzer target
# (tests/fuzz/fuzz_*.c) has its committed seed corpus: a folder
# tests/fuzz/corpus/<target>/ with at least one seed, described in
# tests/fuzz/corpus/README.md, and no folder there without a target.
# `make fuzz-run` (scripts/fuzz-run.sh) stops at a target without seeds;
# this finds one before a fuzzing session does.
set -eu
SRC=$2
bad=0
n=0
for f in "$SRC"/tests/fuzz/fuzz_*.c; do
    t=$(basename "$f" .c)
    n=$((n + 1))
    d=$SRC/tests/fuzz/corpus/$t
    if [ ! -d "$d" ] || [ -z "$(ls -A "$d")" ]; then
        echo "FAIL: $t has no seeds in tests/fuzz/corpus/$t/"
        bad=1
    fi
    grep -q "^- $t:" "$SRC/tests/fuzz/corpus/README.md" ||
        { echo "FAIL: tests/fuzz/corpus/README.md does not describe $t's seeds"; bad=1; }
done
for d in "$SRC"/tests/fuzz/corpus/*/; do
    t=$(basename "$d")
    [ -f "$SRC/tests/fuzz/$t.c" ] || { echo "FAIL: tests/fuzz/corpus/$t/ has no target tests/fuzz/$t.c"; bad=1; }
done
[ "$n" -gt 0 ] || { echo "FAIL: no fuzz targets under $SRC/tests/fuzz"; exit 1; }
[ "$bad" = 0 ] || exit 1
echo "fuzz_corpus: $n fuzz targets, each with its seed corpus described"
