/*
 * Hex digits as the GDB remote protocol uses them (numbers, memory,
 * register values): private to the framing layer's stub client, replay
 * and stub, inline because replies are encoded and decoded per packet.
 */
#ifndef IPCPERF_FRAMING_RSP_HEX_H
#define IPCPERF_FRAMING_RSP_HEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hex digit values plus one, 0 for any other byte. */
extern const uint8_t ipc_rsp_hexv1[256];

static inline bool rsp_is_hex(uint8_t c)
{
	return ipc_rsp_hexv1[c] != 0;
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
		if (!ipc_rsp_hexv1[p[i]])
			return -1;
		*v = *v << 4 | (uint64_t)(ipc_rsp_hexv1[p[i]] - 1);
	}
	return 0;
}

/* The hex digits that start @p (up to @n bytes): how many. */
static inline size_t rsp_hex_span(const uint8_t *p, size_t n)
{
	size_t k = 0;

	while (k < n && ipc_rsp_hexv1[p[k]])
		k++;
	return k;
}

#endif
