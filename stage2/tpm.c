/* SPDX-License-Identifier: BSD-2-Clause */
#include "stage2/tpm.h"

#if FEATURE_MEASURE   /* the whole file: the gap build has none of it (common/features.h) */

#include "common/bootinfo.h"
#include "common/config.h"
#include "common/errors.h"
#include "common/le.h"
#include "common/mem.h"
#include "common/tcg.h"
#include "stage2/bioscall.h"
#include "stage2/console.h"
#include "stage2/layout.h"

#define TCG_INT 0x1A
#define TCG_AH 0xBB
#define TCG_STATUS_CHECK 0x00
#define TCG_PASS_THROUGH 0x02
#define TCG_MAGIC 0x41504354u        /* "TCPA" */
#define EBDA_SEG_PTR 0x40E
#define TPM2_TABLE_MIN 76u           /* the ACPI TPM2 table with LAML (64) and LASA (68) */
#define RSDT_MAX_BYTES 4096u         /* bounds the walk of an RSDT that firmware got wrong */
#define CMD_MAX 640u    /* PCR_Extend with four banks: 295 bytes */
#define RSP_MAX 256u

struct bios_measure {
	struct measure m;
	struct tcg_log log;
};

static struct bios_measure bm;
static bool tried;
/* The pass-through's blocks (TCG PC Client BIOS spec): input length, reserved, output length,
 * reserved, the command; output length, reserved, the response. Below 1 MiB for ES:DI, DS:SI. */
static uint8_t ptin[8 + CMD_MAX] __attribute__((aligned(16)));
static uint8_t ptout[4 + RSP_MAX] __attribute__((aligned(16)));
static uint8_t wide[2 * (CFG_CMDLINE_MAX + 1)];

static bool tcg_call(uint8_t al, struct biosregs *r)
{
	r->ah = TCG_AH;
	r->al = al;
	r->ebx = TCG_MAGIC;
	bios_call(TCG_INT, r, r);
	return !regs_cf(r) && r->eax == 0;
}

/* One TPM command through the pass-through; the response's length, 0 on failure. */
static size_t transmit(size_t len)
{
	struct biosregs r;

	initregs(&r);
	le16_store(ptin, (uint16_t)(8 + len));
	le16_store(ptin + 4, (uint16_t)sizeof ptout);
	r.es = rm_seg(ptin);
	r.di = rm_off(ptin);
	r.ds = rm_seg(ptout);
	r.si = rm_off(ptout);
	if (!tcg_call(TCG_PASS_THROUGH, &r))
		return 0;
	uint16_t n = le16_load(ptout);
	return n >= 4 && n <= sizeof ptout ? n - 4u : 0;
}

static bool checksum_ok(const uint8_t *p, uint32_t n)
{
	uint8_t sum = 0;
	while (n--)
		sum += *p++;
	return sum == 0;
}

static const uint8_t *find_rsdp(const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i + 20 <= n; i += 16)
		if (!memcmp(p + i, "RSD PTR ", 8) && checksum_ok(p + i, 20))
			return p + i;
	return 0;
}

/* The ACPI TPM2 table's log area (LASA, LAML), through the RSDT. */
static bool acpi_log_area(uint32_t *lasa, uint32_t *laml)
{
	const uint8_t *ebda = (const uint8_t *)((uintptr_t)le16_load((void *)EBDA_SEG_PTR) << 4);
	const uint8_t *rsdp = find_rsdp(ebda, 1024);

	if (!rsdp)
		rsdp = find_rsdp((const uint8_t *)0xE0000, 0x20000);
	if (!rsdp)
		return false;
	const uint8_t *rsdt = (const uint8_t *)(uintptr_t)le32_load(rsdp + 16);
	uint32_t len = le32_load(rsdt + 4);
	if (memcmp(rsdt, "RSDT", 4) || len < 36 || len > RSDT_MAX_BYTES)
		return false;
	for (uint32_t at = 36; at + 4 <= len; at += 4) {
		const uint8_t *t = (const uint8_t *)(uintptr_t)le32_load(rsdt + at);
		if (memcmp(t, "TPM2", 4) || le32_load(t + 4) < TPM2_TABLE_MIN)
			continue;
		*laml = le32_load(t + 64);
		*lasa = le64_load(t + 68) >> 32 ? 0 : le32_load(t + 68);
		return *lasa != 0;
	}
	return false;
}

static void extend(struct measure *m, unsigned pcr, const void *a, size_t alen, const void *b,
		   size_t blen, const void *event, size_t event_len)
{
	struct bios_measure *t = (struct bios_measure *)m;
	static struct tcg_banks banks;
	static struct tcg_digests d;
	uint32_t rc = 0;
	size_t n;
	const char *why;

	tcg_getcap_pcrs_cmd(ptin + 8);
	n = transmit(TCG_GETCAP_CMD_BYTES);
	int prc = n ? tcg_getcap_pcrs_parse(ptout + 4, n, pcr, &banks, &rc) : -1;
	if (prc) {
		why = prc == AS_EUNSUPP ? "the TPM has an active bank stage2 cannot hash, algorithm" :
		      "the TPM did not list its PCR banks, response code";
		goto fail;
	}
	tcg_hash(&banks, a, alen, b, blen, &d);
	n = transmit(tcg_extend_cmd(ptin + 8, CMD_MAX, pcr, &d));
	if (!n || tcg_response_rc(ptout + 4, n, &rc) || rc) {
		why = "TPM2_PCR_Extend failed, response code";
		goto fail;
	}
	if (tcg_log_append(&t->log, pcr, MEASURE_EV_IPL, &d, event, event_len)) {
		why = "the event log has no room for it (or lacks a bank), so it is not logged; code";
		goto fail;
	}
	return;
fail:
	con_printf("measured boot: PCR %u, %s: %s 0x%x\n",
		   pcr, pcr == MEASURE_PCR_CMDLINE ? "the command line" : (const char *)event,
		   why, (unsigned)rc);
}

struct measure *tpm_measure(void)
{
	struct biosregs r;
	uint32_t lasa, laml;
	int rc;

	if (tried)
		return bm.m.extend ? &bm.m : 0;
	tried = true;
	initregs(&r);
	if (!tcg_call(TCG_STATUS_CHECK, &r) || r.ebx != TCG_MAGIC)
		return 0;   /* no TCG BIOS, or no TPM */
	if (!acpi_log_area(&lasa, &laml) || lasa != r.esi) {
		con_printf("measured boot: the BIOS has a TPM but no ACPI TPM2 table for its event "
			   "log (a TPM 1.2?); nothing is measured\n");
		return 0;
	}
	if ((rc = tcg_log_open(&bm.log, (uint8_t *)(uintptr_t)lasa, laml,
			       r.edi >= lasa ? r.edi - lasa : 0))) {
		con_printf("measured boot: the firmware's event log at 0x%x cannot be read (%s); "
			   "nothing is measured\n", (unsigned)lasa, as_strerror(rc));
		return 0;
	}
	bm.m.extend = extend;
	measure_file(&bm.m, MEASURE_PCR_LOADER, "stage2", "image", __image_start,
		     le32_load(__image_start + STAGE2_LENGTH_OFF), 0, 0);
	return &bm.m;
}

void tpm_measure_cmdline(struct measure *m, const char *cmdline)
{
	measure_cmdline(m, wide, measure_utf16(cmdline, wide, sizeof wide));
}

#endif
