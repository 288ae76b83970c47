#!/bin/sh
# Installs the Debian packages listed in scripts/debian-packages.txt that are
# missing. Idempotent and instant when everything is present (one dpkg-query).
set -eu
list="$(dirname "$0")/debian-packages.txt"
want=$(grep -v '^#' "$list" | grep -v '^$')
missing=""
for p in $want; do
    s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$s" in *"ok installed"*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
if [ "$(id -u)" != 0 ]; then
    echo "deps: need root to apt-get install$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
