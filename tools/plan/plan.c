/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"
#include "tools/dev/hostdev_open.h"

void plan_init(struct plan *p, uint32_t lss)
{
	memset(p, 0, sizeof *p);
	p->lss = lss;
	p->crash_after = -1;
	p->pause = NULL;
	p->pause_ctx = NULL;
	p->pause_at = 0;
}

long plan_crash_hook(void)
{
	const char *v = getenv(PLAN_CRASH_ENV);
	char *end;

	if (!v || !*v)
		return -1;
	long k = strtol(v, &end, 10);
	return *end || k < 0 ? -1 : k;
}

/* Stops the process as a power cut would: no buffers flushed, no atexit handlers, nothing undone
 * (the writes so far were each synced by plan_execute). */
static void crash_if(const struct plan *p, unsigned done)
{
	if (p->crash_after < 0 || (unsigned long)p->crash_after != done)
		return;
	char msg[160];
	int n = snprintf(msg, sizeof msg, "anysector: %s=%ld: stopping dead after write %u of %u\n",
			 PLAN_CRASH_ENV, p->crash_after, done, p->n);
	if (write(2, msg, (size_t)n) < 0) {
		/* nothing to do: we are about to vanish anyway */
	}
	_exit(PLAN_CRASH_EXIT);
}

static void pause_if(const struct plan *p, unsigned done)
{
	const char *v = getenv(PLAN_PAUSE_ENV);
	char *end, c;

	if (!v || !*v || strtoul(v, &end, 10) != done || *end)
		return;
	fprintf(stderr, "anysector: %s=%u: paused after write %u of %u; a line on stdin goes on\n",
		PLAN_PAUSE_ENV, done, done, p->n);
	while (read(0, &c, 1) == 1 && c != '\n')
		;
}

void plan_free(struct plan *p)
{
	for (unsigned i = 0; i < p->n; i++)
		if (!p->ops[i].borrowed)
			free(p->ops[i].data);
	free(p->ops);
	p->ops = NULL;
	p->n = p->cap = 0;
}

static struct write_op *grow(struct plan *p)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		p->ops = xrealloc(p->ops, p->cap * sizeof *p->ops);
	}
	p->ops[p->n].src_fd = -1;
	p->ops[p->n].src_off = 0;
	return &p->ops[p->n++];
}

void plan_op_from_file(struct plan *p, unsigned i, int src_fd, uint64_t src_off)
{
	p->ops[i].src_fd = src_fd;
	p->ops[i].src_off = src_off;
}

const uint8_t *plan_op_piece(const struct write_op *o, uint32_t lss, uint64_t k, uint64_t n,
			     uint8_t *buf)
{
	if (o->src_fd < 0)
		return o->data + k * lss;
	return pread_full(o->src_fd, buf, (size_t)(n * lss), o->src_off + k * lss) ? NULL
											   : buf;
}

void plan_add(struct plan *p, uint64_t lba, uint64_t count, const void *data, const char *what)
{
	struct write_op *o = grow(p);
	size_t len = (size_t)(count * p->lss);
	o->lba = lba;
	o->count = count;
	o->data = xmalloc(len);
	o->borrowed = false;
	memcpy(o->data, data, len);
	snprintf(o->what, sizeof o->what, "%s", what);
}

void plan_add_take(struct plan *p, uint64_t lba, uint64_t count, uint8_t *data, const char *what)
{
	struct write_op *o = grow(p);
	o->lba = lba;
	o->count = count;
	o->data = data;
	o->borrowed = false;
	snprintf(o->what, sizeof o->what, "%s", what);
}

void plan_add_ref(struct plan *p, uint64_t lba, uint64_t count, const uint8_t *data,
		  const char *what)
{
	struct write_op *o = grow(p);
	o->lba = lba;
	o->count = count;
	o->data = (uint8_t *)(uintptr_t)data; /* never written through: borrowed */
	o->borrowed = true;
	snprintf(o->what, sizeof o->what, "%s", what);
}

void plan_append(struct plan *dst, struct plan *src)
{
	for (unsigned i = 0; i < src->n; i++)
		*grow(dst) = src->ops[i];
	free(src->ops);
	src->ops = NULL;
	src->n = src->cap = 0;
}

/* Whether op i shares a sector with another op whose bounds differ. */
static bool overlaps_other(const struct plan *p, unsigned i)
{
	const struct write_op *a = &p->ops[i];
	for (unsigned k = 0; k < p->n; k++) {
		const struct write_op *b = &p->ops[k];
		if (k != i && a->lba < b->lba + b->count && b->lba < a->lba + a->count &&
		    (a->lba != b->lba || a->count != b->count))
			return true;
	}
	return false;
}

void plan_split_overlaps(struct plan *p)
{
	struct plan out;

	plan_init(&out, p->lss);
	for (unsigned i = 0; i < p->n; i++) {
		struct write_op *o = &p->ops[i];
		if (o->count == 1 || !overlaps_other(p, i)) {
			*grow(&out) = *o;
			continue;
		}
		for (uint64_t k = 0; k < o->count; k++)
			plan_add(&out, o->lba + k, 1, o->data + k * p->lss, o->what);
		if (!o->borrowed)
			free(o->data);
	}
	free(p->ops);
	p->ops = out.ops;
	p->n = out.n;
	p->cap = out.cap;
}

uint64_t plan_sectors(const struct plan *p)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < p->n; i++)
		n += p->ops[i].count;
	return n;
}

void plan_print(const struct plan *p, FILE *f)
{
	for (unsigned i = 0; i < p->n; i++) {
		const struct write_op *o = &p->ops[i];
		fprintf(f, "write LBA %llu..%llu (byte %llu, %llu bytes): %s\n",
			(unsigned long long)o->lba, (unsigned long long)(o->lba + o->count - 1),
			(unsigned long long)(o->lba * p->lss), (unsigned long long)(o->count * p->lss),
			o->what);
	}
}

/* The pieces a write is read back in, and an op's bytes read from its file (plan_op_piece):
 * an op may hold a whole initrd. */
#define READ_BACK_CHUNK (1u << 20)

static uint64_t piece_sectors(uint32_t lss)
{
	return READ_BACK_CHUNK / lss ? READ_BACK_CHUNK / lss : 1;
}

/* Whether op o reads back as written; buf: piece_sectors for o's own bytes. */
static bool read_back_same(struct hostdev *h, const struct write_op *o, uint32_t lss,
			   uint8_t *buf)
{
	uint64_t per = piece_sectors(lss);
	uint8_t *back = xmalloc((size_t)(per * lss));
	bool same = true;

	for (uint64_t k = 0; same && k < o->count; k += per) {
		uint64_t n = o->count - k < per ? o->count - k : per;
		const uint8_t *want = plan_op_piece(o, lss, k, n, buf);
		same = want && !bdev_read(&h->dev, o->lba + k, n, back) &&
		       !memcmp(back, want, (size_t)(n * lss));
	}
	free(back);
	return same;
}

/* Writes op o: its bytes whole, or a piece at a time from its file (into buf). Returns 0 or an
 * AS_* code (an op's file that cannot be read: AS_EIO, with h->dev.err_lba its first sector). */
static int write_op(struct hostdev *h, const struct write_op *o, uint32_t lss, uint8_t *buf)
{
	uint64_t per = piece_sectors(lss);
	int rc = 0;

	if (o->src_fd < 0)
		return bdev_write(&h->dev, o->lba, o->count, o->data);
	for (uint64_t k = 0; !rc && k < o->count; k += per) {
		uint64_t n = o->count - k < per ? o->count - k : per;
		const uint8_t *piece = plan_op_piece(o, lss, k, n, buf);
		if (!piece) {
			h->dev.err_lba = o->lba + k;
			return AS_EIO;
		}
		rc = bdev_write(&h->dev, o->lba + k, n, piece);
	}
	return rc;
}

/* plan_execute with buf (piece_sectors) for the ops' bytes read from their files. */
static int execute(struct hostdev *h, const struct plan *p, uint8_t *buf)
{
	crash_if(p, 0);
	pause_if(p, 0);
	for (unsigned i = 0; i <= p->n; i++) {
		if (p->pause && i == p->pause_at) {
			int rc = p->pause(p->pause_ctx);
			if (rc)
				return rc;
		}
		if (i == p->n)
			break;
		const struct write_op *o = &p->ops[i];
		int rc = write_op(h, o, p->lss, buf);
		if (rc) {
			t_error("io.write", "%s: writing LBA %llu..%llu (%s) failed at LBA %llu: %s",
				h->path, (unsigned long long)o->lba,
				(unsigned long long)(o->lba + o->count - 1), o->what,
				(unsigned long long)h->dev.err_lba, as_strerror(rc));
			return EXIT_ERRORS;
		}
		if ((rc = hostdev_sync(h)))
			return rc;
		if (!read_back_same(h, o, p->lss, buf)) {
			t_error("io.verify", "%s: LBA %llu..%llu (%s) read back different from what was "
				"written",
				h->path, (unsigned long long)o->lba,
				(unsigned long long)(o->lba + o->count - 1), o->what);
			return EXIT_ERRORS;
		}
		crash_if(p, i + 1);
		pause_if(p, i + 1);
	}
	return 0;
}

int plan_execute(struct hostdev *h, const struct plan *p)
{
	uint8_t *buf = xmalloc((size_t)(piece_sectors(p->lss) * p->lss));
	int rc = execute(h, p, buf);

	free(buf);
	return rc;
}
