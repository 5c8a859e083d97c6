/*
 * What the runner needs from the system around a measurement: signal
 * handling that lets a run end cleanly, the private directory for FIFOs and
 * socket files, the cost of reading the clock, and facts about the host.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "run_internal.h"

volatile sig_atomic_t ipc_interrupted;
volatile sig_atomic_t run_stop;
volatile sig_atomic_t peer_stop;

/* Set while the client's loop runs (run_wake_begin .. run_wake_end). */
static volatile sig_atomic_t run_active;

/*
 * A stop that lands between the loop's last look at run_stop and a
 * blocking receive is lost: the receive then waits for a reply that will
 * never come (a dead peer on unix-dgram, which has no timeout).  So while
 * the loop runs, a stop is repeated: SIGALRM every 10 ms, which interrupts
 * the receive (no SA_RESTART) until the loop has seen run_stop.
 * setitimer is a plain system call, safe in a handler on Linux.
 */
static void wake_every_10ms(void)
{
	struct itimerval it = {.it_interval = {0, 10000},
			       .it_value = {0, 10000}};

	setitimer(ITIMER_REAL, &it, NULL);
}

static void on_alarm(int sig)
{
	(void)sig;	      /* there to interrupt a blocked call */
	ipc_tp_signal_note(); /* and a wait in user space (shm) */
}

void run_wake_begin(void)
{
	run_active = 1;
	if (run_stop)
		wake_every_10ms();
}

void run_wake_end(void)
{
	struct itimerval off = {{0, 0}, {0, 0}};

	run_active = 0;
	setitimer(ITIMER_REAL, &off, NULL);
}

/*
 * Each handler also counts the signal for transports that wait in user
 * space (shm): no system call returns EINTR to them.
 */
static void on_interrupt(int sig)
{
	ipc_interrupted = sig;
	run_stop = 1;
	ipc_tp_signal_note();
	if (run_active)
		wake_every_10ms();
}

static void on_peer_gone(int sig)
{
	(void)sig;
	run_stop = 1;
	ipc_tp_signal_note();
	if (run_active)
		wake_every_10ms();
}

static void on_stop(int sig)
{
	(void)sig;
	peer_stop = 1;
	ipc_tp_signal_note();
}

static int handle(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags; /* no SA_RESTART: a blocked call must return */
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL) ? -errno : 0;
}

int ipc_signals_install(void)
{
	int err = 0;

	err = err ?: handle(SIGINT, on_interrupt, 0);
	err = err ?: handle(SIGTERM, on_interrupt, 0);
	err = err ?: handle(SIGHUP, on_interrupt, 0);
	err = err ?: handle(SIGCHLD, on_peer_gone, SA_NOCLDSTOP);
	err = err ?: handle(SIGUSR2, on_peer_gone, 0);
	err = err ?: handle(SIGUSR1, on_stop, 0);
	err = err ?: handle(SIGPIPE, SIG_IGN, 0);
	err = err ?: handle(SIGALRM, on_alarm, 0);
	return err;
}

void run_signals_peer_process(void)
{
	handle(SIGINT, SIG_IGN, 0); /* the parent decides when we stop */
	handle(SIGHUP, SIG_IGN, 0);
	handle(SIGTERM, SIG_DFL, 0);
	handle(SIGCHLD, SIG_DFL, 0);
	handle(SIGUSR2, SIG_DFL, 0);
	handle(SIGUSR1, on_stop, 0);
	handle(SIGPIPE, SIG_IGN, 0);
	handle(SIGALRM, SIG_IGN, 0); /* the client's wake-up, not ours */
}

static char tmpdir[256];

int ipc_tmpdir_create(void)
{
	const char *base = getenv("TMPDIR");

	if (tmpdir[0])
		return 0;
	if (!base || !*base)
		base = "/tmp";
	if ((size_t)snprintf(tmpdir, sizeof(tmpdir), "%s/ipcperf.XXXXXX",
			     base) >= sizeof(tmpdir) - 40) {
		tmpdir[0] = '\0';
		return -ENAMETOOLONG; /* socket paths must fit in 108 bytes */
	}
	if (!mkdtemp(tmpdir)) {
		int err = -errno;

		tmpdir[0] = '\0';
		return err;
	}
	return 0;
}

const char *ipc_tmpdir(void)
{
	return tmpdir;
}

/*
 * Remove the directory and whatever a failed teardown left in it.  Only
 * from the process that made it: a forked peer leaves with _exit.
 */
void ipc_tmpdir_remove(void)
{
	DIR *d;
	struct dirent *e;

	if (!tmpdir[0])
		return;
	d = opendir(tmpdir);
	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(tmpdir);
	tmpdir[0] = '\0';
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * 31 rounds of 64 back-to-back reads; the median round's average is the
 * cost.  About 2000 reads at ~20 ns: well under a millisecond.
 */
uint64_t ipc_timer_cost_ns(void)
{
	enum { ROUNDS = 31, READS = 64 };
	uint64_t r[ROUNDS], t0, t1 = 0;

	for (int i = 0; i < ROUNDS; i++) {
		t0 = ipc_now_ns();
		for (int k = 0; k < READS; k++)
			t1 = ipc_now_ns();
		r[i] = (t1 - t0) / READS;
	}
	qsort(r, ROUNDS, sizeof(r[0]), cmp_u64);
	return r[ROUNDS / 2];
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512], *p;

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10))
			continue;
		p = strchr(line, ':');
		if (!p)
			break;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		p[strcspn(p, "\n")] = '\0';
		snprintf(buf, len, "%s", p);
		break;
	}
	fclose(f);
}

void ipc_host_probe(struct ipc_host *h)
{
	struct utsname u;

	memset(h, 0, sizeof(*h));
	if (!uname(&u)) {
		snprintf(h->kernel, sizeof(h->kernel), "%s %s", u.sysname,
			 u.release);
		snprintf(h->machine, sizeof(h->machine), "%s", u.machine);
		snprintf(h->hostname, sizeof(h->hostname), "%s", u.nodename);
	}
	cpu_model(h->cpu_model, sizeof(h->cpu_model));
	h->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	h->timer_ns = ipc_timer_cost_ns();
	host_fingerprint(h);
}

void ipc_runopts_default(struct ipc_runopts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->iterations = 10000;
	ro->warmup = 1000;
	ro->runs = 3;
	ro->placement = IPC_PLACE_PROCESS;
	ro->verify = true;
	ro->timeout_ns = 1000000000ull;
	ro->pin_client = -1;
	ro->pin_server = -1;
	ro->tp.nodelay = true;
	ro->runs_auto = true;
	ro->min_runs = IPC_MIN_RUNS;
	ro->max_runs = IPC_MAX_RUNS_DEFAULT;
	ro->ci_level = 0.95;
	ro->ci_pct = 1.0;
	ro->budget_ns = 60 * 1000000000ull;
	ro->interleave = true;
}
