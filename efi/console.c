/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/app.h"

#include "common/fmt.h"
#include "common/tsc.h"
#include "common/utf8.h"

#define CON_CHUNK 128 /* UCS-2 characters sent per OutputString call */
#define CON_LINE_MAX 1024

/* make bench's account of the console's share of BOOTX64.EFI's time for the kernel and initrd
 * (efi/blockio.c): under emulation each character costs the firmware tens of microseconds */
static struct {
	bool on;
	uint64_t ticks;
} con_clock;

void con_clock_start(void)
{
	con_clock.on = true;
	con_clock.ticks = 0;
}

uint64_t con_clock_ticks(void)
{
	return con_clock.ticks;
}

void con_write(const char *s, size_t len)
{
	uint64_t t = con_clock.on ? tsc_read() : 0;
	CHAR16 out[CON_CHUNK + 3];
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t k = utf8_seq_len(s + i, len - i);
		if (c == '\n')
			out[n++] = L'\r';
		/* ConOut takes UCS-2: UTF-8 (a title) is decoded; a byte outside a well-formed
		 * character, or a character past U+FFFF, shows as U+FFFD */
		CHAR16 u = c < 0x80 ? c : 0xFFFD;
		if (k == 2)
			u = (CHAR16)((s[i] & 0x1F) << 6 | (s[i + 1] & 0x3F));
		else if (k == 3)
			u = (CHAR16)((s[i] & 0x0F) << 12 | (s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F));
		out[n++] = u;
		i += k > 1 ? k - 1 : 0;
		if (n >= CON_CHUNK || i + 1 == len) {
			out[n] = 0;
			g_st->ConOut->OutputString(g_st->ConOut, out);
			n = 0;
		}
	}
	if (con_clock.on)
		con_clock.ticks += tsc_read() - t;
}

void con_puts(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	con_write(s, n);
}

void con_printf(const char *fmt, ...)
{
	char line[CON_LINE_MAX];
	fmt_va_list ap;
	fmt_va_start(ap, fmt);
	int n = fmt_vsnprintf(line, sizeof line, fmt, ap);
	fmt_va_end(ap);
	if (n < 0)
		return;
	con_write(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void con_puts16(const CHAR16 *s)
{
	char buf[CON_CHUNK];
	size_t n = 0;
	for (; s && *s; s++) {
		buf[n++] = *s >= 0x20 && *s < 0x7F ? (char)*s : '?';
		if (n == sizeof buf) {
			con_write(buf, n);
			n = 0;
		}
	}
	con_write(buf, n);
}

static void con_emit(struct diag *d, enum diag_level level, const char *code, const char *msg)
{
	struct con_diag *cd = (struct con_diag *)d;
	(void)code;
	if (level == DIAG_ERROR)
		con_printf("error: %s\n", msg);
	else if (level == DIAG_WARN)
		con_printf("warning: %s\n", msg);
	else if (cd->verbose)
		con_printf("%s\n", msg);
}

void con_diag_init(struct con_diag *cd, bool verbose)
{
	*cd = (struct con_diag){ .d = { .emit = con_emit }, .verbose = verbose };
}

static struct key_decoder keys;

static int translate_key(const EFI_INPUT_KEY *k)
{
	switch (k->ScanCode) {
	case SCAN_UP: return KEY_UP;
	case SCAN_DOWN: return KEY_DOWN;
	case SCAN_LEFT: return KEY_LEFT;
	case SCAN_RIGHT: return KEY_RIGHT;
	case SCAN_HOME: return KEY_HOME;
	case SCAN_END: return KEY_END;
	case SCAN_DELETE: return KEY_DELETE;
	case SCAN_ESC: return key_feed(&keys, 0x1B);
	case SCAN_NULL: return k->UnicodeChar < 0x80 ? key_feed(&keys, k->UnicodeChar) : KEY_NONE;
	default: return KEY_NONE;
	}
}

/* True when a key can be read within tenths/10 s (0: forever). */
static bool key_within(unsigned tenths)
{
	EFI_EVENT events[2] = { g_st->ConIn->WaitForKey, NULL };
	UINTN n = 1, which = 0;
	bool ready;

	if (tenths) {
		if (EFI_ERROR(g_bs->CreateEvent(EVT_TIMER, 0, NULL, NULL, &events[1])))
			return false;
		/* Timer units are 100 ns. */
		g_bs->SetTimer(events[1], TimerRelative, (UINT64)tenths * 1000000u);
		n = 2;
	}
	ready = !EFI_ERROR(g_bs->WaitForEvent(n, events, &which)) && which == 0;
	if (events[1])
		g_bs->CloseEvent(events[1]);
	return ready;
}

int con_wait_key(unsigned tenths)
{
	for (;;) {
		EFI_INPUT_KEY k;
		int key = key_feed(&keys, -1);
		if (key)
			return key;
		/* An ESC with nothing after it for 0.2 s is the Esc key. */
		if (key_partial(&keys) ? !key_within(2) : !key_within(tenths)) {
			if (!key_partial(&keys))
				return KEY_NONE;
			if ((key = key_timeout(&keys)))
				return key;
			continue;
		}
		if (!EFI_ERROR(g_st->ConIn->ReadKeyStroke(g_st->ConIn, &k)) && (key = translate_key(&k)))
			return key;
	}
}

int con_poll_key(void)
{
	int key = key_feed(&keys, -1);

	if (key || g_bs->CheckEvent(g_st->ConIn->WaitForKey) != EFI_SUCCESS)
		return key;
	return con_wait_key(1);
}

void con_flush_keys(void)
{
	EFI_INPUT_KEY k;
	/* Bounded: a stuck input device must not keep us here. */
	for (int i = 0; i < 64; i++)
		if (EFI_ERROR(g_st->ConIn->ReadKeyStroke(g_st->ConIn, &k)))
			break;
}
