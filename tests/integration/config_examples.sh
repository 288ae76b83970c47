#!/bin/sh
# config_examples.sh BUILD_DIR SOURCE_DIR - every configuration example in
# README.md, docs/*.md and the default configuration's comments started in
# cuzk-daemon as written, and the circuit id table of docs/curio.md
# against `cuzk-daemon --list-circuits` (config_examples.py says how).
set -eu
exec /usr/bin/python3 "$2/tests/integration/config_examples.py" "$1" "$2"
