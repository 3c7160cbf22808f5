/* SPDX-License-Identifier: BSD-2-Clause */
/* TPM 2.0 measurement without a firmware that does it for us (stage2 under SeaBIOS, whose own
 * hash-log-extend builds SHA-1-only digests: docs/FIRMWARE.md "TPM 2.0 and measured boot"): the
 * two commands it sends through the firmware's pass-through, TPM2_GetCapability(TPM_CAP_PCRS)
 * and TPM2_PCR_Extend with a digest per active bank, and the crypto-agile event log (TCG PC
 * Client Platform Firmware Profile) it appends to. Pure functions over buffers; every length
 * the TPM or the log gives is checked. TPM commands are big-endian, the log little-endian. */
#ifndef ANYSECTOR_TCG_H
#define ANYSECTOR_TCG_H

#include <stddef.h>
#include <stdint.h>

#define TCG_ALG_SHA1 0x0004u
#define TCG_ALG_SHA256 0x000Bu
#define TCG_ALG_SHA384 0x000Cu
#define TCG_ALG_SHA512 0x000Du
#define TCG_MAX_BANKS 8u      /* banks a TPM reports that are looked at */
#define TCG_MAX_DIGEST 64u

/* The active banks: algorithm IDs, in the TPM's order. */
struct tcg_banks {
	unsigned n;
	uint16_t alg[TCG_MAX_BANKS];
};

struct tcg_digests {
	unsigned n;
	uint16_t alg[TCG_MAX_BANKS];
	uint8_t d[TCG_MAX_BANKS][TCG_MAX_DIGEST];
};

/* Bytes of a digest of alg; 0 for an algorithm anysector cannot compute. */
unsigned tcg_digest_size(uint16_t alg);

/* Each bank's digest of a[0..alen) followed by b[0..blen). */
void tcg_hash(const struct tcg_banks *banks, const void *a, size_t alen, const void *b,
	      size_t blen, struct tcg_digests *out);

#define TCG_GETCAP_CMD_BYTES 22u
/* TPM2_GetCapability(TPM_CAP_PCRS) into cmd. */
void tcg_getcap_pcrs_cmd(uint8_t cmd[TCG_GETCAP_CMD_BYTES]);

/* The banks of a GetCapability(TPM_CAP_PCRS) response that have pcr selected. 0; AS_ECORRUPT
 * for a response that is short, failed (*rc: its code) or breaks the format; AS_EUNSUPP for an
 * active bank whose algorithm tcg_digest_size does not know (*rc: its ID). */
int tcg_getcap_pcrs_parse(const uint8_t *rsp, size_t len, unsigned pcr, struct tcg_banks *out,
			  uint32_t *rc);

/* TPM2_PCR_Extend(pcr, d) with an empty password session into cmd; its length, or 0 when it
 * does not fit cap. */
size_t tcg_extend_cmd(uint8_t *cmd, size_t cap, unsigned pcr, const struct tcg_digests *d);

/* The response code of a TPM response (0: success); AS_ECORRUPT when len cannot hold a header
 * or disagrees with the size the header gives. */
int tcg_response_rc(const uint8_t *rsp, size_t len, uint32_t *rc);

/* The firmware's event log: its area (the ACPI TPM2 table's LASA and LAML) and where the next
 * entry goes. The digest sizes come from its first entry, the Spec ID event. */
struct tcg_log {
	uint8_t *area;
	size_t size;
	size_t end;              /* offset of the first free byte */
	unsigned nalg;
	uint16_t alg[TCG_MAX_BANKS], alg_size[TCG_MAX_BANKS];
};

/* Reads the log in area[0..size): the Spec ID event ("Spec ID Event03": a crypto-agile log),
 * then the entries from the one at offset last (what the firmware says was its last) onwards
 * while they parse, so entries appended after the firmware's (an earlier boot attempt's) are
 * kept. 0, AS_EUNSUPP (not a crypto-agile log), AS_ECORRUPT (an entry that runs out of the
 * area, last not on an entry). */
int tcg_log_open(struct tcg_log *l, uint8_t *area, size_t size, size_t last);

/* Appends a TCG_PCR_EVENT2 with d's digests in the order of the log's algorithms, which d must
 * all have (AS_EINVAL otherwise), and zeroes the next entry's head (up to 12 bytes inside the
 * area), so the log ends right after it. AS_ENOSPC when it does not fit the area. */
int tcg_log_append(struct tcg_log *l, unsigned pcr, uint32_t type, const struct tcg_digests *d,
		   const void *event, size_t event_len);

#endif
