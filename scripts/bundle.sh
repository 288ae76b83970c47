#!/bin/sh
# bundle.sh - packs the release programs and every non-glibc shared library
# they load into one folder, so a bare machine with a compatible glibc (the
# GPU machine: CUDA, CMake and Python 3, no grpc / protobuf-c / yajl) runs
# them with LD_LIBRARY_PATH=DIR/lib. scripts/throughput.sh sets that itself
# when given the folder.
#
#   scripts/bundle.sh DIR [BUILD_DIR] [FILE...]
#
# BUILD_DIR (default build/) holds tools/{cuzk,cuzk-daemon,cuzk-bench,
# cuzk-seal}; they go to DIR/bin. Every library ldd resolves for them goes
# to DIR/lib (links followed), except the glibc core and the dynamic loader,
# which must match the target's kernel and loader: libc, libm, libpthread,
# libdl, librt, libresolv, libutil, ld-linux, the vdso. libstdc++, libgcc_s
# and libgomp are copied: the target may lack them or have older ones.
# The CUDA runtime is linked statically by CMake; libcuda.so (the driver)
# is the target's own and is never copied. Extra FILEs (e.g. a sealed C1
# that spares the target the sealing) are copied to DIR as they are.
# Programs and ELF FILEs have their debug sections stripped (symbols kept).
# DIR/proto-py (the build's Python gRPC stubs) serves scripts/soak.sh run
# with CUZK_BUILD=DIR. DIR/MANIFEST says what was packed, from which
# commit, and the size.
set -eu
[ $# -ge 1 ] || { echo "usage: bundle.sh DIR [BUILD_DIR] [FILE...]" >&2; exit 2; }
DIR=$1
BUILD=${2:-build}
if [ $# -ge 2 ]; then shift 2; else shift 1; fi
PROGRAMS="cuzk cuzk-daemon cuzk-bench cuzk-seal"
LIMIT_MIB=50

fail() {
    echo "bundle: $*" >&2
    exit 1
}

for p in $PROGRAMS; do
    [ -x "$BUILD/tools/$p" ] ||
        fail "$BUILD/tools/$p missing: cmake --build $BUILD --target tool_$p"
done
rm -rf "$DIR"
mkdir -p "$DIR/bin" "$DIR/lib"
for p in $PROGRAMS; do cp "$BUILD/tools/$p" "$DIR/bin/"; done

# "libfoo.so.1 => /path/libfoo.so.1 (0x...)" lines; glibc core and loader out.
libs=$(for p in $PROGRAMS; do ldd "$BUILD/tools/$p"; done |
    awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
    grep -Ev '/(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux[^/]*)\.so' |
    grep -Ev '/libcuda\.so' | sort -u)
for l in $libs; do cp -L "$l" "$DIR/lib/"; done
missing=$(for p in $PROGRAMS; do ldd "$BUILD/tools/$p"; done | grep 'not found' || true)
[ -z "$missing" ] || fail "unresolved libraries: $missing"

for f in "$@"; do cp "$f" "$DIR/"; done
# Debug sections off the copied programs and ELF extras (symbols kept, so
# backtraces still name functions): the release build's -g makes them
# several times larger, and the bundle travels within 64 MiB.
if command -v strip >/dev/null; then
    for f in "$DIR"/bin/* "$DIR"/*; do
        [ -f "$f" ] && head -c 4 "$f" | grep -q 'ELF' && strip --strip-debug "$f"
    done
fi
# The Python stubs of proving.proto, for scripts/soak.sh (CUZK_BUILD=DIR).
[ -d "$BUILD/proto-py" ] && cp -r "$BUILD/proto-py" "$DIR/"

src=$(dirname "$0")/..
{
    echo "bundle made $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname) from $BUILD"
    modified=$(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null | wc -l)
    echo "commit $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
        "($modified files modified in the tree)"
    echo "glibc here: $(getconf GNU_LIBC_VERSION)"
    (cd "$DIR" && find . -type f ! -name MANIFEST | sort | xargs ls -l | awk '{ print $5, $9 }')
} >"$DIR/MANIFEST"
size=$(du -sm "$DIR" | cut -f1)
echo "bundle: $DIR: $(find "$DIR/bin" -type f | wc -l) programs," \
    "$(find "$DIR/lib" -type f | wc -l) libraries, $size MiB"
[ "$size" -le "$LIMIT_MIB" ] || fail "$DIR is $size MiB, over the $LIMIT_MIB MiB budget"
