/* SPDX-License-Identifier: MIT */
/*
 * Hex digits as the GDB remote protocol uses them (numbers, memory,
 * register values), over the framing layer's one ipc_esc_hexval, and the
 * search for a key in a packet: private to the stub client, the replay
 * against a stub and ipcperf's own stub.
 */
#ifndef IPCPERF_FRAMING_RSP_HEX_H
#define IPCPERF_FRAMING_RSP_HEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "escape.h"

static inline bool rsp_is_hex(uint8_t c)
{
	return ipc_esc_hexval(c) >= 0;
}

/* @n bytes of @in as 2n lowercase hex digits at @out. */
static inline void rsp_tohex(const uint8_t *in, size_t n, uint8_t *out)
{
	static const char dig[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = (uint8_t)dig[in[i] >> 4];
		out[2 * i + 1] = (uint8_t)dig[in[i] & 15];
	}
}

/* A hex number of @n digits at @p into *v: 0, or -1 (empty, > 16, not hex). */
static inline int rsp_hex_num(const uint8_t *p, size_t n, uint64_t *v)
{
	*v = 0;
	if (!n || n > 16)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int d = ipc_esc_hexval(p[i]);

		if (d < 0)
			return -1;
		*v = *v << 4 | (uint64_t)d;
	}
	return 0;
}

/* The hex digits that start @p (up to @n bytes): how many. */
static inline size_t rsp_hex_span(const uint8_t *p, size_t n)
{
	size_t k = 0;

	while (k < n && ipc_esc_hexval(p[k]) >= 0)
		k++;
	return k;
}

/* The first "@key" in @p (@n bytes), or NULL. */
static inline const uint8_t *rsp_find(const uint8_t *p, size_t n,
				      const char *key)
{
	return memmem(p, n, key, strlen(key));
}

#endif
