/* SPDX-License-Identifier: BSD-2-Clause */
/* A locked configuration in the operations (tools/ops/lockcfg.h). */
#include "tools/ops/lockcfg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/pin.h"
#include "common/sha256.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/report.h"
#include "tools/base/tempfile.h"
#include "tools/base/util.h"
#include "tools/boot/cfglock.h"
#include "tools/esp/esp_read.h"
#include "tools/esp/hashfile.h"

/* A loader is some 100 KiB; shim about 1 MiB. */
#define LOADER_READ_MAX (64u << 20)

/* The file at path of the session when it is anysector's loader with a lock block (its SBAT
 * component says whose it is: shim in front of it is not). *buf and *len keep its bytes when asked. */
static bool session_loader(struct txn *t, const char *path, struct loader_lock *ll, char **buf,
			   size_t *len)
{
	char *data;
	size_t n;
	struct efi_binary b;

	if (esp_read_max(&t->esp, path, LOADER_READ_MAX, &data, &n, NULL))
		return false;
	efi_binary_inspect((const uint8_t *)data, n, &b);
	loader_lock_inspect((const uint8_t *)data, n, ll);
	bool ours = b.pe && !strcmp(b.component, "anysector") && ll->block;
	if (ours && buf) {
		*buf = data;
		*len = n;
	} else {
		free(data);
	}
	return ours;
}

/* The SHA-256 of anysector.cfg on the session now (none: the empty file's, as the loader
 * counts it). Returns 0 or an exit code. */
static int cfg_hash(struct txn *t, uint8_t out[SHA256_BYTES], char **text)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = esp_read_file(&t->esp, "/" CFG_FILE_NAME, &buf, &len, NULL);

	if (rc && rc != AS_ENOENT) {
		t_error("lock.read", "%s on partition %u cannot be read: %s", CFG_FILE_NAME,
			t->esp.number, as_strerror(rc));
		return EXIT_ERRORS;
	}
	sha256(rc ? "" : buf, rc ? 0 : len, out);
	if (text)
		*text = rc ? xstrdup("") : buf;
	else
		free(buf);
	return 0;
}

int txn_lock_scan(struct txn *t)
{
	int rc = cfg_hash(t, t->cfg_before, NULL);
	bool seen = false;

	memset(&t->lock_before, 0, sizeof t->lock_before);
	for (unsigned i = 0; i < CFG_LOCK_LOADERS && !rc; i++) {
		struct loader_lock ll;
		char a[120], b[120];
		if (!session_loader(t, cfg_lock_loaders[i], &ll, NULL, NULL))
			continue;
		if (ll.bad)
			ll.lock.locked = true; /* as the loader takes it: locked to nothing */
		if (!seen) {
			t->lock_before = ll.lock;
			seen = true;
		} else if (ll.lock.locked != t->lock_before.locked ||
			   (ll.lock.locked && memcmp(ll.lock.hash[0], t->lock_before.hash[0],
						     SHA256_BYTES))) {
			struct loader_lock first = { .block = true, .lock = t->lock_before };
			t_warn("lock.loaders_differ", "the loaders on partition %u are not locked "
			       "alike: one is %s, %s is %s", t->esp.number,
			       loader_lock_text(&first, a, sizeof a), cfg_lock_loaders[i],
			       loader_lock_text(&ll, b, sizeof b));
			if (ll.lock.locked && !t->lock_before.locked)
				t->lock_before = ll.lock; /* a change must still be signed */
		}
	}
	return rc;
}

int txn_lock_for_change(struct txn *t)
{
	struct report q;
	int rc;

	if (t->relock_done) /* the second pass: checked in the first */
		return 0;
	if ((rc = txn_lock_scan(t)) || !t->lock_before.locked)
		return rc;
	if (!t->sign.key) {
		t_error("refuse.locked", "the boot menu on partition %u is locked (the loader holds "
			"the SHA-256 of %s and is signed for Secure Boot): a change needs the loader "
			"signed again, so give --sign-key and --sign-cert; nothing was written",
			t->esp.number, CFG_FILE_NAME);
		return EXIT_REFUSED;
	}
	report_init(&q, false);
	if (cfg_lock_check(&t->lock_before, t->cfg_before, &q.diag)) {
		const struct report_item *it = report_first(&q, DIAG_ERROR);
		t_error("refuse.lock_mismatch", "%s: signing a change would take it as it is; look at "
			"what changed, then lock it again with 'anysector install --lock-config'; "
			"nothing was written", it ? it->msg : CFG_FILE_NAME);
		rc = EXIT_REFUSED;
	}
	report_free(&q);
	t->relock = !rc;
	return rc;
}

/* Every file each entry of text boots is pinned. Returns 0 or an exit code. */
static int all_pinned(const char *text)
{
	struct cfg *c = xcalloc(1, sizeof *c);
	struct report q;
	int rc = 0;

	report_init(&q, false);
	if (cfg_parse_text(text, strlen(text), c, &q.diag)) {
		t_error("lock.config", "the new %s does not parse; nothing was written",
			CFG_FILE_NAME);
		rc = EXIT_ERRORS;
	}
	for (unsigned i = 0; i < c->nentries && !rc; i++) {
		const struct cfg_entry *e = &c->entries[i];
		int slot = pin_first_missing(e);
		if (slot < 0)
			continue;
		t_error("refuse.lock_unpinned", "entry '%s': %s has no sha256 line, and a locked "
			"%s pins every file it boots (anysector add --pin); nothing was written",
			e->name, pin_path(e, (unsigned)slot), CFG_FILE_NAME);
		rc = EXIT_REFUSED;
	}
	report_free(&q);
	free(c);
	return rc;
}

/* Boot Loader Specification entries on the ESP are not read by a locked loader: said once. */
static int count_bls(void *ctx, const char *name, bool is_dir, uint64_t size)
{
	(void)size;
	size_t n = strlen(name);
	if (!is_dir && n > 5 && !strcasecmp(name + n - 5, ".conf"))
		(*(unsigned *)ctx)++;
	return 0;
}

/* One loader: its bytes locked to l and signed, put back at path; with first, kept as one of
 * the files the change writes first (t->first). Returns 0 or an exit code. */
static int relock_one(struct txn *t, const char *path, const char *bytes, size_t len,
		      const struct cfg_lock *l, bool first)
{
	char in[4200], out[4200];
	int fd = -1;
	if (temp_create("signed", in, sizeof in, &fd) || pwrite_full(fd, bytes, len, 0)) {
		t_error("lock.temp", "cannot write a temporary copy of %s in %s: %s", path,
			temp_dir(), strerror(errno));
		if (fd >= 0) {
			close(fd);
			temp_remove(in);
		}
		return EXIT_ERRORS;
	}
	close(fd);
	int rc = loader_lock_sign(in, l, &t->sign, out, sizeof out);
	temp_remove(in);
	if (rc)
		return rc;
	rc = txn_put_owned(t, out, path);
	if (!rc && first && t->nfirst < ARRAY_SIZE(t->first)) {
		snprintf(t->first[t->nfirst], sizeof t->first[0], "%s", path);
		snprintf(t->first_src[t->nfirst++], sizeof t->first_src[0], "%s", out);
	} else {
		temp_remove(out);
	}
	return rc;
}

/* The summary's one line about the lock (an operation may lock twice: mkimage's install, then
 * its entries). */
static void lock_summary(struct txn *t, unsigned n, const uint8_t *h)
{
	char line[sizeof t->summary[0]];
	snprintf(line, sizeof line, "locked: %u loader%s on partition %u hold%s the SHA-256 of %s "
		 "(%02x%02x%02x%02x...), signed with %s", n, n == 1 ? "" : "s", t->esp.number,
		 n == 1 ? "s" : "", CFG_FILE_NAME, h[0], h[1], h[2], h[3], t->sign.cert);
	for (unsigned i = 0; i < t->nsummary; i++)
		if (!strncmp(t->summary[i], "locked: ", 8)) {
			snprintf(t->summary[i], sizeof t->summary[i], "%s", line);
			return;
		}
	txn_summary(t, "%s", line);
}

int txn_relock(struct txn *t)
{
	struct cfg_lock l = { .locked = true, .nhashes = 1 };
	unsigned done = 0, bls = 0;
	char *text = NULL;
	int rc;

	if (!t->relock)
		return 0;
	if ((rc = cfg_hash(t, l.hash[0], &text)) || (rc = all_pinned(text))) {
		free(text);
		return rc;
	}
	free(text);
	if (t->relock_done) {
		/* the second pass: the loaders it started from were signed for this file */
		if (memcmp(l.hash[0], t->relock_hash, SHA256_BYTES)) {
			t_error("lock.second_pass", "the new %s came out differently when the change "
				"was made again on the loaders signed for it (did a file change "
				"meanwhile?); nothing was written", CFG_FILE_NAME);
			return EXIT_ERRORS;
		}
		lock_summary(t, t->nfirst, l.hash[0]);
		return 0;
	}
	memcpy(t->relock_hash, l.hash[0], SHA256_BYTES);
	/* a menu that was locked keeps taking the configuration before the change too: the new
	 * loader may reach the disk before the new anysector.cfg does */
	if (t->lock_before.locked && memcmp(t->cfg_before, l.hash[0], SHA256_BYTES))
		memcpy(l.hash[l.nhashes++], t->cfg_before, SHA256_BYTES);
	for (unsigned i = 0; i < CFG_LOCK_LOADERS && !rc; i++) {
		struct loader_lock ll;
		char *buf;
		size_t len;
		if (!session_loader(t, cfg_lock_loaders[i], &ll, &buf, &len))
			continue;
		rc = relock_one(t, cfg_lock_loaders[i], buf, len, &l, l.nhashes > 1);
		free(buf);
		done += !rc;
	}
	if (rc)
		return rc;
	if (!done) {
		t_error("lock.no_loader", "partition %u holds no anysector loader that can be locked "
			"(one with a %s section); nothing was written", t->esp.number,
			CFG_LOCK_SECTION);
		return EXIT_ERRORS;
	}
	esp_list(&t->esp, "/loader/entries", count_bls, &bls);
	if (bls)
		t_warn("lock.bls_unread", "/loader/entries on partition %u holds %u entr%s that the "
		       "locked loader does not read (a lock covers %s alone)", t->esp.number, bls,
		       bls == 1 ? "y" : "ies", CFG_FILE_NAME);
	lock_summary(t, done, l.hash[0]);
	return 0;
}

/* One of the first files: copied under a temporary name (tmp) and listed as anysector's.
 * Returns 0 or an exit code. */
static int stage_one(struct txn *t, const char *src, const char *dst, char *tmp, size_t cap)
{
	uint8_t sha[SHA256_BYTES], before[SHA256_BYTES];
	bool had = owned_state(&t->own, &t->esp, dst) == OWN_YES &&
		   !esp_sha256(&t->esp, dst, before);

	if (hash_host_file(src, sha)) {
		t_error("lock.read", "cannot read %s: %s", src, strerror(errno));
		return EXIT_ERRORS;
	}
	int rc = esp_stage(&t->esp, src, dst, tmp, cap);
	return rc ? rc : owned_note(&t->own, dst, sha, had ? before : NULL);
}

/* The middle state on the session: the signed loaders and the ownership list that names them,
 * every new copy made before any old one goes, so that no cluster a replaced file frees is
 * taken by another of them (a cluster in use on the disk must not change before the directory
 * stops pointing at it: tools/esp/esp_order.h). Returns 0 or an exit code. */
static int put_first(struct txn *t)
{
	char tmp[CFG_LOCK_LOADERS + 1][1100], list[4200];
	const char *dst[CFG_LOCK_LOADERS + 1];
	unsigned n = 0;
	int rc = 0;

	for (unsigned i = 0; i < t->nfirst && !rc; i++, n++)
		rc = stage_one(t, t->first_src[i], dst[n] = t->first[i], tmp[n], sizeof tmp[n]);
	if (!rc && t->own_loaded && t->own.changed) {
		char *text = owned_text(&t->own);
		int fd = -1;
		rc = temp_create("put", list, sizeof list, &fd) ||
		     pwrite_full(fd, text, strlen(text), 0) ? EXIT_ERRORS : 0;
		free(text);
		if (fd >= 0)
			close(fd);
		if (rc)
			t_error("lock.temp", "cannot write a temporary file in %s: %s", temp_dir(),
				strerror(errno));
		else if (esp_exists(&t->esp, "/" OWNED_FILE_NAME, NULL))
			rc = esp_stage(&t->esp, list, dst[n] = "/" OWNED_FILE_NAME, tmp[n], sizeof tmp[n]),
			n++;
		else /* a new file takes free clusters: none is freed yet */
			rc = esp_put(&t->esp, list, "/" OWNED_FILE_NAME);
		t->own.changed = rc != 0;
		if (fd >= 0)
			temp_remove(list);
	}
	for (unsigned i = 0; i < n && !rc; i++)
		rc = esp_unstage(&t->esp, tmp[i], dst[i]);
	return rc;
}

int txn_lock_run(struct txn *t, txn_op_fn *op, const void *arg)
{
	int rc = op(t, arg);

	/* through a mounted ESP the loaders are simply renamed first (txn_commit) */
	if (rc || !t->nfirst || t->esp.mounted || t->relock_done)
		return rc;
	txn_esp_reset(t);
	t->esp_whole = true;   /* the middle state is a copy of this one: both whole */
	if ((rc = txn_open_esp(t)) || (rc = put_first(t)) || (rc = esp_fork(&t->esp, &t->mid)))
		return rc;
	t->relock_done = true;
	return op(t, arg);
}
