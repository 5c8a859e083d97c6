/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for --link lists: presets and key=value items, as the
 * command line gives them to the link layer.  A list that parses keeps
 * the limits the parser promises (each link's delay, jitter, rate and
 * loss in range, a name that is a string), a list that does not says why
 * and leaves the count where it was; every link's line time and its
 * verdict on every transport can be asked without harm.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/link.h"
#include "ipcperf/transport.h"
#include "link/lib_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LINKS 16

static void check(bool cond)
{
	if (!cond)
		abort();
}

static void links_ok(const struct ipc_link *l, size_t n)
{
	char why[256];

	for (size_t i = 0; i < n; i++) {
		check(memchr(l[i].name, '\0', sizeof(l[i].name)) != NULL);
		check(l[i].delay_ns <= 60 * 1000000000ull);
		check(l[i].jitter_ns <= 60 * 1000000000ull);
		check(l[i].loss_ppm <= 1000000);
		check(l[i].bits_per_byte == 8 || l[i].bits_per_byte == 10);
		check(l[i].mtu >= 1);
		ipc_link_wire_ns(&l[i], UINT64_MAX / 2, UINT32_MAX);
		ipc_link_wire_ns(&l[i], 1, 1);
		for (size_t t = 0; ipc_transports[t]; t++) {
			why[0] = '\0';
			if (ipc_link_can_carry(&l[i], ipc_transports[t], why,
					       sizeof(why)))
				check(why[0] != '\0');
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipc_link l[LINKS];
	char err[256] = "", *s;
	size_t n, start;

	if (size < 1 || size > 2048)
		return 0;
	/* The first byte: how many links are there already, and room. */
	start = data[0] % 4;
	n = start;
	memset(l, 0, sizeof(l));
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (ipc_link_parse(s, l, LINKS, &n, err, sizeof(err))) {
		check(n == start);
		check(err[0] != '\0');
	} else {
		check(n > start && n <= LINKS);
		links_ok(l + start, n - start);
	}
	free(s);
	return 0;
}
