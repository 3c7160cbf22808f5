/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/keys.h"

enum { GROUND, ESCAPE, CSI, SS3 };

#define SEQ_MAX 16   /* a longer sequence is noise: swallowed up to its final byte */
#define ESC_BYTE 0x1B

static int final_key(char c)
{
	switch (c) {
	case 'A': return KEY_UP;
	case 'B': return KEY_DOWN;
	case 'C': return KEY_RIGHT;
	case 'D': return KEY_LEFT;
	case 'H': return KEY_HOME;
	case 'F': return KEY_END;
	default: return KEY_NONE;
	}
}

static int tilde_key(unsigned n)
{
	switch (n) {
	case 1: case 7: return KEY_HOME;
	case 4: case 8: return KEY_END;
	case 3: return KEY_DELETE;
	default: return KEY_NONE;
	}
}

static int ground(struct key_decoder *d, int b)
{
	bool after_cr = d->after_cr;

	d->after_cr = b == '\r';
	if (b == '\r' || (b == '\n' && !after_cr))
		return KEY_ENTER;
	if (b == 0x08 || b == 0x7F)
		return KEY_BACKSPACE;
	if (b == ESC_BYTE) {
		d->state = ESCAPE;
		d->len = 0;
		d->param = 0;
		d->param_done = false;
		return KEY_NONE;
	}
	return b >= 0x20 && b < 0x7F ? b : KEY_NONE;
}

int key_feed(struct key_decoder *d, int b)
{
	if (b < 0) {
		int k = d->held;
		d->held = KEY_NONE;
		return k;
	}
	switch (d->state) {
	case ESCAPE:
		if (b == '[' || b == 'O') {
			d->state = b == '[' ? CSI : SS3;
			return KEY_NONE;
		}
		d->state = GROUND;
		d->held = ground(d, b);
		return KEY_ESC;
	case SS3:
		d->state = GROUND;
		return final_key((char)b);
	case CSI:
		if (b >= 0x40 && b <= 0x7E) {    /* the final byte */
			d->state = GROUND;
			if (d->len > SEQ_MAX)
				return KEY_NONE;   /* too long to be a key: noise */
			return b == '~' ? tilde_key(d->param) : final_key((char)b);
		}
		if (b < 0x20 || b > 0x7E) {
			d->state = GROUND;
			return KEY_NONE;
		}
		if (d->len <= SEQ_MAX)
			d->len++;
		/* Only the first parameter counts: "1;5" (a modifier) leaves 1. */
		if (b < '0' || b > '9')
			d->param_done = true;
		else if (!d->param_done && d->param < 1000)
			d->param = (uint16_t)(d->param * 10 + (unsigned)(b - '0'));
		return KEY_NONE;
	default:
		return ground(d, b);
	}
}

bool key_partial(const struct key_decoder *d)
{
	return d->state != GROUND;
}

int key_timeout(struct key_decoder *d)
{
	int k = d->state == ESCAPE ? KEY_ESC : KEY_NONE;
	d->state = GROUND;
	return k;
}
