/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/measure.h"

#include "efi/tcg2.h"

#include "common/mem.h"

static EFI_GUID tcg2_guid = EFI_TCG2_PROTOCOL_GUID;

struct efi_measure {
	struct measure m;
	struct efi_tcg2 *tcg2;
	struct diag *d;
};

static struct efi_measure em;

static void report(unsigned pcr, const char *what, EFI_STATUS s, struct diag *d)
{
	char sb[24];
	diag_warn(d, "measure.extend", "measured boot: extending PCR %u with %s failed (%s); a "
		  "TPM policy over that PCR will not hold for this boot", pcr, what,
		  efi_status_name(s, sb));
}

/* The firmware hashes one buffer: a file in two pieces (stage2's kernel only) never comes
 * here, but a copy keeps the contract. */
static void extend(struct measure *m, unsigned pcr, const void *a, size_t alen, const void *b,
		   size_t blen, const void *event, size_t event_len)
{
	struct efi_measure *e = (struct efi_measure *)m;
	size_t size = sizeof(struct efi_tcg2_event) + event_len;
	struct efi_tcg2_event *ev = efi_alloc(size);
	uint8_t *joined = NULL;
	const void *data = a;
	EFI_STATUS s = EFI_OUT_OF_RESOURCES;

	if (blen && (joined = efi_alloc(alen + blen))) {
		memcpy(joined, a, alen);
		memcpy(joined + alen, b, blen);
		data = joined;
	}
	if (ev && (!blen || joined)) {
		ev->size = (UINT32)size;
		ev->header_size = EFI_TCG2_EVENT_HEADER_SIZE;
		ev->header_version = EFI_TCG2_EVENT_HEADER_VERSION;
		ev->pcr_index = pcr;
		ev->event_type = MEASURE_EV_IPL;
		memcpy(ev->event, event, event_len);
		s = e->tcg2->hash_log_extend_event(e->tcg2, 0, (EFI_PHYSICAL_ADDRESS)(UINTN)data,
						   alen + blen, ev);
	}
	if (EFI_ERROR(s))
		report(pcr, pcr == MEASURE_PCR_CMDLINE ? "the command line" : (const char *)event,
		       s, e->d);
	efi_free(joined);
	efi_free(ev);
}

struct measure *efi_measure(struct diag *d)
{
	struct efi_tcg2_capability cap = { .size = sizeof cap };
	struct efi_tcg2 *t = NULL;

	if (EFI_ERROR(g_bs->LocateProtocol(&tcg2_guid, NULL, (void **)&t)) || !t ||
	    EFI_ERROR(t->get_capability(t, &cap)) || !cap.tpm_present)
		return NULL;
	em.m.extend = extend;
	em.tcg2 = t;
	em.d = d;
	return &em.m;
}
