/* SPDX-License-Identifier: MIT */
/*
 * Backslash escapes as the trace formats write bytes in text, decoded by
 * one function from a table per format: which letters follow the '\',
 * whether \xHH is taken, what ends a string, and text to skip (GDB's
 * markers).  Framing-private.
 */
#ifndef IPCPERF_FRAMING_ESCAPE_H
#define IPCPERF_FRAMING_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The value of hex digit @c, or -1 (the RSP checksum, \xHH). */
static inline int ipc_esc_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The escapes of one format. */
struct ipc_esc_table {
	const char *from; /* letters after '\': "nrt\\\"" ... */
	const char *to;	  /* the byte each stands for, same order */
	size_t n;	  /* entries (to may hold '\0') */
	char end;	  /* an unescaped end of the string ('"'), 0: none */
	/* Optional: bytes to drop at @s (0: none), such as "<Eof>". */
	size_t (*skip)(const char *s, size_t n);
};

/*
 * Decode the escaped text @s (@n bytes) into @out, which holds @n bytes.
 * With t->end set, decoding stops at the first unescaped t->end, which
 * must be there; *used (may be NULL) gets the bytes of @s read, the end
 * included.  Returns the decoded length, or -1 with the problem in @err
 * ("unknown escape '\q'", "'\x' needs two hex digits").
 */
ssize_t ipc_esc_decode(const struct ipc_esc_table *t, const char *s, size_t n,
		       size_t *used, uint8_t *out, char *err, size_t err_len);

#endif
