/* SPDX-License-Identifier: MIT */
/*
 * Runs as objects the caller owns: two plans at once in one process, each
 * with peers of both placements, one stopped while the other measures (the
 * other must not notice); a stop before a plan begins; the external peer
 * against servers this test opens; and nothing left behind (descriptors,
 * threads, processes, files).
 */
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipcperf/run.h"

#include "../helpers.h"
#include "../tap.h"
#include "run/lib_internal.h"

/* Iterations of each run of the plan that must not be disturbed. */
#define UNDISTURBED_N 20000u

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* What a plan's done hook keeps of one case. */
struct got {
	enum ipc_status status;
	enum ipc_stop stop;
	char error[512];
	size_t nruns;
	uint64_t iters[4]; /* of the first runs */
	uint64_t total;
	bool server_cost;
	uint64_t done_ns; /* when the case was reported */
};

/* One plan in a thread of its own, with hooks the main thread follows. */
struct plan {
	const char *name;
	struct ipc_run *run;
	struct ipc_case cases[2];
	struct ipc_runopts ros[2];
	size_t n;
	struct got got[2];
	int rc;
	uint64_t end_ns;
	/* started runs so far; a gate before run number gate_at */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned started;
	int started_case; /* case of the latest run started */
	unsigned gate_at; /* 0: no gate */
	bool gate_open;
};

static void on_started(void *arg, size_t i, const struct ipc_result *res)
{
	struct plan *p = arg;

	(void)res;
	pthread_mutex_lock(&p->mu);
	p->started++;
	p->started_case = (int)i;
	pthread_cond_broadcast(&p->cv);
	while (p->gate_at && p->started == p->gate_at && !p->gate_open)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

static int on_done(void *arg, size_t i, const struct ipc_result *res)
{
	struct plan *p = arg;
	struct got *g = &p->got[i];

	g->status = res->status;
	g->stop = res->diag.stop;
	snprintf(g->error, sizeof(g->error), "%s", res->error);
	g->nruns = res->nruns;
	for (size_t r = 0; r < res->nruns && r < 4; r++)
		g->iters[r] = res->runs[r].iterations;
	for (size_t r = 0; r < res->nruns; r++)
		g->total += res->runs[r].iterations;
	g->server_cost = res->nruns && res->runs[0].server.valid;
	g->done_ns = now_ns();
	return 0;
}

static void *plan_thread(void *arg)
{
	struct plan *p = arg;
	struct ipc_plan_hooks hooks = {
		.arg = p, .started = on_started, .done = on_done};

	p->rc = ipc_run_plan(p->run, p->cases, p->ros, p->n, &hooks);
	p->end_ns = now_ns();
	return NULL;
}

/* Wait until @p started @n runs (or a run of case @c, if c >= 0). */
static bool wait_started(struct plan *p, unsigned n, int c)
{
	struct timespec until;
	bool met;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 60;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		met = c >= 0 ? p->started_case == c : p->started >= n;
		if (met || pthread_cond_timedwait(&p->cv, &p->mu, &until))
			break;
	}
	pthread_mutex_unlock(&p->mu);
	return met;
}

static void gate_open(struct plan *p)
{
	pthread_mutex_lock(&p->mu);
	p->gate_open = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* rr of 64-byte messages, blocking engine, on @tp with @placement. */
static void rr_case(struct plan *p, size_t i, const char *tp,
		    enum ipc_placement placement, uint64_t iterations,
		    uint64_t duration_ns, unsigned runs)
{
	struct ipc_case *cs = &p->cases[i];
	struct ipc_runopts *ro = &p->ros[i];

	memset(cs, 0, sizeof(*cs));
	cs->pat = ipc_pattern_find("rr");
	cs->tp = ipc_transport_find(tp);
	cs->eng = ipc_engine_find("blocking");
	cs->req_size = 64;
	cs->resp_size = 64;
	ipc_runopts_default(ro);
	ro->runs_auto = false;
	ro->runs = runs;
	ro->interleave = false;
	ro->warmup = 100;
	ro->iterations = iterations;
	ro->duration_ns = duration_ns;
	ro->placement = placement;
	p->n = i + 1;
}

static int plan_init(struct plan *p, const char *name)
{
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->started_case = -1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	return ipc_run_new(&p->run);
}

static void plan_fini(struct plan *p, char *dir, size_t len)
{
	snprintf(dir, len, "%s", p->run ? ipc_run_dir(p->run) : "");
	ipc_run_free(p->run);
	p->run = NULL;
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
}

/*
 * Two plans at once.  A: rr over unix-dgram with a forked peer (short),
 * then rr over fifo with a thread peer for 20 s, stopped 150 ms into it.
 * B: rr over pipe with a thread peer and over unix-dgram with a forked
 * peer, 3 runs of UNDISTURBED_N each; its last run is held back until A
 * measures, and A is stopped while that run measures.  A must end soon,
 * with what it measured marked partial; B must not notice.
 */
static void two_plans(void)
{
	/*
	 * valgrind checks a forked child for leaks when it exits, and in a
	 * child of a many-threaded process every block only the other
	 * threads' stacks pointed to is "lost": the peer exits 99.  Under
	 * SAN=1 a peer forked while the other plan's thread is inside
	 * AddressSanitizer's allocator (which has no fork handler, unlike
	 * glibc's) inherits its lock held and hangs.  There, both peers
	 * are threads; killed_peer forks from one thread.
	 */
	enum ipc_placement forked =
		getenv("VALGRIND") ||
				(getenv("SAN") && !strcmp(getenv("SAN"), "1"))
			? IPC_PLACE_THREAD
			: IPC_PLACE_PROCESS;
	struct plan a, b;
	pthread_t ta, tb;
	uint64_t t_stop;
	char dir_a[256], dir_b[256];
	struct stat st;
	bool ok_a, ok_b;

	if (plan_init(&a, "A") || plan_init(&b, "B")) {
		ok(0, "two plans: make two runs");
		return;
	}
	ok(strcmp(ipc_run_dir(a.run), ipc_run_dir(b.run)),
	   "two runs, two directories (%s, %s)", ipc_run_dir(a.run),
	   ipc_run_dir(b.run));
	rr_case(&a, 0, "unix-dgram", forked, 3000, 0, 1);
	rr_case(&a, 1, "fifo", IPC_PLACE_THREAD, 0, 20000000000ull, 1);
	rr_case(&b, 0, "pipe", IPC_PLACE_THREAD, UNDISTURBED_N, 0, 3);
	rr_case(&b, 1, "unix-dgram", forked, UNDISTURBED_N, 0, 3);
	b.gate_at = 6;
	ok_a = !pthread_create(&ta, NULL, plan_thread, &a);
	ok_b = !pthread_create(&tb, NULL, plan_thread, &b);
	if (!ok_a || !ok_b) {
		ok(0, "two plans: start their threads");
		exit(1);
	}
	ok(wait_started(&a, 0, 1), "A: its second case (fifo, thread) began");
	sleep_ms(150); /* A measures now */
	gate_open(&b);
	ok(wait_started(&b, 6, -1), "B: its last run began");
	sleep_ms(20); /* B measures now */
	t_stop = now_ns();
	ipc_run_stop(a.run, SIGINT);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);

	ok(a.end_ns - t_stop < 2000000000ull, "A: ends %llu ms after its stop",
	   (unsigned long long)((a.end_ns - t_stop) / 1000000));
	is_int(a.rc, "==", 1, "A: the plan says a case did not complete");
	is_int(a.got[0].status, "==", IPC_STATUS_OK,
	       "A: the case before the stop is ok (%s)", a.got[0].error);
	is_int(a.got[0].total, "==", 3000, "A: with all its iterations");
	ok(a.got[0].server_cost, "A: its peer's cost came back");
	is_int(a.got[1].status, "==", IPC_STATUS_PARTIAL,
	       "A: the stopped case is partial (%s)", a.got[1].error);
	ok(strstr(a.got[1].error, "interrupted by SIGINT") != NULL,
	   "A: and says it was interrupted by SIGINT");
	ok(a.got[1].nruns == 1 && a.got[1].total > 0,
	   "A: what it measured is kept (%llu iterations)",
	   (unsigned long long)a.got[1].total);
	is_int(a.got[1].stop, "==", IPC_STOP_INTERRUPTED,
	       "A: its runs ended by the interruption");

	is_int(b.rc, "==", 0, "B: the plan completes");
	ok(b.got[1].done_ns > t_stop,
	   "B: its last run measured through A's stop (%llu ms after it)",
	   (unsigned long long)((b.got[1].done_ns - t_stop) / 1000000));
	for (int i = 0; i < 2; i++) {
		const char *what = i ? "unix-dgram, 2nd" : "pipe, thread";

		is_int(b.got[i].status, "==", IPC_STATUS_OK, "B: %s is ok (%s)",
		       what, b.got[i].error);
		is_int(b.got[i].nruns, "==", 3, "B: %s has its 3 runs", what);
		ok(b.got[i].iters[0] == UNDISTURBED_N &&
			   b.got[i].iters[1] == UNDISTURBED_N &&
			   b.got[i].iters[2] == UNDISTURBED_N,
		   "B: %s: every run has all %u iterations (%llu %llu %llu)",
		   what, UNDISTURBED_N, (unsigned long long)b.got[i].iters[0],
		   (unsigned long long)b.got[i].iters[1],
		   (unsigned long long)b.got[i].iters[2]);
		is_int(b.got[i].stop, "==", IPC_STOP_RUNS,
		       "B: %s ended by its run count", what);
	}
	ok(!ipc_run_stopped(b.run), "B: was never stopped");
	plan_fini(&a, dir_a, sizeof(dir_a));
	plan_fini(&b, dir_b, sizeof(dir_b));
	ok(stat(dir_a, &st) < 0 && stat(dir_b, &st) < 0,
	   "both runs' directories are gone");
}

/* A run stopped before its plan: nothing runs, each case says why. */
static void stopped_first(void)
{
	struct plan p;
	char dir[256];
	uint64_t t0;

	if (plan_init(&p, "stopped")) {
		ok(0, "stopped first: make a run");
		return;
	}
	rr_case(&p, 0, "pipe", IPC_PLACE_PROCESS, 1000, 0, 2);
	rr_case(&p, 1, "unix", IPC_PLACE_THREAD, 1000, 0, 2);
	ipc_run_stop(p.run, SIGTERM);
	ipc_run_stop(p.run, SIGINT); /* the first cause stays */
	t0 = now_ns();
	plan_thread(&p);
	ok(p.end_ns - t0 < 1000000000u,
	   "stopped first: the plan returns at once");
	is_int(p.rc, "==", 1, "stopped first: and says so");
	for (int i = 0; i < 2; i++) {
		is_int(p.got[i].nruns, "==", 0,
		       "stopped first: case %d ran nothing", i);
		is_str(p.got[i].error, "not run: interrupted by SIGTERM",
		       "stopped first: case %d says why", i);
	}
	is_int(p.started, "==", 0, "stopped first: no run was started");
	plan_fini(&p, dir, sizeof(dir));
}

/* Kills the first child of thread @tid it finds, 300 ms after it appears. */
struct killer {
	pid_t tid;
	pid_t killed;
};

static void *kill_child(void *arg)
{
	struct killer *k = arg;
	char path[64];
	FILE *f;
	int pid = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", k->tid);
	for (int i = 0; i < 2000 && pid <= 0; i++) {
		f = fopen(path, "re");
		if (!f || fscanf(f, "%d", &pid) != 1)
			pid = 0;
		if (f)
			fclose(f);
		if (pid <= 0)
			sleep_ms(5);
	}
	if (pid > 0) {
		sleep_ms(300);
		kill(pid, SIGKILL);
		k->killed = pid;
	}
	return NULL;
}

/*
 * A forked peer killed in the middle of a run over unix-dgram, where
 * nothing but the peer's death says the answer will not come: the case
 * ends soon, partial, naming the death; the next case of the same run
 * (whose stop the death fired) measures normally.
 */
static void killed_peer(void)
{
	struct killer k = {.tid = gettid()};
	struct plan p;
	pthread_t t;
	char dir[256];
	uint64_t t0;

	if (plan_init(&p, "killed")) {
		ok(0, "killed peer: make a run");
		return;
	}
	rr_case(&p, 0, "unix-dgram", IPC_PLACE_PROCESS, 0, 20000000000ull, 1);
	rr_case(&p, 1, "pipe", IPC_PLACE_PROCESS, 2000, 0, 1);
	if (pthread_create(&t, NULL, kill_child, &k)) {
		ok(0, "killed peer: start the killer");
		plan_fini(&p, dir, sizeof(dir));
		return;
	}
	t0 = now_ns();
	plan_thread(&p);
	pthread_join(t, NULL);
	ok(k.killed > 0, "killed peer: the peer process %d was killed",
	   (int)k.killed);
	ok(p.got[0].done_ns - t0 < 5000000000ull,
	   "killed peer: the case ended %llu ms after it began, not 20 s",
	   (unsigned long long)((p.got[0].done_ns - t0) / 1000000));
	is_int(p.got[0].status, "==", IPC_STATUS_PARTIAL,
	       "killed peer: partial (%s)", p.got[0].error);
	ok(strstr(p.got[0].error, "peer killed by signal 9") != NULL,
	   "killed peer: the error names the death");
	is_int(p.got[1].status, "==", IPC_STATUS_OK,
	       "killed peer: the next case is ok (%s)", p.got[1].error);
	is_int(p.got[1].total, "==", 2000,
	       "killed peer: with all its iterations");
	ok(!ipc_run_stopped(p.run),
	   "killed peer: the run itself was not stopped");
	plan_fini(&p, dir, sizeof(dir));
}

/* ---- the external peer ---------------------------------------------- */

/* A foreign echo server: what it is sent comes back, byte for byte. */
struct echo {
	int fd; /* listening TCP socket, or the UDP socket */
	bool udp;
	volatile int quit;
	unsigned conns; /* TCP connections served */
	uint64_t bytes;
};

static void *echo_thread(void *arg)
{
	struct echo *e = arg;
	struct pollfd pfd = {.fd = e->fd, .events = POLLIN};
	struct sockaddr_storage from;
	socklen_t flen;
	char buf[65536];
	ssize_t n;
	int c;

	while (!e->quit) {
		if (poll(&pfd, 1, 20) <= 0)
			continue;
		if (e->udp) {
			flen = sizeof(from);
			n = recvfrom(e->fd, buf, sizeof(buf), 0,
				     (struct sockaddr *)&from, &flen);
			if (n >= 0 &&
			    sendto(e->fd, buf, (size_t)n, 0,
				   (struct sockaddr *)&from, flen) == n)
				e->bytes += (uint64_t)n;
			continue;
		}
		c = accept(e->fd, NULL, NULL);
		if (c < 0)
			continue;
		e->conns++;
		while ((n = read(c, buf, sizeof(buf))) > 0)
			if (write(c, buf, (size_t)n) != n)
				break;
			else
				e->bytes += (uint64_t)n;
		close(c);
	}
	return NULL;
}

/* A server on 127.0.0.1 (or ::1) at a port the kernel picks: "HOST:PORT". */
static int echo_open(struct echo *e, int family, bool udp, char *target,
		     size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	memset(e, 0, sizeof(*e));
	memset(&ss, 0, sizeof(ss));
	e->udp = udp;
	ss.ss_family = (sa_family_t)family;
	if (family == AF_INET)
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else
		sin6->sin6_addr = in6addr_loopback;
	e->fd = socket(family, udp ? SOCK_DGRAM : SOCK_STREAM, 0);
	if (e->fd < 0 ||
	    bind(e->fd, (struct sockaddr *)&ss,
		 family == AF_INET ? sizeof(*sin) : sizeof(*sin6)) < 0 ||
	    (!udp && listen(e->fd, 8) < 0) ||
	    getsockname(e->fd, (struct sockaddr *)&ss, &sl) < 0) {
		if (e->fd >= 0)
			close(e->fd);
		return -1;
	}
	if (family == AF_INET)
		snprintf(target, len, "127.0.0.1:%u", ntohs(sin->sin_port));
	else
		snprintf(target, len, "[::1]:%u", ntohs(sin6->sin6_port));
	return 0;
}

/*
 * rr against a server this test opened: no peer started, the client
 * connects to the address the case carries; runs ok, every payload checked
 * (an echo answers each request with itself, which is what rr expects of
 * equal sizes), the server's cost unknown.
 */
static void external(const char *tp, int family, bool udp)
{
	struct plan p;
	struct echo e;
	char target[64], dir[256];
	pthread_t t;

	if (echo_open(&e, family, udp, target, sizeof(target))) {
		skip("external %s: cannot open a server here", tp);
		return;
	}
	if (plan_init(&p, "external")) {
		ok(0, "external %s: make a run", tp);
		close(e.fd);
		return;
	}
	rr_case(&p, 0, tp, IPC_PLACE_PROCESS, 2000, 0, 2);
	p.cases[0].peer = &ipc_peer_external;
	p.cases[0].target = target;
	pthread_create(&t, NULL, echo_thread, &e);
	plan_thread(&p);
	e.quit = 1;
	pthread_join(t, NULL);
	close(e.fd);
	is_int(p.got[0].status, "==", IPC_STATUS_OK, "external %s %s: ok (%s)",
	       tp, target, p.got[0].error);
	ok(p.got[0].nruns == 2 && p.got[0].iters[0] == 2000 &&
		   p.got[0].iters[1] == 2000,
	   "external %s: 2 runs of 2000 round trips", tp);
	if (!udp)
		is_int(e.conns, "==", 2,
		       "external %s: one connection per run, none more", tp);
	ok(e.bytes == 2 * 2100 * 64, /* 2 runs of 100 warm-up + 2000 */
	   "external %s: the server echoed %llu bytes", tp,
	   (unsigned long long)e.bytes);
	ok(!p.got[0].server_cost, "external %s: its cost is not ours to know",
	   tp);
	plan_fini(&p, dir, sizeof(dir));
}

/* What the external peer refuses, before any run, with a reason. */
static void external_refused(void)
{
	static const struct {
		const char *tp, *target, *why;
	} bad[] = {
		{"tcp", "127.0.0.1", "not HOST:PORT"},
		{"tcp", NULL, "needs its address"},
		{"pipe", "127.0.0.1:80", "cannot reach a server"},
		{"tcp6", "[::1]:http-nonexistent-service", "cannot resolve"},
	};
	struct plan p;
	char dir[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (plan_init(&p, "refused")) {
			ok(0, "external refused: make a run");
			return;
		}
		rr_case(&p, 0, bad[i].tp, IPC_PLACE_PROCESS, 10, 0, 1);
		p.cases[0].peer = &ipc_peer_external;
		p.cases[0].target = bad[i].target;
		plan_thread(&p);
		ok(p.got[0].status == IPC_STATUS_ERROR &&
			   strstr(p.got[0].error, bad[i].why),
		   "external %s %s: refused, %s", bad[i].tp,
		   bad[i].target ? bad[i].target : "(none)", p.got[0].error);
		plan_fini(&p, dir, sizeof(dir));
	}
}

int main(void)
{
	char tmp[256];
	int fds0, threads0, fds1, threads1;

	alarm(300);
	signal(SIGPIPE, SIG_IGN);
	if (tmpdir_make("run", tmp, sizeof(tmp))) {
		printf("1..0 # skip cannot make %s\n", tmp);
		return 77;
	}
	setenv("TMPDIR", tmp, 1); /* the runs' directories go in here */
	fds0 = count_fds();
	threads0 = count_files("/proc/self/task");
	two_plans();
	stopped_first();
	killed_peer();
	external("tcp", AF_INET, false);
	external("udp", AF_INET, true);
	external("tcp6", AF_INET6, false);
	external_refused();
	fds1 = count_fds();
	/*
	 * pthread_join returns once the kernel clears the thread's id, a
	 * moment before it drops the thread from /proc/self/task: give a
	 * joined thread up to a second to go; one left running stays.
	 */
	for (int i = 0; i < 100; i++) {
		threads1 = count_files("/proc/self/task");
		if (threads1 <= threads0)
			break;
		usleep(10000);
	}
	is_int(fds1, "==", fds0, "no descriptor left open");
	is_int(threads1, "==", threads0, "no thread left running");
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD,
	   "no child process left, reaped or not");
	is_int(tmpdir_remove(tmp), "==", 0, "nothing left in TMPDIR");
	return done_testing();
}
