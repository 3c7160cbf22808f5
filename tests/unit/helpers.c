/* SPDX-License-Identifier: BSD-2-Clause */
#include "tests/unit/helpers.h"
#include "tests/unit/tools_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "common/errors.h"

static void capture_emit(struct diag *d, enum diag_level level, const char *code, const char *msg)
{
	struct capture *c = d->ctx;
	if (c->n >= CAPTURE_MAX)
		return;
	c->items[c->n].level = level;
	snprintf(c->items[c->n].code, sizeof c->items[c->n].code, "%s", code ? code : "");
	snprintf(c->items[c->n].msg, sizeof c->items[c->n].msg, "%s", msg);
	c->n++;
}

void capture_init(struct capture *c)
{
	memset(c, 0, sizeof *c);
	c->diag.emit = capture_emit;
	c->diag.ctx = c;
}

int capture_has(const struct capture *c, const char *code, const char *substr)
{
	for (unsigned i = 0; i < c->n; i++) {
		if (code && strcmp(c->items[i].code, code))
			continue;
		if (substr && !strstr(c->items[i].msg, substr))
			continue;
		return 1;
	}
	return 0;
}

void capture_dump(const struct capture *c)
{
	static const char *lv[] = { "info", "warn", "error" };
	for (unsigned i = 0; i < c->n; i++)
		fprintf(stderr, "  [%s] %s: %s\n", lv[c->items[i].level], c->items[i].code,
			c->items[i].msg);
}

int test_workdir(char *dir, size_t cap, const char *sub, const char *tag)
{
	const char *build = getenv("BUILD");
	snprintf(dir, cap, "%s/%s", build && *build ? build : "build", sub);
	mkdir(dir, 0755);
	size_t n = strlen(dir);
	snprintf(dir + n, cap - n, "/%s.XXXXXX", tag);
	if (mkdtemp(dir))
		return 0;
	dir[0] = 0; /* nothing for a teardown to remove */
	return -1;
}

int parse_cfg(const char *text, struct cfg *c, struct capture *cap)
{
	capture_init(cap);
	return cfg_parse(text, strlen(text), c, &cap->diag);
}

const struct cfg *cfg_rejected(const char *text, const char *code, const char *want)
{
	static struct cfg c;
	struct capture cap;
	int rc = parse_cfg(text, &c, &cap);
	if (rc != AS_ECORRUPT || !capture_has(&cap, code, want) || cap.diag.errors != 1) {
		capture_dump(&cap);
		fail_msg("rc %d, %u errors; wanted one %s containing \"%s\" for:\n%s", rc,
			 cap.diag.errors, code, want, text);
	}
	return &c;
}

struct test_disk *test_disk_new(uint64_t size, uint32_t lss, uint32_t pss, uint32_t aoff,
				uint32_t max_io)
{
	struct test_disk *d = calloc(1, sizeof *d);
	assert_non_null(d);
	d->md.data = calloc(1, size ? size : 1);
	assert_non_null(d->md.data);
	d->md.size = size;
	d->scratch = malloc(lss);
	assert_non_null(d->scratch);
	assert_int_equal(memdisk_init(&d->dev, &d->md, lss, pss, aoff, max_io, d->scratch), 0);
	return d;
}

void test_disk_free(struct test_disk *d)
{
	if (!d)
		return;
	free(d->md.data);
	free(d->scratch);
	free(d);
}

uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
	if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		*len = (size_t)n;
	return buf;
}

int run_cmd(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int have_program(const char *name)
{
	return run_cmd("command -v %s >/dev/null 2>&1", name) == 0;
}

struct report unit_report;

int tools_setup(void **state)
{
	(void)state;
	report_init(&unit_report, false);
	g_report = &unit_report;
	return 0;
}

int tools_teardown(void **state)
{
	(void)state;
	report_free(&unit_report);
	return 0;
}
