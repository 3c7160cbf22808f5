/* SPDX-License-Identifier: BSD-2-Clause */
/* Boot Loader Specification Type #1 entry files and loader.conf (format in common/bls.h).
 * stage2 carries this code in its 31 KiB: it is table-driven and says each problem in one short
 * sentence with the file and line. */
#include "common/bls.h"

#include "common/errors.h"
#include "common/features.h"
#include "common/mem.h"
#include "common/name.h"
#include "common/str.h"
#include "common/utf8.h"

enum field_kind {
	F_TEXT,         /* shown or compared: cut past its field (a warning) */
	F_WORD,         /* loader.conf's: too long is a warning, the key ignored */
	F_PATH,         /* too long leaves the entry out (F_PATH and below) */
	F_INITRD,
	F_OPTIONS,
	F_UNSUPPORTED,
	F_ARCH,
};

struct field {
	const char *key;
	uint8_t kind;
	uint16_t off, cap;
};

#define E(m) offsetof(struct bls_entry, m)
static const struct field entry_fields[] = {
	{ "title", F_TEXT, E(title), BLS_TEXT_MAX },
	{ "version", F_TEXT, E(version), BLS_TEXT_MAX },
	{ "machine-id", F_TEXT, E(machine_id), BLS_TEXT_MAX },
	{ "sort-key", F_TEXT, E(sort_key), BLS_TEXT_MAX },
	{ "linux", F_PATH, E(kernel), BLS_PATH_MAX },
	{ "initrd", F_INITRD, E(initrd), BLS_PATH_MAX },
	{ "options", F_OPTIONS, E(cmdline), CFG_CMDLINE_MAX },
	{ "efi", F_UNSUPPORTED, 0, 0 },
	{ "devicetree", F_UNSUPPORTED, 0, 0 },
	{ "devicetree-overlay", F_UNSUPPORTED, 0, 0 },
	{ "architecture", F_ARCH, 0, 0 },
	{ 0, 0, 0, 0 },
};

/* loader.conf's two keys, read as text first */
struct loader_text {
	char def[BLS_PATTERN_MAX];
	char timeout[24];
};
static const struct field loader_fields[] = {
	{ "default", F_WORD, offsetof(struct loader_text, def), BLS_PATTERN_MAX },
	{ "timeout", F_WORD, offsetof(struct loader_text, timeout), 24 },
	{ 0, 0, 0, 0 },
};

struct parse {
	const char *file;
	struct diag *d;
	enum diag_level level;   /* of a bad value: an entry is left out, loader.conf goes on */
	unsigned line;
	bool bad, has_linux, other_arch;
	const char *unsupported;
	unsigned unsupported_line;
};

static void say(struct parse *ps, enum diag_level level, const char *what, const char *key)
{
	diag_report(ps->d, level, "bls.bad_line", "%s line %u: %s%s", ps->file, ps->line, key,
		    what);
}

static void bad(struct parse *ps, const char *what, const char *key)
{
	say(ps, ps->level, what, key);
	ps->bad = true;
}

/* Copies [v, v+n) to dst, after a prefix character: '/' (a path, unless it has one), ' ' (one
 * more options line, unless dst or v is empty). False when it does not fit. */
static bool put(char *dst, size_t cap, const char *v, size_t n, char prefix)
{
	size_t have = prefix == ' ' ? str_len(dst) : 0;
	if ((prefix == ' ' && (!have || !n)) || (prefix == '/' && n && v[0] == '/'))
		prefix = 0;
	if (have + (prefix != 0) + n >= cap)
		return false;
	if (prefix)
		dst[have++] = prefix;
	str_copy_n(dst + have, cap - have, v, n);
	return true;
}

static void value(struct parse *ps, const struct field *f, char *base, const char *v, size_t n)
{
	struct bls_entry *e = (struct bls_entry *)base;
	char *dst = base + f->off;

	switch (f->kind) {
	case F_UNSUPPORTED:
		if (!ps->unsupported) {
			ps->unsupported = f->key;
			ps->unsupported_line = ps->line;
		}
		return;
	case F_ARCH:
		ps->other_arch = n != 3 || str_ncasecmp(v, "x64", 3);
		return;
	case F_TEXT:
		/* shown or compared only: kept whole up to its field, cut past it, never refused */
#if !FEATURE_NOTICES
		/* the gap build: its consoles show a byte that is not UTF-8 as one character
		 * anyway (VGA in code page 437; COM1's terminal its replacement character), and
		 * what leaves nothing out is said by check and list, not at boot */
		str_copy_n(dst, f->cap, v, n);
#else
		{
			unsigned r = utf8_copy(dst, f->cap, v, n);
			if (r)
				say(ps, DIAG_WARN, r & 1 ? " is not UTF-8 (shown with U+FFFD)" :
					" is cut to 255 bytes", f->key);
		}
#endif
		return;
	case F_PATH:
		ps->has_linux = true;
		if (!n) {
			bad(ps, " needs a path", f->key);
			return;
		}
		break;
	case F_INITRD:
		if (!n)
			return;
		if (e->ninitrd == CFG_MAX_INITRDS) {
			bad(ps, " given more than 4 times", f->key);
			return;
		}
		dst += e->ninitrd++ * (size_t)f->cap;
		break;
	default:
		break;
	}
	if (!put(dst, f->cap, v, n, f->kind == F_OPTIONS ? ' ' : f->kind == F_WORD ? 0 : '/'))
		bad(ps, " is too long", f->key);
}

/* Each "key value" line of [p, p+len) to the field of that key (unknown keys are ignored, a key
 * given again replaces the value). A comment line is ignored whatever it holds; elsewhere a NUL
 * or control character makes the file unusable. */
static void parse_lines(struct parse *ps, const char *p, size_t len, const struct field *fields,
			char *base)
{
	const char *end = p + len;

	for (ps->line = 1; p < end; ps->line++) {
		const char *e = p, *k;
		while (e < end && *e != '\n')
			e++;
		const char *next = e + 1;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (p < e && *p == '#')
			e = p;
		for (const char *c = p; c < e; c++)
			if (((unsigned char)*c < 0x20 && *c != '\t' && (*c != '\r' || c + 1 != e)) ||
			    *c == 0x7F) {
				bad(ps, "a control character or NUL byte", "");
				e = p;
			}
		while (e > p && chr_is_space(e[-1]))
			e--;
		for (k = p; p < e && !chr_is_space(*p); p++)
			;
		size_t nk = (size_t)(p - k);
		while (p < e && chr_is_space(*p))
			p++;
		for (const struct field *f = fields; f->key && nk; f++)
			if (str_len(f->key) == nk && !str_ncmp(f->key, k, nk)) {
				value(ps, f, base, p, (size_t)(e - p));
				break;
			}
		p = next;
	}
}

/* bls_file_id with the suffix's length sl: the legacy-gap stage2, which has no Type #2
 * entries, has only bls_name_check's use, for ".conf" alone. Only '/' separates: path is a
 * directory and a directory entry's name, and a backslash in a name read from a mounted file
 * system is a byte of that name, which the rule refuses. */
static inline bool file_id(const char *path, const char *suffix, size_t sl,
			   struct bls_entry *out)
{
	memset(out, 0, sizeof *out);
	const char *file = path;
	for (const char *p = path; *p; p++)
		if (*p == '/')
			file = p + 1;
	size_t n = str_len(file);
	str_copy(out->file, sizeof out->file, file);
	if (n > BLS_NAME_MAX || n < sl || str_casecmp(file + n - sl, suffix))
		return false;
	n -= sl;
	if (name_portable_span(file, n) < n)
		return false;
	out->tries_left = out->tries_done = -1;
	/* "+LEFT" or "+LEFT-DONE" (at most 9 digits each) right before ".conf", its '+' not the
	 * first character: read backwards, it is what follows NAME's last '+' (systemd-boot's
	 * rule) */
	size_t i = n;
	int32_t v[2];
	for (unsigned k = 0; k < 2; k++) {
		size_t e = i;
		uint32_t x = 0, m = 1;
		for (; i > 1 && chr_is_digit(file[i - 1]) && e - i < 9; m *= 10)
			x += (uint32_t)(file[--i] - '0') * m;
		if (i == e || i < 2)
			break;
		v[k] = (int32_t)x;
		if (file[i - 1] == '+') {
			out->tries_left = v[k];
			out->tries_done = k ? v[0] : 0;
			n = i - 1;
			break;
		}
		if (file[--i] != '-')
			break;
	}
	str_copy_n(out->id, sizeof out->id, file, n);
	return n;
}

#if FEATURE_UKI
bool bls_file_id(const char *path, const char *suffix, struct bls_entry *out)
{
	return file_id(path, suffix, str_len(suffix), out);
}
#endif

bool bls_name_check(const char *path, struct bls_entry *out, struct diag *d)
{
	if (file_id(path, BLS_SUFFIX, sizeof BLS_SUFFIX - 1, out))
		return true;
#if !FEATURE_NOTICES
	(void)d;   /* the gap build leaves it out as the tool does; check and list say why */
#else
	diag_error(d, "bls.name", "%s: not NAME.conf of at most 255 characters A-Z a-z 0-9 + - _ .; "
		   "left out", path);
#endif
	return false;
}

int bls_parse(const char *text, size_t len, const char *file, struct bls_entry *out,
	      struct diag *d)
{
	struct parse ps = { .file = file, .d = d, .level = DIAG_ERROR };
	if (!bls_name_check(file, out, d))
		return AS_EINVAL;
	parse_lines(&ps, text, len, entry_fields, (char *)out);
	if (ps.bad)
		return AS_ECORRUPT;
	/* The specification: entries for another platform are hidden. stage2's legacy-gap build
	 * hides them silently; check, list, stage2.bin and BOOTX64.EFI say why. */
#if FEATURE_NOTICES
	if (ps.unsupported)
		diag_warn(d, "bls.unsupported", "%s line %u: anysector does not support '%s'; left out",
			  file, ps.unsupported_line, ps.unsupported);
	else if (ps.other_arch)
		diag_warn(d, "bls.unsupported", "%s: for another architecture than x64; left out",
			  file);
#endif
	if (ps.unsupported || ps.other_arch)
		return AS_EUNSUPP;
	if (!ps.has_linux) {
		diag_error(d, "bls.no_linux", "%s: no linux line", file);
		return AS_ECORRUPT;
	}
	return 0;
}

void bls_loader_parse(const char *text, size_t len, struct bls_loader *out, struct diag *d)
{
	struct parse ps = { .file = BLS_LOADER_CONF, .d = d, .level = DIAG_WARN };
	struct loader_text t;
	const char *v = t.timeout;

	memset(out, 0, sizeof *out);
	memset(&t, 0, sizeof t);
	parse_lines(&ps, text, len, loader_fields, (char *)&t);
	/* systemd-boot's ids end in ".conf", ours do not */
	size_t n = str_len(t.def), sl = sizeof BLS_SUFFIX - 1;
	if (n > sl && !str_casecmp(t.def + n - sl, BLS_SUFFIX))
		t.def[n - sl] = 0;
	if (str_cmp(t.def, "@saved"))
		str_copy(out->default_pattern, sizeof out->default_pattern, t.def);
#if FEATURE_NOTICES
	else
		diag_warn(d, "bls.saved", BLS_LOADER_CONF ": default @saved is not supported; ignored");
#endif
	if (!*v)
		return;
	out->has_timeout = true;
	if (!str_cmp(v, "menu-force"))
		out->timeout = CFG_TIMEOUT_MAX;
	else if (str_cmp(v, "menu-hidden") && str_cmp(v, "menu-disabled"))
		for (; *v; v++) {
			if (!chr_is_digit(*v)) {
				out->has_timeout = false;
				out->timeout = 0;
				diag_warn(d, "bls.bad_line", BLS_LOADER_CONF ": timeout '%s' is not a "
					  "number of seconds; ignored", t.timeout);
				break;
			}
			out->timeout = out->timeout * 10 + (unsigned)(*v - '0');
			if (out->timeout > CFG_TIMEOUT_MAX) /* systemd-boot takes any number */
				out->timeout = CFG_TIMEOUT_MAX;
		}
}

/* --- order --- */

static bool is_alpha(char c)
{
	return (unsigned char)(chr_lower(c) - 'a') < 26;
}

static bool ver_char(char c)
{
	return is_alpha(c) || chr_is_digit(c) || c == '~' || c == '-' || c == '^' || c == '.';
}

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

/* The length of the run of characters of a's class (digits or letters) at s. */
static size_t run(const char *s, bool digits)
{
	size_t n = 0;
	while (digits ? chr_is_digit(s[n]) : is_alpha(s[n]))
		n++;
	return n;
}

int bls_vercmp(const char *a, const char *b)
{
	for (;;) {
		while (*a && !ver_char(*a))
			a++;
		while (*b && !ver_char(*b))
			b++;
		/* '~' sorts before everything, the end of the string included (a pre-release) */
		if (*a == '~' || *b == '~') {
			if (*a != *b)
				return *a == '~' ? -1 : 1;
			a++;
			b++;
		}
		if (!*a || !*b)
			return (*a != 0) - (*b != 0);
		/* Separators sort before letters and digits: '-', then '^', then '.', each
		 * checked on what follows the previous one without skipping again, as systemd
		 * does. So a '^' suffix sorts after the end of the string but before any other
		 * continuation (1.0 < 1.0^git1 < 1.0.1), as rpm's caret. */
		for (const char *sep = "-^."; *sep; sep++) {
			if (*a != *sep && *b != *sep)
				continue;
			if (*a != *b)
				return *a == *sep ? -1 : 1;
			a++;
			b++;
		}
		/* A number is newer than letters (the specification's text would read a missing
		 * number as 0; systemd does not); numbers compare by value, letters by byte
		 * ('A' < 'a'), and of two equal runs of letters the longer is newer. */
		bool digits = chr_is_digit(*a) || chr_is_digit(*b);
		if (digits) {
			if (chr_is_digit(*a) != chr_is_digit(*b))
				return chr_is_digit(*a) ? 1 : -1;
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
		}
		size_t na = run(a, digits), nb = run(b, digits);
		int r = digits && na != nb ? sign((int)na - (int)nb)
					   : sign(str_ncmp(a, b, na < nb ? na : nb));
		if (r || (r = sign((int)na - (int)nb)))
			return r;
		a += na;
		b += nb;
	}
}

int bls_compare(const struct cfg_entry *a, const struct cfg_entry *b)
{
	int r = (a->tries_left == 0) - (b->tries_left == 0);
	if (!r)
		r = !a->sort_key[0] - !b->sort_key[0];
	if (!r && a->sort_key[0] && !(r = sign(str_cmp(a->sort_key, b->sort_key))) &&
	    !(r = sign(str_cmp(a->machine_id, b->machine_id))))
		r = -bls_vercmp(a->version, b->version);
	if (!r)
		r = -bls_vercmp(a->name, b->name);
	/* Variants of one id: systemd-boot's rules where both count boots (more tries left first,
	 * then fewer done); where it keeps the directory's order, no counter first (as if it had
	 * the most tries left), then the file name. */
	int32_t la = a->tries_left < 0 ? 0x7FFFFFFF : a->tries_left;
	int32_t lb = b->tries_left < 0 ? 0x7FFFFFFF : b->tries_left;
	if (!r && !(r = sign(lb - la)))
		r = sign(a->tries_done - b->tries_done);
	return r ? r : sign(str_cmp(a->file, b->file));
}

/* --- globs --- */

/* Whether c matches the class at p ("[...]", '!' or '^' negates, "a-z" ranges); *end gets the
 * character after its ']'. A class without its ']' is a literal '['. */
static bool class_match(const char *p, char c, const char **end)
{
	bool neg = p[1] == '!' || p[1] == '^', hit = false;
	const char *q = p + 1 + neg;
	c = chr_lower(c);
	for (const char *first = q; *q && (*q != ']' || q == first); q++) {
		char lo = chr_lower(*q), hi = lo;
		if (q[1] == '-' && q[2] && q[2] != ']')
			hi = chr_lower(q[2]), q += 2;
		hit |= c >= lo && c <= hi;
	}
	if (!*q) {
		*end = p + 1;
		return c == '[';
	}
	*end = q + 1;
	return hit != neg;
}

bool bls_glob(const char *p, const char *s)
{
	const char *star_p = 0, *star_s = 0;

	/* The usual backtracking to the last '*': each step moves s forward or retries from a
	 * later position, so the walk ends after at most len(p) * len(s) steps. */
	for (;;) {
		if (*p == '*') {
			star_p = ++p;
			star_s = s;
			continue;
		}
		const char *q = p + 1;
		if (*s && (*p == '?' || (*p == '[' ? class_match(p, *s, &q)
						    : *p && chr_lower(*p) == chr_lower(*s)))) {
			p = q;
			s++;
			continue;
		}
		if (!*s && !*p)
			return true;
		if (!star_p || !*star_s)
			return false;
		p = star_p;
		s = ++star_s;
	}
}
