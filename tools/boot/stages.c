/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/boot/stages.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bootinfo.h"
#include "common/le.h"
#include "common/mbr.h"
#include "tools/base/exit_codes.h"
#include "tools/base/report.h"
#include "tools/base/util.h"

#ifndef ANYSECTOR_LIBDIR
#define ANYSECTOR_LIBDIR "/usr/local/lib/anysector"
#endif

static bool is_dir(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

const char *stages_dir(const char *opt, char *out, size_t cap)
{
	const char *env = getenv("ANYSECTOR_STAGES");
	char exe[PATH_MAX];
	ssize_t n;

	if (opt && *opt) {
		snprintf(out, cap, "%s", opt);
		return out;
	}
	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return out;
	}
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = 0;
		char *dir = dirname(exe);
		static const char *const rel[] = { "../stages", "../../stages" };
		for (unsigned i = 0; i < 2; i++) {
			char cand[PATH_MAX + 16], s1[PATH_MAX + 32];
			snprintf(cand, sizeof cand, "%s/%s", dir, rel[i]);
			snprintf(s1, sizeof s1, "%s/stage1.bin", cand);
			if (is_dir(cand) && !access(s1, F_OK)) {
				snprintf(out, cap, "%s", cand);
				return out;
			}
		}
	}
	snprintf(out, cap, "%s", ANYSECTOR_LIBDIR);
	return out;
}

/* optional: a missing file is no error (*buf stays NULL). */
static int load_file(const char *dir, const char *name, uint8_t **buf, size_t *len, size_t max,
		     bool optional)
{
	char path[4200];
	FILE *f;
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (optional && access(path, F_OK) && errno == ENOENT)
		return 0;
	if (!(f = fopen(path, "rb")) || fstat(fileno(f), &st)) {
		t_error("stages.missing", "%s: %s (the stages directory is %s; see --stages)", path,
			strerror(errno), dir);
		if (f)
			fclose(f);
		return EXIT_ERRORS;
	}
	if ((uint64_t)st.st_size > max) {
		t_error("stages.size", "%s is %lld bytes, more than the %zu allowed", path,
			(long long)st.st_size, max);
		fclose(f);
		return EXIT_ERRORS;
	}
	*len = (size_t)st.st_size;
	*buf = xmalloc(*len);
	if (fread(*buf, 1, *len, f) != *len) {
		t_error("stages.read", "%s: read failed", path);
		fclose(f);
		return EXIT_ERRORS;
	}
	fclose(f);
	return 0;
}

int stages_load(const char *opt, struct stages *s)
{
	size_t len;
	int rc;

	memset(s, 0, sizeof *s);
	stages_dir(opt, s->dir, sizeof s->dir);
	if ((rc = load_file(s->dir, "stage1.bin", &s->stage1, &len, MBR_RECORD_SIZE, false)))
		return rc;
	if (len != MBR_RECORD_SIZE || memcmp(s->stage1 + STAGE1_MAGIC_OFF, STAGE1_MAGIC, 4) ||
	    s->stage1[MBR_SIGNATURE_OFF] != 0x55 || s->stage1[MBR_SIGNATURE_OFF + 1] != 0xAA) {
		t_error("stages.stage1",
			"%s/stage1.bin is not an anysector stage1: it must be %u bytes with \"%s\" at "
			"byte %u and 0x55AA at byte %u",
			s->dir, MBR_RECORD_SIZE, STAGE1_MAGIC, STAGE1_MAGIC_OFF, MBR_SIGNATURE_OFF);
		return EXIT_ERRORS;
	}
	if ((rc = load_file(s->dir, "stage2.bin", &s->stage2, &len, STAGE2_MAX_SIZE, false)))
		return rc;
	s->stage2_len = (uint32_t)len;
	if (!stage2_image_valid(s->stage2, s->stage2_len)) {
		t_error("stages.stage2",
			"%s/stage2.bin is not a sealed anysector stage2 (header magic, version, length "
			"or CRC32 wrong)",
			s->dir);
		return EXIT_ERRORS;
	}
	if ((rc = load_file(s->dir, "stage2-gap.bin", &s->stage2_gap, &len, STAGE2_MAX_SIZE,
			    true)))
		return rc;
	s->stage2_gap_len = (uint32_t)len;
	if (s->stage2_gap && (!stage2_image_valid(s->stage2_gap, s->stage2_gap_len) ||
			      !(le32_load(s->stage2_gap + STAGE2_FLAGS_OFF) & STAGE2_FLAG_GAP_BUILD))) {
		t_error("stages.stage2",
			"%s/stage2-gap.bin is not a sealed legacy-gap build of stage2 (header magic, "
			"version, length, CRC32 or the gap build's flag wrong)",
			s->dir);
		return EXIT_ERRORS;
	}
	uint8_t *efi;
	if ((rc = load_file(s->dir, "BOOTX64.EFI", &efi, &len, 64u << 20, false)))
		return rc;
	bool pe = len >= 2 && efi[0] == 'M' && efi[1] == 'Z';
	free(efi);
	if (!pe) {
		t_error("stages.efi", "%s/BOOTX64.EFI is not a PE image (no \"MZ\")", s->dir);
		return EXIT_ERRORS;
	}
	snprintf(s->efi_path, sizeof s->efi_path, "%s/BOOTX64.EFI", s->dir);
	return 0;
}

void stages_free(struct stages *s)
{
	free(s->stage1);
	free(s->stage2);
	free(s->stage2_gap);
	s->stage1 = s->stage2 = s->stage2_gap = NULL;
}
