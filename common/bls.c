/* Boot Loader Specification Type #1 entry files and loader.conf (format in common/bls.h). */
#include "common/bls.h"

#include "common/errors.h"
#include "common/fmt.h"
#include "common/mem.h"
#include "common/str.h"

struct bls_line {
	const char *key, *val;    /* val: trimmed, not terminated */
	size_t nkey, nval;
	unsigned no;
};

/* A field filled from a value, with the key named for messages. */
static bool store(char *dst, size_t cap, const struct bls_line *l, const char *file,
		  struct diag *d)
{
	if (l->nval >= cap) {
		diag_error(d, "bls.too_long", "%s line %u: the %.*s value is %zu characters, the limit "
			   "is %zu", file, l->no, (int)l->nkey, l->key, l->nval, cap - 1);
		return false;
	}
	str_copy_n(dst, cap, l->val, l->nval);
	return true;
}

/* A path with the leading '/' the specification makes optional. */
static bool store_path(char *dst, size_t cap, const struct bls_line *l, const char *file,
		       struct diag *d)
{
	size_t slash = l->nval && l->val[0] == '/' ? 0 : 1;
	if (l->nval + slash >= cap) {
		diag_error(d, "bls.too_long", "%s line %u: the path is %zu characters, the limit is %zu",
			   file, l->no, l->nval + slash, cap - 1);
		return false;
	}
	dst[0] = '/';
	str_copy_n(dst + slash, cap - slash, l->val, l->nval);
	return true;
}

static bool key_is(const struct bls_line *l, const char *k)
{
	return l->nkey == str_len(k) && !str_ncmp(l->key, k, l->nkey);
}

/* Splits [p, end) into lines and calls fn for each key/value line; returns false after a NUL byte
 * or control character (reported), which makes the whole file unusable. */
typedef void (*line_fn)(void *ctx, const struct bls_line *l);
static bool each_line(const char *p, size_t len, const char *file, line_fn fn, void *ctx,
		      struct diag *d)
{
	const char *end = p + len;
	bool ok = true;
	struct bls_line l;

	l.no = 0;
	while (p < end) {
		const char *eol = p;
		while (eol < end && *eol != '\n')
			eol++;
		l.no++;
		const char *q = p, *e = eol;
		for (const char *c = p; c < eol; c++) {
			unsigned char ch = (unsigned char)*c;
			if ((ch < 0x20 && ch != '\t' && !(ch == '\r' && c + 1 == eol)) || ch == 0x7F) {
				diag_error(d, "bls.control_char",
					   "%s line %u: %s 0x%02X in column %zu (is this a text file?)",
					   file, l.no, ch ? "control character" : "NUL byte", ch,
					   (size_t)(c - p) + 1);
				ok = false;
				e = q; /* nothing of this line is used */
				break;
			}
		}
		while (q < e && chr_is_space(*q))
			q++;
		while (e > q && chr_is_space(e[-1]))
			e--;
		if (q < e && *q != '#') {
			l.key = q;
			while (q < e && !chr_is_space(*q))
				q++;
			l.nkey = (size_t)(q - l.key);
			while (q < e && chr_is_space(*q))
				q++;
			l.val = q;
			l.nval = (size_t)(e - q);
			fn(ctx, &l);
		}
		p = eol + 1;
	}
	return ok;
}

/* --- entry files --- */

struct entry_parse {
	struct bls_entry *e;
	const char *file;
	struct diag *d;
	bool bad, has_linux;
	const char *unsupported;   /* the first key this loader cannot honour */
	unsigned unsupported_line;
	bool other_arch;
};

static void entry_line(void *ctx, const struct bls_line *l)
{
	struct entry_parse *ps = ctx;
	struct bls_entry *e = ps->e;
	const char *f = ps->file;
	struct diag *d = ps->d;
	bool ok = true;

	if (key_is(l, "title")) {
		ok = store(e->title, sizeof e->title, l, f, d);
	} else if (key_is(l, "version")) {
		ok = store(e->key.version, sizeof e->key.version, l, f, d);
	} else if (key_is(l, "machine-id")) {
		ok = store(e->key.machine_id, sizeof e->key.machine_id, l, f, d);
	} else if (key_is(l, "sort-key")) {
		ok = store(e->key.sort_key, sizeof e->key.sort_key, l, f, d);
	} else if (key_is(l, "linux")) {
		ok = l->nval && store_path(e->kernel, sizeof e->kernel, l, f, d);
		ps->has_linux = true;
	} else if (key_is(l, "initrd")) {
		if (e->ninitrd == CFG_MAX_INITRDS) {
			diag_error(d, "bls.too_many", "%s line %u: more than %u initrd lines", f, l->no,
				   CFG_MAX_INITRDS);
			ok = false;
		} else if (l->nval) {
			ok = store_path(e->initrd[e->ninitrd], sizeof e->initrd[0], l, f, d);
			e->ninitrd += ok;
		}
	} else if (key_is(l, "options")) {
		size_t have = str_len(e->options), sep = have && l->nval ? 1 : 0;
		if (have + sep + l->nval >= sizeof e->options) {
			diag_error(d, "bls.too_long",
				   "%s line %u: the options add up to %zu characters, the limit is %zu",
				   f, l->no, have + sep + l->nval, sizeof e->options - 1);
			ok = false;
		} else {
			if (sep)
				e->options[have] = ' ';
			str_copy_n(e->options + have + sep, sizeof e->options - have - sep, l->val,
				   l->nval);
		}
	} else if (key_is(l, "efi") || key_is(l, "devicetree") ||
		   key_is(l, "devicetree-overlay")) {
		if (!ps->unsupported) {
			ps->unsupported = key_is(l, "efi") ? "efi" : "devicetree";
			ps->unsupported_line = l->no;
		}
	} else if (key_is(l, "architecture")) {
		ps->other_arch = l->nval != 3 || str_ncasecmp(l->val, "x64", 3);
	}
	if (!ok && key_is(l, "linux") && !l->nval)
		diag_error(d, "bls.missing_value", "%s line %u: linux needs a path", f, l->no);
	ps->bad |= !ok;
}

/* ".../NAME.conf" or NAME+L.conf / NAME+L-D.conf: the id and the boot counter. */
static bool entry_id(const char *path, struct bls_key *k)
{
	const char *file = path;
	for (const char *p = path; *p; p++)
		if (*p == '/' || *p == '\\')
			file = p + 1;
	size_t n = str_len(file), sl = sizeof BLS_SUFFIX - 1;
	if (n <= sl || str_casecmp(file + n - sl, BLS_SUFFIX))
		return false;
	n -= sl;
	k->tries_left = k->tries_done = -1;
	/* the counter: '+' digits ['-' digits] right before the suffix */
	size_t i = n, plus = n;
	unsigned long long v[2] = { 0, 0 };
	unsigned nv = 0;
	while (i > 0 && nv < 2) {
		size_t j = i;
		while (j > 0 && chr_is_digit(file[j - 1]))
			j--;
		if (j == i || j == 0 || !str_to_u64(file + j, i - j, &v[nv]) || v[nv] > 0x7FFFFFFF)
			break;
		nv++;
		if (file[j - 1] == '+' && j > 1) {
			plus = j - 1;
			k->tries_left = (int)v[nv - 1];
			k->tries_done = nv == 2 ? (int)v[0] : 0;
			break;
		}
		if (file[j - 1] != '-' || nv == 2)
			break;
		i = j - 1;
	}
	return str_copy_n(k->id, sizeof k->id, file, plus) && plus > 0;
}

int bls_parse(const char *text, size_t len, const char *file, struct bls_entry *out,
	      struct diag *d)
{
	struct entry_parse ps;

	memset(out, 0, sizeof *out);
	if (!entry_id(file, &out->key)) {
		diag_error(d, "bls.name",
			   "%s: an entry file's name must be NAME.conf with at most %u characters "
			   "before .conf; left out", file, CFG_NAME_MAX - 1);
		return AS_EINVAL;
	}
	memset(&ps, 0, sizeof ps);
	ps.e = out;
	ps.file = file;
	ps.d = d;
	if (!each_line(text, len, file, entry_line, &ps, d))
		ps.bad = true;
	if (!ps.bad && !ps.has_linux && !ps.unsupported) {
		diag_error(d, "bls.no_linux", "%s: no linux line (the kernel to start)", file);
		ps.bad = true;
	}
	if (ps.bad)
		return AS_ECORRUPT;
	if (ps.unsupported) {
		diag_warn(d, "bls.unsupported", "%s line %u: '%s' is not supported by anysector; the "
			  "entry is left out", file, ps.unsupported_line, ps.unsupported);
		return AS_EUNSUPP;
	}
	if (ps.other_arch) {
		diag_warn(d, "bls.architecture", "%s: the entry is for another architecture than x64; "
			  "left out", file);
		return AS_EUNSUPP;
	}
	return 0;
}

/* --- loader.conf --- */

struct loader_parse {
	struct bls_loader *l;
	struct diag *d;
};

/* Decimal seconds, capped at CFG_TIMEOUT_MAX (systemd-boot takes any number). */
static bool seconds(const char *p, size_t n, unsigned *out)
{
	unsigned v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!chr_is_digit(p[i]))
			return false;
		v = v * 10 + (unsigned)(p[i] - '0');
		if (v > CFG_TIMEOUT_MAX)
			v = CFG_TIMEOUT_MAX;
	}
	*out = v;
	return n > 0;
}

static void loader_line(void *ctx, const struct bls_line *l)
{
	struct loader_parse *ps = ctx;
	struct bls_loader *o = ps->l;
	unsigned v;

	if (key_is(l, "default")) {
		if (l->nval == 6 && !str_ncmp(l->val, "@saved", 6))
			o->default_pattern[0] = 0; /* an EFI variable anysector does not keep */
		else if (l->nval >= sizeof o->default_pattern)
			diag_warn(ps->d, "bls.too_long", BLS_LOADER_CONF " line %u: default is longer "
				  "than %zu characters; ignored", l->no, sizeof o->default_pattern - 1);
		else
			str_copy_n(o->default_pattern, sizeof o->default_pattern, l->val, l->nval);
	} else if (key_is(l, "timeout")) {
		o->has_timeout = true;
		if (l->nval == 10 && !str_ncmp(l->val, "menu-force", 10))
			o->timeout = CFG_TIMEOUT_MAX;
		else if ((l->nval == 11 && !str_ncmp(l->val, "menu-hidden", 11)) ||
			 (l->nval == 13 && !str_ncmp(l->val, "menu-disabled", 13)))
			o->timeout = 0;
		else if (seconds(l->val, l->nval, &v))
			o->timeout = v;
		else {
			o->has_timeout = false;
			diag_warn(ps->d, "bls.bad_value", BLS_LOADER_CONF " line %u: timeout is not a "
				  "number of seconds, menu-force or menu-hidden; ignored", l->no);
		}
	}
}

void bls_loader_parse(const char *text, size_t len, struct bls_loader *out, struct diag *d)
{
	struct loader_parse ps = { out, d };
	memset(out, 0, sizeof *out);
	each_line(text, len, BLS_LOADER_CONF, loader_line, &ps, d);
}

/* --- order --- */

static bool ver_char(char c)
{
	return chr_is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '~' ||
	       c == '-' || c == '^' || c == '.';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int cmp_int(int a, int b)
{
	return (a > b) - (a < b);
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
			if (*a != '~' || *b != '~')
				return *a == '~' ? -1 : 1;
			a++;
			b++;
		}
		if (!*a || !*b)
			return cmp_int(*a != 0, *b != 0);
		/* Separators sort before letters and digits: '-', then '^', then '.', each
		 * checked on what follows the previous one, without skipping again (as systemd
		 * does). A '^' suffix sorts after the end of the string but before any other
		 * continuation (1.0 < 1.0^git1 < 1.0.1), as rpm's caret does. */
		for (const char *sep = "-^."; *sep; sep++) {
			if (*a != *sep && *b != *sep)
				continue;
			if (*a != *b)
				return *a == *sep ? -1 : 1;
			a++;
			b++;
		}
		if (chr_is_digit(*a) || chr_is_digit(*b)) {
			/* a number is newer than letters (systemd; the specification's text
			 * would read the missing number as 0) */
			if (chr_is_digit(*a) != chr_is_digit(*b))
				return chr_is_digit(*a) ? 1 : -1;
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t na = 0, nb = 0;
			while (chr_is_digit(a[na]))
				na++;
			while (chr_is_digit(b[nb]))
				nb++;
			if (na != nb)
				return na < nb ? -1 : 1;
			int r = str_ncmp(a, b, na);
			if (r)
				return r < 0 ? -1 : 1;
			a += na;
			b += nb;
			continue;
		}
		/* letters: byte order ('A' < 'a'), a longer run of letters is newer */
		size_t na = 0, nb = 0;
		while (is_alpha(a[na]))
			na++;
		while (is_alpha(b[nb]))
			nb++;
		int r = str_ncmp(a, b, na < nb ? na : nb);
		if (r)
			return r < 0 ? -1 : 1;
		if (na != nb)
			return na < nb ? -1 : 1;
		a += na;
		b += nb;
	}
}

/* strcmp where "" (unset) sorts first. */
static int text_cmp(const char *a, const char *b)
{
	int r = str_cmp(a, b);
	return (r > 0) - (r < 0);
}

int bls_compare(const struct bls_key *a, const struct bls_key *b)
{
	int r = cmp_int(a->tries_left == 0, b->tries_left == 0);
	if (r)
		return r;
	r = cmp_int(!a->sort_key[0], !b->sort_key[0]);
	if (r)
		return r;
	if (a->sort_key[0]) {
		if ((r = text_cmp(a->sort_key, b->sort_key)) ||
		    (r = text_cmp(a->machine_id, b->machine_id)) ||
		    (r = -bls_vercmp(a->version, b->version)))
			return r;
	}
	if ((r = -bls_vercmp(a->id, b->id)))
		return r;
	if ((r = -cmp_int(a->tries_left, b->tries_left)))
		return r;
	return cmp_int(a->tries_done, b->tries_done);
}

/* --- globs --- */

/* Matches one character against the class at *pp ("[...]"); advances *pp past it. A class
 * without its ']' is taken as a literal '['. */
static bool class_match(const char **pp, char c)
{
	const char *p = *pp + 1;
	bool neg = *p == '!' || *p == '^', hit = false;
	if (neg)
		p++;
	const char *start = p;
	while (*p && (*p != ']' || p == start)) {
		char lo = chr_lower(*p), hi = lo;
		if (p[1] == '-' && p[2] && p[2] != ']') {
			hi = chr_lower(p[2]);
			p += 2;
		}
		if (chr_lower(c) >= lo && chr_lower(c) <= hi)
			hit = true;
		p++;
	}
	if (!*p) {
		(*pp)++;
		return c == '[';
	}
	*pp = p + 1;
	return hit != neg;
}

bool bls_glob(const char *p, const char *s)
{
	const char *star_p = 0, *star_s = 0;

	/* The usual backtracking to the last '*': each step moves s forward or retries from a
	 * later position, so the walk ends after at most len(p) * len(s) steps. */
	for (;;) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (!*s) {
			if (!*p)
				return true;
		} else {
			const char *q = p;
			bool ok = false;
			if (*p == '?') {
				ok = true;
				q = p + 1;
			} else if (*p == '[') {
				ok = class_match(&q, *s);
			} else if (*p) {
				ok = chr_lower(*p) == chr_lower(*s);
				q = p + 1;
			}
			if (ok) {
				p = q;
				s++;
				continue;
			}
		}
		if (!star_p || !*star_s)
			return false;
		p = star_p;
		s = ++star_s;
	}
}
