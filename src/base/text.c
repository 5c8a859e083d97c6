/* SPDX-License-Identifier: MIT */
/*
 * Text from outside (option values, result files, peers) made safe to
 * show on one line of a terminal or a log: what could move the cursor,
 * recolour, reorder or break the line is written as an escape instead.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ipcperf/base.h"
#include "base/lib_internal.h"

/* Length of the UTF-8 sequence at @s (1..4) and its code point; 0: bad. */
static size_t utf8_char(const unsigned char *s, uint32_t *cp)
{
	size_t n = s[0] < 0x80			 ? 1
		   : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
		   : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
		   : s[0] >= 0xf0 && s[0] < 0xf5 ? 4
						 : 0;
	uint32_t v;

	if (!n)
		return 0;
	v = n == 1 ? s[0] : s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and what is past U+10FFFF. */
	if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) ||
	    (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
		return 0;
	*cp = v;
	return n;
}

/*
 * Code points that change how the rest of a line shows: C1 controls,
 * zero-width and direction marks, line and paragraph separators, the
 * bidirectional embeddings, overrides and isolates, the byte order mark.
 */
static bool hidden(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

size_t ipc_text_escape(char *dst, size_t dst_len, const char *src,
		       unsigned flags)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t out = 0, n;
	char esc[12];
	uint32_t cp;

	if (!dst_len)
		return 0;
	while (*s) {
		const char *piece = (const char *)s;
		size_t plen;

		n = utf8_char(s, &cp);
		if (n == 1 && cp >= 0x20 && cp != 0x7f) {
			plen = 1;
		} else if (n == 1 || !n) {
			snprintf(esc, sizeof(esc),
				 *s == '\n'   ? "\\n"
				 : *s == '\t' ? "\\t"
				 : *s == '\r' ? "\\r"
					      : "\\x%02x",
				 *s);
			piece = esc;
			plen = strlen(esc);
			n = 1;
		} else if (hidden(cp) || (flags & IPC_TEXT_ASCII)) {
			snprintf(esc, sizeof(esc),
				 cp > 0xffff ? "\\U%08x" : "\\u%04x",
				 (unsigned)cp);
			piece = esc;
			plen = strlen(esc);
		} else {
			plen = n;
		}
		/* Whole characters and whole escapes only. */
		if (out + plen >= dst_len)
			break;
		memcpy(dst + out, piece, plen);
		out += plen;
		s += n;
	}
	dst[out] = '\0';
	return out;
}

size_t ipc_text_cut(const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strnlen(s, max);

	if (!u[n])
		return n;
	/* Back over the continuation bytes of a character cut in two. */
	while (n && (u[n] & 0xc0) == 0x80)
		n--;
	return n;
}

bool ipc_text_printable(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++)
		if (*p < 0x20 || *p == 0x7f ||
		    (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return false;
	return true;
}
