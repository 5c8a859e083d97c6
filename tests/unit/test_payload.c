/* SPDX-License-Identifier: MIT */
/*
 * The payload check: every kind of damage a transport could do to a
 * message is caught (a corrupted byte, data shifted, two messages spliced,
 * a stale piece of an older message left in place, messages reordered or
 * lost), at every offset the vector loop treats differently; and what the
 * check cannot see is shown too, so that docs/methodology.md stays true.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern/msg.h"

#include "../tap.h"
#include "pattern/lib_internal.h"

/* Longer than the pattern's 64 KiB period, so that it wraps once. */
#define BIG (70u * 1024u)

static uint8_t *sbuf, *rbuf;
static struct ipc_pctx pc;

/* Stream message @seq of @len bytes, as the sender puts it on the wire. */
static const uint8_t *message(size_t len, uint64_t seq)
{
	uint8_t *m = msg_stamp_shifted(&pc, len, seq);

	memcpy(rbuf, m, len);
	msg_unstamp(m, len, seq);
	return rbuf;
}

/* 0 when the check passes @buf as message @seq; clears the failure. */
static int check(const uint8_t *buf, size_t len, uint64_t seq)
{
	int err = msg_check_shifted(&pc, buf, len, seq);

	pc.out.err = 0;
	return err;
}

/* Every vector width passes bytes [8, len) of @buf. */
static bool both(const uint8_t *buf, size_t len, uint64_t seq)
{
	bool all = true;

	for (unsigned w = 16; w <= 64; w *= 2) {
		if (!msg_payload_ok_width(buf, 8, len, msg_shift(seq), w)) {
			diag("width %u fails: len %zu seq %llu", w, len,
			     (unsigned long long)seq);
			all = false;
		}
	}
	return all;
}

static void intact(void)
{
	static const size_t lens[] = {
		0,  1,	7,   8,	  9,   15,  16,	  17,	31,    32,    33, 63,
		64, 65, 255, 256, 257, 511, 4095, 4096, 65535, 65536, BIG};
	int bad = 0;

	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++)
		for (uint64_t seq = 0; seq < 600; seq += 37) {
			const uint8_t *m = message(lens[k], seq);

			bad += check(m, lens[k], seq) != 0;
			if (lens[k] >= 8)
				bad += !both(m, lens[k], seq);
		}
	is_int(bad, "==", 0, "intact messages of 0 B to 70 KiB pass");
	ok(sbuf[msg_shift(5)] == msg_pattern_byte(msg_shift(5)),
	   "the sender's buffer holds the pattern again after a send");
}

/* One bit flipped at every offset of a message: each one is caught. */
static void corrupted(void)
{
	const size_t len = 1000;
	int missed = 0, told = 0;

	for (size_t i = 0; i < len; i++) {
		uint8_t *m = (uint8_t *)message(len, 42);

		m[i] ^= (uint8_t)(1u << (i % 8));
		missed += msg_check_shifted(&pc, m, len, 42) != -EBADMSG;
		if (i >= 8)
			told += strstr(pc.out.what, "corrupted") != NULL;
		pc.out.err = 0;
	}
	is_int(missed, "==", 0, "a bit flipped at any of 1000 offsets");
	is_int(told, "==", (int)len - 8,
	       "the report says corrupted, and where, past the number");
	message(BIG, 7);
	rbuf[BIG - 1] ^= 0x80;
	is_int(check(rbuf, BIG, 7), "==", -EBADMSG,
	       "the last byte of a 70 KiB message");
	message(BIG, 7);
	rbuf[65536 + 8] ^= 1;
	is_int(check(rbuf, BIG, 7), "==", -EBADMSG,
	       "a byte past the pattern's 64 KiB period");
	for (unsigned w = 16; w <= 64; w *= 2)
		for (size_t i = 8; i < 300; i++) {
			message(len, 9);
			rbuf[i] ^= 4;
			missed += msg_payload_ok_width(rbuf, 8, len,
						       msg_shift(9), w);
		}
	is_int(missed, "==", 0,
	       "the 16-, 32- and 64-byte loops each catch "
	       "them too");
}

/* The payload arrives some bytes late or early: caught at any shift. */
static void shifted(void)
{
	const size_t len = 4096;
	int missed = 0;

	for (size_t d = 1; d <= 512; d++) {
		message(len + d, 3);
		memmove(rbuf + 8, rbuf + 8 + d, len - 8); /* d bytes early */
		missed += check(rbuf, len, 3) == 0;
		message(len, 3);
		memmove(rbuf + 8 + d, rbuf + 8, len - 8 - d); /* late */
		missed += check(rbuf, len, 3) == 0;
	}
	is_int(missed, "==", 0, "data 1 to 512 bytes early or late");
}

/*
 * The head of one message and the tail of the next, cut anywhere: the
 * tail is caught although it sits at its right offset.
 */
static void spliced(void)
{
	static uint8_t other[BIG];
	static const size_t cuts[] = {8,     9,		  31,	  32,  33,
				      100,   255,	  256,	  257, 4096,
				      65535, 65536 + 100, BIG - 1};
	int missed = 0;

	for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
		memcpy(other, message(BIG, 11), BIG);
		message(BIG, 10);
		memcpy(rbuf + cuts[k], other + cuts[k], BIG - cuts[k]);
		missed += check(rbuf, BIG, 10) == 0;
	}
	is_int(missed, "==", 0, "message 10 with the tail of 11, 13 cuts");
	/* One stale 64-byte line of the message sent 64 before it. */
	memcpy(other, message(65536, 1000 - 64), 65536);
	message(65536, 1000);
	memcpy(rbuf + 4096, other + 4096, 64);
	is_int(check(rbuf, 65536, 1000), "==", -EBADMSG,
	       "one stale cache line of an older message in place");
	/* What it cannot see: the same line from 251 messages before. */
	memcpy(other, message(65536, 1000 - 251), 65536);
	message(65536, 1000);
	memcpy(rbuf + 4096, other + 4096, 64);
	is_int(check(rbuf, 65536, 1000), "==", 0,
	       "not caught: a line of the message 251 before (the "
	       "documented limit)");
	/*
	 * Nor a piece of the message before, moved back by the 256 bytes
	 * its pattern starts earlier; moved by 128 it is caught.
	 */
	memcpy(other, message(65536, 999), 65536);
	message(65536, 1000);
	memcpy(rbuf + 8, other + 8 + 256, 248);
	is_int(check(rbuf, 65536, 1000), "==", 0,
	       "not caught: bytes 264-511 of message 999 at 8-255 of 1000 "
	       "(the documented limit)");
	message(65536, 1000);
	memcpy(rbuf + 8, other + 8 + 128, 248);
	is_int(check(rbuf, 65536, 1000), "==", -EBADMSG,
	       "the same piece moved by 128 bytes is caught");
}

/* A message in another's place: out of order, lost or repeated. */
static void reordered(void)
{
	message(64, 6);
	is_int(check(rbuf, 64, 5), "==", -EBADMSG, "message 6 where 5 is due");
	ok(strstr(pc.out.what, "out of order") != NULL,
	   "and the report says so: %s", pc.out.what);
	pc.out.err = 0;
	message(64, 5);
	is_int(check(rbuf, 64, 6), "==", -EBADMSG, "5 again where 6 is due");
	message(3, 0x10203);
	is_int(check(rbuf, 3, 0x10204), "==", -EBADMSG,
	       "a 3-byte message carries 3 bytes of the number");
	message(1, 256 + 9);
	is_int(check(rbuf, 1, 9), "==", 0,
	       "not caught: a 1-byte message 256 late (one byte of number)");
}

/*
 * Each vector width checks a stretch that starts and ends anywhere in the
 * pattern (single bytes, part of a 256-byte block, whole blocks).
 */
static void widths(void)
{
	int bad = 0;

	ipc_payload_fill(rbuf, 2000);
	for (size_t from = 0; from < 600; from += 37)
		for (size_t n = 0; n < 900; n += 61)
			for (unsigned w = 16; w <= 64; w *= 2) {
				bad += !msg_payload_ok_width(rbuf, from,
							     from + n, 0, w);
				if (!n)
					continue;
				rbuf[from + n / 2] ^= 1;
				bad += msg_payload_ok_width(rbuf, from,
							    from + n, 0, w);
				rbuf[from + n / 2] ^= 1;
			}
	is_int(bad, "==", 0,
	       "16-, 32- and 64-byte loops: stretches from anywhere in the "
	       "pattern pass intact and fail with one bit flipped");
}

/* The rr loops' check (pattern from 0) still catches the same. */
static void unshifted(void)
{
	memcpy(rbuf, pc.expect, 2000);
	msg_stamp(rbuf, 2000, 77);
	is_int(msg_check(&pc, rbuf, 2000, 77), "==", 0, "rr: intact");
	rbuf[1500] ^= 1;
	is_int(msg_check(&pc, rbuf, 2000, 77), "==", -EBADMSG,
	       "rr: a flipped bit");
	pc.out.err = 0;
	rbuf[1500] ^= 1;
	is_int(msg_check(&pc, rbuf, 2000, 78), "==", -EBADMSG,
	       "rr: the wrong number");
	pc.out.err = 0;
}

int main(void)
{
	size_t n = BIG + MSG_SHIFT_MAX + 64;
	uint8_t *expect = malloc(n);

	sbuf = malloc(n);
	rbuf = malloc(n);
	if (!expect || !sbuf || !rbuf)
		return 1;
	ipc_payload_fill(expect, n);
	memcpy(sbuf, expect, n);
	pc.sbuf = sbuf;
	pc.rbuf = rbuf;
	pc.expect = expect;
	pc.buf_bytes = n;
	intact();
	corrupted();
	shifted();
	spliced();
	reordered();
	widths();
	unshifted();
	free(expect);
	free(sbuf);
	free(rbuf);
	return done_testing();
}
