/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector.cfg parser (format in common/config.h and docs/DESIGN.md "The config file").
 *
 * The parser reports every problem it finds, not only the first, so one boot shows the user all
 * the mistakes of a file. It never truncates: a value longer than its field is an error. */
#include "common/bits.h"
#include "common/config.h"

#include <stdbool.h>

#include "common/errors.h"
#include "common/features.h"
#include "common/fmt.h"
#include "common/mem.h"
#include "common/str.h"

#define CFG_TAG CFG_FILE_NAME " line %u: "

/* Every value of an entry is stored once (title, kernel, cmdline and the pins once; at most 4
 * initrds), each shorter than its field: all of anysector.cfg's text always fits the arena, and
 * the parser needs no check of its room (cfg_text_add cannot fail there). */
_Static_assert(CFG_MAX_ENTRIES * (CFG_NAME_MAX + CFG_TITLE_MAX + (1 + CFG_MAX_INITRDS) *
				  (CFG_PATH_MAX + SHA256_BYTES) + CFG_CMDLINE_MAX) <= CFG_TEXT_MAX,
	       "the text of CFG_MAX_ENTRIES entries of the longest values fits the arena");
_Static_assert(offsetof(struct cfg_entry, version) == 11 * sizeof(char *) &&
	       sizeof(((struct cfg_entry *)0)->str) == 12 * sizeof(char *),
	       "str[] covers every string of an entry, and only those");

/* The baud rates the 16550 divisor (115200 / rate) gives exactly and terminals offer. */
static const uint32_t cfg_bauds[] = { 300, 600, 1200, 2400, 4800, 9600, 19200, 38400, 57600,
				      115200 };

struct cfg_parser {
	struct cfg *out;
	struct diag *d;
	unsigned errors;
	unsigned line;
	bool in_entry;            /* an "entry" line was seen */
	struct cfg_entry *cur;    /* its slot; NULL when the entry was refused (values are then
				   * still checked, and dropped) */
	char entry_name[CFG_NAME_MAX];
	unsigned entry_line;
	unsigned ninitrd;
	unsigned timeout_line;    /* where each global key was set, for duplicate reports */
	unsigned default_line;
	unsigned serial_line;
	unsigned editor_line;
	unsigned title_line;      /* same, for the current entry's single-valued keys */
	unsigned kernel_line;     /* its kernel, efi or chainload line: what it starts */
	const char *what;         /* "kernel", "efi" or "chainload" */
	unsigned cmdline_line;
	unsigned initrd_line;     /* the first initrd line */
	unsigned partition_line;
	unsigned tries_line;
	bool unreadable;          /* the current entry has a line too broken to know its key */
	int pin_target;           /* the pin slot of the file the last key line named (0 kernel or
				   * efi, 1+i initrd i), -1 when it named none: what a "sha256"
				   * line on the next key line pins */
	int pin_prev;             /* pin_target as it was before the current line */
};

/* A counted piece of the text. */
struct cfg_span {
	const char *p;
	size_t n;
};

__attribute__((format(printf, 3, 4)))
static void cfg_report(struct cfg_parser *ps, const char *code, const char *fmt, ...)
{
	char msg[DIAG_MSG_MAX];
	fmt_va_list ap;

	ps->errors++;
	fmt_va_start(ap, fmt);
	fmt_vsnprintf(msg, sizeof msg, fmt, ap);
	fmt_va_end(ap);
	diag_report(ps->d, DIAG_ERROR, code, "%s", msg);
}
#define cfg_err(ps, code, ...) cfg_report((ps), DIAG_CODE(code), __VA_ARGS__)

/* A span as a short C string for a message, cut with "..." past 40 characters. (Copied rather
 * than printed with "%.*s": a span may end exactly at the end of the caller's buffer.) */
#define SHOW_MAX 44
static const char *span_show(struct cfg_span s, char *buf)
{
	size_t n = s.n > 40 ? 40 : s.n;
	for (size_t i = 0; i < n; i++)
		buf[i] = s.p[i];
	if (n < s.n) {
		buf[n++] = '.';
		buf[n++] = '.';
		buf[n++] = '.';
	}
	buf[n] = 0;
	return buf;
}

static bool span_is(struct cfg_span s, const char *word)
{
	size_t n = str_len(word);
	return s.n == n && str_ncasecmp(s.p, word, n) == 0;
}

static struct cfg_span span_trim(struct cfg_span s)
{
	while (s.n && chr_is_space(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && chr_is_space(s.p[s.n - 1]))
		s.n--;
	return s;
}

/* Cuts a comment: '#' at the start or after whitespace. */
static struct cfg_span span_cut_comment(struct cfg_span s)
{
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] == '#' && (i == 0 || chr_is_space(s.p[i - 1]))) {
			s.n = i;
			break;
		}
	}
	return span_trim(s);
}

static bool span_has_space(struct cfg_span s)
{
	for (size_t i = 0; i < s.n; i++)
		if (chr_is_space(s.p[i]))
			return true;
	return false;
}

/* Decimal only: "0x10" or "+5" as a timeout is more likely a typo than an intent. */
static bool span_to_uint(struct cfg_span s, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;
	if (!s.n)
		return false;
	for (size_t i = 0; i < s.n; i++) {
		if (!chr_is_digit(s.p[i]))
			return false;
		v = v * 10 + (uint64_t)(s.p[i] - '0');
		if (v > max)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* Copies a value into the text arena for a field (none: dst NULL), or reports that it does not
 * fit. */
static bool cfg_store(struct cfg_parser *ps, const char *key, struct cfg_span v, const char **dst,
		      size_t cap)
{
	if (v.n >= cap) {
		cfg_err(ps, "cfg.too_long", CFG_TAG "%s value is %zu characters, the limit is %zu",
			ps->line, key, v.n, cap - 1);
		return false;
	}
	if (dst)
		*dst = cfg_text_add(ps->out, v.p, v.n);
	return true;
}

static bool cfg_once(struct cfg_parser *ps, const char *key, unsigned *seen)
{
	if (*seen) {
		cfg_err(ps, "cfg.duplicate", CFG_TAG "%s already given on line %u", ps->line, key,
			*seen);
		return false;
	}
	*seen = ps->line;
	return true;
}

static void cfg_finish_entry(struct cfg_parser *ps)
{
	if (ps->cur && !ps->unreadable) {
		const char *what = ps->what;
		if (!ps->kernel_line)
			cfg_err(ps, "cfg.no_kernel", CFG_FILE_NAME " line %u: entry '%s' has no kernel "
				"(nor efi, chainload or uki line)", ps->entry_line, ps->entry_name);
		else if (ps->initrd_line && str_cmp(what, "kernel"))
			cfg_err(ps, "cfg.not_here", CFG_TAG "initrd goes with a kernel, not with %s",
				ps->initrd_line, what);
		if (ps->cmdline_line && ps->kernel_line && !str_cmp(what, "chainload"))
			cfg_err(ps, "cfg.not_here", CFG_TAG "a boot record takes no cmdline",
				ps->cmdline_line);
		/* (the legacy-gap stage2 shows no uki entry: check says this for it) */
		if (FEATURE_UKI && ps->cmdline_line && ps->kernel_line && !str_cmp(what, "uki"))
			cfg_err(ps, "cfg.not_here", CFG_TAG "a unified kernel image's command line is "
				"its .cmdline; no cmdline line", ps->cmdline_line);
		if (ps->partition_line && ps->kernel_line && str_cmp(what, "efi"))
			cfg_err(ps, "cfg.not_here", CFG_TAG "partition goes with efi, not with %s",
				ps->partition_line, what);
	}
	ps->cur = 0;
	ps->in_entry = false;
}

static void cfg_key_entry(struct cfg_parser *ps, struct cfg_span v)
{
	char show[SHOW_MAX];
	struct cfg *c = ps->out;

	cfg_finish_entry(ps);
	ps->title_line = ps->kernel_line = ps->cmdline_line = 0;
	ps->initrd_line = ps->partition_line = ps->tries_line = 0;
	ps->what = 0;
	ps->unreadable = false;
	ps->in_entry = true;
	ps->entry_line = ps->line;
	ps->entry_name[0] = 0;
	ps->ninitrd = 0;

	if (span_has_space(v)) {
		cfg_err(ps, "cfg.bad_value", CFG_TAG "entry name '%s' must be one word", ps->line,
			span_show(v, show));
		return;
	}
	if (!cfg_store(ps, "entry name", v, 0, sizeof ps->entry_name))
		return;
	str_copy_n(ps->entry_name, sizeof ps->entry_name, v.p, v.n);
	for (unsigned i = 0; i < c->nentries; i++) {
		if (str_casecmp(c->entries[i].name, ps->entry_name) == 0) {
			cfg_err(ps, "cfg.duplicate", CFG_TAG "entry '%s' already defined on line %u",
				ps->line, ps->entry_name, c->entries[i].line);
			return;
		}
	}
	if (c->nentries >= CFG_MAX_ENTRIES) {
		cfg_err(ps, "cfg.too_many", CFG_TAG "entry '%s' is one more than the %u allowed",
			ps->line, ps->entry_name, CFG_MAX_ENTRIES);
		return;
	}
	struct cfg_entry *e = &c->entries[c->nentries++];
	cfg_entry_clear(e);
	e->line = ps->line;
	cfg_store(ps, "entry name", v, &e->name, CFG_NAME_MAX);
	ps->cur = e;
}

static void cfg_key_serial(struct cfg_parser *ps, struct cfg_span v)
{
	char show[SHOW_MAX];
	uint32_t baud;

	if (!cfg_once(ps, "serial", &ps->serial_line))
		return;
	if (span_is(v, "off")) {
		ps->out->serial_baud = 0;
		return;
	}
	if (span_to_uint(v, 115200, &baud)) {
		for (size_t i = 0; i < ARRAY_SIZE(cfg_bauds); i++) {
			if (cfg_bauds[i] == baud) {
				ps->out->serial_baud = baud;
				return;
			}
		}
	}
	cfg_err(ps, "cfg.bad_value",
		CFG_TAG "serial '%s' is not 'off' or a baud rate (300, 600, 1200, 2400, 4800, 9600, "
			"19200, 38400, 57600, 115200)",
		ps->line, span_show(v, show));
}

static void cfg_key_editor(struct cfg_parser *ps, struct cfg_span v)
{
	char show[SHOW_MAX];

	if (!cfg_once(ps, "editor", &ps->editor_line))
		return;
	if (span_is(v, "on"))
		ps->out->editor = CFG_EDITOR_ON;
	else if (span_is(v, "off"))
		ps->out->editor = CFG_EDITOR_OFF;
	else
		cfg_err(ps, "cfg.bad_value", CFG_TAG "editor '%s' is not 'on' or 'off'", ps->line,
			span_show(v, show));
}

static void cfg_key_timeout(struct cfg_parser *ps, struct cfg_span v)
{
	char show[SHOW_MAX];
	uint32_t t;

	if (!cfg_once(ps, "timeout", &ps->timeout_line))
		return;
	ps->out->timeout_line = ps->line;
	if (!span_to_uint(v, CFG_TIMEOUT_MAX, &t)) {
		cfg_err(ps, "cfg.bad_value",
			CFG_TAG "timeout '%s' is not a number of seconds from 0 to %u", ps->line,
			span_show(v, show), CFG_TIMEOUT_MAX);
		return;
	}
	ps->out->timeout = t;
}

static void cfg_key_default(struct cfg_parser *ps, struct cfg_span v)
{
	char show[SHOW_MAX];
	if (!cfg_once(ps, "default", &ps->default_line))
		return;
	ps->out->default_line = ps->line;
	if (span_has_space(v)) {
		cfg_err(ps, "cfg.bad_value", CFG_TAG "default '%s' must be one entry name", ps->line,
			span_show(v, show));
		return;
	}
	if (cfg_store(ps, "default", v, 0, sizeof ps->out->default_name))
		str_copy_n(ps->out->default_name, sizeof ps->out->default_name, v.p, v.n);
}

/* kernel PATH, efi PATH, uki PATH or chainload N|hdN: what the entry starts, once. */
static void cfg_key_what(struct cfg_parser *ps, const char *key, struct cfg_span v)
{
	struct cfg_entry *e = ps->cur;
	char show[SHOW_MAX];
	uint32_t n;

	if (ps->kernel_line && !str_cmp(key, ps->what)) {
		cfg_once(ps, key, &ps->kernel_line);   /* "kernel already given on line N" */
		return;
	}
	if (ps->kernel_line) {
		cfg_err(ps, "cfg.duplicate", CFG_TAG "%s, but line %u already has %s (an entry starts "
			"one thing)", ps->line, key, ps->kernel_line, ps->what);
		return;
	}
	ps->kernel_line = ps->line;
	ps->what = key;
	if (str_cmp(key, "chainload")) {
		if (cfg_store(ps, key, v, e ? &e->kernel : 0, CFG_PATH_MAX) && e)
			e->kind = key[0] == 'e' ? CFG_KIND_EFI : key[0] == 'u' ? CFG_KIND_UKI
								 : CFG_KIND_LINUX;
		ps->pin_target = 0;
		return;
	}
	/* "hdN": BIOS disk 0x80 + N, its LBA 0; "N": partition N of the boot disk. */
	bool disk = v.n > 2 && chr_lower(v.p[0]) == 'h' && chr_lower(v.p[1]) == 'd';
	struct cfg_span num = disk ? (struct cfg_span){ v.p + 2, v.n - 2 } : v;
	if (!span_to_uint(num, disk ? CFG_BIOS_DISKS - 1 : CFG_PART_MAX, &n) || (!disk && !n)) {
		cfg_err(ps, "cfg.bad_value", CFG_TAG "chainload '%s' is not a partition number (1 to "
			"%u) or a BIOS disk hd0 to hd%u", ps->line, span_show(v, show), CFG_PART_MAX,
			CFG_BIOS_DISKS - 1);
		return;
	}
	if (e) {
		e->kind = CFG_KIND_CHAIN;
		e->partition = (uint8_t)(disk ? 0 : n);
		e->bios_disk = (uint8_t)(disk ? n : 0);
	}
}

/* sha256 HEX: the pin of the file the key line above named. */
static void cfg_key_sha256(struct cfg_parser *ps, struct cfg_span v)
{
	char show[SHOW_MAX];
	uint8_t d[SHA256_BYTES];

	if (ps->pin_prev < 0) {
		cfg_err(ps, "cfg.not_here", CFG_TAG "sha256 must follow the kernel, efi, uki or initrd line "
			"whose file it pins", ps->line);
		return;
	}
	if (!sha256_from_hex(v.p, v.n, d)) {
		cfg_err(ps, "cfg.bad_value", CFG_TAG "sha256 '%s' is not 64 hexadecimal digits",
			ps->line, span_show(v, show));
		return;
	}
	struct cfg_entry *e = ps->cur;
	if (e && !e->pin)
		e->pin = (uint8_t (*)[SHA256_BYTES])(uintptr_t)cfg_text_add(
			ps->out, 0, (1 + CFG_MAX_INITRDS) * SHA256_BYTES - 1);
	if (e) {
		memcpy(ps->cur->pin[ps->pin_prev], d, SHA256_BYTES);
		ps->cur->pinned |= (uint8_t)(1u << ps->pin_prev);
	}
}

#if FEATURE_BOOT_STATE
/* tries N: boot counting (common/bootcount.h), N tries before the entry counts as failed. The
 * legacy-gap stage2 does not know the key (no state block to count in there). */
static void cfg_key_tries(struct cfg_parser *ps, struct cfg_span v)
{
	uint32_t n;
	char show[SHOW_MAX];

	if (!cfg_once(ps, "tries", &ps->tries_line))
		return;
	if (!span_to_uint(v, 255, &n) || !n)
		cfg_err(ps, "cfg.bad_value", CFG_TAG "tries '%s' is not a number from 1 to 255",
			ps->line, span_show(v, show));
	else if (ps->cur)
		ps->cur->tries_left = (int32_t)n, ps->cur->tries_done = 0;
}
#endif

/* Keys that belong inside an entry. */
static void cfg_key_in_entry(struct cfg_parser *ps, const char *key, struct cfg_span v)
{
	struct cfg_entry *e = ps->cur;

	if (!ps->in_entry) {
		cfg_err(ps, "cfg.outside_entry", CFG_TAG "%s outside an entry (write 'entry NAME' first)",
			ps->line, key);
		return;
	}
	if (str_cmp(key, "title") == 0) {
		if (cfg_once(ps, "title", &ps->title_line))
			cfg_store(ps, "title", v, e ? &e->title : 0, CFG_TITLE_MAX);
	} else if (!str_cmp(key, "kernel") || !str_cmp(key, "efi") || !str_cmp(key, "chainload") ||
		   !str_cmp(key, "uki")) {
		cfg_key_what(ps, key, v);
	} else if (str_cmp(key, "partition") == 0) {
		uint32_t n;
		char show[SHOW_MAX];
		if (!cfg_once(ps, "partition", &ps->partition_line))
			return;
		if (!span_to_uint(v, CFG_PART_MAX, &n) || !n)
			cfg_err(ps, "cfg.bad_value", CFG_TAG "partition '%s' is not a partition number "
				"from 1 to %u", ps->line, span_show(v, show), CFG_PART_MAX);
		else if (e)
			e->partition = (uint8_t)n;
	} else if (str_cmp(key, "initrd") == 0) {
		if (!ps->initrd_line)
			ps->initrd_line = ps->line;
		if (ps->ninitrd >= CFG_MAX_INITRDS) {
			cfg_err(ps, "cfg.too_many", CFG_TAG "more than %u initrd lines in entry '%s'",
				ps->line, CFG_MAX_INITRDS, ps->entry_name);
			return;
		}
		if (cfg_store(ps, "initrd", v, e ? &e->initrd[ps->ninitrd] : 0, CFG_PATH_MAX)) {
			ps->pin_target = (int)++ps->ninitrd;
			if (e)
				e->ninitrd = (uint8_t)ps->ninitrd;
		}
	} else if (str_cmp(key, "sha256") == 0) {
		cfg_key_sha256(ps, v);
#if FEATURE_BOOT_STATE
	} else if (str_cmp(key, "tries") == 0) {
		cfg_key_tries(ps, v);
#endif
	} else {
		if (cfg_once(ps, "cmdline", &ps->cmdline_line))
			cfg_store(ps, "cmdline", v, e ? &e->cmdline : 0, CFG_CMDLINE_MAX);
	}
}

static const char *const cfg_entry_keys[] = { "title", "kernel", "initrd", "cmdline", "efi",
					       "chainload", "partition", "sha256", "uki" };

bool cfg_is_entry_key(const char *key, size_t n)
{
	if (span_is((struct cfg_span){ key, n }, "tries"))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(cfg_entry_keys); i++)
		if (span_is((struct cfg_span){ key, n }, cfg_entry_keys[i]))
			return true;
	return false;
}

static void cfg_line(struct cfg_parser *ps, struct cfg_span s)
{
	char show[SHOW_MAX];
	s = span_trim(s);
	if (!s.n || s.p[0] == '#')
		return;
	/* every key line ends what a sha256 line may pin; blank and comment lines do not */
	ps->pin_prev = ps->pin_target;
	ps->pin_target = -1;


	for (size_t i = 0; i < s.n; i++) {
		unsigned char ch = (unsigned char)s.p[i];
		if ((ch < 0x20 && ch != '\t') || ch == 0x7F) {
			if (!ch)
				cfg_err(ps, "cfg.nul", CFG_TAG "NUL byte (is this a text file?)", ps->line);
			else
				cfg_err(ps, "cfg.control_char", CFG_TAG "control character 0x%02X in "
					"column %zu", ps->line, ch, i + 1);
			ps->unreadable = true;
			return;
		}
	}

	struct cfg_span key = { s.p, 0 };
	while (key.n < s.n && !chr_is_space(s.p[key.n]))
		key.n++;
	struct cfg_span rest = span_trim((struct cfg_span){ s.p + key.n, s.n - key.n });

	const char *entry_key = FEATURE_BOOT_STATE && span_is(key, "tries") ? "tries" : 0;
	for (size_t i = 0; i < ARRAY_SIZE(cfg_entry_keys); i++)
		if (span_is(key, cfg_entry_keys[i]))
			entry_key = cfg_entry_keys[i];
	bool known = entry_key || span_is(key, "entry") || span_is(key, "timeout") ||
		     span_is(key, "default") || span_is(key, "serial") || span_is(key, "editor");
	if (!known) {
		cfg_err(ps, "cfg.unknown_key", CFG_TAG "unknown key '%s'", ps->line,
			span_show(key, show));
		return;
	}

	/* A command line keeps '#' (the kernel's business); everything else may carry a comment. */
	struct cfg_span v = span_is(key, "cmdline") ? rest : span_cut_comment(rest);
	if (!v.n) {
		cfg_err(ps, "cfg.missing_value", CFG_TAG "%s needs a value", ps->line,
			span_show(key, show));
		if ((span_is(key, "kernel") || span_is(key, "efi") || span_is(key, "chainload") ||
		     (FEATURE_UKI && span_is(key, "uki"))) &&
		    !ps->kernel_line) {
			ps->kernel_line = ps->line;  /* said once is enough: no "has no kernel" too */
			ps->what = entry_key;
		}
		return;
	}

	if (entry_key)
		cfg_key_in_entry(ps, entry_key, v);
	else if (span_is(key, "entry"))
		cfg_key_entry(ps, v);
	else if (span_is(key, "timeout"))
		cfg_key_timeout(ps, v);
	else if (span_is(key, "default"))
		cfg_key_default(ps, v);
	else if (span_is(key, "editor"))
		cfg_key_editor(ps, v);
	else
		cfg_key_serial(ps, v);
}

int cfg_parse_text(const char *text, size_t len, struct cfg *out, struct diag *d)
{
	struct cfg_parser ps;

	memset(out, 0, sizeof *out);
	out->timeout = CFG_DEFAULT_TIMEOUT;
	out->serial_baud = CFG_DEFAULT_SERIAL;
	memset(&ps, 0, sizeof ps);
	ps.out = out;
	ps.d = d;
	ps.pin_target = -1;

	size_t pos = 0;
	/* A UTF-8 byte order mark, as Windows editors write it. */
	if (len >= 3 && (uint8_t)text[0] == 0xEF && (uint8_t)text[1] == 0xBB &&
	    (uint8_t)text[2] == 0xBF)
		pos = 3;

	while (pos < len) {
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		ps.line++;
		/* CRLF: the '\r' is whitespace and goes with the trim. */
		cfg_line(&ps, (struct cfg_span){ text + pos, end - pos });
		pos = end + 1;
	}
	cfg_finish_entry(&ps);
	return ps.errors ? AS_ECORRUPT : 0;
}

int cfg_parse(const char *text, size_t len, struct cfg *out, struct diag *d)
{
	int rc = cfg_parse_text(text, len, out, d);

	if (!out->nentries && !rc) {
		unsigned lines = 1;
		for (size_t i = 0; i + 1 < len; i++)
			lines += text[i] == '\n';
		diag_error(d, "cfg.no_entry", CFG_FILE_NAME " line %u: no entry (the file needs "
			   "'entry NAME' and a 'kernel' line)", lines);
		rc = AS_ECORRUPT;
	}
	if (out->default_name[0] && cfg_find(out, out->default_name) < 0) {
		diag_error(d, "cfg.default", CFG_TAG "default '%s' names no entry", out->default_line,
			   out->default_name);
		rc = AS_ECORRUPT;
	}
	return rc;
}

int cfg_menu_check(const struct cfg *c, struct diag *d)
{
	if (!c->nentries) {
		diag_error(d, "cfg.no_entry", "no entry to boot: neither /" CFG_FILE_NAME " nor "
			   "/loader/entries holds one");
		return AS_ENOENT;
	}
#if FEATURE_NOTICES
	if (cfg_default_missing(c)) {
		int i = cfg_default_index(c);
		diag_warn(d, "cfg.default", "%s: default '%s' names no entry; %u) %s boots by default",
			  c->default_line ? CFG_FILE_NAME : "/loader/loader.conf", c->default_name,
			  i + 1, c->entries[i].name);
	}
#endif
	return 0;
}

int cfg_find(const struct cfg *c, const char *name)
{
	for (unsigned i = 0; i < c->nentries; i++)
		if (str_casecmp(c->entries[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *cfg_entry_bli_suffix(const struct cfg_entry *e)
{
	const char *dot = NULL;

	if (!e->bls)
		return "";
	for (const char *p = e->file; *p; p++)
		if (*p == '.')
			dot = p;
	return dot ? dot : "";
}

int cfg_find_bli(const struct cfg *c, const char *id)
{
	int i = cfg_find(c, id);
	size_t n = str_len(id);

	for (unsigned k = 0; i < 0 && k < c->nentries; k++) {
		const struct cfg_entry *e = &c->entries[k];
		size_t m = str_len(e->name);
		if (e->bls && m < n && !str_ncasecmp(id, e->name, m) &&
		    !str_casecmp(id + m, cfg_entry_bli_suffix(e)))
			i = (int)k;
	}
	return i;
}

int cfg_default_index(const struct cfg *c)
{
	int i = c->default_name[0] ? cfg_find(c, c->default_name) : -1;

	for (unsigned k = 0; i < 0 && k < c->nentries; k++)
		if (c->entries[k].bls && c->entries[k].tries_left)
			i = (int)k;
	return i >= 0 || !c->nentries ? i : 0;
}

bool cfg_default_missing(const struct cfg *c)
{
	return c->default_name[0] && cfg_find(c, c->default_name) < 0;
}

const char *cfg_entry_title(const struct cfg_entry *e)
{
	return e->title[0] ? e->title : e->bls ? CFG_UNTITLED : e->name;
}

const char *cfg_text_add(struct cfg *c, const char *s, size_t n)
{
	char *t = c->text + c->text_used;
	if (s)
		memcpy(t, s, n);
	t[n] = 0;
	c->text_used += (uint32_t)n + 1;
	return t;
}

void cfg_entry_clear(struct cfg_entry *e)
{
	memset(e, 0, sizeof *e);
	for (unsigned i = 0; i < ARRAY_SIZE(e->str); i++)
		e->str[i] = "";
	e->tries_left = e->tries_done = -1;
}

bool cfg_entry_runs_on(const struct cfg_entry *e, enum cfg_firmware fw)
{
	/* the legacy-gap stage2 cannot boot a unified kernel image (common/features.h) */
	return e->kind == CFG_KIND_LINUX ||
	       (e->kind == CFG_KIND_UKI && (FEATURE_UKI || fw != CFG_FW_BIOS)) ||
	       (e->kind == CFG_KIND_CHAIN) == (fw == CFG_FW_BIOS);
}

bool cfg_editor_allowed(const struct cfg *c, bool secure_boot)
{
	return c->editor == CFG_EDITOR_ON || (c->editor == CFG_EDITOR_UNSET && !secure_boot);
}
