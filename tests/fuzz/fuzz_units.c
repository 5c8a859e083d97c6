/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the one parser of numbers with units: single
 * values and lists of each kind, as every option and --link item reads
 * them.  The first byte picks the kind, the range and list or value; the
 * rest is the text.  Beyond "no crash", each call keeps the parser's
 * promises: a value is in its range and the output untouched on failure,
 * a failure says why, a list holds in-range values without duplicates,
 * and a plain decimal number in the base unit reads back as itself.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

/* The ranges callers use: all of it, "more than 0", a small window. */
static const uint64_t ranges[4][2] = {
	{0, UINT64_MAX},
	{1, 1ull << 30},
	{0, 60 * 1000000000ull},
	{50, 100000000},
};

/* Kinds whose number without a unit is in the base unit. */
static bool bare_is_base(enum ipc_unit_kind k)
{
	return k == IPC_UNIT_SIZE || k == IPC_UNIT_COUNT ||
	       k == IPC_UNIT_BITRATE;
}

static void one(enum ipc_unit_kind kind, const char *s, uint64_t lo,
		uint64_t hi)
{
	char err[200] = "", again[32];
	uint64_t v = 0xdeadbeef, w;

	if (ipc_units_parse(kind, s, lo, hi, &v, err, sizeof(err))) {
		check(v == 0xdeadbeef);
		check(err[0] != '\0');
		return;
	}
	check(v >= lo && v <= hi);
	if (!bare_is_base(kind))
		return;
	snprintf(again, sizeof(again), "%" PRIu64, v);
	check(!ipc_units_parse(kind, again, lo, hi, &w, err, sizeof(err)));
	check(w == v);
}

static void list(enum ipc_unit_kind kind, const char *s, uint64_t lo,
		 uint64_t hi)
{
	struct ipc_u64_list l = {0};
	char err[200] = "";

	if (ipc_units_parse_list(kind, s, lo, hi, &l, err, sizeof(err))) {
		check(err[0] != '\0');
		check(l.n == 0 && l.v == NULL);
		return;
	}
	check(l.n >= 1 && l.n <= IPC_UNITS_LIST_MAX);
	for (size_t i = 0; i < l.n; i++) {
		check(l.v[i] >= lo && l.v[i] <= hi);
		for (size_t j = 0; j < i; j++)
			check(l.v[j] != l.v[i]);
	}
	ipc_u64_list_free(&l);
	check(l.n == 0);
}

/* The table's formatters take any double and fill what they are given. */
static void format(const uint8_t *data, size_t size)
{
	char buf[24];
	double d;
	size_t len;

	if (size < sizeof(d) + 1)
		return;
	memcpy(&d, data + 1, sizeof(d));
	len = 1 + data[0] % sizeof(buf);
	memset(buf, 'x', sizeof(buf));
	ipc_fmt_ns(d, buf, len);
	check(memchr(buf, '\0', len) != NULL);
	ipc_fmt_bytes(d, buf, len);
	check(memchr(buf, '\0', len) != NULL);
	ipc_fmt_rate(d, buf, len);
	check(memchr(buf, '\0', len) != NULL);
	ipc_fmt_bps(d, buf, len);
	check(memchr(buf, '\0', len) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum ipc_unit_kind kind;
	const uint64_t *r;
	char *s;

	if (size < 1 || size > 4096)
		return 0;
	kind = (enum ipc_unit_kind)(data[0] % 5);
	r = ranges[(data[0] >> 3) % 4];
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (data[0] & 0x80)
		list(kind, s, r[0], r[1]);
	else
		one(kind, s, r[0], r[1]);
	free(s);
	format(data + 1, size - 1);
	return 0;
}
