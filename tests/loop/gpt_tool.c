/* SPDX-License-Identifier: BSD-2-Clause */
/* gpt_tool: a small host front end to common/'s partition-table code, for the loop-device
 * cross-checks and the fuzz corpus. It writes a GPT (with a protective MBR) through gpt_write,
 * and dumps what mbr_read/gpt_read find, in a line format the test scripts compare with
 * sfdisk --json. Works on block devices (geometry from the kernel) and image files (-b).
 *
 *   gpt_tool [-b SECTOR_SIZE] DEV write [-n ENTRIES] [-f FIRST_USABLE] [-l LAST_USABLE]
 *            [-g DISK_GUID] PART...       PART = first:last:type[:uuid[:name[:attrs]]]
 *   gpt_tool [-b SECTOR_SIZE] DEV dump    label, header facts and one line per partition
 *   gpt_tool [-b SECTOR_SIZE] DEV pmbr    report how LBA 0 breaks the protective MBR rules
 *   gpt_tool [-b SECTOR_SIZE] DEV reseal LBA
 *            recompute the array CRC and header CRC of the header at LBA after a deliberate
 *            edit (the fuzz corpus script uses it to break exactly one rule)
 *
 * type is a GUID or one of: esp, bios, linux, msdata. Diagnostics go to stderr as
 * "level code: sentence". Exit status: 0 fine, 1 the table is bad, 2 usage or I/O trouble. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/crc32.h"
#include "common/errors.h"
#include "common/gpt.h"
#include "common/guid.h"
#include "common/mbr.h"

struct filedev {
	int fd;
	uint8_t scratch[BDEV_MAX_SECTOR_SIZE];
};

static int file_read(struct blockdev *dev, uint64_t lba, uint32_t count, void *buf)
{
	struct filedev *f = dev->priv;
	size_t len = (size_t)count * dev->sector_size;
	ssize_t n = pread(f->fd, buf, len, (off_t)(lba * dev->sector_size));
	return n == (ssize_t)len ? 0 : AS_EIO;
}

static int file_write(struct blockdev *dev, uint64_t lba, uint32_t count, const void *buf)
{
	struct filedev *f = dev->priv;
	size_t len = (size_t)count * dev->sector_size;
	ssize_t n = pwrite(f->fd, buf, len, (off_t)(lba * dev->sector_size));
	return n == (ssize_t)len ? 0 : AS_EIO;
}

static int open_dev(const char *path, uint32_t lss_opt, bool rw, struct blockdev *dev,
		    struct filedev *f)
{
	struct stat st;
	f->fd = open(path, rw ? O_RDWR : O_RDONLY);
	if (f->fd < 0 || fstat(f->fd, &st)) {
		fprintf(stderr, "gpt_tool: %s: %s\n", path, strerror(errno));
		return -1;
	}
	memset(dev, 0, sizeof *dev);
	uint64_t bytes;
	if (S_ISBLK(st.st_mode)) {
		int lss = 0;
		unsigned int pss = 0;
		int aoff = 0;
		if (ioctl(f->fd, BLKSSZGET, &lss) || ioctl(f->fd, BLKPBSZGET, &pss) ||
		    ioctl(f->fd, BLKALIGNOFF, &aoff) || ioctl(f->fd, BLKGETSIZE64, &bytes)) {
			fprintf(stderr, "gpt_tool: %s: geometry ioctls: %s\n", path, strerror(errno));
			return -1;
		}
		if (lss_opt && lss_opt != (uint32_t)lss) {
			fprintf(stderr, "gpt_tool: %s has %d-byte sectors, not %u\n", path, lss,
				(unsigned)lss_opt);
			return -1;
		}
		dev->sector_size = (uint32_t)lss;
		dev->phys_size = pss;
		dev->align_offset = aoff > 0 ? (uint32_t)aoff : 0;
	} else {
		bytes = (uint64_t)st.st_size;
		dev->sector_size = lss_opt ? lss_opt : 512;
		dev->phys_size = dev->sector_size;
	}
	dev->sectors = bytes / dev->sector_size;
	dev->read = file_read;
	dev->write = rw ? file_write : NULL;
	dev->priv = f;
	dev->scratch = f->scratch;
	if (!bdev_geometry_valid(dev) || dev->sector_size > BDEV_MAX_SECTOR_SIZE) {
		fprintf(stderr, "gpt_tool: %s: unusable geometry (sector size %u)\n", path,
			(unsigned)dev->sector_size);
		return -1;
	}
	return 0;
}

static void stderr_emit(struct diag *d, enum diag_level level, const char *code, const char *msg)
{
	static const char *names[] = { "info", "warning", "error" };
	(void)d;
	fprintf(stderr, "%s %s: %s\n", names[level], code, msg);
}

static struct diag diag_stderr = { .emit = stderr_emit };

static bool parse_type(const char *s, struct guid *g)
{
	if (!strcmp(s, "esp"))
		*g = GUID_ESP;
	else if (!strcmp(s, "bios"))
		*g = GUID_BIOS_BOOT;
	else if (!strcmp(s, "linux"))
		*g = GUID_LINUX_FS;
	else if (!strcmp(s, "msdata"))
		*g = GUID_MS_BASIC;
	else
		return guid_parse(s, g);
	return true;
}

static void random_guid(struct guid *g)
{
	FILE *f = fopen("/dev/urandom", "rb");
	if (!f || fread(g->b, 1, 16, f) != 16) {
		fprintf(stderr, "gpt_tool: cannot read /dev/urandom\n");
		exit(2);
	}
	fclose(f);
	g->b[7] = (uint8_t)((g->b[7] & 0x0F) | 0x40); /* version 4, stored little-endian */
	g->b[8] = (uint8_t)((g->b[8] & 0x3F) | 0x80);
}

/* first:last:type[:uuid[:name[:attrs]]] */
static bool parse_part(const char *spec, struct gpt_entry *e)
{
	char buf[256];
	char *field[6] = { 0 };
	unsigned n = 0;

	if (strlen(spec) >= sizeof buf)
		return false;
	strcpy(buf, spec);
	for (char *p = buf, *tok; n < 6 && (tok = strsep(&p, ":"));)
		field[n++] = tok;
	if (n < 3)
		return false;
	memset(e, 0, sizeof *e);
	char *end;
	e->first_lba = strtoull(field[0], &end, 0);
	if (*end)
		return false;
	e->last_lba = strtoull(field[1], &end, 0);
	if (*end || !parse_type(field[2], &e->type))
		return false;
	if (n > 3 && field[3][0]) {
		if (!guid_parse(field[3], &e->unique))
			return false;
	} else {
		random_guid(&e->unique);
	}
	if (n > 4)
		gpt_name_set(e, field[4]);
	if (n > 5) {
		e->attributes = strtoull(field[5], &end, 0);
		if (*end)
			return false;
	}
	return true;
}

static int cmd_write(struct blockdev *dev, int argc, char **argv)
{
	static struct gpt_entry entries[GPT_MAX_PARTS];
	unsigned n = 0;
	uint32_t num = 0;
	uint64_t first = 0, last = 0;
	struct guid disk;
	int opt;

	random_guid(&disk);
	optind = 1;
	while ((opt = getopt(argc, argv, "n:f:l:g:")) != -1) {
		switch (opt) {
		case 'n': num = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'f': first = strtoull(optarg, NULL, 0); break;
		case 'l': last = strtoull(optarg, NULL, 0); break;
		case 'g':
			if (!guid_parse(optarg, &disk)) {
				fprintf(stderr, "gpt_tool: bad disk GUID %s\n", optarg);
				return 2;
			}
			break;
		default: return 2;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (n == GPT_MAX_PARTS || !parse_part(argv[i], &entries[n])) {
			fprintf(stderr, "gpt_tool: bad partition %s\n", argv[i]);
			return 2;
		}
		n++;
	}

	/* LBA 0: the protective MBR, keeping whatever boot code is there. */
	uint8_t rec[MBR_RECORD_SIZE];
	struct mbr m;
	if (bdev_read_bytes(dev, 0, rec, sizeof rec)) {
		fprintf(stderr, "gpt_tool: reading LBA 0 failed\n");
		return 2;
	}
	mbr_build_protective(dev->sectors, &m);
	mbr_encode(&m, rec);
	int rc = gpt_write(dev, &disk, entries, n, num, first, last, &diag_stderr);
	if (rc) {
		fprintf(stderr, "gpt_tool: gpt_write: %s\n", as_strerror(rc));
		return rc == AS_EIO ? 2 : 1;
	}
	if (bdev_write_bytes(dev, 0, rec, sizeof rec)) {
		fprintf(stderr, "gpt_tool: writing LBA 0 failed\n");
		return 2;
	}
	return 0;
}

static void print_guid(const char *prefix, const struct guid *g)
{
	char s[GUID_STR_LEN + 1];
	guid_format(g, s);
	printf("%s%s", prefix, s);
}

/* Attribute bits as sfdisk --json spells them: the three spec bits by name, then the
 * type-specific bits 48..63 as "GUID:n,m". Bits 3..47 are printed as "bit:n". */
static void print_attrs(unsigned number, uint64_t a)
{
	static const char *names[3] = { "RequiredPartition", "NoBlockIOProtocol",
					"LegacyBIOSBootable" };
	const char *sep = "";

	if (!a)
		return;
	printf("attrs %u ", number);
	for (unsigned b = 0; b < 48; b++) {
		if (!(a >> b & 1))
			continue;
		if (b < 3)
			printf("%s%s", sep, names[b]);
		else
			printf("%sbit:%u", sep, b);
		sep = " ";
	}
	const char *gsep = "GUID:";
	for (unsigned b = 48; b < 64; b++) {
		if (!(a >> b & 1))
			continue;
		printf("%s%s%u", sep, gsep, b);
		sep = "";
		gsep = ",";
	}
	printf("\n");
}

static int cmd_dump(struct blockdev *dev)
{
	static struct gpt g;
	static struct mbr_table t;
	int rc = mbr_read(dev, &t, &diag_stderr);

	if (rc && rc != AS_ENOENT && rc != AS_ECORRUPT)
		return 2;
	if (!rc && mbr_is_protective(&t.mbr)) {
		rc = gpt_read(dev, &g, &diag_stderr);
		if (rc) {
			printf("label gpt-invalid\n");
			return 1;
		}
		printf("label gpt\n");
		print_guid("disk-guid ", &g.hdr.disk_guid);
		printf("\nfirst-usable %llu\nlast-usable %llu\nentries %u\nheader %s\n",
		       (unsigned long long)g.hdr.first_usable, (unsigned long long)g.hdr.last_usable,
		       (unsigned)g.hdr.num_entries, g.used_backup ? "backup" : "primary");
		for (unsigned i = 0; i < g.count; i++) {
			const struct gpt_entry *e = &g.parts[i].e;
			char name[GPT_NAME_UNITS + 1];
			printf("part %u %llu %llu", g.parts[i].number, (unsigned long long)e->first_lba,
			       (unsigned long long)(e->last_lba - e->first_lba + 1));
			print_guid(" ", &e->type);
			print_guid(" ", &e->unique);
			gpt_name_get(e, name);
			printf(" %s\n", name);
			print_attrs(g.parts[i].number, e->attributes);
		}
		return 0;
	}
	if (rc) {
		printf(rc == AS_ENOENT ? "label none\n" : "label dos-invalid\n");
		return rc == AS_ENOENT ? 0 : 1;
	}
	printf("label dos\ndisk-id 0x%08x\n", (unsigned)t.mbr.disk_sig);
	for (unsigned i = 0; i < t.count; i++) {
		const struct mbr_part *p = &t.parts[i];
		printf("part %u %llu %llu %x%s\n", p->number, (unsigned long long)p->first_lba,
		       (unsigned long long)p->sectors, p->type, p->active ? " boot" : "");
	}
	return 0;
}

static int cmd_pmbr(struct blockdev *dev)
{
	uint8_t rec[MBR_RECORD_SIZE];
	struct mbr m;

	if (bdev_read_bytes(dev, 0, rec, sizeof rec))
		return 2;
	mbr_decode(rec, &m);
	unsigned problems = mbr_check_protective(&m, dev->sectors, &diag_stderr);
	printf("pmbr-problems %u\n", problems);
	return problems ? 1 : 0;
}

static int cmd_reseal(struct blockdev *dev, const char *arg)
{
	uint8_t *sector = calloc(1, dev->sector_size);
	uint8_t chunk[4096];
	struct gpt_header h;
	uint64_t lba = strtoull(arg, NULL, 0);

	if (!sector || bdev_read(dev, lba, 1, sector))
		return 2;
	gpt_header_decode(sector, &h);
	uint64_t off = h.entries_lba * dev->sector_size;
	uint64_t left = (uint64_t)h.num_entries * h.entry_size;
	uint32_t crc = 0;
	if (off + left <= bdev_size_bytes(dev)) {
		while (left) {
			size_t n = left < sizeof chunk ? (size_t)left : sizeof chunk;
			if (bdev_read_bytes(dev, off, chunk, n))
				return 2;
			crc = crc32_update(crc, chunk, n);
			off += n;
			left -= n;
		}
		h.entries_crc = crc;
	}
	gpt_header_encode(&h, sector);
	uint32_t hs = h.header_size <= dev->sector_size ? h.header_size : dev->sector_size;
	h.header_crc = gpt_header_crc(sector, hs);
	gpt_header_encode(&h, sector);
	int rc = bdev_write(dev, lba, 1, sector);
	free(sector);
	return rc ? 2 : 0;
}

int main(int argc, char **argv)
{
	uint32_t lss = 0;
	int i = 1;
	struct blockdev dev;
	static struct filedev f;

	if (i + 1 < argc && !strcmp(argv[i], "-b")) {
		lss = (uint32_t)strtoul(argv[i + 1], NULL, 0);
		i += 2;
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: gpt_tool [-b SECTOR_SIZE] DEV write|dump|pmbr ...\n");
		return 2;
	}
	const char *path = argv[i], *cmd = argv[i + 1];
	bool rw = !strcmp(cmd, "write") || !strcmp(cmd, "reseal");
	if (open_dev(path, lss, rw, &dev, &f))
		return 2;
	int rc;
	if (!strcmp(cmd, "write"))
		rc = cmd_write(&dev, argc - i - 1, argv + i + 1);
	else if (!strcmp(cmd, "reseal") && argc - i == 3)
		rc = cmd_reseal(&dev, argv[i + 2]);
	else if (!strcmp(cmd, "dump"))
		rc = cmd_dump(&dev);
	else if (!strcmp(cmd, "pmbr"))
		rc = cmd_pmbr(&dev);
	else {
		fprintf(stderr, "gpt_tool: unknown command %s\n", cmd);
		rc = 2;
	}
	if (rw && fsync(f.fd)) {
		fprintf(stderr, "gpt_tool: fsync: %s\n", strerror(errno));
		rc = 2;
	}
	close(f.fd);
	return rc;
}
