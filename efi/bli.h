/* SPDX-License-Identifier: BSD-2-Clause */
/* systemd's Boot Loader Interface (the document of that name in systemd's docs): EFI variables under
 * the vendor GUID 4a67b082-0a4c-41cf-b6c7-440b29bb8c4f through which the running system learns
 * which loader booted it, from where, which entries it had and which one it started, and asks
 * for one entry or one menu timeout at the next boot. Strings are UCS-2 and NUL-terminated;
 * what the loader sets lives until the next reset (boot services and runtime access, not
 * non-volatile); what the OS sets for one boot (LoaderEntryOneShot, LoaderConfigTimeoutOneShot)
 * is removed as it is read. Entry identifiers are those systemd's own tools use: an
 * anysector.cfg entry's name, a /loader/entries file's name without its boot counter
 * ("new.conf"), an /EFI/Linux one's likewise ("x.efi"); what the OS sets may also name such an
 * entry without the suffix (cfg_find_bli). */
#ifndef ANYSECTOR_EFI_BLI_H
#define ANYSECTOR_EFI_BLI_H

#include "efi/app.h"

#include "common/config.h"

struct boot_volume;

/* What this loader does of the interface (LoaderFeatures): the two timeout variables, the
 * default and one-shot entry, boot counting, sort-key. */
#define BLI_FEATURES ((1u << 0) | (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 8))

/* At start: the clock (LoaderTimeInitUSec), LoaderInfo, LoaderFirmwareInfo, LoaderFirmwareType,
 * LoaderFeatures, LoaderImageIdentifier. */
void bli_start(void);
/* LoaderDevicePartUUID, when the boot partition is a GPT one. */
void bli_volume(const struct boot_volume *v);
/* LoaderEntries: every entry's identifier (cfg_entry_bli_suffix) in menu order. */
void bli_entries(const struct cfg *c);
/* The OS's requests for this boot, applied to c: LoaderConfigTimeoutOneShot (removed; it shows
 * the menu, 0 without a countdown), else LoaderConfigTimeout ("menu-force": no countdown,
 * "menu-hidden" and 0: none), into c->timeout; LoaderEntryOneShot (removed), else
 * LoaderEntryDefault, into c->default_name when it names an entry. Returns the index of the
 * one-shot entry, or -1. */
int bli_requests(struct cfg *c);
/* Just before an entry starts: LoaderEntrySelected. */
void bli_selected(const struct cfg_entry *e);
/* LoaderBootCountPath: the entry file a boot counter was just counted down in (path on the boot
 * partition, '/' or '\\'), for systemd-bless-boot. */
void bli_boot_count_path(const char *path);
/* Just before StartImage: LoaderTimeExecUSec. */
void bli_exec_time(void);

#endif
