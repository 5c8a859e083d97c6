/* SPDX-License-Identifier: MIT */
/*
 * The one decoder of backslash escapes for the trace formats; each format
 * gives its table (escape.h).
 */
#include <stdio.h>
#include <string.h>

#include "escape.h"

ssize_t ipc_esc_decode(const struct ipc_esc_table *t, const char *s, size_t n,
		       size_t *used, uint8_t *out, char *err, size_t err_len)
{
	const char *hit;
	size_t i = 0, o = 0, m;
	int hi, lo;

	while (i < n) {
		if (t->end && s[i] == t->end) {
			if (used)
				*used = i + 1;
			return (ssize_t)o;
		}
		if (t->skip && (m = t->skip(s + i, n - i))) {
			i += m;
			continue;
		}
		if (s[i] != '\\') {
			out[o++] = (uint8_t)s[i++];
			continue;
		}
		if (i + 1 >= n)
			break;
		if (s[i + 1] == 'x') {
			hi = i + 2 < n ? ipc_esc_hexval(s[i + 2]) : -1;
			lo = i + 3 < n ? ipc_esc_hexval(s[i + 3]) : -1;
			if (hi < 0 || lo < 0) {
				snprintf(err, err_len,
					 "'\\x' needs two hex digits");
				return -1;
			}
			out[o++] = (uint8_t)(hi << 4 | lo);
			i += 4;
			continue;
		}
		hit = s[i + 1] ? memchr(t->from, s[i + 1], t->n) : NULL;
		if (!hit) {
			snprintf(err, err_len, "unknown escape '\\%c'",
				 s[i + 1] >= 0x20 && s[i + 1] < 0x7f ? s[i + 1]
								     : '?');
			return -1;
		}
		out[o++] = (uint8_t)t->to[hit - t->from];
		i += 2;
	}
	if (t->end) {
		snprintf(err, err_len, "the closing '%c' is missing", t->end);
		return -1;
	}
	if (i < n) {
		snprintf(err, err_len, "a '\\' ends the line");
		return -1;
	}
	if (used)
		*used = i;
	return (ssize_t)o;
}
