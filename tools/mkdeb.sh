#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Builds the Debian package from a copy of the source tree under BUILD_DIR/deb/src, so
# dpkg-buildpackage (which writes its results to the parent of the tree) never writes beside
# the checkout; the .deb, .buildinfo and .changes end up in BUILD_DIR/deb, and lintian's report
# in BUILD_DIR/deb/lintian.txt (an error fails the build).
#   tools/mkdeb.sh [--no-lintian] [--if-changed] BUILD_DIR
# --if-changed keeps the package already there when it was built from the same files (the
# Debian-system tests use it; their package needs no lintian run). One build at a time per
# BUILD_DIR (a lock beside deb/): make test's background job, test-hooks and test-debian may ask
# at once, and the second then finds the package made.
set -eu
lintian=true
if_changed=false
while [ $# -gt 1 ]; do
	case $1 in
	--no-lintian) lintian=false ;;
	--if-changed) if_changed=true ;;
	*) echo "usage: $0 [--no-lintian] [--if-changed] BUILD_DIR" >&2; exit 64 ;;
	esac
	shift
done
[ $# -eq 1 ] || { echo "usage: $0 [--no-lintian] [--if-changed] BUILD_DIR" >&2; exit 64; }
top=$(cd "$(dirname "$0")/.." && pwd)
build=$1
case $build in /*) ;; *) build=$top/$build ;; esac
out=$build/deb
src=$out/src/anysector
mkdir -p "$build"
exec 9>"$build/deb.lock"
flock 9

cd "$top"
# The files of the tree as it is now (tracked and new, not ignored), else everything but builds.
list_files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		# shellcheck disable=SC2016
		git ls-files -z --cached --others --exclude-standard |
			xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh
	else
		find . \( -path ./build -o -path './build-*' -o -path ./.git \) -prune -o -type f -print0
	fi
}
stamp=$(list_files | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if $if_changed && [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$stamp" ] &&
	ls "$out"/anysector_*.deb >/dev/null 2>&1; then
	ls "$out"/anysector_*.deb
	exit 0
fi
rm -rf "$out"
mkdir -p "$src"
list_files | tar --null -T - -cf - | tar -C "$src" -xf -

cd "$src"
# BUILD from the calling make must not leak into the package build.
env -u BUILD -u MAKEFLAGS -u MFLAGS -u MAKELEVEL dpkg-buildpackage -b -us -uc >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	echo "mkdeb: dpkg-buildpackage failed; the whole log is $out/build.log" >&2
	exit 1
}
mv "$out"/src/*.deb "$out"/src/*.buildinfo "$out"/src/*.changes "$out"/
ls "$out"/src/*.ddeb >/dev/null 2>&1 && mv "$out"/src/*.ddeb "$out"/
rm -rf "$out/src"

cd "$out"
deb=$(ls anysector_*.deb)
echo "$stamp" >stamp
if $lintian; then
	lintian --tag-display-limit 0 "$deb" >lintian.txt 2>&1 || true
	sed 's/^/  /' lintian.txt
	if grep -q '^E:' lintian.txt; then
		echo "mkdeb: lintian reports errors ($out/lintian.txt)" >&2
		exit 1
	fi
fi
echo "$out/$deb"
