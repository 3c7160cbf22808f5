/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer: what stage2 parses from the TPM and the firmware (common/tcg.c). The first byte
 * picks: even, a TPM2_GetCapability(TPM_CAP_PCRS) response (the second byte a PCR); odd, an
 * event log area (the next two bytes where the firmware says its last entry is) opened and
 * appended to until it is full. Accepted banks are ones tcg_digest_size knows; the log's end
 * stays inside the area, an append lands exactly at the old end and is found again by a new
 * open; nothing is read or written outside the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/tcg.h"

static void log_case(const uint8_t *data, size_t size)
{
	struct tcg_log l, again;
	struct tcg_digests d = { 0 };
	size_t last = (size_t)data[0] | (size_t)data[1] << 8;
	uint8_t *area = malloc(size - 2 ? size - 2 : 1);

	if (!area)
		__builtin_trap();
	memcpy(area, data + 2, size - 2);
	if (!tcg_log_open(&l, area, size - 2, last)) {
		if (l.end > l.size || !l.nalg)
			__builtin_trap();
		d.n = l.nalg;
		for (unsigned i = 0; i < l.nalg; i++) {
			d.alg[i] = l.alg[i];
			memset(d.d[i], (int)i, TCG_MAX_DIGEST);
		}
		for (unsigned k = 0; k < 64; k++) {
			size_t before = l.end;
			int rc = tcg_log_append(&l, k % 24, 0x0D, &d, "fuzz", 5);
			if (rc)
				break;
			if (l.end <= before || l.end > l.size)
				__builtin_trap();
			/* the appended entry is read back as one by a new open from it */
			if (tcg_log_open(&again, area, size - 2, before) || again.end != l.end)
				__builtin_trap();
		}
	}
	free(area);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tcg_banks b;
	uint32_t rc;

	if (size < 3)
		return 0;
	if (data[0] & 1) {
		log_case(data + 1, size - 1);
		return 0;
	}
	uint8_t *rsp = malloc(size - 2);
	if (!rsp)
		__builtin_trap();
	memcpy(rsp, data + 2, size - 2);
	if (!tcg_getcap_pcrs_parse(rsp, size - 2, data[1] % 24, &b, &rc)) {
		if (b.n > TCG_MAX_BANKS)
			__builtin_trap();
		for (unsigned i = 0; i < b.n; i++)
			if (!tcg_digest_size(b.alg[i]))
				__builtin_trap();
	}
	free(rsp);
	return 0;
}
