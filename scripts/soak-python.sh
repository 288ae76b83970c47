#!/bin/sh
# soak-python.sh DIR - packs this machine's Python 3 with Debian's grpcio and
# protobuf into DIR/python, for scripts/soak.sh on a machine that has a
# Python but no grpcio (the GPU machine; nothing can be installed there).
#
# DIR/python/bin/python3 is /usr/bin/python3.N; DIR/python/lib/pythonNN.zip
# its standard library (.py only, less tests, IDLE, Tk, lib2to3, the static
# library), DIR/python/lib/python3.N/lib-dynload its extension modules (less
# dbm, sqlite3, readline, curses, nis, Tk, lzma, bz2),
# DIR/python/packages grpc and google.protobuf (its pure-Python
# implementation), and into DIR/lib every shared library those load that
# is not there yet, except the glibc core and the loader (as
# scripts/bundle.sh picks them: DIR is meant to be its folder, so the two
# share libcrypto, libstdc++, grpc's). scripts/soak.sh runs it with
# PYTHONHOME, PYTHONPATH and LD_LIBRARY_PATH set when CUZK_BUILD=DIR holds
# it. The pack is checked here: it must import grpc with no module and no
# search path outside DIR. About 20 MiB in python/, 5 MiB more in lib/.
set -eu
[ $# -eq 1 ] || { echo "usage: soak-python.sh DIR" >&2; exit 2; }
py=/usr/bin/python3
v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
"$py" -c 'import grpc, google.protobuf' ||
    { echo "soak-python: $py has no grpcio / protobuf (apt-get install python3-grpcio)" >&2; exit 1; }
out=$(mkdir -p "$1" && cd "$1" && pwd)/python
std=/usr/lib/python$v
pkgs=$("$py" -c 'import grpc, os; print(os.path.dirname(os.path.dirname(grpc.__file__)))')
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib/python$v" "$out/packages/google" "$1/lib"
cp "$(readlink -f "$py")" "$out/bin/python3"
zipname=$out/lib/python$(echo "$v" | tr -d .).zip
(cd "$std" && find . -name '*.py' ! -path './test/*' ! -path './idlelib/*' ! -path './tkinter/*' \
    ! -path './turtledemo/*' ! -path './lib2to3/*' ! -path './ensurepip/*' \
    ! -path './config-*' ! -path './site-packages/*' ! -path './dist-packages/*' |
    "$py" -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for line in sys.stdin:
        z.write(line.strip()[2:])' "$zipname")
cp -r "$std/lib-dynload" "$out/lib/python$v/"
# Modules the soak never imports that would bring large libraries along.
(cd "$out/lib/python$v/lib-dynload" && rm -f _dbm.* _gdbm.* _sqlite3.* readline.* _curses* nis.* \
    _tkinter.* _lzma.* _bz2.*)
cp -r "$pkgs/grpc" "$out/packages/"
cp -r "$pkgs/google/protobuf" "$out/packages/google/"
[ -f "$pkgs/google/__init__.py" ] && cp "$pkgs/google/__init__.py" "$out/packages/google/"
find "$out" -name __pycache__ -prune -exec rm -rf {} +
# protobuf's C++ extension (libprotobuf): the soak runs the pure-Python one.
rm -rf "$out/packages/google/protobuf/pyext"/*.so

# Shared libraries, as scripts/bundle.sh picks them.
libs=$(find "$out" -name '*.so' -o -name python3 | while read -r f; do ldd "$f" 2>/dev/null; done |
    awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
    grep -Ev '/(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux[^/]*)\.so' | sort -u)
for l in $libs; do [ -f "$1/lib/${l##*/}" ] || cp -L "$l" "$1/lib/"; done

# The check: grpc and the stubs import from the pack alone.
env -i PATH=/usr/bin:/bin PYTHONHOME="$out" PYTHONPATH="$out/packages" \
    PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python LD_LIBRARY_PATH="$1/lib" "$out/bin/python3" -c '
import sys, grpc, google.protobuf, argparse, json, subprocess, threading, concurrent.futures
outside = [m.__file__ for m in list(sys.modules.values())
           if getattr(m, "__file__", None) and not m.__file__.startswith(sys.argv[1])]
outside += [p for p in sys.path if p and not p.startswith(sys.argv[1])]
assert not outside, outside
print("soak-python: Python %s, grpcio %s, protobuf %s" % (sys.version.split()[0], grpc.__version__,
      google.protobuf.__version__))' "$out"
du -sh "$out" "$1/lib"
