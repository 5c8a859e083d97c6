/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for recorded conversations: GDB's remotelogfile and
 * the native format are parsed as `ipcperf replay` reads a file, then
 * split for a --max-packet taken from the first two bytes.  A trace that
 * parses is well formed (every write inside the byte store, the client
 * first, the counts the sums of the writes); its split keeps every server
 * packet within the limit, keeps the client's bytes a whole number of
 * the original's and stays within a bounded multiple of the trace's
 * size (a split once copied the whole request per piece).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/framing.h"
#include "framing/lib_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

/* The units, their bytes and the totals agree. */
static void well_formed(const struct ipc_trace *t)
{
	uint64_t c2s = 0, s2c = 0;
	size_t max = 0;

	check(t->nunits > 0);
	check(t->units[0].dir == IPC_C2S);
	for (size_t i = 0; i < t->nunits; i++) {
		const struct ipc_trace_unit *u = &t->units[i];

		check(u->len > 0);
		check(u->off <= t->nbytes && u->len <= t->nbytes - u->off);
		check(u->dir == IPC_C2S || u->dir == IPC_S2C);
		if (u->dir == IPC_C2S)
			c2s += u->len;
		else
			s2c += u->len;
		if (u->len > max)
			max = u->len;
	}
	check(c2s == t->bytes_c2s && s2c == t->bytes_s2c);
	check(max == t->max_unit);
	check(t->exchanges <= t->nunits);
}

/* Does @u hold a whole $...#xx packet? */
static bool packet(const struct ipc_trace *t, const struct ipc_trace_unit *u)
{
	const uint8_t *b = t->bytes + u->off;

	return u->len >= 4 && b[0] == '$' && b[u->len - 3] == '#';
}

static void split(const struct ipc_trace *t, uint32_t max_packet)
{
	struct ipc_trace *s = NULL;
	bool asked = false; /* a client packet came before */

	if (ipc_trace_split(t, max_packet, &s)) {
		check(s == NULL);
		return;
	}
	well_formed(s);
	check(s->max_packet == max_packet);
	check(s->bytes_s2c >= t->bytes_s2c);
	/*
	 * A piece adds its frame ("$" and "#xx") to what is stored; the
	 * repeated request and the acks point at bytes already there.
	 */
	check(s->nbytes <= t->nbytes + 4 * (s->nunits - t->nunits) + 1);
	for (size_t i = 0; i < s->nunits; i++) {
		const struct ipc_trace_unit *u = &s->units[i];

		if (u->dir == IPC_C2S && packet(s, u))
			asked = true;
		/* An escape with a run-length pair is kept whole: 4 bytes. */
		if (u->dir == IPC_S2C && packet(s, u) && asked)
			check(u->len - 4 <= (max_packet > 4 ? max_packet : 4));
	}
	ipc_trace_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipc_trace *t = NULL;
	char err[256] = "";
	uint32_t max_packet;

	if (size < 2 || size > 65536)
		return 0;
	max_packet = 1 + (uint32_t)(data[0] | data[1] << 8) % 1024;
	if (ipc_trace_parse("fuzz.log", (const char *)data + 2, size - 2, &t,
			    err, sizeof(err))) {
		check(t == NULL);
		check(err[0] != '\0');
		return 0;
	}
	well_formed(t);
	split(t, max_packet);
	split(t, 1);
	ipc_trace_free(t);
	return 0;
}
