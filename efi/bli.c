/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/bli.h"

#include "efi/bootvol.h"

#include "common/fat.h"
#include "common/fmt.h"
#include "common/guid.h"
#include "common/str.h"
#include "common/tsc.h"

static EFI_GUID loader_guid = { 0x4a67b082, 0x0a4c, 0x41cf,
				{ 0xb6, 0xc7, 0x44, 0x0b, 0x29, 0xbb, 0x8c, 0x4f } };
static EFI_GUID loaded_image_guid = LOADED_IMAGE_PROTOCOL;
static EFI_GUID dp_to_text_guid = EFI_DEVICE_PATH_TO_TEXT_PROTOCOL_GUID;

#define LOADER_VERSION "0.1"  /* the version efi/sbat.csv gives */
#define BLI_ATTRS (EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)
#define VALUE_MAX 300u        /* UCS-2 characters of a variable the OS sets that we read: an
				 * identifier of up to 255, with room to spare */

/* The time-stamp counter's ticks per millisecond, measured once over a 1 ms Stall (as
 * systemd-boot measures it); 0 when the counter did not move. */
static uint64_t tsc_per_ms;

/* Microseconds since the counter started (the machine's reset), 0 when it cannot be told. */
static uint64_t now_usec(void)
{
	return tsc_per_ms ? tsc_read() * 1000u / tsc_per_ms : 0;
}

static void set_raw(const CHAR16 *name, const void *data, UINTN bytes)
{
	g_st->RuntimeServices->SetVariable((CHAR16 *)name, &loader_guid, BLI_ATTRS, bytes,
					   (void *)data);
}

/* Sets name to s (ASCII) widened to UCS-2 with its NUL. */
static void set_str(const CHAR16 *name, const char *s)
{
	size_t n = str_len(s);
	CHAR16 *w = efi_alloc((n + 1) * sizeof *w);

	if (!w)
		return;
	for (size_t i = 0; i < n; i++)
		w[i] = (unsigned char)s[i];
	set_raw(name, w, (n + 1) * sizeof *w);
	efi_free(w);
}

static void set_usec(const CHAR16 *name, uint64_t usec)
{
	char s[24];

	if (!usec)
		return;
	fmt_snprintf(s, sizeof s, "%llu", (unsigned long long)usec);
	set_str(name, s);
}

/* Reads name (a UCS-2 string the OS set) as ASCII into out; false when it is not set, is not
 * ASCII or does not fit. With take, the variable is removed after it is read (whatever its
 * attributes: a one-shot is used up even when it names nothing). */
static bool get_str(const CHAR16 *name, char *out, size_t cap, bool take)
{
	CHAR16 buf[VALUE_MAX];
	UINTN bytes = sizeof buf;
	UINT32 attr = 0;
	EFI_STATUS s = g_st->RuntimeServices->GetVariable((CHAR16 *)name, &loader_guid, &attr,
							   &bytes, buf);
	if (EFI_ERROR(s))
		return false;
	if (take)
		g_st->RuntimeServices->SetVariable((CHAR16 *)name, &loader_guid, attr, 0, NULL);
	size_t n = bytes / sizeof *buf, i;
	for (i = 0; i < n && buf[i]; i++) {
		if (buf[i] > 0x7E || buf[i] < 0x20 || i + 1 >= cap)
			return false;
		out[i] = (char)buf[i];
	}
	out[i] = 0;
	return i > 0;
}

/* The path the firmware loaded us from, as text ("\EFI\BOOT\BOOTX64.EFI"). */
static void set_image_identifier(void)
{
	EFI_LOADED_IMAGE *li = NULL;
	EFI_DEVICE_PATH_TO_TEXT_PROTOCOL *tt = NULL;
	CHAR16 *text = NULL;

	if (EFI_ERROR(g_bs->HandleProtocol(g_image, &loaded_image_guid, (void **)&li)) || !li ||
	    !li->FilePath || EFI_ERROR(g_bs->LocateProtocol(&dp_to_text_guid, NULL, (void **)&tt)) ||
	    !tt || !(text = tt->ConvertDevicePathToText(li->FilePath, FALSE, FALSE)))
		return;
	UINTN n = 0;
	while (text[n])
		n++;
	set_raw(L"LoaderImageIdentifier", text, (n + 1) * sizeof *text);
	g_bs->FreePool(text);
}

void bli_start(void)
{
	char s[160];
	uint64_t t0 = tsc_read();

	g_bs->Stall(1000);
	tsc_per_ms = tsc_read() - t0;
	set_usec(L"LoaderTimeInitUSec", now_usec());
	set_str(L"LoaderInfo", "anysector " LOADER_VERSION);
	/* the vendor is UCS-2 already: build "VENDOR MAJOR.MINOR" in UCS-2 */
	const CHAR16 *vendor = g_st->FirmwareVendor ? g_st->FirmwareVendor : L"";
	CHAR16 info[128];
	UINTN n = 0;
	while (vendor[n] && n < 100) {
		info[n] = vendor[n];
		n++;
	}
	fmt_snprintf(s, sizeof s, " %u.%02u", (unsigned)(g_st->FirmwareRevision >> 16),
		     (unsigned)(g_st->FirmwareRevision & 0xFFFF));
	for (unsigned i = 0; s[i] && n < 127; i++)
		info[n++] = (unsigned char)s[i];
	info[n++] = 0;
	set_raw(L"LoaderFirmwareInfo", info, n * sizeof *info);
	fmt_snprintf(s, sizeof s, "UEFI %u.%02u", (unsigned)(g_st->Hdr.Revision >> 16),
		     (unsigned)(g_st->Hdr.Revision & 0xFFFF));
	set_str(L"LoaderFirmwareType", s);
	uint64_t features = BLI_FEATURES;
	uint8_t le[8];
	for (unsigned i = 0; i < 8; i++)
		le[i] = (uint8_t)(features >> (8 * i));
	set_raw(L"LoaderFeatures", le, sizeof le);
	set_image_identifier();
}

void bli_volume(const struct boot_volume *v)
{
	char g[GUID_STR_LEN + 1];

	if (!v->partitioned || v->hd.sig_type != 2)
		return;
	guid_format(&v->hd.signature, g);
	set_str(L"LoaderDevicePartUUID", g);
}

/* e's identifier (cfg_entry_bli_suffix) as UCS-2 with its NUL at w; the characters written,
 * NUL included. With w NULL only counts them. */
static size_t put_id(const struct cfg_entry *e, CHAR16 *w)
{
	size_t n = 0;

	for (const char *s = e->name; *s; s++, n++)
		if (w)
			w[n] = (unsigned char)*s;
	for (const char *s = cfg_entry_bli_suffix(e); *s; s++, n++)
		if (w)
			w[n] = (unsigned char)*s;
	if (w)
		w[n] = 0;
	return n + 1;
}

void bli_entries(const struct cfg *c)
{
	size_t n = 0;

	for (unsigned i = 0; i < c->nentries; i++)
		n += put_id(&c->entries[i], NULL);
	CHAR16 *w = efi_alloc((n ? n : 1) * sizeof *w), *p = w;
	if (!w)
		return;
	for (unsigned i = 0; i < c->nentries; i++)
		p += put_id(&c->entries[i], p);
	set_raw(L"LoaderEntries", w, n * sizeof *w);
	efi_free(w);
}

/* A timeout value of the interface into seconds for the menu; false when it is not one. */
static bool timeout_value(const char *s, bool one_shot, unsigned *out)
{
	unsigned long long v;

	if (!str_cmp(s, "menu-force")) {
		*out = CFG_TIMEOUT_MAX;
		return true;
	}
	if (!str_cmp(s, "menu-hidden")) {
		*out = 0;
		return true;
	}
	if (!str_to_u64(s, str_len(s), &v))
		return false;
	/* a one-shot of 0 shows the menu with no countdown ("--boot-loader-menu=0") */
	*out = v > CFG_TIMEOUT_MAX || (one_shot && !v) ? CFG_TIMEOUT_MAX : (unsigned)v;
	return true;
}

int bli_requests(struct cfg *c)
{
	char s[VALUE_MAX];
	unsigned t;
	int i;

	if (get_str(L"LoaderConfigTimeoutOneShot", s, sizeof s, true) &&
	    timeout_value(s, true, &t))
		c->timeout = t;
	else if (get_str(L"LoaderConfigTimeout", s, sizeof s, false) &&
		 timeout_value(s, false, &t))
		c->timeout = t;
	if (get_str(L"LoaderEntryOneShot", s, sizeof s, true) && (i = cfg_find_bli(c, s)) >= 0) {
		str_copy(c->default_name, sizeof c->default_name, c->entries[i].name);
		return i;
	}
	if (get_str(L"LoaderEntryDefault", s, sizeof s, false) && (i = cfg_find_bli(c, s)) >= 0)
		str_copy(c->default_name, sizeof c->default_name, c->entries[i].name);
	return -1;
}

void bli_selected(const struct cfg_entry *e)
{
	CHAR16 *w = efi_alloc(put_id(e, NULL) * sizeof *w);

	if (!w)
		return;
	set_raw(L"LoaderEntrySelected", w, put_id(e, w) * sizeof *w);
	efi_free(w);
}

void bli_boot_count_path(const char *path)
{
	char p[FAT_PATH_MAX + 2];
	size_t n = 0;

	if (path[0] != '/' && path[0] != '\\')
		p[n++] = '\\';
	for (; *path && n + 1 < sizeof p; path++)
		p[n++] = *path == '/' ? '\\' : *path;
	p[n] = 0;
	set_str(L"LoaderBootCountPath", p);
}

void bli_exec_time(void)
{
	set_usec(L"LoaderTimeExecUSec", now_usec());
}
