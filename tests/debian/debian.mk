# SPDX-License-Identifier: BSD-2-Clause
# A real Debian 12 system on anysector disks (tests/debian/test_debian.py): mmdebstrap's tree
# (tarball cached in $(BUILD)/debian) with `make deb`'s package, made into disks by mkimage
# --root-dir, booted to multi-user.target under SeaBIOS and OVMF (4Kn NVMe GPT, 512e virtio-blk
# MBR), a kernel installed and purged inside the guest through anysector's hooks, systemd's
# kernel-install adding and removing one through the plugin, and systemd's tools on the Boot
# Loader Interface (bootctl, a one-shot reboot, systemd-analyze, systemd-bless-boot). Root.
# test-debian-full adds the update chain with the firmwares the other way round.
# test-debian-prepare makes the package and the tarball alone: make test runs it in the
# background from its start (TEST_BACKGROUND), beside the suites that leave a core idle, so that
# test-debian, the last suite, finds them made.
.PHONY: test-debian test-debian-full test-debian-prepare
test-debian: qemu-prereqs
	@python3 tests/debian/test_debian.py
test-debian-full: qemu-prereqs
	@python3 tests/debian/test_debian.py --full
test-debian-prepare:
	@python3 tests/debian/test_debian.py --prepare
TEST_SUITES += 84:test-debian
TEST_BACKGROUND += test-debian-prepare
