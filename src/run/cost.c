/* SPDX-License-Identifier: MIT */
/*
 * What a run cost besides time: each side's CPU time, context switches and
 * CPU migrations, and with --perf, where perf events may be read, cycles
 * and instructions; and how busy the whole machine was meanwhile, to tell
 * another load from our own.  Everything here runs outside the timed loops.
 *
 * Why perf counters are not on by default: a thread with a perf event
 * attached makes every one of its context switches do the event's
 * bookkeeping, and a ping-pong switches twice per round trip on each side.
 * On the development VM a FIFO round trip went from 5.3 to 7.2 µs with
 * only a software counter (CPU migrations) attached.  The counts that are
 * free -- rusage, and migrations from /proc/thread-self/sched -- are
 * always taken.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "run_internal.h"

enum { EV_CYCLES, EV_INSTR, NEV };

static const struct {
	uint32_t type;
	uint64_t config;
	const char *name;
} events[NEV] = {
	[EV_CYCLES] = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles"},
	[EV_INSTR] = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
		      "instructions"},
};

/* Probed once per process: may each event be opened, and with the kernel? */
static struct {
	pthread_once_t once;
	bool usable[NEV];
	bool user_only
		[NEV]; /* perf_event_paranoid forbids counting the kernel */
	char note[200];
} probe = {.once = PTHREAD_ONCE_INIT};

static int perf_open(int ev, bool user_only)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = events[ev].type;
	a.config = events[ev].config;
	a.exclude_hv = 1;
	a.exclude_kernel = user_only;
	a.read_format =
		PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* This thread only, any CPU, counting from now. */
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* Append "WHAT: not counted (perf_event_open: ERR)" or the like. */
static void note_add(const char *what, bool usable, int err)
{
	size_t n = strlen(probe.note);

	if (n >= sizeof(probe.note) - 1)
		return;
	if (usable)
		snprintf(probe.note + n, sizeof(probe.note) - n,
			 "%s%s: user space only (perf_event_paranoid)",
			 n ? "; " : "", what);
	else
		snprintf(probe.note + n, sizeof(probe.note) - n,
			 "%s%s: not counted (perf_event_open: %s)",
			 n ? "; " : "", what, strerror(err));
}

static void do_probe(void)
{
	int ev, fd, err[NEV] = {0};

	for (ev = 0; ev < NEV; ev++) {
		fd = perf_open(ev, false);
		if (fd < 0 && (errno == EACCES || errno == EPERM)) {
			fd = perf_open(ev, true);
			probe.user_only[ev] = fd >= 0;
		}
		if (fd < 0) {
			err[ev] = errno;
			continue;
		}
		probe.usable[ev] = true;
		close(fd);
	}
	/* What is missing, said once for cycles and instructions alike. */
	if (probe.usable[EV_CYCLES] == probe.usable[EV_INSTR] &&
	    probe.user_only[EV_CYCLES] == probe.user_only[EV_INSTR] &&
	    err[EV_CYCLES] == err[EV_INSTR]) {
		if (!probe.usable[EV_CYCLES] || probe.user_only[EV_CYCLES])
			note_add("cycles and instructions",
				 probe.usable[EV_CYCLES], err[EV_CYCLES]);
	} else {
		for (ev = EV_CYCLES; ev <= EV_INSTR; ev++)
			if (!probe.usable[ev] || probe.user_only[ev])
				note_add(events[ev].name, probe.usable[ev],
					 err[ev]);
	}
}

/*
 * The calling thread's "se.nr_migrations" from /proc/thread-self/sched,
 * which the scheduler keeps whether anyone asks or not; -1 when the file
 * is not there (a kernel without CONFIG_SCHED_DEBUG).  Read with no
 * allocation (no stdio): a peer forked from a thread of a process whose
 * other threads allocate calls this first thing, where an allocator's
 * lock taken at the fork would never be let go.
 */
static int64_t migrations(void)
{
	static const char key[] = "\nse.nr_migrations";
	char buf[4096];
	ssize_t n;
	char *p, *colon;
	int fd = open("/proc/thread-self/sched", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, key);
	if (!p)
		return -1;
	colon = strchr(p + sizeof(key) - 1, ':');
	if (!colon || memchr(p + 1, '\n', (size_t)(colon - p - 1)))
		return -1;
	return strtoll(colon + 1, NULL, 10);
}

void cost_probe(bool *hw, bool *sw, char *note, size_t len)
{
	pthread_once(&probe.once, do_probe);
	*hw = probe.usable[EV_CYCLES] && probe.usable[EV_INSTR];
	*sw = migrations() >= 0;
	snprintf(note, len, "%s", probe.note);
}

/* A counter's value, scaled up if the kernel had to multiplex it. */
static int perf_value(int fd, uint64_t *v)
{
	uint64_t r[3]; /* value, time enabled, time running */

	if (read(fd, r, sizeof(r)) != (ssize_t)sizeof(r))
		return -1;
	if (r[2] && r[2] < r[1])
		r[0] = (uint64_t)((double)r[0] * (double)r[1] / (double)r[2]);
	*v = r[0];
	return 0;
}

void cost_begin(struct cost_meter *m, bool perf)
{
	int ev;

	if (perf)
		pthread_once(&probe.once, do_probe);
	for (ev = 0; ev < NEV; ev++) {
		m->fd[ev] = -1;
		if (!perf || !probe.usable[ev])
			continue;
		m->fd[ev] = perf_open(ev, probe.user_only[ev]);
		if (m->fd[ev] >= 0 && perf_value(m->fd[ev], &m->v0[ev])) {
			close(m->fd[ev]);
			m->fd[ev] = -1;
		}
	}
	m->migr = migrations();
	m->cpu = sched_getcpu();
	if (getrusage(RUSAGE_THREAD, &m->ru))
		memset(&m->ru, 0, sizeof(m->ru));
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ull +
	       (uint64_t)tv->tv_usec * 1000ull;
}

static uint64_t sub(uint64_t b, uint64_t a)
{
	return b > a ? b - a : 0;
}

/* "0-3,6": the CPUs in @set, as taskset -c writes them. */
static void cpu_list(const cpu_set_t *set, char *buf, size_t len)
{
	size_t n = 0;
	int cpu, end;

	buf[0] = '\0';
	for (cpu = 0; cpu < CPU_SETSIZE && n < len; cpu++) {
		if (!CPU_ISSET(cpu, set))
			continue;
		for (end = cpu;
		     end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, set); end++)
			;
		if (end == cpu)
			n += (size_t)snprintf(buf + n, len - n, "%s%d",
					      n ? "," : "", cpu);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%d-%d",
					      n ? "," : "", cpu, end);
		cpu = end;
	}
}

void cost_end(struct cost_meter *m, struct ipc_side_cost *out)
{
	struct rusage ru;
	cpu_set_t set;
	uint64_t v;
	int ev;
	int64_t *dst[NEV] = {&out->cycles, &out->instructions}, migr;

	memset(out, 0, sizeof(*out));
	if (!getrusage(RUSAGE_THREAD, &ru)) {
		out->user_ns = sub(tv_ns(&ru.ru_utime), tv_ns(&m->ru.ru_utime));
		out->sys_ns = sub(tv_ns(&ru.ru_stime), tv_ns(&m->ru.ru_stime));
		out->vcsw = (uint64_t)(ru.ru_nvcsw - m->ru.ru_nvcsw);
		out->ivcsw = (uint64_t)(ru.ru_nivcsw - m->ru.ru_nivcsw);
	}
	for (ev = 0; ev < NEV; ev++) {
		*dst[ev] = -1;
		if (m->fd[ev] < 0)
			continue;
		if (!perf_value(m->fd[ev], &v) && v >= m->v0[ev])
			*dst[ev] = (int64_t)(v - m->v0[ev]);
		close(m->fd[ev]);
		m->fd[ev] = -1;
	}
	migr = migrations();
	out->migrations = m->migr >= 0 && migr >= m->migr ? migr - m->migr : -1;
	out->cpu_start = m->cpu;
	out->cpu_end = sched_getcpu();
	if (!sched_getaffinity(0, sizeof(set), &set))
		cpu_list(&set, out->allowed, sizeof(out->allowed));
	out->valid = true;
}

void cost_add_helpers(struct ipc_side_cost *c, const struct ipc_thread_cpu *h)
{
	if (!c->valid)
		return;
	c->user_ns += h->user_ns;
	c->sys_ns += h->sys_ns;
	c->vcsw += h->vcsw;
	c->ivcsw += h->ivcsw;
}
