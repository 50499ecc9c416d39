#!/bin/sh
# libridge as a user links it: from the files `make install` puts in place
# (staged by `make test` as install-files DESTDIR=build/stage PREFIX=/usr),
# build examples/libridge/occupancy.c with pkg-config, shared and static, and
# check what it prints. Also the layout: soname, symlinks, headers under
# include/ridge/ only, no internal header installed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
BUILD=${BUILD:-build}
stage=$BUILD/stage
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

if [ ! -f "$stage/.installed" ]; then
	echo "FAIL libridge: $stage is not staged (make test stages make install-files there)"
	echo "0 passed, 1 failed"
	exit 1
fi
stage=$(cd "$stage" && pwd)
lib=$stage/usr/lib
for f in libridge.a libridge.so.0.1.0 include/ridge/ridge.h include/ridge/hwdb.h pkgconfig/ridge.pc pkgconfig/ridge-static.pc; do
	case $f in include/*) p=$stage/usr/$f ;; *) p=$lib/$f ;; esac
	[ -f "$p" ] && ok || bad "libridge-layout: $p not installed"
done
[ "$(readlink "$lib/libridge.so.0")" = libridge.so.0.1.0 ] && ok || bad "libridge-layout: libridge.so.0 is not a link to libridge.so.0.1.0"
[ "$(readlink "$lib/libridge.so")" = libridge.so.0 ] && ok || bad "libridge-layout: libridge.so is not a link to libridge.so.0"
# Generic names stay inside include/ridge/; the internal model/fail.h is not installed.
[ ! -e "$stage/usr/include/gpu.h" ] && [ ! -e "$stage/usr/include/units.h" ] && ok || bad "libridge-layout: a generic header at the top of include/"
[ ! -e "$stage/usr/include/ridge/fail.h" ] && ok || bad "libridge-layout: internal fail.h installed"
if command -v readelf >/dev/null 2>&1; then
	readelf -d "$lib/libridge.so.0.1.0" >"$tmp/dyn"
	grep -q 'SONAME.*\[libridge.so.0\]' "$tmp/dyn" && ok || bad "libridge-soname: not libridge.so.0"
	grep -q 'NEEDED.*libyaml' "$tmp/dyn" && grep -q 'NEEDED.*libm\.' "$tmp/dyn" && ! grep -q 'NEEDED.*libcjson' "$tmp/dyn" && ok ||
		bad "libridge-needed: the shared library must record libyaml and libm, and not need libcjson (util/ holds the cJSON code)"
fi

# pkg-config through the staged tree: the sysroot maps /usr to the stage.
pc() { PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage pkg-config "$@" ridge; }
cflags=$(pc --cflags) && libs=$(pc --libs) && static_libs=$(pc --static --libs) && ok || bad "libridge-pkg-config: pkg-config ridge fails"
printf '%s\n' "$static_libs" | grep -q -- '-lyaml' &&
	printf '%s\n' "$static_libs" | grep -q -- '-lm' && ok || bad "libridge-pkg-config: --static lacks -lyaml -lm: $static_libs"

# The expected line, worked by hand (hwdb/h100-sxm.yaml: 65536 registers and
# 64 warps per SM): 64 registers x 256 threads = 16384 registers a block, so
# 4 blocks; 4 x 8 warps = 32 of 64 warps = 50 %, the registers the limit.
want="libridge 0.1.0, h100-sxm: 256 threads x 64 registers: 4 blocks/SM, 50% occupancy, limited by registers"
example=examples/libridge/occupancy.c
# Under make check-asan (SANITIZE set) the library is instrumented: so is the example.
# shellcheck disable=SC2086 # word splitting of the flags is wanted
if ${CC:-cc} -std=c11 -Wall -Wextra -Werror ${SANITIZE:-} $cflags -o "$tmp/shared" "$example" $libs 2>"$tmp/err"; then
	got=$(LD_LIBRARY_PATH=$lib "$tmp/shared" 2>&1)
	[ "$got" = "$want" ] && ok || bad "libridge-shared: printed '$got', expected '$want'"
	LD_LIBRARY_PATH=$lib ldd "$tmp/shared" | grep -q "libridge.so.0 => $lib/" && ok || bad "libridge-shared: not linked to the staged libridge.so.0"
else
	bad "libridge-shared: $example does not build: $(head -n 3 "$tmp/err")"
fi
# Static, as the README says: ridge-static.pc, no flag edited by hand. (ridge.pc
# with --static keeps -lridge, which the linker resolves to libridge.so.)
static_libs=$(PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage pkg-config --libs ridge-static) ||
	bad "libridge-pkg-config: pkg-config ridge-static fails"
printf '%s\n' "$static_libs" | grep -q -- '-lyaml' && ok || bad "libridge-pkg-config: ridge-static lacks -lyaml: $static_libs"
# shellcheck disable=SC2086
if ${CC:-cc} -std=c11 -Wall -Wextra -Werror ${SANITIZE:-} $cflags -o "$tmp/static" "$example" $static_libs 2>"$tmp/err"; then
	got=$("$tmp/static" 2>&1)
	[ "$got" = "$want" ] && ok || bad "libridge-static: printed '$got', expected '$want'"
	ldd "$tmp/static" | grep -q libridge && bad "libridge-static: still needs libridge.so" || ok
else
	bad "libridge-static: $example does not build: $(head -n 3 "$tmp/err")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
