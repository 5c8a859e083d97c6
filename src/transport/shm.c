/* SPDX-License-Identifier: MIT */
/*
 * Shared memory: two single-producer single-consumer rings, one per
 * direction, in one memfd that both sides map.  Each send copies one
 * message into the ring; a receive copies it out, or lets the caller read
 * it where it lies (recv_view), with message boundaries kept.  A side waits
 * for its peer by spinning or by sleeping in futex(2); there is no
 * descriptor to poll, so only the blocking engine drives it.  A memfd has
 * no name: nothing can be left behind in /dev/shm.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/cpucache.h"
#include "transport/lib_internal.h"
#include "transport/transports.h"

/*
 * The memfd, for rings of N bytes:
 *
 *   0      struct shm_hdr: constants, closed flags, and per ring the
 *          producer's head, the consumer's tail and two sleep flags, each
 *          on its own 128 bytes
 *   4096   ring C2S data, N bytes (client to server)
 *   4096+N ring S2C data, N bytes (server to client)
 *
 * A record in a ring is an 8-byte length, then the payload, padded to 8
 * bytes; it may wrap around the end of the ring.  head and tail count bytes
 * since setup (64 bits never wrap); head - tail bytes are in use.
 *
 * Each side maps each ring's data twice, back to back, so that a record
 * that wraps is still contiguous in its address space: one memcpy moves
 * it, and a receiver can read it in place.
 *
 *   address  base  +4096        +4096+N      +4096+2N     +4096+3N
 *            hdr | C2S data    | C2S again  | S2C data   | S2C again
 *
 * Why 128 bytes: the producer writes head on every send and the consumer
 * tail on every receive; on one cache line (or on two adjacent lines, which
 * the spatial prefetcher fetches as a pair) each write would take the line
 * from the other core.
 */
#define CTL_ALIGN 128
#define HDR_BYTES 4096u
#define REC_HDR 8u

/*
 * Ring sizes: a power of two, 4 KiB to 1 GiB, 8 MiB unless told.  Why 8:
 * with the sender half the ring ahead (below), each side then touches
 * lines the other last touched 4 MiB before, which have left its 2 MiB L2
 * (the 2-CPU Intel Xeon VM this was measured on) for the shared L3.  In a 4 MiB ring they
 * are still in the other's L2, and each line crosses from core to core
 * with a snoop.  Checked stream of 64 KiB messages, two pinned CPUs,
 * phases timed with the TSC: the receiver's check of one message took
 * 8,600-9,100 cycles in a 4 MiB ring (1 MiB ahead), 8,800-9,000 (2 MiB
 * ahead), and 7,100-7,600 in an 8 MiB ring 4 MiB ahead: 17.5-18.1 GB/s
 * then, 21-22 now, against 25 for one core's memcpy.  (On a 2-CPU Zen 4
 * with 1 MiB L2 the figure grew with the ring too: 10, 11, 13, 17 GB/s
 * for 1, 2, 4, 8 MiB.)
 */
#define RING_MIN (4u << 10)
#define RING_MAX (1u << 30)
#define RING_DEFAULT IPC_SHM_BYTES_DEFAULT

/*
 * The ring for two CPUs with an L2 each: four of them (the sender then
 * runs two L2s ahead, so every line has left the core that last touched
 * it), never less than 8 MiB (on a 1 MiB-L2 Zen 4 the figure still grew
 * from 4 to 8 MiB), at most RING_CHOSEN_MAX.  Two CPUs that share an L2
 * need no line to leave it: half of it, so that both sides find every
 * line there, 1 MiB at least (LEAD_MIN).
 */
#define RING_CHOSEN_MAX (64u << 20)
#define RING_SHARED_MIN (1u << 20)

/*
 * futex mode looks a few times (a pause each, about 30 ns here) before it
 * goes to sleep: a peer that answers within that time costs no system call
 * on either side.  How many times adapts per endpoint: SPINS_MAX again
 * after a wait that ended while looking, SPINS_STEP fewer after one that
 * had to sleep, down to SPINS_MIN.  Why: with each side on its own CPU an
 * rr answer comes within a few looks, and a side that falls asleep costs a
 * cross-CPU wake-up (about 25 us on this VM), so looking long pays; with
 * both on one CPU no look can succeed and every one is wasted.  rr p50 on
 * two CPUs / on one, 1-byte messages: fixed 16 looks 25 us / 6.3 us, 64:
 * 180 ns / 8.2 us, 256: 180 ns / 19.8 us; halving on every sleep: 35 us /
 * 4.8 us (after one sleep both sides keep missing each other); this rule:
 * 170 ns / 4.8 us (pipe: 5.0 us on one CPU).
 *
 * Spin mode yields the CPU every SPIN_YIELD looks, so that both sides on
 * one CPU still make progress.
 */
#define SPINS_MIN 4u
#define SPINS_MAX 256u
#define SPINS_STEP 4u
#define SPIN_YIELD 1024u

/*
 * A sleeping side wakes up this often to look again: a signal that lands
 * between its last look and futex(2) does not interrupt the sleep.
 */
#define SLEEP_NS 20000000L

/*
 * The sender runs at most half the ring ahead of the receiver.  Why: the
 * receiver reads lines the sender wrote LEAD bytes before, and the sender
 * writes lines the receiver read RING - LEAD bytes before; each wants
 * those lines gone from the other core's private cache, so half and half
 * is the best split.  A sender allowed the whole ring fills it whenever
 * the receiver is a little slower, and then writes into the lines the
 * receiver has just read (still in that core's cache, so each write first
 * takes the line from it) while the receiver reads what was written a
 * whole ring before: both sides slow down, and the state holds.  Checked
 * stream of 64 KiB messages, two pinned CPUs on the development VM (2 MiB
 * L2), single runs: 8 MiB ring, 3/4/5/6/8 MiB ahead: 19-21, 21-22, 18-21,
 * 19-21, 17-20 GB/s.  Never less than 1 MiB (a smaller ring is all lead):
 * 256 KiB ahead gave 3.2 GB/s on a Zen 4 (the sides take turns waiting
 * and sleeping).
 */
#define LEAD_PART 2u
#define LEAD_MIN (1u << 20)

#define MAGIC 0x69706373686d3031ull /* "ipcshm01" */

enum { C2S = 0, S2C = 1 };

struct shm_ring {
	_Alignas(CTL_ALIGN) _Atomic uint64_t head; /* bytes written, producer */
	_Alignas(CTL_ALIGN) _Atomic uint64_t tail; /* bytes read, consumer */
	_Alignas(CTL_ALIGN) _Atomic uint32_t
		cons_sleep; /* 1: consumer sleeps */
	_Alignas(CTL_ALIGN) _Atomic uint32_t
		prod_sleep; /* 1: producer sleeps */
};

struct shm_hdr {
	uint64_t magic;
	uint64_t ring_bytes;	    /* bytes of each ring's data */
	uint32_t spin;		    /* enum ipc_shm_wait == IPC_SHM_SPIN */
	_Atomic uint32_t closed[2]; /* side i closed its endpoint */
	struct shm_ring ring[2];    /* [C2S], [S2C] */
};

_Static_assert(sizeof(struct shm_hdr) <= HDR_BYTES, "header fits a page");

/* One side's view: its two rings and its private copies of the indices. */
struct shm_ep {
	struct shm_hdr *hdr;
	size_t map_bytes; /* of address space, both views of both rings */
	struct shm_ring *tx, *rx; /* the ring it produces into, consumes from */
	uint8_t *tx_data, *rx_data;
	uint64_t mask;		  /* ring bytes - 1 */
	uint64_t tx_head;	  /* == tx->head, written only by this side */
	uint64_t tx_tail_seen;	  /* tx->tail when last read */
	uint64_t rx_tail;	  /* == rx->tail, written only by this side */
	uint64_t rx_head_seen;	  /* rx->head when last read */
	uint64_t rx_held;	  /* bytes recv_view lent, not given back */
	uint64_t lead;		  /* bytes the sender may run ahead */
	_Atomic uint32_t *closed; /* this side's flag */
	_Atomic uint32_t *peer_closed; /* the other side's */
	bool spin;
	unsigned spins;			 /* futex mode: looks before sleeping */
	const struct ipc_cancel *cancel; /* the side's stop (ep->cancel) */
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

static size_t ring_bytes(const struct ipc_tp_opts *opts)
{
	return opts->shm_bytes ? opts->shm_bytes : RING_DEFAULT;
}

static bool ring_ok(size_t n)
{
	return n >= RING_MIN && n <= RING_MAX && !(n & (n - 1));
}

static size_t map_bytes(size_t ring)
{
	return HDR_BYTES + 2 * ring;
}

/* Address space of one side: the header and each ring twice. */
static size_t view_bytes(size_t ring)
{
	return HDR_BYTES + 4 * ring;
}

static size_t shm_max_msg(const struct ipc_tp_opts *opts)
{
	size_t n = ring_bytes(opts);

	return ring_ok(n) ? n - REC_HDR : 0;
}

static int shm_probe(char *why, size_t why_len)
{
	char err[128];
	int fd = memfd_create("ipcperf-probe", MFD_CLOEXEC);

	if (fd < 0) {
		int rc = -errno;

		snprintf(why, why_len, "memfd_create fails: %s",
			 strerror_r(-rc, err, sizeof(err)));
		return rc;
	}
	close(fd);
	return 0;
}

static int shm_check(const struct ipc_tp_opts *opts, char *why, size_t why_len)
{
	size_t n = ring_bytes(opts);

	if (ring_ok(n))
		return 0;
	snprintf(why, why_len,
		 "a ring of %zu bytes is not a power of two from 4 KiB to "
		 "1 GiB",
		 n);
	return -EINVAL;
}

/*
 * The memfd of both rings, sized and with its header written.  Pages are
 * allocated when each side maps it (open), not here.
 */
static int shm_setup(struct ipc_chan *ch)
{
	size_t ring = ring_bytes(&ch->opts);
	struct shm_hdr *hdr;
	int fd, rc = 0;

	if (!ring_ok(ring)) {
		rc = -EINVAL;
		goto out;
	}
	if (ch->opts.max_msg > ring - REC_HDR) {
		rc = -EMSGSIZE;
		goto out;
	}
	fd = memfd_create("ipcperf-shm", MFD_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	ch->fd[0] = fd;
	ch->fd_side[0] = -1; /* both sides map it */
	if (ftruncate(fd, (off_t)map_bytes(ring)) < 0) {
		rc = -errno;
		goto err;
	}
	hdr = mmap(NULL, HDR_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (hdr == MAP_FAILED) {
		rc = -errno;
		goto err;
	}
	/* ftruncate zeroed the indices, flags and data. */
	hdr->magic = MAGIC;
	hdr->ring_bytes = ring;
	hdr->spin = ch->opts.shm_wait == IPC_SHM_SPIN;
	munmap(hdr, HDR_BYTES);
	goto out;
err:
	tp_chan_release(ch);
out:
	return rc;
}

static size_t pow2_floor(size_t n)
{
	size_t p = 1;

	while (p <= n / 2)
		p *= 2;
	return p;
}

static size_t pow2_ceil(size_t n)
{
	size_t p = 1;

	while (p < n && p < RING_MAX)
		p *= 2;
	return p;
}

static void choose_shared(struct ipc_shm_choice *out, int a, int b)
{
	size_t n = pow2_floor(out->l2_bytes / 2);
	char l2[32];

	out->bytes = n > RING_SHARED_MIN ? n : RING_SHARED_MIN;
	snprintf(out->why, sizeof(out->why),
		 "CPUs %d and %d share a %s L2: a ring of half of it (1 MiB at "
		 "least) stays there",
		 a, b, ipc_fmt_bytes((double)out->l2_bytes, l2, sizeof(l2)));
}

static void choose_private(struct ipc_shm_choice *out, int a, int b)
{
	size_t n = pow2_ceil(4 * out->l2_bytes);
	char l2[32];

	if (n < RING_DEFAULT)
		n = RING_DEFAULT;
	out->bytes = n < RING_CHOSEN_MAX ? n : RING_CHOSEN_MAX;
	ipc_fmt_bytes((double)out->l2_bytes, l2, sizeof(l2));
	if (b < 0)
		snprintf(out->why, sizeof(out->why),
			 "CPU %d has a %s L2: a ring of four (8 MiB at least) "
			 "leaves each side lines the other's L2 gave up",
			 a, l2);
	else
		snprintf(out->why, sizeof(out->why),
			 "CPUs %d and %d have a %s L2 each: a ring of four (8 "
			 "MiB at least) leaves each side lines the other's L2 "
			 "gave up",
			 a, b, l2);
}

int ipc_shm_choose(const char *root, int cpu_a, int cpu_b,
		   struct ipc_shm_choice *out)
{
	struct base_cpu_cache l2;
	int a = cpu_a >= 0 ? cpu_a : 0;

	if (!root || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->bytes = RING_DEFAULT;
	if (cpu_b >= 0 && cpu_b == a) {
		snprintf(out->why, sizeof(out->why),
			 "both sides on CPU %d: the default ring (on one CPU "
			 "its size matters little)",
			 a);
		return 0;
	}
	if (ipc_cpu_cache_find(root, a, 2, &l2) < 0) {
		snprintf(out->why, sizeof(out->why),
			 "no L2 of CPU %d listed in sysfs: the default ring",
			 a);
		return 0;
	}
	out->l2_bytes = l2.bytes;
	out->l2_shared = cpu_b >= 0 && ipc_cpu_list_has(l2.shared, cpu_b);
	if (out->l2_shared)
		choose_shared(out, a, cpu_b);
	else
		choose_private(out, a, cpu_b);
	return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/*
 * Map the memfd @fd of rings of @ring bytes as drawn above: reserve the
 * address space, then map the header once and each ring's data twice over
 * it.  0 and *@base, or -errno with nothing left mapped.
 */
static int map_twice(int fd, size_t ring, uint8_t **base)
{
	const int fixed = MAP_SHARED | MAP_FIXED;
	size_t len = view_bytes(ring);
	uint8_t *map, *at;
	int rc = 0;

	map = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return -errno;
	if (mmap(map, HDR_BYTES, PROT_READ | PROT_WRITE, fixed, fd, 0) ==
	    MAP_FAILED) {
		rc = -errno;
		goto err;
	}
	for (int r = 0; r < 4; r++) {
		at = map + HDR_BYTES + (size_t)r * ring;
		if (mmap(at, ring, PROT_READ | PROT_WRITE, fixed, fd,
			 (off_t)(HDR_BYTES + (size_t)(r / 2) * ring)) ==
		    MAP_FAILED) {
			rc = -errno;
			goto err;
		}
	}
	*base = map;
	return 0;
err:
	munmap(map, len);
	return rc;
}

static int shm_open_ep(struct ipc_chan *ch, enum ipc_side side,
		       struct ipc_ep *ep)
{
	size_t ring = ring_bytes(&ch->opts), len;
	int tx = side == IPC_CLIENT ? C2S : S2C;
	struct shm_ep *s;
	uint8_t *map = NULL;
	int rc = 0;

	if (ch->fd[0] < 0) {
		rc = -EBADF;
		goto out;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		rc = -ENOMEM;
		goto out;
	}
	len = view_bytes(ring);
	rc = map_twice(ch->fd[0], ring, &map);
	if (rc < 0)
		goto err_free;
	s->hdr = (struct shm_hdr *)map;
	if (s->hdr->magic != MAGIC || s->hdr->ring_bytes != ring) {
		rc = -EPROTO;
		goto err_unmap;
	}
	/*
	 * Fault every page in now, so that no page fault lands in a timed
	 * loop the first time the ring wraps.  Without it (before 5.14) the
	 * first pass through the ring pays for them.
	 */
	madvise(map, len, MADV_POPULATE_WRITE);
	s->map_bytes = len;
	s->tx = &s->hdr->ring[tx];
	s->rx = &s->hdr->ring[!tx];
	s->tx_data = map + HDR_BYTES + (size_t)tx * 2 * ring;
	s->rx_data = map + HDR_BYTES + (size_t)!tx * 2 * ring;
	s->mask = ring - 1;
	s->tx_head = atomic_load(&s->tx->head);
	s->tx_tail_seen = atomic_load(&s->tx->tail);
	s->rx_tail = atomic_load(&s->rx->tail);
	s->rx_head_seen = s->rx_tail;
	s->closed = &s->hdr->closed[side];
	s->peer_closed = &s->hdr->closed[!side];
	s->spin = s->hdr->spin;
	s->spins = SPINS_MAX;
	s->cancel = ep->cancel;
	s->lead = ring / LEAD_PART > LEAD_MIN ? ring / LEAD_PART : LEAD_MIN;
	tp_ep_init(ep, ch, -1, -1, s);
	goto out;
err_unmap:
	munmap(map, len);
err_free:
	free(s);
out:
	return rc;
}

static long futex(_Atomic uint32_t *addr, int op, uint32_t val,
		  const struct timespec *ts)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

/*
 * After publishing a change the other side may sleep on: wake it if its
 * flag says so.  The fence pairs with the one in wait_change (a store of
 * the flag, then a load of the index): either the sleeper sees the change,
 * or this load sees its flag.
 */
static inline void wake_sleeper(_Atomic uint32_t *flag)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(flag, memory_order_relaxed) &&
	    atomic_exchange_explicit(flag, 0, memory_order_relaxed))
		futex(flag, FUTEX_WAKE, 1, NULL);
}

/*
 * Wait until *@word is no longer @seen or the peer closed: 0 (the caller
 * looks again), or -EINTR once the side's stop is fired (its flag, seen on
 * every look) or a signal interrupted the sleep (the stop's wake signal,
 * aimed at this thread).  Spin mode only spins; futex mode
 * spins briefly, then raises @flag and sleeps until the other side clears
 * it and wakes it (see wake_sleeper), or SLEEP_NS passed.
 */
static int wait_change(struct shm_ep *s, _Atomic uint32_t *flag,
		       _Atomic uint64_t *word, uint64_t seen)
{
	const struct timespec nap = {0, SLEEP_NS};
	bool slept = false;
	unsigned i;
	long rc;

	for (i = 1;; i++) {
		if (atomic_load_explicit(word, memory_order_acquire) != seen ||
		    atomic_load_explicit(s->peer_closed,
					 memory_order_acquire)) {
			if (!slept)
				s->spins = SPINS_MAX;
			return 0;
		}
		if (ipc_cancelled(s->cancel))
			return -EINTR;
		if (s->spin || i < s->spins) {
			cpu_relax();
			if (i % SPIN_YIELD == 0)
				sched_yield();
			continue;
		}
		if (!slept && s->spins > SPINS_MIN)
			s->spins -= SPINS_STEP;
		slept = true;
		atomic_store_explicit(flag, 1, memory_order_seq_cst);
		if (atomic_load_explicit(word, memory_order_seq_cst) != seen ||
		    atomic_load_explicit(s->peer_closed,
					 memory_order_seq_cst)) {
			atomic_store_explicit(flag, 0, memory_order_relaxed);
			return 0;
		}
		rc = futex(flag, FUTEX_WAIT, 1, &nap);
		atomic_store_explicit(flag, 0, memory_order_relaxed);
		if (rc < 0 && errno == EINTR)
			return -EINTR; /* a signal: the caller looks at its stop */
		/* Woken, timed out, or the flag was already cleared. */
	}
}

static inline uint64_t rec_bytes(uint64_t len)
{
	return REC_HDR + ((len + 7) & ~(uint64_t)7);
}

/*
 * How far ahead of the receiver the sender may run before it waits, for a
 * record of @need bytes: half the ring but 1 MiB at least, or
 * three records (one the receiver reads, one being written, one spare), at
 * most the ring.
 */
static inline uint64_t tx_room(const struct shm_ep *s, uint64_t need)
{
	uint64_t room = 3 * need > s->lead ? 3 * need : s->lead;

	return room < s->mask + 1 ? room : s->mask + 1;
}

static ssize_t shm_send(struct ipc_ep *ep, const void *buf, size_t len)
{
	struct shm_ep *s = ep->priv;
	uint64_t head, need, room;
	int rc;

	if (!s)
		return -EBADF;
	if (len > s->mask + 1 - REC_HDR)
		return -EMSGSIZE;
	if (atomic_load_explicit(s->peer_closed, memory_order_relaxed))
		return -EPIPE;
	head = s->tx_head;
	need = rec_bytes(len);
	room = tx_room(s, need);
	while (head + need - s->tx_tail_seen > room) {
		s->tx_tail_seen = atomic_load_explicit(&s->tx->tail,
						       memory_order_acquire);
		if (head + need - s->tx_tail_seen <= room)
			break;
		if (atomic_load_explicit(s->peer_closed, memory_order_acquire))
			return -EPIPE;
		rc = wait_change(s, &s->tx->prod_sleep, &s->tx->tail,
				 s->tx_tail_seen);
		if (rc)
			return rc;
	}
	*(uint64_t *)(s->tx_data + (head & s->mask)) = len;
	memcpy(s->tx_data + ((head + REC_HDR) & s->mask), buf, len);
	s->tx_head = head + need;
	atomic_store_explicit(&s->tx->head, s->tx_head, memory_order_release);
	if (!s->spin)
		wake_sleeper(&s->tx->cons_sleep);
	return (ssize_t)len;
}

/*
 * Wait until the rx ring holds a record at s->rx_tail: 1 when it does, 0
 * at end of stream (the peer closed and everything it sent was read), or
 * -errno.
 */
static int rx_wait(struct shm_ep *s)
{
	uint64_t tail = s->rx_tail, head;
	int rc;

	while (s->rx_head_seen == tail) {
		head = atomic_load_explicit(&s->rx->head, memory_order_acquire);
		if (head != tail) {
			s->rx_head_seen = head;
			break;
		}
		if (atomic_load_explicit(s->peer_closed,
					 memory_order_acquire)) {
			/* What was sent before the close is still read. */
			head = atomic_load_explicit(&s->rx->head,
						    memory_order_acquire);
			if (head == tail)
				return 0;
			continue;
		}
		rc = wait_change(s, &s->rx->cons_sleep, &s->rx->head, tail);
		if (rc)
			return rc;
	}
	return 1;
}

/* Give the sender back @bytes at the tail of the rx ring. */
static void rx_consume(struct shm_ep *s, uint64_t bytes)
{
	s->rx_tail += bytes;
	atomic_store_explicit(&s->rx->tail, s->rx_tail, memory_order_release);
	if (!s->spin)
		wake_sleeper(&s->rx->prod_sleep);
}

/* The record recv_view lent is no longer read: give its room back. */
static inline void rx_return_held(struct shm_ep *s)
{
	if (s->rx_held) {
		rx_consume(s, s->rx_held);
		s->rx_held = 0;
	}
}

/*
 * The next message, once there is one: its length, with *@at pointing at
 * it in the ring (the caller consumes it); or what recv returns instead,
 * *@at untouched: 0 at end of stream, -EMSGSIZE with the message dropped
 * when it is longer than @len, -EPROTO when the ring is corrupt, -errno.
 */
static ssize_t rx_next(struct shm_ep *s, const uint8_t **at, size_t len)
{
	uint64_t n;
	int rc;

	if (!s)
		return -EBADF;
	rx_return_held(s);
	rc = rx_wait(s);
	if (rc <= 0)
		return rc;
	n = *(const uint64_t *)(s->rx_data + (s->rx_tail & s->mask));
	if (n > s->mask + 1 - REC_HDR)
		return -EPROTO; /* not a record: the ring is corrupt */
	if (n > len) {
		rx_consume(s, rec_bytes(n)); /* dropped, as a datagram is */
		return -EMSGSIZE;
	}
	*at = s->rx_data + ((s->rx_tail + REC_HDR) & s->mask);
	return (ssize_t)n;
}

static ssize_t shm_recv(struct ipc_ep *ep, void *buf, size_t len)
{
	struct shm_ep *s = ep->priv;
	const uint8_t *at = NULL;
	ssize_t n = rx_next(s, &at, len);

	if (at) {
		memcpy(buf, at, (size_t)n);
		rx_consume(s, rec_bytes((uint64_t)n));
	}
	return n;
}

/*
 * The message stays in the ring, read where it lies, until the next
 * receive: its room goes back to the sender then (rx_return_held).
 */
static ssize_t shm_recv_view(struct ipc_ep *ep, const void **msg, size_t len)
{
	struct shm_ep *s = ep->priv;
	const uint8_t *at = NULL;
	ssize_t n = rx_next(s, &at, len);

	if (at) {
		*msg = at;
		s->rx_held = rec_bytes((uint64_t)n);
	}
	return n;
}

/*
 * Say so in shared memory, then wake the peer wherever it sleeps: waiting
 * for data on our tx ring, or for room on our rx ring.  A receive that
 * finds the ring empty and the peer closed returns end of stream (0), a
 * send returns -EPIPE.
 */
static void shm_close(struct ipc_ep *ep)
{
	struct shm_ep *s = ep->priv;

	if (s) {
		atomic_store_explicit(s->closed, 1, memory_order_seq_cst);
		wake_sleeper(&s->tx->cons_sleep);
		wake_sleeper(&s->rx->prod_sleep);
		munmap(s->hdr, s->map_bytes);
		free(s);
	}
	ep->priv = NULL;
	ep->rfd = -1;
	ep->wfd = -1;
}

/*
 * No IPC_TP_EMPTY_MSG: a 0-byte receive means the peer closed, so a 0-byte
 * message goes as a 1-byte token, as on unix-seqpacket.  No IPC_TP_FD:
 * poll, epoll and io_uring have nothing to wait on.
 */
const struct ipc_transport_ops ipc_tp_shm = {
	.name = "shm",
	.help = "shared-memory rings (memfd), one per direction; "
		"--shm-wait spin|futex",
	.caps = IPC_TP_MSG,
	.probe = shm_probe,
	.check = shm_check,
	.max_msg = shm_max_msg,
	.setup = shm_setup,
	.open = shm_open_ep,
	.send = shm_send,
	.recv = shm_recv,
	.recv_view = shm_recv_view,
	.close = shm_close,
	.teardown = tp_chan_release,
};
