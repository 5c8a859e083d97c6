/* SPDX-License-Identifier: MIT */
/*
 * How busy the machine was around a run, to tell another load from our
 * own.  Read at a run's start and end only, never inside the timed loops,
 * from the first of these sources that this machine has:
 *
 * 1. cgroup v1's cpuacct.usage of the root cgroup: every task's runtime,
 *    in nanoseconds, as the scheduler charges it.  Idle time, the idle
 *    loop and steal are not in it; what a task runs but has not been
 *    charged yet (at most a tick, for a task that runs without sleeping)
 *    is charged later.
 * 2. cgroup v2, where the root cgroup holds kernel threads only (as under
 *    systemd): the usage_usec of the cgroups under the root, every
 *    process's runtime, charged as cpuacct's is.  (The root's own
 *    cpu.stat is filled from /proc/stat's ticks.)
 * 3. cpuidle's idle times: each CPU's stays in its idle states, timed
 *    with the kernel's clock, in microseconds.  Busy is what was not
 *    idle.  A stay is added only when it ends, so one that spans a
 *    reading counts in the run it ends in: exact only where stays are
 *    short, that is where the only idle state a CPU may enter polls (a
 *    0 us CPU latency request, which ipcperf holds by default, or the
 *    deeper states disabled): a polling stay ends at the next wake-up or
 *    at the poll limit, at most TICK_NSEC / 16 (625 us at HZ=100).  Each
 *    stay also costs the idle loop and a context switch, which are
 *    neither idle nor any task's: our own wake-ups' share is allowed for
 *    (docs/methodology.md).
 * 4. /proc/stat's busy time, sampled at each tick (USER_HZ, 100 a second):
 *    over the quick suite's 10 ms runs, off by +-0.4 CPUs or more.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "run_internal.h"

#define CPU_ROOT "/sys/devices/system/cpu"

static uint64_t sub(uint64_t b, uint64_t a)
{
	return b > a ? b - a : 0;
}

/* Read a small sysfs file into @buf, without its last newline. */
static int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

int load_parse_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || (*end && *end != '\n'))
		return -EINVAL;
	*v = x;
	return 0;
}

static int read_u64(const char *path, uint64_t *v)
{
	char buf[32];
	int err = read_text(path, buf, sizeof(buf));

	return err ? err : load_parse_u64(buf, v);
}

/* Is CPU @cpu under @root offline?  A CPU without "online" is not. */
static bool offline(const char *root, int cpu)
{
	char path[LOAD_PATH_MAX + 32];
	uint64_t v;

	snprintf(path, sizeof(path), "%s/cpu%d/online", root, cpu);
	return !read_u64(path, &v) && v == 0;
}

/*
 * May a CPU enter state @k of @dir (its "cpuidle" directory) while a
 * request of @qos_us is held (-1: none)?  And is it a polling state?
 * -errno when the state's files cannot be read (-ENOENT: no such state).
 */
static int state_facts(const char *dir, int k, int qos_us, bool *enterable,
		       bool *polls)
{
	char path[LOAD_PATH_MAX + 64], name[32];
	uint64_t lat_us, off = 0;
	int err;

	snprintf(path, sizeof(path), "%s/state%d/name", dir, k);
	err = read_text(path, name, sizeof(name));
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/state%d/latency", dir, k);
	err = read_u64(path, &lat_us);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/state%d/disable", dir, k);
	if (read_u64(path, &off))
		off = 0; /* no "disable" file: enabled */
	*polls = !strcmp(name, "POLL");
	/* The governor picks no state whose exit latency exceeds it. */
	*enterable = !off && (qos_us < 0 || lat_us <= (uint64_t)qos_us);
	return 0;
}

/* cpuidle under @root: may it be read, and which files? */
static void idle_probe(struct load_probe *p, const char *root, int qos_us)
{
	char dir[LOAD_PATH_MAX + 32], path[LOAD_PATH_MAX + 32];
	bool enterable, polls;
	int cpu, k, err;

	snprintf(p->root, sizeof(p->root), "%s", root);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%d", p->root, cpu);
		if (access(path, F_OK))
			break;
		if (offline(p->root, cpu))
			continue;
		snprintf(dir, sizeof(dir), "%s/cpu%d/cpuidle", p->root, cpu);
		for (k = 0;; k++) {
			err = state_facts(dir, k, qos_us, &enterable, &polls);
			if (err == -ENOENT && k > 0)
				break;
			if (err) {
				snprintf(p->why, sizeof(p->why),
					 "cpu%d: no cpuidle state%d (%s)", cpu,
					 k, strerror(-err));
				return;
			}
			if (enterable && !polls) {
				snprintf(p->why, sizeof(p->why),
					 "cpu%d may halt in state%d", cpu, k);
				return;
			}
		}
		CPU_SET(cpu, &p->cpus);
		p->ncpus++;
		if ((unsigned)k > p->nstates)
			p->nstates = (unsigned)k;
	}
	if (!p->ncpus) {
		snprintf(p->why, sizeof(p->why), "no CPU found");
		return;
	}
	p->src = IPC_LOAD_SRC_CPUIDLE;
}

int load_idle_read(const struct load_probe *p, uint64_t *idle_ns,
		   uint64_t *stays)
{
	char path[LOAD_PATH_MAX + 64];
	uint64_t us, n, sum = 0, nsum = 0;
	unsigned k, seen = 0;
	int cpu, err;

	if (p->src != IPC_LOAD_SRC_CPUIDLE)
		return -ENODEV;
	for (cpu = 0; cpu < CPU_SETSIZE && seen < p->ncpus; cpu++) {
		if (!CPU_ISSET(cpu, &p->cpus))
			continue;
		seen++;
		for (k = 0; k < p->nstates; k++) {
			snprintf(path, sizeof(path),
				 "%s/cpu%d/cpuidle/state%u/time", p->root, cpu,
				 k);
			err = read_u64(path, &us);
			if (err == -ENOENT && k > 0)
				break; /* this CPU has fewer states */
			if (!err) {
				memcpy(path + strlen(path) - 4, "usage", 6);
				err = read_u64(path, &n);
			}
			if (err)
				return err;
			sum += us;
			nsum += n;
		}
	}
	*idle_ns = sum * 1000;
	*stays = nsum;
	return 0;
}

int load_mountinfo_cgroup(const char *line, bool v2, char *dir, size_t len)
{
	char root[LOAD_PATH_MAX], mnt[LOAD_PATH_MAX], fstype[32], opts[256];
	const char *sep = strstr(line, " - "), *o = NULL;
	size_t n;

	if (!sep || sscanf(line, "%*s %*s %*s %127s %127s", root, mnt) != 2 ||
	    sscanf(sep + 3, "%31s %*s %255s", fstype, opts) != 2)
		return -EINVAL;
	if (strcmp(fstype, v2 ? "cgroup2" : "cgroup"))
		return -ENOENT;
	for (o = opts; !v2 && (o = strstr(o, "cpuacct")); o += 7)
		if ((o == opts || o[-1] == ',') && (o[7] == ',' || !o[7]))
			break;
	if (!v2 && !o)
		return -ENOENT;
	/* Only the hierarchy's root counts every task; no \040 escapes. */
	if (strcmp(root, "/") || strchr(mnt, '\\'))
		return -ENOENT;
	n = (size_t)snprintf(dir, len, "%s", mnt);
	return n < len ? 0 : -ENAMETOOLONG;
}

/*
 * The mount point of @mountinfo's first cgroup hierarchy (v1 with
 * cpuacct, or v2) at its root, into @dir: 0 or -ENOENT.
 */
static int cgroup_dir(const char *mountinfo, bool v2, char *dir, size_t len)
{
	char line[1024];
	int err = -ENOENT;
	FILE *f = fopen(mountinfo, "re");

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f))
		err = load_mountinfo_cgroup(line, v2, dir, len) ? -ENOENT : 0;
	fclose(f);
	return err;
}

/* The root cgroup's cpuacct.usage, from @mountinfo's cpuacct mount. */
static void acct_probe(struct load_probe *p, const char *mountinfo)
{
	char dir[LOAD_PATH_MAX];
	uint64_t v;

	if (cgroup_dir(mountinfo, false, dir, sizeof(dir)))
		return;
	snprintf(p->acct, sizeof(p->acct), "%.*s/cpuacct.usage",
		 (int)(sizeof(p->acct) - 16), dir);
	if (!read_u64(p->acct, &v))
		p->src = IPC_LOAD_SRC_CPUACCT;
}

/* Is process @pid under @proc a kernel thread (PF_KTHREAD)? */
static bool kthread(const char *proc, long pid)
{
	char path[LOAD_PATH_MAX + 48], buf[512], *c;
	unsigned long flags;

	snprintf(path, sizeof(path), "%s/%ld/stat", proc, pid);
	if (read_text(path, buf, sizeof(buf)))
		return false;
	/* "pid (comm) state ppid pgrp session tty tpgid flags ...". */
	c = strrchr(buf, ')');
	return c &&
	       sscanf(c + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) == 1 &&
	       (flags & 0x00200000ul);
}

int load_cgroup2_sum(const struct load_probe *p, uint64_t *ns)
{
	char path[2 * LOAD_PATH_MAX + 16], line[64];
	unsigned long long us;
	uint64_t sum = 0;
	unsigned i;
	bool found;
	FILE *f;

	for (i = 0; i < p->ncg; i++) {
		snprintf(path, sizeof(path), "%s/%s/cpu.stat", p->cg2,
			 p->cg[i]);
		f = fopen(path, "re");
		if (!f)
			return -errno;
		found = false;
		while (!found && fgets(line, sizeof(line), f))
			found = sscanf(line, "usage_usec %llu", &us) == 1;
		fclose(f);
		if (!found)
			return -EINVAL;
		sum += us;
	}
	*ns = sum * 1000;
	return 0;
}

/*
 * cgroup v2: every process's runtime is its cgroup's, and the cgroups
 * under the root add up to all of them when the root itself holds only
 * kernel threads (as under systemd).  The root's own cpu.stat is no help:
 * the kernel fills it from /proc/stat's ticks.
 */
static void cg2_probe(struct load_probe *p, const char *mountinfo)
{
	char path[2 * LOAD_PATH_MAX + 16];
	struct dirent *e;
	uint64_t v;
	size_t n;
	long pid;
	bool ok;
	DIR *d;
	FILE *f;

	if (cgroup_dir(mountinfo, true, p->cg2, sizeof(p->cg2)))
		return;
	snprintf(path, sizeof(path), "%s/cgroup.procs", p->cg2);
	f = fopen(path, "re");
	if (!f)
		return;
	ok = true;
	while (ok && fscanf(f, "%ld", &pid) == 1)
		ok = kthread(p->proc, pid);
	fclose(f);
	d = ok ? opendir(p->cg2) : NULL;
	if (!d)
		return;
	while (ok && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		n = strlen(e->d_name);
		ok = p->ncg < LOAD_CG_MAX && n < sizeof(p->cg[0]);
		if (ok)
			memcpy(p->cg[p->ncg++], e->d_name, n + 1);
	}
	closedir(d);
	if (ok && p->ncg && !load_cgroup2_sum(p, &v))
		p->src = IPC_LOAD_SRC_CGROUP2;
	else
		p->ncg = 0;
}

/* Is @comm a kernel thread that does work handed to it by others? */
static bool worker(const char *comm)
{
	return (!strncmp(comm, "kworker/", 8) &&
		strncmp(comm, "kworker/R-", 10)) ||
	       !strncmp(comm, "ksoftirqd/", 10) || !strncmp(comm, "irq/", 4);
}

int load_kthreads_parse(const char *children, const char *proc,
			struct load_kthreads *k)
{
	char path[LOAD_PATH_MAX + 48], comm[32];
	const char *c = children;
	char *end;
	long pid;

	k->n = 0;
	while (*c && k->n < LOAD_KTHREADS_MAX) {
		while (*c == ' ' || *c == '\n')
			c++;
		if (!*c)
			break;
		pid = strtol(c, &end, 10);
		if (end == c || pid <= 0)
			return -EINVAL;
		c = end;
		snprintf(path, sizeof(path), "%s/%ld/comm", proc, pid);
		if (read_text(path, comm, sizeof(comm)) || !worker(comm))
			continue;
		k->pid[k->n++] = (int)pid;
	}
	return 0;
}

/* The runtime of kernel thread @pid under @proc (schedstat), or -1. */
static int64_t kthread_ns(const char *proc, int pid)
{
	char path[LOAD_PATH_MAX + 48], buf[96];
	uint64_t v;
	char *sp;

	snprintf(path, sizeof(path), "%s/%d/schedstat", proc, pid);
	if (read_text(path, buf, sizeof(buf)))
		return -1;
	sp = strchr(buf, ' ');
	if (sp)
		*sp = '\0';
	return load_parse_u64(buf, &v) ? -1 : (int64_t)v;
}

/*
 * The kernel's worker threads (kthreadd's children named kworker/,
 * ksoftirqd/ or irq/) into @k; none if the files are missing.
 */
static void kthreads_scan(struct load_kthreads *k, const char *proc)
{
	char path[LOAD_PATH_MAX + 48], *buf;

	k->n = 0;
	buf = malloc(8192);
	if (!buf)
		return;
	snprintf(path, sizeof(path), "%s/2/task/2/children", proc);
	if (!read_text(path, buf, 8192))
		load_kthreads_parse(buf, proc, k);
	free(buf);
}

/* Their runtimes now, into @now (those gone: left out). */
static void kthreads_read(const struct load_kthreads *k, const char *proc,
			  struct load_kthreads *now)
{
	unsigned i;
	int64_t v;

	now->n = 0;
	for (i = 0; i < k->n; i++) {
		v = kthread_ns(proc, k->pid[i]);
		if (v < 0)
			continue;
		now->pid[now->n] = k->pid[i];
		now->ns[now->n++] = (uint64_t)v;
	}
}

/* The runtime the threads of @k ran since @k was taken. */
static uint64_t kthreads_since(const struct load_kthreads *k, const char *proc)
{
	uint64_t sum = 0;
	unsigned i;
	int64_t v;

	for (i = 0; i < k->n; i++) {
		v = kthread_ns(proc, k->pid[i]);
		if (v >= 0 && (uint64_t)v >= k->ns[i])
			sum += (uint64_t)v - k->ns[i];
	}
	return sum;
}

void load_probe(struct load_probe *p, const struct load_paths *paths,
		int qos_us)
{
	const char *mountinfo;
	/* A testing aid: the best source to try (docs/methodology.md). */
	const char *best = getenv("IPCPERF_LOAD_SOURCE");
	bool acct = !best || !strcmp(best, "cpuacct");
	bool cg2 = acct || !strcmp(best, "cgroup2");
	bool idle = cg2 || !strcmp(best, "cpuidle");

	memset(p, 0, sizeof(*p));
	p->src = IPC_LOAD_SRC_STAT;
	snprintf(p->proc, sizeof(p->proc), "%s",
		 paths && paths->proc ? paths->proc : "/proc");
	if (!paths || !paths->mountinfo)
		mountinfo = "/proc/self/mountinfo";
	else
		mountinfo = paths->mountinfo;
	if (acct)
		acct_probe(p, mountinfo);
	if (cg2 && p->src == IPC_LOAD_SRC_STAT)
		cg2_probe(p, mountinfo);
	if (idle && p->src == IPC_LOAD_SRC_STAT)
		idle_probe(p, paths && paths->cpu ? paths->cpu : CPU_ROOT,
			   qos_us);
	/* cgroup v2's sum leaves the kernel's threads out already. */
	if (p->src == IPC_LOAD_SRC_CPUACCT || p->src == IPC_LOAD_SRC_CPUIDLE)
		kthreads_scan(&p->kt, p->proc);
}

/*
 * /proc/stat's first line: "cpu  user nice system idle iowait irq softirq
 * steal guest guest_nice", in USER_HZ ticks, all CPUs together.  Busy is
 * user + nice + system (guest time is inside user).  Interrupt time is left
 * out: the kernel's work for our own messages (loopback TCP runs in
 * softirq) would otherwise look like another load.
 */
static bool proc_stat(uint64_t *busy_ns, uint64_t *steal_ns)
{
	unsigned long long v[8] = {0};
	long hz = sysconf(_SC_CLK_TCK);
	char line[256];
	FILE *f;
	bool ok;

	f = fopen("/proc/stat", "re");
	if (!f)
		return false;
	ok = fgets(line, sizeof(line), f) &&
	     sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		    &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) >= 3;
	fclose(f);
	if (!ok || hz <= 0)
		return false;
	*busy_ns = (v[0] + v[1] + v[2]) * (1000000000ull / (uint64_t)hz);
	*steal_ns = v[7] * (1000000000ull / (uint64_t)hz);
	return true;
}

static uint64_t rusage_ns(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		return 0;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
		       1000000000ull +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) *
		       1000ull;
}

void load_snap(struct load_snap *s, const struct load_probe *p,
	       const struct load_snap *start)
{
	memset(s, 0, sizeof(*s));
	/*
	 * The kernel's workers first, at the start; last, at the end: their
	 * window holds the run's.
	 */
	if (p && p->src != IPC_LOAD_SRC_STAT && !start)
		kthreads_read(&p->kt, p->proc, &s->kt);
	/*
	 * getrusage gives user + system = the scheduler's runtime, to the
	 * microsecond, of this process's threads and of its reaped children
	 * (each run's peer is reaped before the run's end is read).  Read
	 * first: it charges the calling thread's pending runtime, which
	 * cpuacct.usage would otherwise get only later.
	 */
	s->ours_ns = rusage_ns(RUSAGE_SELF) + rusage_ns(RUSAGE_CHILDREN);
	s->src = p ? p->src : IPC_LOAD_SRC_STAT;
	if (s->src == IPC_LOAD_SRC_CPUACCT && read_u64(p->acct, &s->acct_ns))
		s->src = IPC_LOAD_SRC_STAT;
	if (s->src == IPC_LOAD_SRC_CGROUP2 && load_cgroup2_sum(p, &s->acct_ns))
		s->src = IPC_LOAD_SRC_STAT;
	if (s->src == IPC_LOAD_SRC_CPUIDLE &&
	    load_idle_read(p, &s->idle_ns, &s->stays))
		s->src = IPC_LOAD_SRC_STAT;
	s->cpus = s->src == IPC_LOAD_SRC_CPUIDLE ? p->ncpus : 0;
	/* The clock right after the precise counts: both ends alike. */
	s->t_ns = ipc_now_ns();
	s->ok = proc_stat(&s->busy_ns, &s->steal_ns);
	if (start && start->kt.n)
		s->kthreads_ns = kthreads_since(&start->kt, p->proc);
}

void load_diff(const struct load_snap *a, const struct load_snap *b,
	       struct ipc_run_stats *st)
{
	uint64_t wall_cpu, idle;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	st->wall_ns = sub(b->t_ns, a->t_ns);
	st->ours_ns = sub(b->ours_ns, a->ours_ns);
	st->have_load = a->ok && b->ok;
	st->load_src = IPC_LOAD_SRC_STAT;
	st->idle_stays = 0;
	st->kernel_ns = 0;
	if (!st->have_load)
		return;
	st->steal_ns = sub(b->steal_ns, a->steal_ns);
	st->load_cpus = n > 0 ? (unsigned)n : 0;
	st->busy_ns = sub(b->busy_ns, a->busy_ns);
	if (a->src != b->src)
		return;
	st->kernel_ns = b->kthreads_ns;
	if (a->src == IPC_LOAD_SRC_CPUACCT || a->src == IPC_LOAD_SRC_CGROUP2) {
		st->load_src = a->src;
		st->busy_ns = sub(b->acct_ns, a->acct_ns);
	} else if (a->src == IPC_LOAD_SRC_CPUIDLE && a->cpus == b->cpus) {
		/*
		 * Busy is what was not idle, less what the hypervisor took
		 * (its steal is inside the guest's clock, and outside the
		 * runtime of our tasks).
		 */
		st->load_src = IPC_LOAD_SRC_CPUIDLE;
		st->load_cpus = a->cpus;
		wall_cpu = st->wall_ns * a->cpus;
		idle = sub(b->idle_ns, a->idle_ns);
		st->busy_ns = sub(sub(wall_cpu, idle), st->steal_ns);
		st->idle_stays = sub(b->stays, a->stays);
	}
}
