#!/bin/sh
# params.sh BUILD_DIR SOURCE_DIR - the 2KiB development parameters of every
# Filecoin kind (PoRep, Winning PoSt, Window PoSt, SnapDeals) made once in
# BUILD/param-cache by `cuzk setup --kind` (kept when present): the ctest
# fixture that filecoin*.sh, daemon_porep.sh and the soaks require, so that
# they only read the cache and run beside each other (tests/CMakeLists.txt).
# A few minutes on two cores from an empty cache, a second once made.
set -eu
BUILD=$(cd "$1" && pwd)
CACHE="$BUILD/param-cache"
mkdir -p "$CACHE"
for kind in porep winning-post window-post update; do
    "$BUILD/tools/cuzk" setup --kind "$kind" --sector-size 2KiB --param-cache "$CACHE"
done
echo "params: the 2KiB development parameters are in $CACHE"
