/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/base/json.h"

#include <inttypes.h>
#include <string.h>

#include "common/utf8.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->need_comma[0] = false;
}

/* A JSON string: well-formed UTF-8 as it is, a byte that is not as the text \xNN (the way
 * tools/base/text.h shows it everywhere), so the document is valid UTF-8 whatever it holds. */
static void put_string(FILE *f, const char *s)
{
	size_t n = strlen(s);

	fputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t k = utf8_seq_len(s + i, n - i);
		if (!k) {
			fprintf(f, "\\\\x%02X", c);
			i++;
			continue;
		}
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				fwrite(s + i, 1, k, f);
		}
		i += k;
	}
	fputc('"', f);
}

static void member(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
	if (key) {
		put_string(j->f, key);
		fputc(':', j->f);
	}
}

static void open_level(struct json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_level(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth)
		j->depth--;
}

void json_obj_begin(struct json *j, const char *key) { open_level(j, key, '{'); }
void json_obj_end(struct json *j) { close_level(j, '}'); }
void json_arr_begin(struct json *j, const char *key) { open_level(j, key, '['); }
void json_arr_end(struct json *j) { close_level(j, ']'); }

void json_str(struct json *j, const char *key, const char *val)
{
	member(j, key);
	put_string(j->f, val ? val : "");
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

void json_i64(struct json *j, const char *key, int64_t val)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void json_finish(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
