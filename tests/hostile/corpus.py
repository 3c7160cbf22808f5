# SPDX-License-Identifier: BSD-2-Clause
"""The hostile-input corpus: damaged and adversarial disk images, each with the anysector commands
run against it and what each must answer. Every image is built by images.py from one of four
valid, installable disks (GPT or MBR at 512 or 4096 bytes per sector) with one thing broken, so
the damage alone is what the installer must notice.

A case is (name, what, builder, runs). builder(work) returns an images.Image; each run is
(command, extra flags, exit code, strings the output must hold[, why it may still fail: a change
requested of another file's owner]). "{img}" in flags is the image's path. Commands that write
(install, add, partition) get --backup/--kernel added by run.py; "json" is `check --json`, whose
"damage" must name why the writers refuse."""
import struct

from dual_cases import DUAL_CASES, DUAL_LOOP_CASES
from images import esp_with_file, gpt_disk, mbr_disk
from lib import stages
from lib.disk import MIB, Image
from lib.fat import fat12_set
from lib.gpt import LINUX_TYPE, Gpt, crc32, gpt_header
from lib.mbr import mbr_entry, mbr_record, protective_mbr

S512 = ["--sector-size", "512"]
S4K = ["--sector-size", "4096"]


def writers(*has, flags=(), info=0, info_has=()):
    """Every command a damaged disk meets: install and add refuse with exit 2 naming the problem;
    check fails (2) naming it too, and its JSON says why; info shows what it can (exit info)."""
    f = list(flags)
    return [("install", f, 2, list(has)), ("add", f, 2, list(has)), ("check", f, 2, list(has)),
            ("info", f, info, list(info_has)), ("json", f, 2, [])]


def unreadable(*has, flags=()):
    """A disk no command can read: all of them exit 2 with the same sentence."""
    f = list(flags)
    return [(c, f, 2, list(has)) for c in ("install", "add", "check", "info")]


# --- GPT builders: the valid 512-byte (16384 sectors) or 4Kn (2048 sectors) disk with one
# change. ---

def gpt_case(lss=512, primary=None, backup=None, both=None, entries=None, pentries=None,
             bentries=None, size=None, lba0=None, after=None):
    """A valid GPT disk with header fields overridden (primary, backup or both), the entries
    changed (entries: a function over the list, for both arrays), the image cut to size bytes,
    LBA 0 replaced, or after(img, g) run last."""
    def build(work):
        img, g = gpt_disk(work, lss)
        p, b = dict(both or {}), dict(both or {})
        p.update(primary or {})
        b.update(backup or {})
        ents = [bytearray(e) for e in g.entries]
        if entries:
            entries(ents)
        pe = [bytearray(e) for e in ents]
        be = [bytearray(e) for e in ents]
        if pentries:
            pentries(pe)
        if bentries:
            bentries(be)
        g.put(img, primary=p, backup=b, primary_entries=pe, backup_entries=be)
        if lba0 is not None:
            img.put_lba(0, lba0(img))
        if after:
            after(img, g)
        if size is not None:
            img.size = size
        return img
    return build


def set_range(i, first, last):
    """Entry i (0-based) gets [first, last]."""
    def f(ents):
        struct.pack_into("<QQ", ents[i], 32, first, last)
    return f


def mbr_case(lss=512, entries=None, logical=False, after=None):
    """A valid MBR disk with LBA 0's entries replaced (entries(img) -> list of 16-byte entries)
    or after(img) run last."""
    def build(work):
        img = mbr_disk(work, lss, logical=logical)
        if entries:
            img.put_lba(0, mbr_record(entries(img)))
        if after:
            after(img)
        return img
    return build


N512, N4K = 8 * MIB // 512, 8 * MIB // 4096   # sectors of the base disks
LU512, LU4K = N512 - 34, N4K - 6              # their last usable LBAs


def ambiguous(work):
    """A 4Kn GPT disk whose LBA 0 also holds, at byte 512, a CRC-valid 512-byte-sector GPT
    header (left over from an older 512-byte layout): valid at both sizes."""
    img, g = gpt_disk(work, 4096)
    arr = bytes(16384)
    stale = gpt_header(1, N512 - 1, 34, LU512, 2, crc32(arr), lss=512)
    img.put(512, stale)
    return img


def no_gpt_at_all(lss):
    """A protective MBR, but both GPT headers' signatures are gone."""
    def build(work):
        img, g = gpt_disk(work, lss)
        img.put_lba(1, bytes(8))
        img.put_lba(g.sectors - 1, bytes(8))
        return img
    return build


def hybrid(extra):
    return gpt_case(lba0=lambda img: protective_mbr(img.sectors, extra))


def ebr_chain(links):
    """The MBR disk with an extended partition from 5 MiB to the end whose EBRs sit at the given
    LBAs; links[i] = (relative link to the next EBR or 0, logical start relative to the EBR,
    sectors)."""
    def build(work):
        img = mbr_disk(work, 512, logical=True)
        for at, (link, start, sectors) in links.items():
            ents = [mbr_entry(0x83, start, sectors)]
            if link is not None:
                ents.append(mbr_entry(0x05, link, 2048))
            img.put_lba(at, mbr_record(ents, disk_sig=0))
        return img
    return build


def long_ebr_chain(work):
    """An extended partition holding 70 logical partitions, one EBR each: more than the walk's
    bound (MBR_MAX_LOGICAL, 60)."""
    img = mbr_disk(work, 512, logical=True)
    for i in range(70):
        link = (i + 1) * 40 if i < 69 else None
        ents = [mbr_entry(0x83, 1, 39)]
        if link is not None:
            ents.append(mbr_entry(0x05, link, 40))
        img.put_lba(EXT + i * 40, mbr_record(ents, disk_sig=0))
    return img


def broken_esp(work):
    """A valid GPT disk whose ESP's FAT boot sector is zeroed."""
    img, g = gpt_disk(work, 512)
    img.put_lba(4096, bytes(512))
    return img


def hostile_stage1(offset, length):
    """A valid GPT disk whose LBA 0 claims to hold anysector's stage1 with stage2 at byte
    offset, length bytes long."""
    def build(work):
        img, g = gpt_disk(work, 512)
        rec = protective_mbr(img.sectors)
        stages.mark_stage1(rec)
        stages.set_stage1_target(rec, offset, length, version=1)
        img.put_lba(0, rec)
        return img
    return build


def many_partitions(work):
    """256 entries, 200 of them used (1-sector partitions): more than the 128 we keep."""
    img = Image(8 * MIB, 512)
    g = Gpt(512, N512, [(LINUX_TYPE, 2048 + i, 2048 + i, "p%d" % i) for i in range(200)],
            num_entries=256)
    img.put_lba(0, protective_mbr(N512))
    g.put(img)
    return img


def esp_bpb(off, fmt, value):
    """A valid GPT disk whose ESP boot sector has the BPB field at off set to value."""
    def build(work):
        img, g = gpt_disk(work, 512)
        bs = img.get(4096 * 512, 512)
        struct.pack_into(fmt, bs, off, value)
        img.put_lba(4096, bs)
        return img
    return build


def fat_refused(*has):
    """install and add refuse the boot partition's file system; check warns (nothing of ours
    is installed yet)."""
    h = ["holds no valid FAT filesystem"] + list(has)
    return [("install", [], 2, h), ("add", [], 2, h), ("check", [], 1, h)]


CFG = b"timeout 3\ndefault a\n\nentry a\n  kernel /a/vmlinuz\n"


def esp_file_case(text=CFG, mutate=None):
    """A valid GPT disk whose ESP holds anysector.cfg (text), then mutate(fs, entry, bpb)."""
    def build(work):
        img, g = gpt_disk(work, 512)
        esp_with_file(img, work, 4096, 8192, "anysector.cfg", text, mutate)
        return img
    return build


def cfg_chain(size, first=None, links=()):
    """Sets anysector.cfg's size, its first cluster, and FAT12 links (cluster, next) in every
    FAT."""
    def mutate(fs, e, b):
        struct.pack_into("<I", fs, e + 28, size)
        if first is not None:
            struct.pack_into("<H", fs, e + 26, first)
        for k in range(b["nfats"]):
            fat = b["fat"] + k * b["fat_bytes"]
            view = fs[fat:fat + b["fat_bytes"]]
            for c, n in links:
                fat12_set(view, c, n)
            fs[fat:fat + b["fat_bytes"]] = view
    return mutate


def efi_dir_loop(work):
    """\\EFI\\BOOT\\BOOTX64.EFI on the ESP, then the \\EFI directory's cluster links to
    itself: a directory chain that never ends."""
    img, g = gpt_disk(work, 512)

    def mutate(fs, e, b):
        first = struct.unpack_from("<H", fs, e + 26)[0]
        for k in range(b["nfats"]):
            fat = b["fat"] + k * b["fat_bytes"]
            view = fs[fat:fat + b["fat_bytes"]]
            fat12_set(view, first, first)
            fs[fat:fat + b["fat_bytes"]] = view
    esp_with_file(img, work, 4096, 8192, "EFI/BOOT/BOOTX64.EFI", b"MZ" + bytes(3000), mutate)
    return img


def cfg_unreadable(why):
    """add and install refuse to build on the broken file (mtools would hand out the clusters
    its chain still uses: install once cross-linked BOOTX64.EFI with it); check says which file
    and why."""
    return [("add", [], 2, ["anysector.cfg"]), ("install", [], 2, ["anysector.cfg"]),
            ("check", [], 2, ["anysector.cfg on partition 2 cannot be read", why])]


def blank(size):
    def build(work):
        return Image(size, 512)
    return build


EXT = 5 * MIB // 512  # the extended partition's first LBA on the 512-byte MBR disk

# The valid disks every case is made from, and a consistent hybrid MBR: check passes, install
# and add would write (dry runs). They prove that each case's one change is what is refused.
CONTROLS = [
    ("control-gpt-512", "the valid 512-byte GPT disk", gpt_case(lss=512),
     [("check", [], 0, []), ("install", ["--dry-run"], 0, ["dry run"]),
      ("add", ["--dry-run"], 0, ["dry run"])]),
    ("control-gpt-4k", "the valid 4Kn GPT disk", gpt_case(lss=4096),
     [("check", [], 0, []), ("install", ["--dry-run"], 0, ["dry run"]),
      ("add", ["--dry-run"], 0, ["dry run"])]),
    ("control-mbr-512", "the valid 512-byte MBR disk", mbr_case(lss=512),
     [("check", S512, 0, []), ("install", ["--dry-run"] + S512, 0, ["dry run"]),
      ("add", ["--dry-run"] + S512, 0, ["dry run"])]),
    ("control-mbr-4k", "the valid 4Kn MBR disk", mbr_case(lss=4096),
     [("check", S4K, 0, []), ("install", ["--dry-run"] + S4K, 0, ["dry run"]),
      ("add", ["--dry-run"] + S4K, 0, ["dry run"])]),
    ("control-mbr-logical", "the valid MBR disk with a logical partition",
     mbr_case(lss=512, logical=True),
     [("check", S512, 0, []), ("install", ["--dry-run"] + S512, 0, ["dry run"])]),
    ("control-hybrid", "a hybrid MBR whose FAT entry is exactly GPT partition 2",
     hybrid([mbr_entry(0x0C, 4096, 8192)]),
     [("check", [], 1, ["pmbr.other_entries"]), ("install", ["--dry-run"], 0, ["dry run"])]),
]

# Safety refusals on damaged images: a damaged disk is still someone's disk.
SAFETY = [("partition", [], 3, ["already holds", "--force"]),
          ("mkimage", ["--size", "8M"], 3, ["exists already", "--force"])]

CASES = CONTROLS + [
    # --- truncated images ---
    ("truncated-inside-mbr", "a GPT disk cut to 300 bytes, inside LBA 0",
     gpt_case(size=300), unreadable("is too small: 300 bytes")),
    ("truncated-inside-gpt-header", "a 512-byte GPT disk cut inside the primary header",
     gpt_case(size=512 + 60), unreadable("is too small")),
    ("truncated-inside-gpt-header-4k", "a 4Kn GPT disk cut inside the primary header",
     gpt_case(lss=4096, size=4096 + 60), unreadable("too small: 4156 bytes")),
    ("truncated-inside-entry-array", "a GPT disk cut inside the primary entry array",
     gpt_case(size=512 * 10), writers("entry array at LBA 2 (32 sectors) is not inside 1..9")),
    ("truncated-before-backup", "a GPT disk cut 40 sectors short: no backup GPT",
     gpt_case(size=(N512 - 40) * 512),
     writers("AlternateLBA 16383", 'no "EFI PART" signature', "LBA 16343")),
    ("truncated-before-backup-4k", "a 4Kn GPT disk cut 8 sectors short: no backup GPT",
     gpt_case(lss=4096, size=(N4K - 8) * 4096),
     writers("AlternateLBA 2047", 'no "EFI PART" signature', "LBA 2039")),
    ("zero-size", "an empty file", blank(0),
     unreadable("is too small: 0 bytes") +
     [("partition", ["--force"], 2, ["is too small: 0 bytes"])]),

    # --- entry array sizes that overflow or are out of range ---
    ("array-bytes-overflow-32", "NumberOfEntries 0x2000000 x 128 bytes = 2^32",
     gpt_case(both=dict(num_entries=0x2000000)), writers("overflow") + SAFETY),
    ("array-bytes-overflow-huge", "NumberOfEntries 0xFFFFFFFF x 4096 bytes",
     gpt_case(both=dict(num_entries=0xFFFFFFFF, entry_size=4096)), writers("overflow")),
    ("array-count-huge", "1,000,000 entries of 128 bytes (122 MiB of array)",
     gpt_case(both=dict(num_entries=1000000)), writers("128000000 bytes")),
    ("entry-size-64", "SizeOfPartitionEntry 64 (< 128)",
     gpt_case(both=dict(entry_size=64, num_entries=256)), writers("entry size 64")),
    ("entry-size-130", "SizeOfPartitionEntry 130 (not a multiple of 8)",
     gpt_case(both=dict(entry_size=130)), writers("entry size 130")),
    ("entry-size-huge", "SizeOfPartitionEntry 0x80000000",
     gpt_case(both=dict(entry_size=0x80000000, num_entries=1)), writers("2147483648")),

    # --- header fields ---
    ("header-size-91", "HeaderSize 91 (< 92)",
     gpt_case(both=dict(header_size=91)), writers("HeaderSize 91")),
    ("header-size-513", "HeaderSize 513 (> the 512-byte sector)",
     gpt_case(both=dict(header_size=513)), writers("HeaderSize 513")),
    ("header-size-huge", "HeaderSize 0xFFFFFFFF",
     gpt_case(both=dict(header_size=0xFFFFFFFF)), writers("4294967295")),
    ("header-crc-both", "both header CRCs wrong",
     gpt_case(both=dict(crc=0xDEADBEEF)), writers("CRC") + SAFETY),
    ("header-crc-primary", "the primary header's CRC wrong (the backup is good)",
     gpt_case(primary=dict(crc=0xDEADBEEF)), writers("CRC", info=0)),
    ("array-crc-both", "both entry arrays' CRCs wrong",
     gpt_case(both=dict(array_crc=0x12345678)), writers("CRC")),
    ("revision-2", "Revision 2.0",
     gpt_case(both=dict(revision=0x00020000)), writers("revision")),
    ("my-lba-wrong", "the primary header says it is at LBA 2",
     gpt_case(primary=dict(my=2)), writers("GPT header at LBA 1: MyLBA is 2")),
    ("usable-inverted", "FirstUsableLBA 16000 > LastUsableLBA 100",
     gpt_case(both=dict(first_usable=16000, last_usable=100)), writers("16000")),
    ("usable-beyond-disk", "LastUsableLBA past the end of the disk",
     gpt_case(both=dict(last_usable=N512 + 100)), writers(str(N512 + 100))),
    ("usable-over-array", "FirstUsableLBA 2: the usable range covers the entry array",
     gpt_case(both=dict(first_usable=2)), writers("usable")),
    ("backup-lba-wrong", "the primary's AlternateLBA 5000: no backup header there",
     gpt_case(primary=dict(alt=5000)), writers("5000")),
    ("backup-lba-beyond-disk", "the primary's AlternateLBA past the end of the disk",
     gpt_case(primary=dict(alt=N512 + 5), backup=dict(my=N512 + 5)), writers(str(N512 + 5))),
    ("array-beyond-disk", "PartitionEntryLBA past the end of the disk (both headers)",
     gpt_case(both=dict(entries_lba=N512 + 10)), writers("entr")),
    ("array-over-partition", "the primary entry array at LBA 2048, inside partition 1",
     gpt_case(primary=dict(entries_lba=2048)), writers("2048")),

    ("array-over-header", "the primary's PartitionEntryLBA 1: the array over its own header",
     gpt_case(primary=dict(entries_lba=1)), writers("entry array LBA 1..32 covers a GPT header")),
    ("backup-lba-is-primary", "the primary's AlternateLBA 1: itself",
     gpt_case(primary=dict(alt=1)), writers("AlternateLBA 1")),
    ("backup-is-primary-copy", "the last LBA holds a copy of the primary header (MyLBA 1)",
     gpt_case(backup=dict(my=1, alt=N512 - 1, entries_lba=2)), writers("MyLBA is 1")),
    ("too-many-partitions", "200 used entries in a 256-entry array",
     many_partitions, writers("more than 128 used entries")),

    # --- entries ---
    ("entries-overlap", "partition 3 starts inside partition 2",
     gpt_case(entries=set_range(2, 10000, LU512)), writers("overlap") + SAFETY),
    ("entry-beyond-last-usable", "4Kn: partition 3 at LBA 9000..9100, last usable 2042",
     gpt_case(lss=4096, entries=set_range(2, 9000, 9100)),
     writers("entry 3", "9100", "beyond last usable %d" % LU4K)),
    ("entry-end-before-start", "partition 3 ends before it starts",
     gpt_case(entries=set_range(2, 14000, 13000)), writers("14000", "13000")),
    ("entry-beyond-disk", "partition 3 ends at LBA 2^40",
     gpt_case(entries=set_range(2, 12288, 1 << 40)), writers(str(1 << 40))),
    ("entry-over-header", "partition 1 starts at LBA 1, over the primary header",
     gpt_case(entries=set_range(0, 1, 4095)),
     writers("entry 1: start LBA 1 is below first usable 34")),

    # --- primary and backup disagree ---
    ("backup-disagrees-guid", "the backup header names another disk GUID",
     gpt_case(backup=dict(disk_guid=bytes(range(16)))), writers("disk GUID", info=0)),
    ("backup-disagrees-entries", "the backup array gives partition 3 another range",
     gpt_case(bentries=set_range(2, 13000, LU512)), writers("backup")),
    ("backup-disagrees-usable", "the backup header's LastUsableLBA differs",
     gpt_case(backup=dict(last_usable=LU512 - 100)), writers("backup")),

    # --- LBA 0 in front of a GPT ---
    ("pmbr-missing", "a valid GPT with LBA 0 all zero",
     gpt_case(lba0=lambda img: bytes(512)), writers("protective MBR") + SAFETY),
    ("pmbr-start-2", "the 0xEE entry starts at LBA 2",
     gpt_case(lba0=lambda img: mbr_record([mbr_entry(0xEE, 2, img.sectors - 2)], 0)),
     writers("protective")),
    ("hybrid-mbr-inconsistent", "a hybrid MBR whose FAT entry straddles GPT partitions 2 and 3",
     hybrid([mbr_entry(0x0C, 8192, 8192)]), writers("hybrid")),
    ("hybrid-mbr-beyond-disk", "a hybrid MBR with an entry past the end of the disk",
     hybrid([mbr_entry(0x83, 12288, 100000)]), writers("hybrid")),

    # --- MBR tables ---
    ("mbr-overlap", "MBR partition 2 starts inside partition 1",
     mbr_case(entries=lambda img: [mbr_entry(0xEF, 2048, 8192, True), mbr_entry(0x83, 4096, 8192)]),
     writers("overlap", flags=S512)),
    ("mbr-beyond-disk", "MBR partition 2 ends past the end of the disk",
     mbr_case(entries=lambda img: [mbr_entry(0xEF, 2048, 8192, True),
                                   mbr_entry(0x83, 10240, 100000)]),
     writers("MBR entry 2: LBA 10240..110239 ends past the last LBA 16383", flags=S512)),
    ("mbr-starts-at-0", "MBR partition 1 starts at LBA 0",
     mbr_case(entries=lambda img: [mbr_entry(0xEF, 0, 8192, True)]),
     writers("LBA 0", flags=S512)),
    ("mbr-lba32", "MBR partition 2 ends past LBA 2^32-1",
     mbr_case(entries=lambda img: [mbr_entry(0xEF, 2048, 8192, True),
                                   mbr_entry(0x83, 0xFFFFFF00, 0x1000)]),
     writers("past the 32-bit limit 4294967295", flags=S512)),
    ("mbr-bad-status", "an MBR entry with status byte 0x7F",
     mbr_case(after=lambda img: img.put(446, b"\x7F")), writers("status", flags=S512)),
    ("mbr-two-extended", "two extended partitions",
     mbr_case(entries=lambda img: [mbr_entry(0xEF, 2048, 8192, True),
                                   mbr_entry(0x05, 10240, 2048), mbr_entry(0x0F, 12288, 2048)]),
     writers("extended", flags=S512)),
    ("ebr-loop-self", "an EBR whose link points at itself",
     ebr_chain({EXT: (0, 2048, 1000)}), writers("EBR", flags=S512)),
    ("ebr-loop-pair", "two EBRs linking to each other",
     ebr_chain({EXT: (4096, 2048, 1000), EXT + 4096: (0, 1, 1000)}), writers("EBR", flags=S512)),
    ("ebr-outside-disk", "an EBR link past the end of the disk",
     ebr_chain({EXT: (1 << 30, 2048, 1000)}), writers("EBR", flags=S512)),
    ("ebr-logical-outside", "a logical partition running past the extended partition",
     ebr_chain({EXT: (None, 2048, 1 << 20)}), writers("logical", flags=S512)),
    ("ebr-chain-too-long", "70 logical partitions: more EBRs than the walk's bound of 60",
     long_ebr_chain, writers("EBR chain longer than 60", flags=S512)),

    # --- the boot partition's file system ---
    ("esp-fat-zeroed", "a valid GPT whose ESP holds no FAT boot sector",
     broken_esp, [("install", [], 2, ["holds no valid FAT filesystem"]),
                  ("add", [], 2, ["holds no valid FAT filesystem"]),
                  ("check", [], 1, ["holds no valid FAT filesystem"])]),

    # --- wrong sector sizes ---
    ("gpt-4k-given-512", "a 4Kn GPT disk examined with --sector-size 512",
     gpt_case(lss=4096), writers("4096", flags=S512)),
    ("gpt-512-given-4k", "a 512-byte GPT disk examined with --sector-size 4096",
     gpt_case(lss=512), writers("512", flags=S4K)),
    ("mbr-4k-given-512", "a 4Kn MBR disk examined with --sector-size 512",
     mbr_case(lss=4096), writers("4096", flags=S512)),
    ("mbr-512-given-4k", "a 512-byte MBR disk examined with --sector-size 4096",
     mbr_case(lss=512), writers("512", flags=S4K)),
    ("guess-ambiguous", "a 4Kn GPT disk that also holds a valid 512-byte GPT header",
     ambiguous, [("install", [], 2, ["holds valid GPT headers at 512- and 4096-byte sectors",
                                     "would have to guess: give --sector-size"]),
                 ("add", [], 2, ["holds valid GPT headers at 512- and 4096-byte sectors"]),
                 ("partition", ["--force"], 2, ["would have to guess"]),
                 ("check", [], 2, ["more than one sector size"]),
                 ("install", ["--dry-run"] + S4K, 0, [])]),
    ("guess-4k-backup-only", "a 4Kn GPT disk whose primary header is zeroed: found by its backup",
     gpt_case(lss=4096, after=lambda img, g: img.put_lba(1, bytes(4096))),
     writers("primary GPT header at LBA 1 is invalid", "using the backup GPT header at LBA 2047",
             info_has=["from a valid GPT header at 4096-byte sectors"])),
    ("guess-512-backup-only", "a 512-byte GPT disk whose primary header is zeroed",
     gpt_case(lss=512, after=lambda img, g: img.put_lba(1, bytes(512))),
     writers("using the backup GPT header at LBA 16383",
             info_has=["from a valid GPT header at 512-byte sectors"])),
    ("guess-no-gpt-4k", "a 4Kn disk with a protective MBR and no GPT header left",
     no_gpt_at_all(4096), writers('no "EFI PART" signature at LBA 1 or at LBA 2047')),
    ("guess-no-gpt-512", "a 512-byte disk with a protective MBR and no GPT header left",
     no_gpt_at_all(512), writers('no "EFI PART" signature at LBA 1 or at LBA 16383')),

    # --- boot code that lies about its stage2 (install replaces it; check must say so) ---
    ("stage1-stage2-past-disk", "stage1's stage2 pointer at byte 2^63, 4 GiB long",
     hostile_stage1(1 << 63, 0xFFFFFFFF),
     [("check", [], 2, ["stage1 gives stage2 a length of 4294967295 bytes"]),
      ("info", [], 0, []), ("install", ["--dry-run"], 0, ["dry run"])]),
    ("stage1-stage2-over-esp", "stage1's stage2 pointer inside the ESP",
     hostile_stage1(4096 * 512, 24576),
     [("check", [], 2, ["overlaps partition 2"]), ("install", ["--dry-run"], 0, ["dry run"])]),

    ("esp-bpb-bytes-per-sector-0", "the ESP's BPB says 0 bytes per sector",
     esp_bpb(11, "<H", 0), fat_refused()),
    ("esp-bpb-bytes-per-sector-4096", "the ESP's BPB says 4096 bytes per sector on a 512 disk",
     esp_bpb(11, "<H", 4096), fat_refused("4096")),
    ("esp-bpb-sectors-per-cluster-0", "the ESP's BPB says 0 sectors per cluster",
     esp_bpb(13, "<B", 0), fat_refused()),
    ("esp-bpb-no-fats", "the ESP's BPB says there are no FATs",
     esp_bpb(16, "<B", 0), fat_refused()),
    ("esp-bpb-past-partition", "the ESP's BPB claims 8200 sectors in an 8192-sector partition",
     esp_bpb(19, "<H", 8200), fat_refused("pass the end")),
    ("esp-bpb-fat-too-small",
     "the ESP's BPB claims 65535 sectors: more clusters than its FATs hold",
     esp_bpb(19, "<H", 0xFFFF), fat_refused("too few for")),

    # --- anysector.cfg on the ESP: add reads it and rewrites it ---
    ("cfg-chain-loop", "anysector.cfg's cluster chain links cluster 2 to itself (size 20000)",
     esp_file_case(mutate=cfg_chain(20000, links=[(2, 2)])),
     cfg_unreadable("chain from cluster 2 loops")),
    ("cfg-size-past-chain", "anysector.cfg says 20000 bytes, its chain ends after one cluster",
     esp_file_case(mutate=cfg_chain(20000)),
     cfg_unreadable("after 1 clusters, but the 20000-byte file needs 10")),
    ("cfg-cluster-out-of-range", "anysector.cfg starts at cluster 4000, past the last cluster",
     esp_file_case(mutate=cfg_chain(100, first=4000)),
     cfg_unreadable("starts at cluster 4000, outside 2..2037")),
    ("cfg-chain-into-free", "anysector.cfg's chain runs into a free cluster",
     esp_file_case(mutate=cfg_chain(20000, links=[(2, 3)])),
     cfg_unreadable("cluster 3 points to a free cluster")),
    ("efi-dir-loop", "the \\EFI directory's cluster chain links to itself",
     efi_dir_loop, [("install", [], 2, ["/EFI: cluster 2 of its chain"]),
                    ("add", [], 2, ["/EFI: cluster 2 of its chain"]),
                    ("check", [], 2, ["boot partition 2 has FAT errors: /EFI"]),
                    ("info", [], 0, [])]),
    ("cfg-syntax-error", "anysector.cfg with a line that is no keyword",
     esp_file_case(text=b"timeout 3\nfrobnicate yes\n"),
     [("add", [], 2, ["is not valid", "line 2"]), ("check", [], 2, ["line 2"])]),

    # --- requests the disk cannot satisfy ---
    ("too-small-for-layout", "a 1 MiB blank image",
     blank(1 * MIB), [("partition", [], 2, ["too small"]),
                      ("partition", ["--label", "mbr"], 2, ["too small"])]),
    ("too-small-for-gpt", "a 16 KiB blank image",
     blank(16 * 1024), [("partition", [], 2, ["too small for a GPT"])]),
    ("esp-larger-than-disk", "--esp-size 64M on an 8 MiB image",
     blank(8 * MIB), [("partition", ["--esp-size", "64M"], 2, ["does not fit"])]),
    ("mbr-over-2tib", "partition --label mbr on a 3 TB image of 512-byte sectors",
     blank(3 * 10**12), [("partition", ["--label", "mbr"], 2,
                         ["an MBR cannot address this disk", "use --label gpt"])]),
    ("mbr-over-16tib-4k", "partition --label mbr on 17 TiB of 4096-byte sectors",
     blank(17 << 40), [("partition", ["--label", "mbr", "--sector-size", "4096"], 2,
                        ["an MBR cannot address this disk", "use --label gpt"])]),
    ("mbr-2p32-plus-1", "partition --label mbr on 2^32 + 1 sectors of 512 bytes",
     blank((2**32 + 1) * 512), [("partition", ["--label", "mbr"], 2,
                                 ["an MBR cannot address this disk"])]),
]

# mkimage makes its own image: these runs need no corpus file (run.py checks none is left).
MKIMAGE_RUNS = [
    ("mkimage-too-small", ["--size", "1M"], 2, ["too small"]),
    ("mkimage-mbr-over-2tib", ["--size", "3TB", "--label", "mbr"], 2,
     ["an MBR cannot address this disk"]),
    ("mkimage-esp-too-big", ["--size", "16M", "--esp-size", "64M"], 2, ["does not fit"]),
]

# The same kind of damage behind a block device (root: loop devices, no partition scan). A block
# device's sector size is the kernel's, never guessed: a table written for another size must be
# named as such. (name, what, builder, the loop device's sector size, runs); "{dev}" is the
# device.
LOOP_CASES = [
    ("loop-gpt-4k-on-512", "a 4Kn GPT image behind a 512-byte loop device", gpt_case(lss=4096), 512,
     [("install", [], 2, ["GPT header is valid at 4096-byte sectors",
                          "written for another sector size"]),
      ("add", [], 2, ["GPT header is valid at 4096-byte sectors"]),
      ("check", [], 2, ["GPT header is valid at 4096-byte sectors"]),
      ("install", ["--sector-size", "4096"], 64, ["does not match"])]),
    ("loop-gpt-512-on-4k", "a 512-byte GPT image behind a 4Kn loop device", gpt_case(lss=512),
     4096, [("install", [], 2, ["GPT header is valid at 512-byte sectors"]),
            ("check", [], 2, ["GPT header is valid at 512-byte sectors"])]),
    ("loop-mbr-4k-on-512", "a 4Kn MBR image behind a 512-byte loop device", mbr_case(lss=4096),
     512, [("install", [], 2, ["written for 4096-byte sectors"]),
           ("add", [], 2, ["written for 4096-byte sectors"]),
           ("check", [], 2, ["written for 4096-byte sectors"])]),
    ("loop-mbr-512-on-4k", "a 512-byte MBR image behind a 4Kn loop device", mbr_case(lss=512),
     4096, [("install", [], 2, ["written for 512-byte sectors"]),
            ("check", [], 2, ["written for 512-byte sectors"])]),
    ("loop-header-crc-both", "both GPT header CRCs wrong, on a 4Kn loop device",
     gpt_case(lss=4096, both=dict(crc=0xDEADBEEF)), 4096,
     writers("CRC") + [("partition", [], 3, ["already holds"])]),
    ("loop-control-gpt-4k", "the valid 4Kn GPT disk on a 4Kn loop device", gpt_case(lss=4096),
     4096, [("check", [], 0, []), ("install", ["--dry-run"], 0, ["dry run"])]),
]

# The dual GPT's cases (--sector-size any) live in their own file.
CASES += DUAL_CASES
LOOP_CASES += DUAL_LOOP_CASES
