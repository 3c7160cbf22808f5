#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The one list of Debian 12 packages anysector's build, tests and demo need.
#   tools/deps.sh list      print the package names
#   tools/deps.sh check     exit 0 when all are installed, else name the missing ones
#   tools/deps.sh ensure    install what is missing when root, else print the exact command and fail
#   tools/deps.sh install   apt-get update + install all of them (what CI runs)
set -eu

PACKAGES="
build-essential gcc-multilib make
clang llvm libclang-rt-14-dev
nasm
gnu-efi
libcmocka-dev pkg-config libblkid-dev libfdisk-dev libssl-dev python3-cryptography-vectors
dosfstools mtools
fdisk gdisk util-linux
e2fsprogs mount
xfsprogs btrfs-progs ntfs-3g cryptsetup-bin lvm2 mdadm xorriso
qemu-system-x86 ovmf seabios
swtpm swtpm-tools tpm2-tools
sbsigntool shim-unsigned openssl
python3
busybox-static cpio gzip
linux-image-cloud-amd64
memtest86+
xxd shellcheck
strace time
jq
debhelper lintian
mmdebstrap
grub-pc-bin grub-efi-amd64-bin grub-common systemd-boot-efi syslinux syslinux-common
binutils
systemd
"

missing() {
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
	done
}

apt_install() {
	export DEBIAN_FRONTEND=noninteractive
	apt-get update
	# shellcheck disable=SC2086
	apt-get install -y --no-install-recommends "$@"
}

cmd=${1:-check}
case "$cmd" in
list)
	echo $PACKAGES ;;
check)
	m=$(missing | tr '\n' ' ')
	if [ -n "$m" ]; then echo "missing Debian packages: $m"; exit 1; fi ;;
ensure)
	m=$(missing | tr '\n' ' ')
	[ -z "$m" ] && exit 0
	if [ "$(id -u)" = 0 ]; then
		echo "deps: installing $m"
		# shellcheck disable=SC2086
		apt_install $m
	else
		echo "deps: missing Debian packages: $m" >&2
		echo "deps: run as root:  apt-get update && apt-get install -y --no-install-recommends $m" >&2
		exit 1
	fi ;;
install)
	# shellcheck disable=SC2086
	apt_install $PACKAGES ;;
*)
	echo "usage: $0 list|check|ensure|install" >&2; exit 2 ;;
esac
