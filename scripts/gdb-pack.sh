#!/bin/sh
# gdb-pack.sh DIR - packs this machine's gdb (Debian's: apt-get install gdb)
# with the shared libraries it loads (less the glibc core and the loader)
# into DIR/gdb and DIR/lib, for a machine that has none (the GPU machine):
# run there as `env LD_LIBRARY_PATH=DIR/lib PYTHONHOME=P DIR/gdb -nx -batch
# -p PID -ex "thread apply all bt"`, P a Python home of this machine's
# version (scripts/soak-python.sh's pack; without it gdb warns and still
# prints the stacks). scripts/soak.sh's --stall uses it through SOAK_GDB.
# About 77 MiB, 22 MiB as .tar.xz.
set -eu
[ $# -eq 1 ] || { echo "usage: gdb-pack.sh DIR" >&2; exit 2; }
gdb=$(command -v gdb) || { echo "gdb-pack: no gdb here (apt-get install gdb)" >&2; exit 1; }
mkdir -p "$1/lib"
cp "$gdb" "$1/gdb"
ldd "$gdb" | awk '/=>/ {print $3}' |
    grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$1/lib/"; done
"$1/gdb" --version | head -1
