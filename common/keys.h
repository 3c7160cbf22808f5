/* SPDX-License-Identifier: BSD-2-Clause */
/* Keys as the boot menu sees them, and the decoder that turns a serial terminal's bytes into
 * them. The loaders translate their own key sources (int 16h scan codes, EFI_INPUT_KEY) into
 * these; bytes from a serial line (stage2's COM1; under UEFI what the firmware's terminal
 * driver leaves undecoded) go through key_feed. */
#ifndef ANYSECTOR_KEYS_H
#define ANYSECTOR_KEYS_H

#include <stdbool.h>
#include <stdint.h>

/* Printable ASCII (0x20..0x7E) is the character itself; the rest are above it. */
enum key {
	KEY_NONE = 0,
	KEY_ENTER = 0x100,
	KEY_ESC,
	KEY_BACKSPACE,
	KEY_DELETE,
	KEY_UP,
	KEY_DOWN,
	KEY_LEFT,
	KEY_RIGHT,
	KEY_HOME,
	KEY_END,
};

/* The state of one serial line. Zeroed is ready. */
struct key_decoder {
	uint8_t state;       /* ground, after ESC, inside ESC [ or ESC O */
	uint8_t len;         /* bytes of the sequence so far (bounded) */
	uint16_t param;      /* the first numeric parameter of ESC [ n ~ */
	bool param_done;     /* a non-digit ended it */
	bool after_cr;       /* a LF right after a CR is the same Enter */
	int held;            /* a key decoded but not yet returned */
};

/* Feeds one byte (0..255) and returns the key it completes, or KEY_NONE. With byte < 0 (no byte)
 * returns a key held back by the previous call, if any. Understood: CR or LF = Enter (CR LF
 * once), BS and DEL = Backspace, ESC [ A/B/C/D and ESC O A/B/C/D = arrows, ESC [ H/F, ESC O H/F,
 * ESC [ 1~/7~ = Home, ESC [ 4~/8~ = End, ESC [ 3~ = Delete; other sequences are swallowed
 * whole (modifiers like ESC [ 1;5C count as the plain key). ESC followed by a byte that starts
 * no sequence is Esc, and that byte is held. */
int key_feed(struct key_decoder *d, int byte);

/* True while a sequence has begun (after ESC): the caller waits a moment for the rest. */
bool key_partial(const struct key_decoder *d);

/* No more bytes came: an ESC alone is the Esc key (a cut sequence is dropped). */
int key_timeout(struct key_decoder *d);

#endif
