#!/bin/sh
# daemon_porep.sh BUILD_DIR SOURCE_DIR - a real 2KiB PoRep C1 (sealed by
# cuzk-seal) proved through cuzk-daemon --dev-params by the python3-grpcio
# client, the proof checked by `cuzk verify porep`; wrong requests fail
# with messages while the daemon keeps serving. The parameter cache
# BUILD_DIR/param-cache is shared with filecoin.sh (the first run makes it).
set -eu
exec /usr/bin/python3 "$2/tests/integration/daemon_porep_test.py" "$1"
