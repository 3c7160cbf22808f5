#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Regenerates the seed corpora of fuzz_gpt and fuzz_mbr (committed as the small files beside this
# script): valid tables at every sector size written by our gpt_write and by sfdisk, and broken
# ones that each break one rule. Every image is at most 64 KiB (the fuzzers' max_len), plus fuzz_gpt's mode byte.
# usage: tests/fuzz/corpus/make-tables.sh [GPT_TOOL]   (default $BUILD/asan/tests/loop/gpt_tool)
set -eu
cd "$(dirname "$0")"
tool=${1:-../../../${BUILD:-build}/asan/tests/loop/gpt_tool}
case $tool in /*) ;; *) tool=$(pwd)/$tool ;; esac
[ -x "$tool" ] || { echo "build gpt_tool first: make $tool" >&2; exit 1; }
command -v sfdisk >/dev/null && command -v xxd >/dev/null || { echo "needs sfdisk and xxd" >&2; exit 1; }

rm -rf gpt mbr
mkdir -p gpt mbr

# poke FILE OFFSET HEX: overwrite bytes in place.
poke() { printf '%s' "$3" | xxd -r -p | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
le32() { printf '%02x%02x%02x%02x' $(($1 & 255)) $((($1 >> 8) & 255)) $((($1 >> 16) & 255)) $((($1 >> 24) & 255)); }
# entry FILE SECTOR_SIZE LBA SLOT STATUS TYPE START SIZE: one MBR/EBR entry (CHS left zero)
# plus the record's 0x55AA.
entry() {
	base=$(($2 * $3))
	poke "$1" $((base + 446 + 16 * $4)) "$5000000$6000000$(le32 $7)$(le32 $8)"
	poke "$1" $((base + 510)) 55aa
}
blank() { rm -f "$1"; truncate -s "$2" "$1"; }

# --- GPT: valid tables at 512, 1024, 2048, 4096 (64 KiB disks) ---
for ss in 512 1024 2048 4096; do
	n=$((65536 / ss)); arr=$((16384 / ss)); fu=$((2 + arr)); lu=$((n - 2 - arr))
	blank gpt/ours-$ss.img 64K
	"$tool" -b $ss gpt/ours-$ss.img write -g 0D5B3F2A-6C1E-4D7B-9A31-2E5F7C9D1B44 \
		"$fu:$fu:bios:11111111-2222-4333-8444-555555555555:BIOS boot" \
		"$((fu + 1)):$((fu + 2)):esp:66666666-7777-4888-9999-AAAAAAAAAAAA:EFI System:1" \
		"$((fu + 3)):$lu:linux:01234567-89AB-4CDE-8F01-23456789ABCD:root:0x4"
done
blank gpt/ours-4096-n4.img 64K
"$tool" -b 4096 gpt/ours-4096-n4.img write -n 4 -g 0D5B3F2A-6C1E-4D7B-9A31-2E5F7C9D1B44 \
	"6:7:esp:66666666-7777-4888-9999-AAAAAAAAAAAA:e"
blank gpt/sfdisk-512.img 64K
printf '%s\n' 'label: gpt' 'label-id: 6DD877F1-7322-1B45-A535-68B24C9CEBFE' \
	'size=8, name="a", uuid=97C74F62-FEA0-344D-9F93-F13835DE4DB2' \
	'size=16, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, uuid=0D1A3281-938A-184E-94F4-7AD13FBE5889' |
	sfdisk -q gpt/sfdisk-512.img >/dev/null

# A disk that grew after the GPT was written: the backup is not at the last LBA.
blank gpt/grown-512.img 48K
"$tool" -b 512 gpt/grown-512.img write -g 0D5B3F2A-6C1E-4D7B-9A31-2E5F7C9D1B44 \
	"34:40:linux:01234567-89AB-4CDE-8F01-23456789ABCD:x"
truncate -s 64K gpt/grown-512.img

# Entry size 256 over the same bytes (valid after resealing).
cp gpt/ours-512.img gpt/entry256-512.img
poke gpt/entry256-512.img $((512 + 80)) "$(le32 64)$(le32 256)"
"$tool" -b 512 gpt/entry256-512.img reseal 1

# --- GPT: broken ones ---
cp gpt/ours-512.img gpt/bad-primary-crc.img            # header CRC: backup used
poke gpt/bad-primary-crc.img $((512 + 60)) ff
cp gpt/bad-primary-crc.img gpt/bad-both.img             # and no backup signature
poke gpt/bad-both.img $((65536 - 512)) 00
cp gpt/ours-4096.img gpt/bad-array-crc-4096.img         # array CRC
poke gpt/bad-array-crc-4096.img $((2 * 4096 + 200)) 01
cp gpt/ours-512.img gpt/bad-overlap.img                 # entry 2 starts inside entry 1
poke gpt/bad-overlap.img $((1024 + 128 + 32)) "$(le32 34)00000000"
"$tool" -b 512 gpt/bad-overlap.img reseal 1
cp gpt/ours-512.img gpt/bad-entry-range.img             # entry 3 ends past LastUsable
poke gpt/bad-entry-range.img $((1024 + 256 + 40)) "$(le32 120)00000000"
"$tool" -b 512 gpt/bad-entry-range.img reseal 1
cp gpt/ours-1024.img gpt/bad-array-lba-1024.img         # array overlapping the usable range
poke gpt/bad-array-lba-1024.img $((1024 + 72)) "$(le32 20)00000000"
"$tool" -b 1024 gpt/bad-array-lba-1024.img reseal 1
cp gpt/ours-2048.img gpt/bad-size-overflow-2048.img     # count x size past 32 bits
poke gpt/bad-size-overflow-2048.img $((2048 + 80)) "$(le32 33554432)$(le32 256)"
"$tool" -b 2048 gpt/bad-size-overflow-2048.img reseal 1

# --- MBR ---
# The seed's Windows 7 tables (W-1, W-2, W-3) in otherwise empty records.
w() { blank "mbr/$1.img" 512; poke "mbr/$1.img" 446 "$2"; poke "mbr/$1.img" 510 55aa; }
w w1 8020210007df130c0008000000200300""00df140c07feffff0028030000689e12
w w2 8020210007df130c0008000000200300""00df140c07feffff0028030000b83f25
w w3 8020280007df130c07080000f91f0300""00df1b0c07feffff07280300f9376d74

# sfdisk's DOS table with logical partitions.
blank mbr/sfdisk-logical.img 64K
printf '%s\n' 'label: dos' 'label-id: 0x7322bb2d' \
	'mbr/sfdisk-logical.img1 : start=2, size=20, type=83, bootable' \
	'mbr/sfdisk-logical.img2 : start=30, size=90, type=5' \
	'mbr/sfdisk-logical.img5 : start=32, size=10, type=83' \
	'mbr/sfdisk-logical.img6 : start=50, size=20, type=c' \
	'mbr/sfdisk-logical.img7 : start=80, size=30, type=7' |
	sfdisk -q mbr/sfdisk-logical.img >/dev/null

# Hand-made EBR chains at 512 and 4096: MBR p1 + extended, three EBRs.
chain512() {
	blank "$1" 64K
	entry "$1" 512 0 0 80 83 2 20
	entry "$1" 512 0 1 00 0f 30 90
	entry "$1" 512 30 0 00 83 2 10
	entry "$1" 512 30 1 00 05 20 30
	entry "$1" 512 50 0 00 0c 2 20
	entry "$1" 512 50 1 00 05 50 30
	entry "$1" 512 80 0 00 07 2 20
}
chain512 mbr/chain-512.img
chain512 mbr/bad-ebr-loop.img;  entry mbr/bad-ebr-loop.img 512 80 1 00 05 0 30
chain512 mbr/bad-ebr-self.img;  entry mbr/bad-ebr-self.img 512 50 1 00 05 20 30
chain512 mbr/bad-ebr-leaves.img; entry mbr/bad-ebr-leaves.img 512 80 1 00 05 100 30
chain512 mbr/bad-ebr-sig.img;   poke mbr/bad-ebr-sig.img $((80 * 512 + 510)) 0000
chain512 mbr/bad-logical.img;   entry mbr/bad-logical.img 512 80 0 00 07 2 200
blank mbr/chain-4096.img 64K
entry mbr/chain-4096.img 4096 0 0 80 83 1 3
entry mbr/chain-4096.img 4096 0 1 00 05 4 12
entry mbr/chain-4096.img 4096 4 0 00 83 1 2
entry mbr/chain-4096.img 4096 4 1 00 05 4 8
entry mbr/chain-4096.img 4096 8 0 00 0c 1 3

# Primary-table breakage, and protective MBRs.
cp mbr/w1.img mbr/bad-status.img; poke mbr/bad-status.img 446 01
blank mbr/bad-overlap.img 64K
entry mbr/bad-overlap.img 512 0 0 00 83 2 20
entry mbr/bad-overlap.img 512 0 2 00 83 21 20
blank mbr/bad-lba32.img 4K
entry mbr/bad-lba32.img 512 0 0 00 83 4294967040 4096
dd if=gpt/ours-512.img of=mbr/pmbr-512.img bs=512 count=1 status=none
cp gpt/ours-4096-n4.img mbr/pmbr-4096.img

# fuzz_gpt's mode byte in front of each GPT image: its sector size (and reads split at 3 sectors
# for 1024 and 4096); CRCs are taken as they are.
for f in gpt/*.img; do
	case $f in *-1024*) m=05 ;; *-2048*) m=02 ;; *-4096*) m=07 ;; *) m=00 ;; esac
	{ printf '%s' $m | xxd -r -p; cat "$f"; } >"$f.tmp" && mv "$f.tmp" "$f"
done
ls gpt mbr | wc -l
