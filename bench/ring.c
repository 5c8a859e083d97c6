/* SPDX-License-Identifier: MIT */
/*
 * The bare two-thread ring: what the machine allows a shared-memory stream,
 * with nothing of ipcperf's in the way.  One thread copies BLOCK-byte
 * messages into a RING-byte region and publishes a byte count; the other
 * waits for it (spinning), checks every byte of the message where it lies
 * (xor against a 256-byte pattern, as ipcperf's check does), and gives the
 * room back.  The sender runs at most LEAD bytes ahead (RING/2 unless
 * told).  Threads on CPUs C and S (0 and 1 unless told).  Prints the median
 * bytes per second of 9 trials of about 0.1 s each.
 *
 *   ring BLOCK RING [LEAD [C S]]      e.g. ring 65536 8388608
 *   ring bounce [C S]                 round trip of one cache line between
 *                                     the two CPUs, median ns of 9 trials
 *
 * The bounce tells whether the two virtual CPUs sit close on the host (a
 * shared cache) or far (a line crosses between caches the guest cannot
 * see): on a VM it can change from one invocation to the next.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

#include "bench.h"

#define TRIALS 9
#define TRIAL_NS 100000000ull
#define LINE 128 /* each index on its own pair of lines */

struct ring {
	_Alignas(LINE) _Atomic uint64_t head;
	_Alignas(LINE) _Atomic uint64_t tail;
	_Alignas(LINE) _Atomic int stop;
	_Alignas(LINE) uint8_t *data;
	size_t bytes, block, lead;
	long cpu[2];
	uint64_t bad;
};

static uint8_t pat[256] __attribute__((aligned(64)));

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Is message @p (@n bytes, a multiple of 256) the pattern with @seq in its
 * first 8 bytes?  Vectors of W bytes, or-ed together and tested once at
 * the end, as ipcperf's check does; the widest the CPU has.
 */
#define CHECKER(name, W, attr)                                                 \
	typedef uint8_t name##_v __attribute__((vector_size(W)));              \
	attr static bool name(const uint8_t *p, size_t n, uint64_t seq)        \
	{                                                                      \
		name##_v q[256 / W], acc = {0}, v, first;                      \
		uint64_t got;                                                  \
                                                                               \
		memcpy(q, pat, sizeof(q));                                     \
		memcpy(&got, p, sizeof(got));                                  \
		first = q[0];                                                  \
		memcpy(&first, &got, sizeof(got));                             \
		memcpy(&v, p, sizeof(v));                                      \
		acc |= v ^ first;                                              \
		for (int j = 1; j < 256 / W; j++) {                            \
			memcpy(&v, p + W * j, sizeof(v));                      \
			acc |= v ^ q[j];                                       \
		}                                                              \
		for (size_t i = 256; i < n; i += 256)                          \
			for (int j = 0; j < 256 / W; j++) {                    \
				memcpy(&v, p + i + W * j, sizeof(v));          \
				acc |= v ^ q[j];                               \
			}                                                      \
		for (int j = 0; j < W; j++)                                    \
			if (acc[j])                                            \
				return false;                                  \
		return got == seq;                                             \
	}

CHECKER(check16, 16, )
#if defined(__x86_64__) && defined(__GNUC__)
CHECKER(check32, 32, __attribute__((target("avx2"))))
CHECKER(check64, 64, __attribute__((target("avx512bw"))))

static bool check(const uint8_t *p, size_t n, uint64_t seq)
{
	if (__builtin_cpu_supports("avx512bw"))
		return check64(p, n, seq);
	if (__builtin_cpu_supports("avx2"))
		return check32(p, n, seq);
	return check16(p, n, seq);
}
#else
#define check check16
#endif

static void *receiver(void *arg)
{
	struct ring *r = arg;
	uint64_t tail = 0, head;

	pin(r->cpu[1]);
	for (;;) {
		while ((head = atomic_load_explicit(
				&r->head, memory_order_acquire)) == tail) {
			if (atomic_load_explicit(&r->stop,
						 memory_order_relaxed))
				return NULL;
			relax();
		}
		while (tail < head) {
			const uint8_t *m = r->data + tail % r->bytes;

			if (!check(m, r->block, tail / r->block))
				r->bad++;
			tail += r->block;
			atomic_store_explicit(&r->tail, tail,
					      memory_order_release);
		}
	}
}

static void stream(struct ring *r)
{
	uint8_t *src;
	uint64_t seq;
	double rate[TRIALS];
	uint64_t head = 0, t0, t1, bytes;
	pthread_t th;

	/* One source, its first 8 bytes the message's number. */
	src = malloc(r->block);
	if (!src)
		die("malloc");
	for (size_t i = 0; i < r->block; i++)
		src[i] = pat[i % 256];
	if (pthread_create(&th, NULL, receiver, r))
		die("pthread_create");
	pin(r->cpu[0]);
	for (int t = 0; t < TRIALS; t++) {
		bytes = 0;
		t0 = now_ns();
		do {
			for (int n = 0; n < 64; n++) {
				while (head + r->block -
					       atomic_load_explicit(
						       &r->tail,
						       memory_order_acquire) >
				       r->lead)
					relax();
				seq = head / r->block;
				memcpy(src, &seq, sizeof(seq));
				memcpy(r->data + head % r->bytes, src,
				       r->block);
				head += r->block;
				atomic_store_explicit(&r->head, head,
						      memory_order_release);
				bytes += r->block;
			}
			t1 = now_ns();
		} while (t1 - t0 < TRIAL_NS);
		rate[t] = (double)bytes * 1e9 / (double)(t1 - t0);
	}
	atomic_store(&r->stop, 1);
	pthread_join(th, NULL);
	if (r->bad) {
		fprintf(stderr, "ring: %llu messages corrupted\n",
			(unsigned long long)r->bad);
		exit(1);
	}
	qsort(rate, TRIALS, sizeof(rate[0]), cmp);
	printf("%.0f\n", rate[TRIALS / 2]);
}

/* The other side of the bounce: answer each odd value with the next. */
static void *bouncer(void *arg)
{
	struct ring *r = arg;
	uint64_t v = 0;

	pin(r->cpu[1]);
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		uint64_t h =
			atomic_load_explicit(&r->head, memory_order_acquire);
		if (h != v && (h & 1)) {
			v = h + 1;
			atomic_store_explicit(&r->head, v,
					      memory_order_release);
		}
	}
	return NULL;
}

static void bounce(struct ring *r)
{
	double ns[TRIALS];
	uint64_t v = 0, t0, t1, n;
	pthread_t th;

	if (pthread_create(&th, NULL, bouncer, r))
		die("pthread_create");
	pin(r->cpu[0]);
	for (int t = 0; t < TRIALS; t++) {
		n = 0;
		t0 = now_ns();
		do {
			for (int k = 0; k < 1000; k++) {
				atomic_store_explicit(&r->head, ++v,
						      memory_order_release);
				while (atomic_load_explicit(
					       &r->head,
					       memory_order_acquire) == v)
					;
				v++;
			}
			n += 1000;
			t1 = now_ns();
		} while (t1 - t0 < TRIAL_NS / 10);
		ns[t] = (double)(t1 - t0) / (double)n;
	}
	atomic_store(&r->stop, 1);
	pthread_join(th, NULL);
	qsort(ns, TRIALS, sizeof(ns[0]), cmp);
	printf("%.0f\n", ns[TRIALS / 2]);
}

int main(int argc, char **argv)
{
	static struct ring r;
	int at = 3;

	for (int i = 0; i < 256; i++)
		pat[i] = (uint8_t)(i * 131u + 7u);
	r.cpu[0] = 0;
	r.cpu[1] = 1;
	if (argc >= 2 && !strcmp(argv[1], "bounce")) {
		if (argc == 4) {
			r.cpu[0] = strtol(argv[2], NULL, 0);
			r.cpu[1] = strtol(argv[3], NULL, 0);
		} else if (argc != 2) {
			goto usage;
		}
		bounce(&r);
		return 0;
	}
	if (argc != 3 && argc != 4 && argc != 6)
		goto usage;
	r.block = strtoull(argv[1], NULL, 0);
	r.bytes = strtoull(argv[2], NULL, 0);
	r.lead = r.bytes / 2;
	if (argc >= 4)
		r.lead = strtoull(argv[at++], NULL, 0);
	if (argc == 6) {
		r.cpu[0] = strtol(argv[at++], NULL, 0);
		r.cpu[1] = strtol(argv[at], NULL, 0);
	}
	if (!r.block || r.block % 256 || r.bytes % r.block ||
	    r.lead < r.block || r.lead > r.bytes) {
		fprintf(stderr, "ring: need BLOCK a multiple of 256, RING a "
				"multiple of BLOCK, BLOCK <= LEAD <= RING\n");
		return 2;
	}
	r.data = mmap(NULL, r.bytes, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (r.data == MAP_FAILED)
		die("mmap");
	stream(&r);
	return 0;
usage:
	fprintf(stderr, "usage: ring BLOCK RING [LEAD [C S]] | ring bounce "
			"[C S]\n");
	return 2;
}
