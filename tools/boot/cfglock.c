/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/boot/cfglock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/pe.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/report.h"
#include "tools/base/run.h"
#include "tools/base/tempfile.h"
#include "tools/base/util.h"

/* sbsign adds a signature to those there; the lock changes the signed bytes, so every old one
 * goes first. A loader never carries more than a few. */
#define SIGNATURES_MAX 8
#define LOADER_MAX_BYTES (64u << 20)

void loader_lock_inspect(const uint8_t *buf, size_t len, struct loader_lock *out)
{
	struct pe_image pe;
	const uint8_t *data;
	size_t n;

	memset(out, 0, sizeof *out);
	if (pe_parse(buf, len, &pe) || pe_section(&pe, CFG_LOCK_SECTION, &data, &n))
		return;
	out->block = true;
	out->off = (size_t)(data - buf);
	out->bad = cfg_lock_parse(data, n, &out->lock) != 0;
}

/* The whole file into a new buffer. Returns 0 or AS_EIO (errno) / AS_ETOOBIG. */
static int read_whole(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return AS_EIO;
	*buf = xmalloc(LOADER_MAX_BYTES + 1);
	*len = fread(*buf, 1, LOADER_MAX_BYTES + 1, f);
	int bad = ferror(f);
	fclose(f);
	if (bad || *len > LOADER_MAX_BYTES) {
		free(*buf);
		return bad ? AS_EIO : AS_ETOOBIG;
	}
	return 0;
}

/* Removes every Authenticode signature of the file at path with sbattach. Returns 0 or an exit
 * code. */
static int strip_signatures(const char *path)
{
	for (unsigned i = 0;; i++) {
		uint8_t *buf;
		size_t len;
		struct pe_image pe;
		if (read_whole(path, &buf, &len)) {
			t_error("lock.read", "cannot read %s: %s", path, strerror(errno));
			return EXIT_ERRORS;
		}
		bool signed_ = !pe_parse(buf, len, &pe) && pe.cert_len;
		free(buf);
		if (!signed_)
			return 0;
		char msg[2048], why[2200];
		const char *argv[] = { "sbattach", "--remove", path, NULL };
		int st = i < SIGNATURES_MAX ? run_capture(argv, msg, sizeof msg) : -1;
		if (st) {
			t_error("lock.unsign", "cannot remove the signatures of %s (sbattach --remove %s)",
				path, st < 0 ? "left one after 8 tries" :
				run_failure_text(st, msg, why, sizeof why));
			return EXIT_ERRORS;
		}
	}
}

/* in copied to a new temporary file (name into out) with its block set to l. Returns 0 or an
 * exit code. */
static int patched_copy(const char *in, const struct cfg_lock *l, char *out, size_t cap)
{
	uint8_t *buf = NULL;
	size_t len;
	struct loader_lock ll;

	if (read_whole(in, &buf, &len)) {
		t_error("lock.read", "cannot read the loader %s: %s", in, strerror(errno));
		return EXIT_ERRORS;
	}
	loader_lock_inspect(buf, len, &ll);
	if (!ll.block || ll.bad) {
		t_error("lock.no_block", "%s has no %s section anysector can lock (%s): it is not "
			"an anysector loader that knows locking", in, CFG_LOCK_SECTION,
			ll.block ? "its block does not parse" : "none");
		free(buf);
		return EXIT_REFUSED;
	}
	cfg_lock_encode(l, buf + ll.off);
	int fd = -1;
	int rc = temp_create("signed", out, cap, &fd) ? AS_EIO : pwrite_full(fd, buf, len, 0);
	free(buf);
	if (fd >= 0)
		close(fd);
	if (rc) {
		t_error("lock.temp", "cannot write a temporary copy of the loader: %s",
			strerror(errno));
		if (fd >= 0)
			temp_remove(out);
		out[0] = 0;
		return EXIT_ERRORS;
	}
	return 0;
}

int loader_lock_sign(const char *in, const struct cfg_lock *l, const struct efi_signing *sg,
		     char *out, size_t cap)
{
	char plain[4200];
	int rc = patched_copy(in, l, plain, sizeof plain);

	if (rc)
		return rc;
	if (!(rc = strip_signatures(plain)))
		rc = loader_sign(plain, sg, out, cap);
	temp_remove(plain);
	return rc;
}

const char *loader_lock_text(const struct loader_lock *ll, char *buf, size_t cap)
{
	if (!ll->block)
		snprintf(buf, cap, "a loader without a lock section");
	else if (ll->bad)
		snprintf(buf, cap, "a lock section that does not parse");
	else if (!ll->lock.locked)
		snprintf(buf, cap, "not locked");
	else
		snprintf(buf, cap, "locked to anysector.cfg %02x%02x%02x%02x...%s",
			 ll->lock.hash[0][0], ll->lock.hash[0][1], ll->lock.hash[0][2],
			 ll->lock.hash[0][3], ll->lock.nhashes > 1 ? " (and the one before it)" : "");
	return buf;
}
