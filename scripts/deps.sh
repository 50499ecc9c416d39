#!/bin/sh
# Checks the libraries ridge builds against; installs what is missing when run
# as root on Debian/Ubuntu (apt-get), otherwise prints the exact command.
# usage: deps.sh STAMP
set -u
stamp=$1
missing=""
need() { # pkg-config module, Debian package
	pkg-config --exists "$1" 2>/dev/null || missing="$missing $2"
}
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
need yaml-0.1 libyaml-dev
need libcjson libcjson-dev
need cmocka libcmocka-dev
need ncursesw libncurses-dev
need sqlite3 libsqlite3-dev
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "deps: installing$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null || {
			echo "deps: apt-get failed; run: apt-get install -y$missing" >&2
			exit 1
		}
	else
		echo "ridge needs:$missing" >&2
		echo "run: sudo apt-get install -y$missing" >&2
		exit 1
	fi
fi
mkdir -p "$(dirname "$stamp")" && touch "$stamp"
