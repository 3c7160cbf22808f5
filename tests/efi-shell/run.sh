#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The UEFI shell case (docs/GUIDE.md "UEFI shell commands"): OVMF finds no bootable disk, starts its
# internal shell, which runs startup.nsh from FS0; the script runs anysector.efi info / check /
# ls / cat and a bad command, echoing %lasterror% after each. We assert the geometry and alignment lines and the
# exit statuses on the serial log.
#
# Disks: A is 4Kn (virtio-blk, 4096/4096) with a GPT written by sgdisk on a 4096-byte loop device:
# partition 1 "ESP" at LBA 256 (1 MiB aligned; FAT16 holding anysector.efi, startup.nsh,
# anysector.cfg) and partition 2 "misaligned" at LBA 10497 (physically aligned, as every 4Kn LBA
# is, but not on 1 MiB; a FAT12 holding /EFI/tool.efi, for anysector.cfg's efi entries on
# partition 2: check must name the one whose file is not there; and two entries pinning
# /vmlinuz, one by its own SHA-256 and one by another's: check must refuse only that one). B is 512e (virtio-blk, 512/4096) with partition 1 "early" at LBA 63
# (the classic misalignment) and partition 2 "aligned" at LBA 4096; its primary GPT header is
# damaged and the disk read-only (so OVMF cannot repair it from the backup,
# docs/FIRMWARE.md "OVMF"):
# anysector must say so and use the backup.
#
# usage: run.sh BOOTX64.EFI   (paths under $BUILD; needs root for the loop device)
set -u
efi=$1
BUILD=${BUILD:-build}
work=$BUILD/efi-shell
log=$work/serial.log
pass=0; fail=0; skip=0

result() {
	[ -n "${RESULTS:-}" ] && echo "pass=$pass fail=$fail skip=$skip" > "$RESULTS/test-efi-shell"
	echo "efi-shell: pass=$pass fail=$fail skip=$skip"
	[ $fail = 0 ]
	exit $?
}

skip_all() {
	echo "SKIP efi-shell: $1"
	skip=1
	result
}

code=/usr/share/OVMF/OVMF_CODE_4M.fd
vars=/usr/share/OVMF/OVMF_VARS_4M.fd
for f in "$code" "$vars"; do
	[ -r "$f" ] || skip_all "$f is missing (Debian package ovmf)"
done
for t in qemu-system-x86_64 sgdisk mkfs.fat mcopy mmd losetup partx; do
	command -v $t >/dev/null 2>&1 || skip_all "$t is missing (tools/deps.sh installs it)"
done
[ "$(id -u)" = 0 ] || skip_all "building the 4Kn disk needs a loop device, which needs root"
[ -r "$efi" ] || { echo "FAIL $efi does not exist"; fail=1; result; }

rm -rf "$work"
mkdir -p "$work"
disk_a=$work/disk-4kn.img
disk_b=$work/disk-512e.img

# ---- disk A: 4Kn, GPT by sgdisk on a 4096-byte loop device ----
truncate -s 64M "$disk_a"
dev=$(losetup -f --show --sector-size 4096 "$disk_a") || skip_all "losetup failed (no loop devices?)"
cleanup() {
	[ -n "${dev:-}" ] && { partx -d "$dev" 2>/dev/null; losetup -d "$dev"; dev=; }
}
trap cleanup EXIT INT TERM
nsh=$work/startup.nsh
# CRLF, as the shell wants. "echo -off" keeps the log to our own output.
printf '%s\r\n' \
	'@echo -off' \
	'fs0:' \
	'anysector.efi info' \
	'echo "AS-STATUS info %lasterror%"' \
	'anysector.efi check' \
	'echo "AS-STATUS check %lasterror%"' \
	'anysector.efi frobnicate' \
	'echo "AS-STATUS unknown %lasterror%"' \
	'anysector.efi ls' \
	'echo "AS-STATUS ls %lasterror%"' \
	'anysector.efi cat /anysector.cfg' \
	'echo "AS-STATUS cat %lasterror%"' \
	'anysector.efi boot nosuchentry' \
	'echo "AS-STATUS boot %lasterror%"' \
	'anysector.efi boot 1' \
	'echo "AS-STATUS boot1 %lasterror%"' \
	'reset -s' > "$nsh"
cfg=$work/anysector.cfg
printf '%s\n' 'timeout 5' 'default demo' '' 'entry demo' '  title Shell test entry' \
	'  kernel /vmlinuz' '  cmdline console=ttyS0 marker=cfg-cat-ok' '' \
	'entry tool' '  title An EFI application on partition 2' '  efi /EFI/tool.efi' \
	'  partition 2' '' \
	'entry gone' '  title An EFI application partition 2 does not have' \
	'  efi /EFI/gone.efi' '  partition 2' '' \
	'entry pinned-ok' '  title A kernel pinned as it is' '  kernel /vmlinuz' \
	"  sha256 $(printf 'not a kernel\n' | sha256sum | cut -c1-64)" '' \
	'entry changed' '  title A kernel changed since it was pinned' '  kernel /vmlinuz' \
	"  sha256 $(printf 'the kernel as pinned\n' | sha256sum | cut -c1-64)" > "$cfg"
printf 'not a kernel\n' > "$work/vmlinuz"
pin_got=$(sha256sum < "$work/vmlinuz" | cut -c1-8)
pin_want=$(printf 'the kernel as pinned\n' | sha256sum | cut -c1-8)
if ! { sgdisk -a 1 -n 1:256:+40M -t 1:ef00 -c 1:ESP -n 2:10497:+4M -t 2:8300 -c 2:misaligned \
		"$dev" >"$work/sgdisk-a.log" 2>&1 &&
	partx -a "$dev" &&
	mkfs.fat -F 16 -S 4096 -s 1 "${dev}p1" >"$work/mkfs.log" 2>&1 &&
	mcopy -i "${dev}p1" "$efi" ::/anysector.efi 2>>"$work/mtools.log" &&
	mcopy -i "${dev}p1" "$nsh" "$cfg" "$work/vmlinuz" ::/ 2>>"$work/mtools.log" &&
	mkfs.fat -S 4096 -s 1 "${dev}p2" >>"$work/mkfs.log" 2>&1 &&
	mmd -i "${dev}p2" ::/EFI 2>>"$work/mtools.log" &&
	mcopy -i "${dev}p2" "$efi" ::/EFI/tool.efi 2>>"$work/mtools.log"; }; then
	echo "FAIL building the 4Kn test disk:"; cat "$work"/*.log
	fail=1
	result
fi
cleanup

# ---- disk B: 512e; sgdisk on a plain file writes 512-byte sectors ----
truncate -s 16M "$disk_b"
sgdisk -a 1 -n 1:63:+1M -t 1:8300 -c 1:early -n 2:4096:+1M -t 2:8300 -c 2:aligned "$disk_b" \
	>"$work/sgdisk-b.log" 2>&1 || { echo "FAIL building the 512e test disk"; fail=1; result; }
# Break the primary header's CRC field (LBA 1, byte 16).
printf '\377\377\377\377' | dd of="$disk_b" bs=1 seek=528 conv=notrunc 2>/dev/null

cp "$vars" "$work/vars.fd"
# No bootable disk (nothing at \EFI\BOOT\BOOTX64.EFI), no network: OVMF falls through to the
# internal shell, waits 5 s and runs startup.nsh, which ends with "reset -s".
timeout 180 qemu-system-x86_64 -machine q35 -accel tcg -m 512 -display none -monitor none \
	-nic none -serial "file:$log" \
	-drive if=pflash,format=raw,readonly=on,file="$code" \
	-drive if=pflash,format=raw,file="$work/vars.fd" \
	-drive if=none,id=da,format=raw,snapshot=on,file="$disk_a" \
	-device virtio-blk-pci,drive=da,logical_block_size=4096,physical_block_size=4096 \
	-drive if=none,id=db,format=raw,readonly=on,file="$disk_b" \
	-device virtio-blk-pci,drive=db,logical_block_size=512,physical_block_size=4096 \
	</dev/null >"$work/qemu.out" 2>&1
rc=$?
[ $rc = 0 ] || echo "note: qemu exited with status $rc (124 = timed out)"
# Plain text: drop the firmware's escape sequences and CRs.
text=$work/serial.txt
sed 's/\x1b\[[0-9;=?]*[A-Za-z]//g; s/\r//g' "$log" > "$text"

expect() { # description, fixed string that must appear as a line (leading blanks ignored)
	if sed 's/^[[:space:]]*//' "$text" | grep -qxF -- "$2"; then
		echo "ok   $1"; pass=$((pass + 1))
	else
		echo "FAIL $1: no line \"$2\""; fail=$((fail + 1))
	fi
}
expect_none() { # description, extended regex that must match no line of the log
	if grep -qE -- "$2" "$text"; then
		echo "FAIL $1: a line matches /$2/"; fail=$((fail + 1))
	else
		echo "ok   $1"; pass=$((pass + 1))
	fi
}
expect_re() { # description, extended regex somewhere in the log
	if grep -qE -- "$2" "$text"; then
		echo "ok   $1"; pass=$((pass + 1))
	else
		echo "FAIL $1: nothing matches /$2/"; fail=$((fail + 1))
	fi
}

expect_re "4Kn disk: BlockSize 4096" '^  BlockSize 4096, LastBlock 16383, '
expect "4Kn partition 1 aligned" \
	'partition 1 "ESP": start LBA 256, 10240 sectors, physically aligned yes, 1 MiB aligned yes'
expect "4Kn partition 2 not on 1 MiB" \
	'partition 2 "misaligned": start LBA 10497, 1024 sectors, physically aligned yes, 1 MiB aligned no'
expect_re "512e disk: damaged primary GPT named, backup used" \
	'^warning: primary GPT header at LBA 1 is invalid \(.*\); using the backup GPT header at LBA 32767$'
expect "512e disk: partitions from the backup GPT" 'GPT (backup header), 2 partitions'
expect_re "512e disk: BlockSize 512, 8 per physical block" \
	'^  BlockSize 512, LastBlock 32767, IoAlign [0-9]+, LogicalBlocksPerPhysicalBlock 8, '
expect "512e partition at LBA 63 misaligned" \
	'partition 1 "early": start LBA 63, 2048 sectors, physically aligned no, 1 MiB aligned no'
expect "512e partition at LBA 4096 aligned" \
	'partition 2 "aligned": start LBA 4096, 2048 sectors, physically aligned yes, 1 MiB aligned yes'
expect "info exit status" 'AS-STATUS info 0x0'
expect_re "check names the 1 MiB misalignment" \
	'^warning: device [0-9]+ partition 2 starts at LBA 10497, not on a 1 MiB boundary; the next aligned start is LBA 10752$'
expect_re "check names the physical misalignment" \
	'^warning: device [0-9]+ partition 1 starts at LBA 63, not on a physical sector boundary \(4096-byte sectors, alignment offset 0\); the next aligned start is LBA 64$'
expect "check reads this partition's config" \
	'the menu is valid: entries 5, default demo, timeout 5 s'
expect "check names an efi entry whose file partition 2 does not have" \
	'error: entry gone: EFI application /EFI/gone.efi is not a file on partition 2'
expect_none "check finds the efi entry's file on partition 2" 'entry tool:'
expect "check refuses a pinned kernel that changed with the loaders' sentence" \
	"error: entry 'changed': the SHA-256 of /vmlinuz ($pin_got...) differs from the pinned one ($pin_want...), so it is not booted"
expect_none "check passes a kernel that matches its pin" "entry 'pinned-ok'"
expect "check summary" 'check: 2 errors, 4 warnings'
expect "check exit status (errors)" 'AS-STATUS check 0x2'
expect 'unknown command is named' 'anysector: unknown command "frobnicate"'
expect_re "unknown command prints usage" '^usage: anysector.efi '
expect "unknown command exit status (EFI_INVALID_PARAMETER)" 'AS-STATUS unknown 0x2'
expect_re "ls lists the program" '^ +[0-9]+  anysector.efi$'
expect "ls exit status" 'AS-STATUS ls 0x0'
expect "cat prints the config" 'cmdline console=ttyS0 marker=cfg-cat-ok'
expect "cat exit status" 'AS-STATUS cat 0x0'
expect "boot of a missing entry is a sentence" 'error: anysector.cfg has no entry nosuchentry'
expect "boot of a missing entry exit status (EFI_NOT_FOUND)" 'AS-STATUS boot 0xE'
expect "boot by number refuses a kernel without an EFI stub" \
	'error: entry demo: kernel /vmlinuz is not an EFI executable (no PE header): a Linux kernel needs CONFIG_EFI_STUB to boot from UEFI'
expect "boot of a non-PE kernel exit status (EFI_UNSUPPORTED)" 'AS-STATUS boot1 0x3'
if [ $fail != 0 ]; then
	echo "--- serial log ($text), last 60 lines:"
	tail -n 60 "$text"
fi
result
