/* SPDX-License-Identifier: MIT */
/*
 * Tests of --explain's arithmetic on synthetic kernel counts: the phases
 * of a round trip add up to the measured mean with the residue stated as
 * "unexplained", shares are of the mean, the median run is the one the
 * phases come from, the client's sleep gives way to the server's phases,
 * interrupts are the kernel's, p99 comes from the pooled histogram, and
 * the other tasks are merged by pid, largest first.  Also the loader's
 * switch that simulates a machine where explain cannot run.
 */
#include <math.h>
#include <stdlib.h>

#include "explain/explain_abi.h"
#include "ipcperf/explain.h"
#include "../tap.h"
#include "explain/lib_internal.h"

static struct ipc_explain_counts *counts_new(void)
{
	struct ipc_explain_counts *c = calloc(1, sizeof(*c));

	if (!c)
		abort();
	return c;
}

static const struct ipc_xphase *find(const struct ipc_explain_result *r,
				     const char *side, const char *name)
{
	for (size_t i = 0; i < r->nphases; i++)
		if (!strcmp(r->phases[i].side, side) &&
		    !strcmp(r->phases[i].name, name))
			return &r->phases[i];
	return NULL;
}

static double phases_sum(const struct ipc_explain_result *r)
{
	double s = 0;

	for (size_t i = 0; i < r->nphases; i++)
		s += r->phases[i].ns;
	return s;
}

/*
 * One run of 1000 round trips, 10 µs each as measured: the client's
 * time is user 2 µs, send 1 µs, receive 1 µs, asleep 5 µs of which the
 * kernel saw the server cover 4.5 µs (its 1 µs user, 0.5 µs send, 3 µs
 * wake-up: 0.5 µs of the sleep are left as the client's), and a softirq
 * of 0.1 µs; 0.9 µs of the measured mean are not seen at all.
 */
static void one_run(struct ipc_explain_counts *c, uint64_t scale)
{
	const uint64_t n = 1000 * scale;

	c->window_ns = 9600 * n;
	c->ns[IPC_XCLIENT][XA_USER] = 2000 * n;
	c->ns[IPC_XCLIENT][XA_SEND] = 1000 * n;
	c->ns[IPC_XCLIENT][XA_RECV] = 1000 * n;
	c->ns[IPC_XCLIENT][XA_BLOCKED] = 500 * n;
	c->ns[IPC_XCLIENT][XA_SOFTIRQ0 + 3] = 60 * n;
	c->ns[IPC_XSERVER][XA_SOFTIRQ0 + 3] = 40 * n;
	c->ns[IPC_XSERVER][XA_USER] = 1000 * n;
	c->ns[IPC_XSERVER][XA_SEND] = 500 * n;
	c->ns[IPC_XSERVER][XA_RUNQ] = 3000 * n;
	c->events[IPC_XSERVER][XA_RUNQ] = 1000;
}

static void test_adds_up(void)
{
	struct ipc_explain_result *r = ipc_explain_result_new();
	struct ipc_explain_counts *c = counts_new();
	const struct ipc_xphase *p, *u;

	one_run(c, 1);
	ok(r && r->available, "a new explanation is available");
	is_int(ipc_explain_add(r, c, 1000, 10000 * 1000), "==", 0, "add");
	ipc_explain_finish(r);
	is_near(r->measured_ns, 10000, 1e-12, "measured: elapsed / trips");
	is_near(r->sum_ns, 9100, 1e-12, "sum: client and server phases");
	is_near(phases_sum(r), r->measured_ns, 1e-12,
		"every phase, unexplained too, adds up to the measured mean");
	u = &r->phases[r->nphases - 1];
	is_str(u->name, "unexplained", "the residue is the last phase");
	is_near(u->ns, 900, 1e-12, "unexplained: measured - sum");
	is_near(u->share, 0.09, 1e-12, "its share of the mean");
	ok(find(r, "client", "blocked") &&
		   fabs(find(r, "client", "blocked")->ns - 500) < 1e-9,
	   "what the server did not cover of the sleep stays the client's");
	p = find(r, "kernel", "softirq NET_RX");
	ok(p && fabs(p->ns - 100) < 1e-9,
	   "a softirq is the kernel's, summed over both sides");
	p = find(r, "server", "send");
	ok(p && fabs(p->share - 0.05) < 1e-12, "share of the measured mean");
	is_near(r->window_ns, 9600, 1e-12, "the kernel's window per trip");
	ipc_explain_result_free(r);
	free(c);
}

static void test_no_server(void)
{
	struct ipc_explain_result *r = ipc_explain_result_new();
	struct ipc_explain_counts *c = counts_new();

	c->ns[IPC_XCLIENT][XA_USER] = 1000;
	c->ns[IPC_XCLIENT][XA_BLOCKED] = 9000;
	ipc_explain_add(r, c, 1, 10000);
	ipc_explain_finish(r);
	ok(find(r, "client", "blocked") != NULL,
	   "without a watched server the client's sleep is a phase");
	is_near(phases_sum(r), 10000, 1e-12, "and it adds up");
	ipc_explain_result_free(r);
	free(c);
}

/* Three runs: the phases are the median run's, not a mix. */
static void test_median(void)
{
	struct ipc_explain_result *r = ipc_explain_result_new();
	struct ipc_explain_counts *c = counts_new();
	const uint64_t means[] = {30000, 10000, 20000};

	for (int i = 0; i < 3; i++) {
		memset(c, 0, sizeof(*c));
		c->ns[IPC_XCLIENT][XA_USER] = means[i] * 100;
		ipc_explain_add(r, c, 100, means[i] * 100);
	}
	ipc_explain_finish(r);
	is_near(r->measured_ns, 20000, 1e-12, "measured: the median run");
	is_near(find(r, "client", "user")->ns, 20000, 1e-12,
		"its phases are that run's");
	is_near(r->phases[r->nphases - 1].ns, 0, 1e-12, "nothing left over");
	/* A fourth run: the mean of the two middle ones. */
	c->ns[IPC_XCLIENT][XA_USER] = 0;
	c->ns[IPC_XCLIENT][XA_SEND] = 40000 * 100;
	ipc_explain_add(r, c, 100, 40000 * 100);
	ipc_explain_finish(r);
	is_near(r->measured_ns, 25000, 1e-12, "even runs: the middle two");
	is_near(phases_sum(r), 25000, 1e-12, "their phases add up to it");
	ipc_explain_result_free(r);
	free(c);
}

static void test_p99_others(void)
{
	struct ipc_explain_result *r = ipc_explain_result_new();
	struct ipc_explain_counts *c = counts_new();
	const struct ipc_xphase *p;

	c->ns[IPC_XSERVER][XA_RUNQ] = 1000;
	c->bucket[IPC_XSERVER][XA_RUNQ][20] = 98; /* 98 short waits */
	c->bucket[IPC_XSERVER][XA_RUNQ][40] = 2;  /* 2 long ones */
	c->nothers = 2;
	snprintf(c->others[0].comm, 16, "kworker/1:2");
	c->others[0].pid = 77;
	c->others[0].ns = 500;
	c->others[0].runq_ns[IPC_XSERVER] = 300;
	snprintf(c->others[1].comm, 16, "hog");
	c->others[1].pid = 99;
	c->others[1].ns = 100;
	ipc_explain_add(r, c, 10, 10000);
	c->others[1].ns = 1000; /* the hog grows in a second run */
	c->nothers = 2;
	ipc_explain_add(r, c, 10, 10000);
	ipc_explain_finish(r);
	p = find(r, "server", "wake-up: run queue");
	ok(p != NULL, "the run-queue phase is there");
	is_uint((uint64_t)p->p99_ns, "==", ipc_explain_bucket_ns(40),
		"p99 of 98 short and 2 long: the long bucket's bound");
	is_str(p->behind, "kworker/1:2 (pid 77)",
	       "a run-queue wait names the task it waited behind");
	is_int(r->nothers, "==", 2, "others merged by pid");
	is_str(r->others[0].comm, "hog", "largest first");
	is_near(r->others[0].ns, 55, 1e-12, "others: ns per round trip");
	ok(!find(r, "client", "user"), "an empty phase is left out");
	ipc_explain_result_free(r);
	free(c);
}

/*
 * A remote server's phase has its runs' p99s, not their histograms: the
 * largest is taken (no run had more than 1% of its events above it, so
 * neither had the pool), and a histogram, where there is one, wins.
 */
static void test_known_p99(void)
{
	struct ipc_explain_result *r = ipc_explain_result_new();
	struct ipc_explain_counts *c = counts_new();
	const struct ipc_xphase *p;

	c->ns[IPC_XSERVER][XA_RECV] = 1000;
	c->ns[IPC_XSERVER][XA_SEND] = 1000;
	c->ns[IPC_XCLIENT][XA_SEND] = 1000;
	c->bucket[IPC_XCLIENT][XA_SEND][20] = 10;
	c->p99_ns[IPC_XSERVER][XA_RECV] = 700;
	c->p99_ns[IPC_XCLIENT][XA_SEND] = 5;
	ipc_explain_add(r, c, 10, 10000);
	c->p99_ns[IPC_XSERVER][XA_RECV] = 900;
	ipc_explain_add(r, c, 10, 10000);
	c->p99_ns[IPC_XSERVER][XA_RECV] = 800;
	ipc_explain_add(r, c, 10, 10000);
	ipc_explain_finish(r);
	p = find(r, "server", "receive");
	ok(p && p->p99_ns == 900, "a sent p99: the largest of the runs'");
	p = find(r, "server", "send");
	ok(p && p->p99_ns < 0, "none sent, no histogram: no p99");
	p = find(r, "client", "send");
	ok(p && p->p99_ns == (double)ipc_explain_bucket_ns(20),
	   "a histogram's p99 wins over a sent one");
	ipc_explain_result_free(r);
	free(c);
}

static void test_buckets(void)
{
	uint64_t prev = 0;
	bool rising = true;

	for (unsigned b = 1; b < IPC_XBUCKETS; b++) {
		rising &= ipc_explain_bucket_ns(b) > prev;
		prev = ipc_explain_bucket_ns(b);
	}
	ok(rising, "bucket bounds rise");
	is_uint(ipc_explain_bucket_ns(3), "==", 3, "small values exact");
	is_uint(ipc_explain_bucket_ns(4), "==", 4, "4 has its own bucket");
	is_uint(ipc_explain_bucket_ns(8), "==", 9, "8..9 share one");
}

static void test_unavailable(void)
{
	struct ipc_explain *x = (struct ipc_explain *)1;
	struct ipc_explain_result *r = ipc_explain_result_new();
	char why[160];

	setenv("IPCPERF_EXPLAIN_OFF", "1", 1);
	ok(ipc_explain_open(&x, why, sizeof(why)) < 0 && !x,
	   "the switch makes opening fail");
	ok(strstr(why, "IPCPERF_EXPLAIN_OFF") ||
		   strstr(why, "built without explain"),
	   "and says why: %s", why);
	unsetenv("IPCPERF_EXPLAIN_OFF");
	ipc_explain_unavailable(r, why);
	ipc_explain_finish(r);
	ok(!r->available && !r->nphases, "unavailable: no phases");
	ipc_explain_result_free(r);
	ipc_explain_result_free(NULL);
	ipc_explain_free(NULL);
}

int main(void)
{
	test_adds_up();
	test_no_server();
	test_median();
	test_p99_others();
	test_known_p99();
	test_buckets();
	test_unavailable();
	return done_testing();
}
