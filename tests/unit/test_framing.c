/* SPDX-License-Identifier: MIT */
/*
 * Frames: the GDB remote protocol encoder and decoder (checksums, escapes,
 * run-length encoding, acks, a bad checksum refused, bytes fed in any
 * pieces) and the length-prefixed framing, against packets worked out by
 * hand and against each other on every byte value.
 */
#include <errno.h>

#include "../tap.h"
#include "ipcperf/framing.h"
#include "framing/lib_internal.h"

static const struct ipc_framing_ops *rsp = &ipc_framing_rsp;

/* Decode all of @in (@len bytes) with @fo; the event of the last feed. */
static int decode_all(const struct ipc_framing_ops *fo, const uint8_t *in,
		      size_t len, uint8_t *out, size_t cap, size_t *out_len,
		      size_t step)
{
	struct ipc_frame_dec d;
	enum ipc_frame_ev ev = IPC_FRAME_MORE;
	size_t i = 0;

	fo->dec_init(&d, out, cap);
	while (i < len) {
		size_t n = len - i < step ? len - i : step;
		ssize_t got = fo->dec_feed(&d, in + i, n, &ev);

		if (got < 0)
			return (int)got;
		i += (size_t)got;
		if (ev != IPC_FRAME_MORE)
			break;
	}
	*out_len = d.len;
	return ev == IPC_FRAME_PACKET && i == len ? 0 : -1000 - (int)ev;
}

/* Decoding the packet text @pkt gives @want (@wlen bytes). */
static void decodes_to(const char *pkt, const char *want, size_t wlen,
		       const char *what)
{
	uint8_t out[512];
	size_t n = 0;
	int rc = decode_all(rsp, (const uint8_t *)pkt, strlen(pkt), out,
			    sizeof(out), &n, 1000);

	ok(rc == 0 && n == wlen && !memcmp(out, want, wlen), "%s: %s", what,
	   pkt);
	if (rc || n != wlen)
		diag("rc %d, %zu bytes, want %zu", rc, n, wlen);
}

static void refused(const char *pkt, int want, const char *what)
{
	uint8_t out[64];
	size_t n;
	int rc = decode_all(rsp, (const uint8_t *)pkt, strlen(pkt), out,
			    sizeof(out), &n, 1000);

	is_int(rc, "==", want, "%s is refused: %s", what, pkt);
}

/* Encode @len bytes of @p with @flags, then decode in @step-byte pieces. */
static bool roundtrip(const struct ipc_framing_ops *fo, const uint8_t *p,
		      size_t len, unsigned flags, size_t step, size_t *flen)
{
	static uint8_t frame[2 * 70000 + 8], out[70000];
	size_t n = 0;

	*flen = fo->encode(frame, p, len, flags);
	if (*flen > fo->frame_max(len))
		return false;
	return decode_all(fo, frame, *flen, out, sizeof(out), &n, step) == 0 &&
	       n == len && !memcmp(out, p, len);
}

static void test_checksums(void)
{
	uint8_t buf[64];
	size_t n;

	is_int(ipc_rsp_checksum((const uint8_t *)"OK", 2), "==", 0x9a,
	       "checksum of OK is 0x9a");
	is_int(ipc_rsp_checksum((const uint8_t *)"qTStatus", 8), "==", 0x49,
	       "checksum of qTStatus is 0x49 (from a gdb log)");
	is_int(ipc_rsp_checksum(NULL, 0), "==", 0, "checksum of nothing is 0");
	n = rsp->encode(buf, (const uint8_t *)"OK", 2, 0);
	ok(n == 6 && !memcmp(buf, "$OK#9a", 6), "OK encodes as $OK#9a");
	n = rsp->encode(buf, (const uint8_t *)"", 0, 0);
	ok(n == 4 && !memcmp(buf, "$#00", 4), "an empty packet is $#00");
	n = rsp->encode(buf, (const uint8_t *)"vMustReplyEmpty", 15, 0);
	ok(n == 19 && !memcmp(buf, "$vMustReplyEmpty#3a", 19),
	   "vMustReplyEmpty encodes as in a gdb log (#3a)");
	decodes_to("$OK#9a", "OK", 2, "a plain packet");
	decodes_to("$OK#9A", "OK", 2, "upper-case checksum digits");
	decodes_to("$#00", "", 0, "an empty packet");
	refused("$OK#9b", -EBADMSG, "a bad checksum");
	refused("$OK#zz", -EBADMSG, "a checksum that is not hex");
	refused("$O$K#9a", -EBADMSG, "a '$' inside a packet");
}

static void test_escapes(void)
{
	static const uint8_t special[] = {'$', '#', '}', '*'};
	uint8_t buf[64], all[256];
	size_t n;
	bool only_escaped = true;

	for (size_t i = 0; i < 4; i++) {
		n = rsp->encode(buf, &special[i], 1, 0);
		ok(n == 6 && buf[1] == '}' && buf[2] == (special[i] ^ 0x20),
		   "'%c' is sent as '}' '%c'", special[i], special[i] ^ 0x20);
	}
	/* "a#b": '#' ^ 0x20 = 0x03; sum of 'a' '}' 0x03 'b' = 0x143. */
	n = rsp->encode(buf, (const uint8_t *)"a#b", 3, 0);
	ok(n == 8 && !memcmp(buf,
			     "$a}\x03"
			     "b#43",
			     8),
	   "a#b encodes as $a}\\x03b#43");
	decodes_to("$a}\x03"
		   "b#43",
		   "a#b", 3, "an escaped '#'");
	decodes_to("$}]#da", "}", 1, "an escaped '}'");
	refused("$a}#00", -EBADMSG, "an escape cut by '#'");
	for (int i = 0; i < 256; i++)
		all[i] = (uint8_t)i;
	n = rsp->encode(buf, all, 0, 0);
	ok(roundtrip(rsp, all, 256, 0, 1000, &n),
	   "all 256 byte values survive encode/decode");
	is_int(n, "==", 256 + 4 + 4, "exactly four of them were escaped");
	for (int i = 0; i < 256; i++)
		if (ipc_rsp_must_escape((uint8_t)i) !=
		    (i == '$' || i == '#' || i == '}' || i == '*'))
			only_escaped = false;
	ok(only_escaped, "only $ # } * must be escaped");
}

static void test_rle(void)
{
	uint8_t buf[512], run[200];
	size_t n;
	bool printable = true;

	/* GDB's manual: "0* " is "0000", '0*"00' is eight zeros. */
	decodes_to("$0* #7a", "0000", 4, "'0* ' is four zeros");
	decodes_to("$0*\"00#dc", "00000000", 8, "'0*\"00' is eight zeros");
	/* From the recorded trace: a run counted with '}' (96 more). */
	memset(run, '0', 97);
	decodes_to("$0*}#d7", (const char *)run, 97,
		   "a run counted with '}' (as gdbserver sends it)");
	refused("$*!#4b", -EBADMSG, "a run with nothing to repeat");
	refused("$0*\x10#6a", -EBADMSG, "a run count below 1");
	/* The encoder: runs of 4 or more, never '#' or '$' as the count. */
	for (size_t len = 1; len <= 200; len++) {
		memset(run, 'x', len);
		n = rsp->encode(buf, run, len, IPC_FRAME_RLE);
		for (size_t i = 1; i + 3 < n; i++) {
			if (buf[i] != '*')
				continue;
			i++; /* the count, which may itself be '*' or '}' */
			if (buf[i] == '#' || buf[i] == '$' || buf[i] < 32 ||
			    buf[i] > 126)
				printable = false;
		}
		if (!roundtrip(rsp, run, len, IPC_FRAME_RLE, 1, &n)) {
			ok(0, "a run of %zu decodes back", len);
			break;
		}
	}
	ok(printable, "run counts are printable and never '#' or '$'");
	memset(run, 'x', 7);
	n = rsp->encode(buf, run, 7, IPC_FRAME_RLE);
	ok(n == 8 && !memcmp(buf, "$x*\"x#", 6),
	   "a run of 7 is sent as a run of 6 and one more (not '$')");
	memset(run, 'x', 100);
	n = rsp->encode(buf, run, 100, IPC_FRAME_RLE);
	ok(n < 12, "a run of 100 takes %zu bytes", n);
	run[0] = '#';
	run[1] = '#';
	run[2] = '#';
	run[3] = '#';
	ok(roundtrip(rsp, run, 4, IPC_FRAME_RLE, 1, &n) && n == 12,
	   "characters that must be escaped are not run-length encoded");
}

static void test_acks_and_pieces(void)
{
	static const uint8_t stream[] = "+$OK#9a-junk$#00";
	struct ipc_frame_dec d;
	enum ipc_frame_ev ev;
	uint8_t out[32], payload[1000], frame[2100];
	ssize_t n;
	size_t flen, at = 0;
	bool same = true;

	rsp->dec_init(&d, out, sizeof(out));
	n = rsp->dec_feed(&d, stream, sizeof(stream) - 1, &ev);
	ok(n == 1 && ev == IPC_FRAME_ACK, "'+' is an ack, fed alone");
	at += (size_t)n;
	n = rsp->dec_feed(&d, stream + at, sizeof(stream) - 1 - at, &ev);
	ok(n == 6 && ev == IPC_FRAME_PACKET && d.len == 2,
	   "the packet after it, and nothing more, is consumed");
	at += (size_t)n;
	n = rsp->dec_feed(&d, stream + at, sizeof(stream) - 1 - at, &ev);
	ok(n == 1 && ev == IPC_FRAME_NAK, "'-' is a nak");
	at += (size_t)n;
	n = rsp->dec_feed(&d, stream + at, sizeof(stream) - 1 - at, &ev);
	ok(n == 8 && ev == IPC_FRAME_PACKET && d.len == 0,
	   "noise between packets is skipped");
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 131 + 7);
	for (size_t step = 1; step <= 7; step++)
		same &= roundtrip(rsp, payload, sizeof(payload), IPC_FRAME_RLE,
				  step, &flen);
	ok(same, "a 1000-byte packet decodes fed 1 to 7 bytes at a time");
	flen = rsp->encode(frame, payload, sizeof(payload), 0);
	rsp->dec_init(&d, out, sizeof(out));
	n = rsp->dec_feed(&d, frame, flen, &ev);
	is_int(n, "==", -EMSGSIZE, "a payload larger than the buffer");
}

static void test_len(void)
{
	const struct ipc_framing_ops *fo = &ipc_framing_len;
	uint8_t payload[300], frame[400], out[400];
	size_t flen, n;
	bool same = true;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)i;
	flen = fo->encode(frame, payload, 300, 0);
	ok(flen == 304 && frame[0] == 44 && frame[1] == 1 && frame[2] == 0 &&
		   frame[3] == 0,
	   "len: 300 bytes get the little-endian prefix 2c 01 00 00");
	for (size_t step = 1; step <= 5; step++)
		same &= roundtrip(fo, payload, 300, 0, step, &flen);
	ok(same, "len: decodes fed 1 to 5 bytes at a time");
	ok(roundtrip(fo, payload, 0, 0, 1, &flen) && flen == 4,
	   "len: an empty payload is a 4-byte frame");
	flen = fo->encode(frame, payload, 300, 0);
	is_int(decode_all(fo, frame, flen, out, 100, &n, 1000), "==", -EMSGSIZE,
	       "len: a payload larger than the buffer");
	ok(!ipc_framing_raw.encode, "raw has no encoder (the loops' own path)");
	ok(ipc_framing_find("gdb-rsp") == rsp &&
		   ipc_framing_find("len") == fo &&
		   ipc_framing_find("raw") == &ipc_framing_raw &&
		   !ipc_framing_find("http"),
	   "the registry finds raw, len and gdb-rsp by name");
}

int main(void)
{
	test_checksums();
	test_escapes();
	test_rle();
	test_acks_and_pieces();
	test_len();
	return done_testing();
}
