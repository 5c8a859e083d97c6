/* SPDX-License-Identifier: MIT */
/*
 * The reference for shm's stream throughput: how fast one core copies
 * messages into a ring, the work each side of the shm ring does per
 * message.  memcpy of BLOCK-byte messages, one after another, into a
 * RING-byte region (wrapping at its end) from one source buffer; prints the
 * median bytes per second of 9 trials of about 0.1 s each.
 *
 *   memcpy BLOCK RING        e.g. memcpy 65536 1048576
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#define TRIALS 9
#define TRIAL_NS 100000000ull

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	size_t block, ring, off = 0;
	unsigned char *src, *dst;
	double rate[TRIALS];
	uint64_t t0, t1, bytes;

	if (argc != 3) {
		fprintf(stderr, "usage: memcpy BLOCK RING\n");
		return 2;
	}
	block = strtoull(argv[1], NULL, 0);
	ring = strtoull(argv[2], NULL, 0);
	if (!block || ring < block) {
		fprintf(stderr, "memcpy: need 0 < BLOCK <= RING\n");
		return 2;
	}
	src = malloc(block);
	dst = malloc(ring);
	if (!src || !dst)
		return 1;
	memset(src, 0x5a, block);
	memset(dst, 0, ring); /* fault the pages in before timing */
	for (int t = 0; t < TRIALS; t++) {
		bytes = 0;
		t0 = now_ns();
		do {
			for (int k = 0; k < 64; k++) {
				if (off + block > ring)
					off = 0;
				memcpy(dst + off, src, block);
				/* Keep the copy from being optimised away. */
				__asm__ volatile("" : : "r"(dst) : "memory");
				off += block;
				bytes += block;
			}
			t1 = now_ns();
		} while (t1 - t0 < TRIAL_NS);
		rate[t] = (double)bytes * 1e9 / (double)(t1 - t0);
	}
	qsort(rate, TRIALS, sizeof(rate[0]), cmp);
	printf("%.0f\n", rate[TRIALS / 2]);
	free(src);
	free(dst);
	return 0;
}
