/* SPDX-License-Identifier: MIT */
/*
 * ipcperf's own GDB stub: the memory packets a stub answers, served from
 * a buffer of this process, so that a matrix against it and against
 * gdbserver differ only by what gdbserver does per packet beyond framing
 * and hex (its dispatch, ptrace or /proc/PID/mem underneath).  Replies are
 * run-length encoded as gdbserver's are.  The memory it serves:
 *
 *   mem  [0 ........................................ mem_len)
 *        ^ address (uint64_t)mem        stack pointer ^ (mem_len - 128)
 *
 * and its stop reply says the stack pointer is there, so that a client
 * finds its buffer 4 KiB below it as it does on a real target.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/framing.h"
#include "rsp_hex.h"
#include "framing/lib_internal.h"

/* The architecture it reports and its stack pointer's register number. */
#if defined(__x86_64__)
#define ARCH "i386:x86-64"
#define SP_REG "07"
#elif defined(__aarch64__)
#define ARCH "aarch64"
#define SP_REG "1f"
#else
#define ARCH ""
#define SP_REG ""
#endif

#define PACKET_SIZE 0x47ff /* as gdbserver 13 */
#define MIN_MEM 16384

int ipc_rsp_stub_init(struct ipc_rsp_stub *st, size_t mem_len)
{
	memset(st, 0, sizeof(*st));
	st->mem_len = mem_len < MIN_MEM ? MIN_MEM : mem_len;
	st->cap = PACKET_SIZE + 64;
	st->mem = calloc(1, st->mem_len);
	st->rx = malloc(st->cap);
	st->dec = malloc(st->cap);
	st->reply = malloc(st->cap);
	st->frame = malloc(ipc_framing_rsp.frame_max(st->cap));
	st->pid = 1;
	if (!st->mem || !st->rx || !st->dec || !st->reply || !st->frame) {
		ipc_rsp_stub_fini(st);
		return -ENOMEM;
	}
	return 0;
}

void ipc_rsp_stub_fini(struct ipc_rsp_stub *st)
{
	free(st->mem);
	free(st->rx);
	free(st->dec);
	free(st->reply);
	free(st->frame);
	memset(st, 0, sizeof(*st));
}

/* "ADDR,LEN" at @p (@n bytes, stopping at @stop): the offset, or -1. */
static long range(const struct ipc_rsp_stub *st, const uint8_t *p, size_t n,
		  uint8_t stop, size_t *len, size_t *used)
{
	uint64_t a, l, base = (uint64_t)(uintptr_t)st->mem;
	size_t k = rsp_hex_span(p, n), m;

	if (rsp_hex_num(p, k, &a) || k >= n || p[k] != ',')
		return -1;
	m = rsp_hex_span(p + k + 1, n - k - 1);
	if (rsp_hex_num(p + k + 1, m, &l) ||
	    (stop && (k + 1 + m >= n || p[k + 1 + m] != stop)))
		return -1;
	if (a < base || l > st->mem_len || a - base > st->mem_len - l)
		return -1;
	*len = (size_t)l;
	*used = k + 1 + m + (stop ? 1 : 0);
	return (long)(a - base);
}

static size_t text(uint8_t *out, const char *s)
{
	size_t n = strlen(s);

	memcpy(out, s, n);
	return n;
}

/* The reply to @n bytes of request @p, into st->reply: its length. */
static size_t answer(struct ipc_rsp_stub *st, const uint8_t *p, size_t n,
		     bool *noack, bool *leave)
{
	uint8_t *r = st->reply;
	size_t len, used;
	long off;

	switch (n ? p[0] : 0) {
	case 'm':
		off = range(st, p + 1, n - 1, 0, &len, &used);
		if (off < 0 || 2 * len > PACKET_SIZE)
			return text(r, "E01");
		rsp_tohex(st->mem + off, len, r);
		return 2 * len;
	case 'x':
		off = range(st, p + 1, n - 1, 0, &len, &used);
		if (off < 0 || len + 1 > PACKET_SIZE)
			return text(r, "E01");
		r[0] = 'b'; /* GDB 16's binary read */
		memcpy(r + 1, st->mem + off, len);
		return len + 1;
	case 'M':
	case 'X':
		off = range(st, p + 1, n - 1, ':', &len, &used);
		if (off < 0 || n - 1 - used != (p[0] == 'M' ? 2 * len : len) ||
		    (p[0] == 'M' &&
		     ipc_rsp_unhex(p + 1 + used, 2 * len, st->mem + off)))
			return text(r, "E02");
		if (p[0] == 'X')
			memcpy(st->mem + off, p + 1 + used, len);
		return text(r, "OK");
	case '?':
		return (size_t)snprintf(
			(char *)r, st->cap, "T05%s%s%016llx;thread:p%llx.%llx;",
			SP_REG, SP_REG[0] ? ":" : "",
			SP_REG[0] ? (unsigned long long)__builtin_bswap64(
					    (uint64_t)(uintptr_t)st->mem +
					    st->mem_len - 128)
				  : 0ull,
			(unsigned long long)st->pid,
			(unsigned long long)st->pid);
	case 'D':
		*leave = true;
		return text(r, "OK");
	default:
		break;
	}
	if (n >= 10 && !memcmp(p, "qSupported", 10))
		return (size_t)snprintf((char *)r, st->cap,
					"PacketSize=%x;QStartNoAckMode+;"
					"multiprocess+;qXfer:features:read+",
					PACKET_SIZE);
	if (n == 15 && !memcmp(p, "QStartNoAckMode", 15)) {
		*noack = true;
		return text(r, "OK");
	}
	if (n > 31 && !memcmp(p, "qXfer:features:read:target.xml:", 31))
		return (size_t)snprintf((char *)r, st->cap,
					"l<target><architecture>%s"
					"</architecture></target>",
					ARCH);
	return 0; /* "": not supported */
}

int ipc_rsp_stub_serve(struct ipc_rsp_stub *st, const struct ipc_rsp_io *io)
{
	static const uint8_t ack = '+';
	struct ipc_frame_dec d;
	enum ipc_frame_ev ev;
	bool noack = false, leave = false;
	size_t off = 0, have = 0, rl, fl;
	ssize_t n;
	int rc;

	ipc_framing_rsp.dec_init(&d, st->dec, st->cap);
	while (!leave) {
		if (!have) {
			n = io->recv(io->ctx, st->rx, st->cap, UINT64_MAX);
			if (n <= 0)
				return n == 0 ? 0 : (int)n;
			off = 0;
			have = (size_t)n;
		}
		n = ipc_framing_rsp.dec_feed(&d, st->rx + off, have, &ev);
		if (n < 0)
			return (int)n;
		off += (size_t)n;
		have -= (size_t)n;
		if (ev != IPC_FRAME_PACKET)
			continue; /* acks, '-' (a resend is not kept) */
		if (!noack) {
			rc = io->send(io->ctx, &ack, 1);
			if (rc)
				return rc;
		}
		rl = answer(st, st->dec, d.len, &noack, &leave);
		fl = ipc_framing_rsp.encode(st->frame, st->reply, rl,
					    IPC_FRAME_RLE);
		rc = io->send(io->ctx, st->frame, fl);
		if (rc)
			return rc;
		st->served++;
	}
	return 0;
}
