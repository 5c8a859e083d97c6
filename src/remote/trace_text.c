/* SPDX-License-Identifier: MIT */
/*
 * A conversation to replay, written out in the native trace format of
 * docs/replay.md so that a remote server can read it with the same
 * parser as a file: every unit one record, with its direction, a
 * timestamp that keeps its think time, and its bytes escaped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/framing.h"
#include "remote/remote_internal.h"

/* Room for one unit: the line's head, and each byte at most "\xHH". */
static size_t unit_room(const struct ipc_trace_unit *u)
{
	return 48 + 4 * u->len;
}

static size_t put_bytes(char *p, const uint8_t *b, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *start = p;

	for (size_t i = 0; i < n; i++) {
		uint8_t c = b[i];

		if (c == '\\' || c == '"') {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c >= 0x20 && c < 0x7f) {
			*p++ = (char)c;
		} else {
			*p++ = '\\';
			*p++ = 'x';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	return (size_t)(p - start);
}

int rm_trace_text(const struct ipc_trace *t, char **out, size_t *len)
{
	uint64_t at_ns = 0;
	size_t room = 64, n = 0;
	char *buf;

	for (size_t i = 0; i < t->nunits; i++)
		room += unit_room(&t->units[i]);
	buf = malloc(room);
	if (!buf)
		return -ENOMEM;
	n += (size_t)snprintf(buf, room, "# %s, for a remote server\n",
			      t->name);
	for (size_t i = 0; i < t->nunits; i++) {
		const struct ipc_trace_unit *u = &t->units[i];

		/* Each record's time is the sum of the think times so far. */
		at_ns += u->think_ns;
		n += (size_t)snprintf(buf + n, room - n, "%c @%llu.%09llu \"",
				      u->dir == IPC_C2S ? '>' : '<',
				      (unsigned long long)(at_ns / 1000000000),
				      (unsigned long long)(at_ns % 1000000000));
		n += put_bytes(buf + n, t->bytes + u->off, u->len);
		buf[n++] = '"';
		buf[n++] = '\n';
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}
