#!/bin/sh
# The probe's build without a GPU toolkit: a stand-in nvcc (it lists four
# architectures and "compiles" by creating the object) drives probe/build.mk,
# and the kernels `make` built are not built again when the same nvcc is
# named another way, as `sudo make install` finds it through sudo's PATH
# (/usr/local/cuda/bin/nvcc, a link to /usr/local/cuda-13.0/bin/nvcc).
# Prints "FAIL ..." per failure and "N passed, M failed" last.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

cuda=$tmp/cuda-13.0
mkdir -p "$cuda/bin" "$cuda/lib64"
ln -s "$cuda" "$tmp/cuda"
: >"$cuda/lib64/libcudart_static.a"
cat >"$cuda/bin/nvcc" <<SCRIPT
#!/bin/sh
case " \$* " in
*" --list-gpu-arch "*) printf 'compute_75\ncompute_80\ncompute_90\ncompute_120\n'; exit 0 ;;
*" -dryrun "*) echo '#\$ LIBRARIES="-L$cuda/lib64"' >&2; exit 0 ;;
esac
out=""
while [ \$# -gt 0 ]; do [ "\$1" = -o ] && out=\$2; shift; done
echo "\$out" >>"$tmp/compiled"
: >"\$out"
SCRIPT
chmod +x "$cuda/bin/nvcc"

build=$tmp/build
# A make of its own: not the jobserver or the WITH_CUDA=no of a `make test` around it.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory WITH_CUDA=auto "$@"; }
objects="$build/obj/kernels/cuda-75_80_90_120/backend.o $build/obj/kernels/cuda-75_80_90_120/mma.o"
objects="$objects $build/obj/kernels/cuda-75_80_90_120/latency.o $build/obj/kernels/cuda/wgmma_sm90a.o"
compiles() { # NVCC: make the kernel objects with it; prints how many nvcc compiled
	rm -f "$tmp/compiled"
	# shellcheck disable=SC2086
	mk BUILD="$build" NVCC="$1" $objects >"$tmp/make.out" 2>&1 || {
		echo "none: make failed: $(tail -n 2 "$tmp/make.out" | tr '\n' ' ')"
		return
	}
	[ -f "$tmp/compiled" ] && wc -l <"$tmp/compiled" | tr -d ' ' || echo 0
}
n=$(compiles "$tmp/cuda/bin/nvcc")
[ "$n" = 4 ] && ok || bad "probe-build: the first build compiled $n kernel files, expected 4"
n=$(compiles "$tmp/cuda/bin/nvcc")
[ "$n" = 0 ] && ok || bad "probe-build: a second make compiled $n kernel files again"
n=$(compiles "$cuda/bin/nvcc")
[ "$n" = 0 ] && ok || bad "probe-build: the same nvcc by another path (sudo make install) compiled $n kernel files again"
# A real change of flags still rebuilds.
rm -f "$tmp/compiled"
# shellcheck disable=SC2086
mk BUILD="$build" NVCC="$cuda/bin/nvcc" NVCC_FLAGS="-O2" $objects >/dev/null 2>&1
n=$([ -f "$tmp/compiled" ] && wc -l <"$tmp/compiled" | tr -d ' ' || echo 0)
[ "$n" = 4 ] && ok || bad "probe-build: new NVCC_FLAGS compiled $n kernel files, expected 4"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
