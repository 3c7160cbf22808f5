#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Cross-checks common/'s partition tables with the kernel-side tools on real block devices:
# loop devices of 512- and 4096-byte logical sectors (losetup -b).
#  - a GPT written by our gpt_write (through gpt_tool) passes `sgdisk -v` and `sfdisk --verify`,
#    and sfdisk --json sees exactly the partitions we wrote;
#  - GPTs written by sfdisk and by sgdisk, and a DOS table with logical partitions written by
#    sfdisk, parse through our mbr_read/gpt_read to the partitions sfdisk --json reports
#    (start, size, type, unique GUID, name; disk GUID and usable range for GPT);
#  - the protective MBRs all three write pass mbr_check_protective;
#  - with our primary header wiped, we read the same partitions from the backup.
# Needs root and loop devices; prints SKIP with the reason otherwise.
# usage: tables.sh GPT_TOOL
set -u
tool=$1
work=${BUILD:-build}/loop-tables
pass=0; fail=0; skip=0

finish() {
	echo "loop-tables: pass=$pass fail=$fail skip=$skip"
	[ -n "${RESULTS:-}" ] && echo "pass=$pass fail=$fail skip=$skip" > "$RESULTS/loop-tables"
	[ $fail = 0 ]
	exit $?
}
skip_all() {
	echo "SKIP loop-tables: $1"
	skip=$((skip + 1))
	finish
}
ok() { echo "ok   loop-tables $*"; pass=$((pass + 1)); }
bad() { echo "FAIL loop-tables $*"; fail=$((fail + 1)); }

[ "$(id -u)" = 0 ] || skip_all "not root: loop devices need root"
for p in losetup sfdisk sgdisk jq; do
	command -v $p >/dev/null 2>&1 || skip_all "$p is not installed"
done
[ -x "$tool" ] || { bad "no gpt_tool at $tool"; finish; }

mkdir -p "$work"
dev=""
cleanup() {
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	dev=""
	rm -f "$work"/disk-*.img
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM HUP

# sfdisk --json, and our dump, as the same lines: header facts then one line per partition.
theirs() {
	sfdisk --json "$1" | jq -r '.partitiontable as $t
		| (if $t.label == "gpt" then
			"disk-guid \($t.id)", "first-usable \($t.firstlba)", "last-usable \($t.lastlba)"
		   else "disk-id \($t.id)" end),
		  ($t.partitions[] | (.node | capture("(?<n>[0-9]+)$").n) as $n
			| "part \($n) \(.start) \(.size) "
			  + (if $t.label == "gpt" then "\(.type) \(.uuid) \(.name // "")"
			     else .type + (if .bootable then " boot" else "" end) end),
			  (if .attrs then "attrs \($n) \(.attrs)" else empty end))'
}
ours() {
	"$tool" "$1" dump 2>"$work/dump.err" | grep -E '^(disk-guid|disk-id|first-usable|last-usable|part|attrs) '
}

# compare NAME: our reading of $dev equals sfdisk's.
compare() {
	theirs "$dev" >"$work/theirs.txt" 2>"$work/theirs.err"
	ours "$dev" >"$work/ours.txt"
	if [ ! -s "$work/theirs.txt" ]; then
		bad "$1: sfdisk --json gave nothing"; cat "$work/theirs.err"
	elif ! grep -q '^part ' "$work/theirs.txt"; then
		bad "$1: sfdisk --json lists no partitions"; cat "$work/theirs.txt"
	elif cmp -s "$work/theirs.txt" "$work/ours.txt"; then
		ok "$1: our parse equals sfdisk --json ($(grep -c '^part ' "$work/ours.txt") partitions)"
	else
		bad "$1: our parse differs from sfdisk --json"
		diff "$work/theirs.txt" "$work/ours.txt" | sed 's/^/    /'
		sed 's/^/    ours: /' "$work/dump.err"
	fi
	if [ -s "$work/dump.err" ] && grep -qv '^info ' "$work/dump.err"; then
		bad "$1: our reader complained"; sed 's/^/    /' "$work/dump.err"
	fi
}

pmbr_ok() {
	if out=$("$tool" "$dev" pmbr 2>&1); then
		ok "$1: protective MBR passes every UEFI rule"
	else
		bad "$1: protective MBR breaks the rules"; printf '%s\n' "$out" | sed 's/^/    /'
	fi
}

zap() {
	sgdisk --zap-all "$dev" >/dev/null 2>&1
	dd if=/dev/zero of="$dev" bs=1M count=1 conv=fsync status=none
}

for ss in 512 4096; do
	img=$work/disk-$ss.img
	rm -f "$img"
	truncate -s 64M "$img"
	if ! dev=$(losetup -f --show -b "$ss" "$img" 2>"$work/losetup.err"); then
		dev=""
		skip_all "losetup -b $ss failed: $(cat "$work/losetup.err")"
	fi
	n=$((64 * 1024 * 1024 / ss))
	mib=$((1024 * 1024 / ss))
	arr=$((16384 / ss))
	lastu=$((n - 2 - arr))
	got=$(cat /sys/block/"${dev#/dev/}"/queue/logical_block_size 2>/dev/null)
	[ "$got" = "$ss" ] || bad "LSS $ss: $dev reports logical_block_size ${got:-?}"

	# 1. Ours, validated by sgdisk and sfdisk.
	zap
	if "$tool" "$dev" write -g 0D5B3F2A-6C1E-4D7B-9A31-2E5F7C9D1B44 \
		"$mib:$((2 * mib - 1)):bios:11111111-2222-4333-8444-555555555555:BIOS boot" \
		"$((2 * mib)):$((34 * mib - 1)):esp:66666666-7777-4888-9999-AAAAAAAAAAAA:EFI System" \
		"$((34 * mib)):$lastu:linux::root:0x5000000000000005" 2>"$work/write.err"; then
		ok "LSS $ss: gpt_tool wrote a GPT"
	else
		bad "LSS $ss: gpt_tool write failed"; cat "$work/write.err"
	fi
	if out=$(sgdisk -v "$dev" 2>&1) && printf '%s\n' "$out" | grep -q 'No problems found'; then
		ok "LSS $ss: sgdisk -v accepts our GPT"
	else
		bad "LSS $ss: sgdisk -v rejects our GPT"; printf '%s\n' "$out" | sed 's/^/    /'
	fi
	if out=$(sfdisk --verify "$dev" 2>&1) && printf '%s\n' "$out" | grep -q 'No errors detected'; then
		ok "LSS $ss: sfdisk --verify accepts our GPT"
	else
		bad "LSS $ss: sfdisk --verify rejects our GPT"; printf '%s\n' "$out" | sed 's/^/    /'
	fi
	compare "LSS $ss: our GPT"
	grep -q "first-usable $((2 + arr))\$" "$work/ours.txt" &&
		grep -q "last-usable $lastu\$" "$work/ours.txt" &&
		ok "LSS $ss: usable range $((2 + arr))..$lastu as the spec lays it out" ||
		bad "LSS $ss: usable range is not $((2 + arr))..$lastu"
	pmbr_ok "LSS $ss: our GPT"

	# 2. The backup carries it when the primary header is gone.
	dd if=/dev/zero of="$dev" bs="$ss" seek=1 count=1 conv=fsync status=none
	"$tool" "$dev" dump >"$work/backup.txt" 2>"$work/backup.err"
	if grep -q '^header backup$' "$work/backup.txt" &&
		grep -q 'gpt.using_backup' "$work/backup.err" &&
		[ "$(grep '^part ' "$work/backup.txt")" = "$(grep '^part ' "$work/ours.txt")" ]; then
		ok "LSS $ss: primary header wiped, same partitions read from the backup"
	else
		bad "LSS $ss: backup fallback"; sed 's/^/    /' "$work/backup.txt" "$work/backup.err"
	fi

	# 3. A larger array, sfdisk-style usable start: still valid for both tools.
	zap
	if "$tool" "$dev" write -n 256 -f "$mib" "$mib:$((8 * mib - 1)):msdata::data" \
		2>"$work/write.err" && sgdisk -v "$dev" 2>&1 | grep -q 'No problems found' &&
		sfdisk --verify "$dev" >/dev/null 2>&1; then
		ok "LSS $ss: our 256-entry GPT with FirstUsable $mib passes sgdisk -v and sfdisk --verify"
	else
		bad "LSS $ss: our 256-entry GPT"; cat "$work/write.err"; sgdisk -v "$dev" | sed 's/^/    /'
	fi
	compare "LSS $ss: our 256-entry GPT"

	# 4. sfdisk's GPT.
	zap
	printf '%s\n' 'label: gpt' \
		"size=$mib, type=21686148-6449-6E6F-744E-656564454649, name=\"bios\"" \
		"size=$((8 * mib)), type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=\"EFI System\"" \
		"size=$((4 * mib)), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, attrs=LegacyBIOSBootable" \
		"type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7, name=\"rest\"" |
		sfdisk -q "$dev" >"$work/sfdisk.out" 2>&1
	compare "LSS $ss: sfdisk GPT"
	pmbr_ok "LSS $ss: sfdisk GPT"

	# 5. sgdisk's GPT.
	zap
	sgdisk -o -n 1:0:+1M -t 1:ef02 -c 1:bios -n 2:0:+8M -t 2:ef00 -c "2:EFI System" \
		-n 3:0:+4M -t 3:8300 -A 3:set:2 -n 4:0:0 -t 4:0700 "$dev" >"$work/sgdisk.out" 2>&1 ||
		{ bad "LSS $ss: sgdisk failed"; cat "$work/sgdisk.out"; }
	compare "LSS $ss: sgdisk GPT"
	pmbr_ok "LSS $ss: sgdisk GPT"

	# 6. sfdisk's DOS table with an extended partition and three logical ones.
	zap
	printf '%s\n' 'label: dos' \
		"${dev}p1 : start=$mib, size=$((4 * mib)), type=83, bootable" \
		"${dev}p2 : start=$((8 * mib)), size=$((16 * mib)), type=f" \
		"${dev}p5 : start=$((8 * mib + 64)), size=$((2 * mib)), type=83" \
		"${dev}p6 : start=$((12 * mib)), size=$mib, type=c" \
		"${dev}p7 : start=$((20 * mib)), size=100, type=7" \
		"${dev}p3 : start=$((30 * mib)), size=$mib, type=ef" |
		sfdisk -q "$dev" >"$work/sfdisk.out" 2>&1
	compare "LSS $ss: sfdisk DOS with logical partitions"

	losetup -d "$dev"
	dev=""
	rm -f "$img"
done
finish
