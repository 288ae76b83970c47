#!/bin/sh
# daemon.sh BUILD_DIR SOURCE_DIR - cuzk-daemon driven by a gRPC client we
# did not write: daemon_test.py on Debian's python3-grpcio, with stubs
# generated into BUILD_DIR/proto-py. (daemon_bench.sh covers cuzk-bench.)
set -eu
exec /usr/bin/python3 "$2/tests/integration/daemon_test.py" "$1"
