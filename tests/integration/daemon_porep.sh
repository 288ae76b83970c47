#!/bin/sh
# daemon_porep.sh BUILD_DIR SOURCE_DIR - a real 2KiB PoRep C1 (sealed by
# cuzk-seal) proved through cuzk-daemon --dev-params by the python3-grpcio
# client, the proof checked by `cuzk verify porep`; wrong requests fail
# with messages while the daemon keeps serving. Winning PoSt, Window PoSt
# and SnapDeals 2KiB vanilla proofs from cuzk-bench gen-vanilla are proved
# the same way and checked by `cuzk verify --kind`. The parameter cache
# BUILD_DIR/param-cache is shared with filecoin.sh, filecoin_post.sh and
# filecoin_snap.sh (the first run makes it).
set -eu
exec /usr/bin/python3 "$2/tests/integration/daemon_porep_test.py" "$1"
