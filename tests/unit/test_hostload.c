/* SPDX-License-Identifier: MIT */
/*
 * Tests of where the load figure is read from: sysfs and /proc numbers,
 * cgroup mount lines, cpuidle trees and kernel thread lists made up under
 * a temporary directory (whatever this machine has), the choice of source
 * and its fallback to /proc/stat, and what a run's busy time is from each.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/run_internal.h"

#include "../helpers.h"
#include "../tap.h"

static char top[256];

/* Write @text to @top/@rel, making its directories. */
static void put(const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	for (slash = strchr(path + strlen(top) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0700);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static int rm_one(const char *path, const struct stat *sb, int flag,
		  struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_tree(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Write @text to file @f of idle state @k of CPU @cpu. */
static void state(int cpu, int k, const char *f, const char *text)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "cpu/cpu%d/cpuidle/state%d/%s", cpu, k, f);
	put(rel, text);
}

/* A CPU with POLL and a halting state of 1 us, with these counts. */
static void cpu_states(int cpu, const char *t0, const char *u0, const char *t1,
		       const char *u1)
{
	state(cpu, 0, "name", "POLL\n");
	state(cpu, 0, "latency", "0\n");
	state(cpu, 0, "disable", "0\n");
	state(cpu, 0, "time", t0);
	state(cpu, 0, "usage", u0);
	state(cpu, 1, "name", "haltpoll\n");
	state(cpu, 1, "latency", "1\n");
	state(cpu, 1, "disable", "0\n");
	state(cpu, 1, "time", t1);
	state(cpu, 1, "usage", u1);
}

static void test_numbers(void)
{
	uint64_t v = 7;

	ok(!load_parse_u64("3825663367\n", &v) && v == 3825663367ull,
	   "number: a sysfs line");
	ok(!load_parse_u64("0", &v) && v == 0, "number: 0, no newline");
	is_int(load_parse_u64("", &v), "==", -EINVAL, "number: empty");
	is_int(load_parse_u64("-1\n", &v), "==", -EINVAL, "number: negative");
	is_int(load_parse_u64("12a\n", &v), "==", -EINVAL, "number: junk");
	is_int(load_parse_u64("99999999999999999999999\n", &v), "==", -EINVAL,
	       "number: beyond 64 bits");
}

static void test_mountinfo(void)
{
	char dir[LOAD_PATH_MAX];

	ok(!load_mountinfo_cgroup("33 31 0:30 / /sys/fs/cgroup/cpuacct "
				  "rw,relatime - cgroup cgroup rw,cpuacct\n",
				  false, dir, sizeof(dir)) &&
		   !strcmp(dir, "/sys/fs/cgroup/cpuacct"),
	   "mountinfo: cgroup v1 cpuacct, at its root");
	ok(!load_mountinfo_cgroup("25 24 0:22 / /sys/fs/cgroup/cpu,cpuacct "
				  "rw,nosuid shared:9 - cgroup cgroup "
				  "rw,cpu,cpuacct",
				  false, dir, sizeof(dir)) &&
		   !strcmp(dir, "/sys/fs/cgroup/cpu,cpuacct"),
	   "mountinfo: with cpu, and optional fields (%s)", dir);
	is_int(load_mountinfo_cgroup("32 31 0:29 / /sys/fs/cgroup/cpu "
				     "rw,relatime - cgroup cgroup rw,cpu",
				     false, dir, sizeof(dir)),
	       "==", -ENOENT, "mountinfo: cpu alone is not cpuacct");
	is_int(load_mountinfo_cgroup("41 31 0:38 / /sys/fs/cgroup/unified "
				     "rw,relatime - cgroup2 cgroup2 rw",
				     false, dir, sizeof(dir)),
	       "==", -ENOENT, "mountinfo: cgroup2 has no cpuacct");
	is_int(load_mountinfo_cgroup("50 31 0:30 /docker/1f2e /sys/fs/cgroup/"
				     "cpuacct rw - cgroup cgroup rw,cpuacct",
				     false, dir, sizeof(dir)),
	       "==", -ENOENT,
	       "mountinfo: a container's cgroup is not every task's");
	is_int(load_mountinfo_cgroup("33 31 0:30 / /mnt/my\\040acct rw - "
				     "cgroup cgroup rw,cpuacct",
				     false, dir, sizeof(dir)),
	       "==", -ENOENT, "mountinfo: an escaped mount point is passed by");
	is_int(load_mountinfo_cgroup("33 31 0:30 / /x rw - cgroup cgroup "
				     "rw,cpuacct_x",
				     false, dir, sizeof(dir)),
	       "==", -ENOENT, "mountinfo: a longer option is not cpuacct");
	is_int(load_mountinfo_cgroup("garbage\n", false, dir, sizeof(dir)),
	       "==", -EINVAL, "mountinfo: a line without its separator");
	ok(!load_mountinfo_cgroup("41 31 0:38 / /sys/fs/cgroup/unified "
				  "rw,relatime - cgroup2 cgroup2 rw",
				  true, dir, sizeof(dir)) &&
		   !strcmp(dir, "/sys/fs/cgroup/unified"),
	   "mountinfo: cgroup v2, at its root");
	is_int(load_mountinfo_cgroup("33 31 0:30 / /sys/fs/cgroup/cpuacct rw - "
				     "cgroup cgroup rw,cpuacct",
				     true, dir, sizeof(dir)),
	       "==", -ENOENT, "mountinfo: v1 is not v2");
	is_int(load_mountinfo_cgroup("29 24 0:26 /user.slice /sys/fs/cgroup rw "
				     "- cgroup2 cgroup2 rw",
				     true, dir, sizeof(dir)),
	       "==", -ENOENT,
	       "mountinfo: v2 below its root is not every task's");
}

/* The probe over a tree of two CPUs, cpuacct absent. */
static void test_cpuidle(void)
{
	char root[300], none[300];
	struct load_paths at = {.mountinfo = none, .cpu = root};
	struct load_probe p;
	uint64_t idle, stays;

	snprintf(root, sizeof(root), "%s/cpu", top);
	snprintf(none, sizeof(none), "%s/no-mountinfo", top);
	cpu_states(0, "1000\n", "10\n", "500\n", "5\n");
	cpu_states(1, "2000\n", "20\n", "0\n", "0\n");

	load_probe(&p, &at, -1);
	is_int(p.src, "==", IPC_LOAD_SRC_STAT,
	       "cpuidle: a CPU may halt without a request: /proc/stat");
	ok(strstr(p.why, "may halt in state1") != NULL, "cpuidle: why (%s)",
	   p.why);
	load_probe(&p, &at, 0);
	is_int(p.src, "==", IPC_LOAD_SRC_CPUIDLE,
	       "cpuidle: a 0 us request leaves only POLL: cpuidle");
	is_uint(p.ncpus, "==", 2, "cpuidle: two CPUs");
	is_uint(p.nstates, "==", 2, "cpuidle: two states");
	is_int(load_idle_read(&p, &idle, &stays), "==", 0, "cpuidle: read");
	is_uint(idle, "==", 3500000,
		"cpuidle: idle is every state's time on every CPU, in ns");
	is_uint(stays, "==", 35, "cpuidle: the stays that ended");

	put("cpu/cpu0/cpuidle/state1/disable", "1\n");
	put("cpu/cpu1/cpuidle/state1/disable", "1\n");
	load_probe(&p, &at, -1);
	is_int(p.src, "==", IPC_LOAD_SRC_CPUIDLE,
	       "cpuidle: the halting state disabled: cpuidle without a "
	       "request");

	put("cpu/cpu1/online", "0\n");
	load_probe(&p, &at, 0);
	is_uint(p.ncpus, "==", 1, "cpuidle: an offline CPU is not read");
	ok(!load_idle_read(&p, &idle, &stays) && idle == 1500000,
	   "cpuidle: only the online CPU's idle time");
	put("cpu/cpu1/online", "1\n");

	/* A state that vanishes between readings: the reading fails. */
	load_probe(&p, &at, 0);
	rm_tree("cpu/cpu1/cpuidle/state0/time");
	is_int(load_idle_read(&p, &idle, &stays), "==", -ENOENT,
	       "cpuidle: a time that cannot be read fails the reading");
	cpu_states(1, "2000\n", "20\n", "0\n", "0\n");

	/* No cpuidle at all (idle=poll, a container): /proc/stat. */
	rm_tree("cpu/cpu1/cpuidle");
	load_probe(&p, &at, 0);
	is_int(p.src, "==", IPC_LOAD_SRC_STAT,
	       "cpuidle: a CPU without cpuidle: /proc/stat");
	ok(strstr(p.why, "cpu1") != NULL, "cpuidle: why names it (%s)", p.why);
	rm_tree("cpu");
	load_probe(&p, &at, 0);
	is_int(p.src, "==", IPC_LOAD_SRC_STAT, "cpuidle: no CPUs at all");
	is_int(load_idle_read(&p, &idle, &stays), "==", -ENODEV,
	       "cpuidle: nothing to read when not usable");
}

static void test_cpuacct(void)
{
	char mi[300], root[300], line[700];
	struct load_paths at = {.mountinfo = mi, .cpu = root};
	struct load_probe p;

	snprintf(mi, sizeof(mi), "%s/mountinfo", top);
	snprintf(root, sizeof(root), "%s/cpu", top);
	cpu_states(0, "1000\n", "10\n", "0\n", "0\n");
	snprintf(line, sizeof(line),
		 "32 31 0:29 / %s/cg/cpu rw - cgroup cgroup rw,cpu\n"
		 "33 31 0:30 / %s/cg/acct rw - cgroup cgroup rw,cpuacct\n",
		 top, top);
	put("mountinfo", line);
	load_probe(&p, &at, 0);
	is_int(p.src, "==", IPC_LOAD_SRC_CPUIDLE,
	       "cpuacct: no usage file there: cpuidle instead");
	put("cg/acct/cpuacct.usage", "64454906351138\n");
	load_probe(&p, &at, 0);
	is_int(p.src, "==", IPC_LOAD_SRC_CPUACCT,
	       "cpuacct: the root cgroup's usage is preferred");
	ok(strstr(p.acct, "/cg/acct/cpuacct.usage") != NULL,
	   "cpuacct: its file (%s)", p.acct);

	setenv("IPCPERF_LOAD_SOURCE", "cpuidle", 1);
	load_probe(&p, &at, 0);
	is_int(p.src, "==", IPC_LOAD_SRC_CPUIDLE,
	       "IPCPERF_LOAD_SOURCE=cpuidle passes cpuacct by");
	setenv("IPCPERF_LOAD_SOURCE", "proc-stat", 1);
	load_probe(&p, &at, 0);
	is_int(p.src, "==", IPC_LOAD_SRC_STAT,
	       "IPCPERF_LOAD_SOURCE=proc-stat: /proc/stat alone");
	unsetenv("IPCPERF_LOAD_SOURCE");
	rm_tree("cpu");
	rm_tree("cg");
	unlink(mi);
}

/* A process under @top/proc: a kernel thread or not (stat's flags). */
static void proc_stat_flags(int pid, const char *comm, bool kernel)
{
	char rel[64], text[200];

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	snprintf(text, sizeof(text),
		 "%d (%s) S 2 0 0 0 -1 %lu 0 0 0 0 0 0 0 0 20 0 1 0 5\n", pid,
		 comm, kernel ? 0x208040ul : 0x400100ul);
	put(rel, text);
}

static void test_cgroup2(void)
{
	char mi[300], line[700], none[300], proc[300];
	struct load_paths at = {.mountinfo = mi, .cpu = none, .proc = proc};
	struct load_probe p;
	uint64_t ns = 0;

	snprintf(mi, sizeof(mi), "%s/mountinfo", top);
	snprintf(none, sizeof(none), "%s/no-cpus", top);
	snprintf(proc, sizeof(proc), "%s/proc", top);
	snprintf(line, sizeof(line),
		 "41 31 0:38 / %s/cg2 rw,relatime - cgroup2 cgroup2 rw\n", top);
	put("mountinfo", line);
	proc_stat_flags(2, "kthreadd", true);
	proc_stat_flags(3, "kworker/u8:1 (x)", true);
	proc_stat_flags(1, "init", false);
	put("cg2/cgroup.procs", "2\n3\n");
	put("cg2/cpu.stat", "usage_usec 999999\n");
	put("cg2/system.slice/cpu.stat",
	    "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n");
	put("cg2/user.slice/cpu.stat", "usage_usec 250\n");
	load_probe(&p, &at, 0);
	is_int(p.src, "==", IPC_LOAD_SRC_CGROUP2,
	       "cgroup2: the root holds kernel threads only: its cgroups");
	is_uint(p.ncg, "==", 2, "cgroup2: two cgroups under the root");
	ok(!load_cgroup2_sum(&p, &ns) && ns == 1750000,
	   "cgroup2: their usage_usec summed, in ns, not the root's");
	is_uint(p.kt.n, "==", 0,
		"cgroup2: no kernel threads to read (none are in its sum)");

	put("cg2/init.scope/cpu.stat", "user_usec 1\n");
	load_probe(&p, &at, 0);
	is_int(p.src, "==", IPC_LOAD_SRC_STAT,
	       "cgroup2: a cgroup without usage_usec: not used");
	rm_tree("cg2/init.scope");

	put("cg2/cgroup.procs", "2\n1\n3\n");
	load_probe(&p, &at, 0);
	is_int(p.src, "==", IPC_LOAD_SRC_STAT,
	       "cgroup2: a process in the root cgroup: not used");
	put("cg2/cgroup.procs", "2\n3\n");

	load_probe(&p, &at, 0);
	rm_tree("cg2/user.slice");
	is_int(load_cgroup2_sum(&p, &ns), "<", 0,
	       "cgroup2: a cgroup gone between readings fails the reading");
	rm_tree("cg2/system.slice");
	load_probe(&p, &at, 0);
	is_int(p.src, "==", IPC_LOAD_SRC_STAT,
	       "cgroup2: no cgroup under the root: not used");
	rm_tree("cg2");
	rm_tree("proc");
	unlink(mi);
}

static void test_kthreads(void)
{
	char proc[300];
	struct load_kthreads k;

	snprintf(proc, sizeof(proc), "%s/proc", top);
	put("proc/3/comm", "kworker/u8:14-events_unbound\n");
	put("proc/4/comm", "kworker/R-mm_percpu_wq\n");
	put("proc/5/comm", "ksoftirqd/0\n");
	put("proc/6/comm", "rcu_preempt\n");
	put("proc/7/comm", "irq/9-acpi\n");
	put("proc/8/comm", "kworker/1:2H-kblockd\n");
	is_int(load_kthreads_parse("3 4 5 6 7 8 99\n", proc, &k), "==", 0,
	       "kthreads: parsed");
	ok(k.n == 4 && k.pid[0] == 3 && k.pid[1] == 5 && k.pid[2] == 7 &&
		   k.pid[3] == 8,
	   "kthreads: the workers, not the rescuers, other threads, or "
	   "one gone");
	ok(!load_kthreads_parse("", proc, &k) && k.n == 0,
	   "kthreads: an empty list");
	is_int(load_kthreads_parse("3 x4", proc, &k), "==", -EINVAL,
	       "kthreads: a list that is not of numbers");
	rm_tree("proc");
}

/* Two snapshots made up, read as each source would. */
static void test_diff(void)
{
	struct load_snap *a = calloc(2, sizeof(*a)), *b;
	struct ipc_run_stats st;

	if (!a) {
		skip("out of memory");
		return;
	}
	b = a + 1;
	a->ok = b->ok = true;
	a->t_ns = 1000000000;
	b->t_ns = a->t_ns + 10000000; /* 10 ms */
	a->busy_ns = 500000000;
	b->busy_ns = a->busy_ns + 20000000; /* two ticks */
	a->steal_ns = b->steal_ns = 7;
	a->ours_ns = 1000;
	b->ours_ns = 1000 + 12000000;

	a->src = b->src = IPC_LOAD_SRC_CPUIDLE;
	a->cpus = b->cpus = 2;
	a->idle_ns = 5000000000;
	b->idle_ns = a->idle_ns + 7000000; /* 7 of 20 ms idle */
	a->stays = 100;
	b->stays = 160;
	b->kthreads_ns = 300000;
	memset(&st, 0, sizeof(st));
	load_diff(a, b, &st);
	ok(st.have_load && st.load_src == IPC_LOAD_SRC_CPUIDLE,
	   "diff: cpuidle");
	is_uint(st.busy_ns, "==", 13000000,
		"diff: cpuidle's busy is 2 CPUs x 10 ms - 7 ms idle");
	is_uint(st.idle_stays, "==", 60, "diff: cpuidle's stays");
	is_uint(st.load_cpus, "==", 2, "diff: over cpuidle's CPUs");
	is_uint(st.ours_ns, "==", 12000000, "diff: ours");
	is_uint(st.kernel_ns, "==", 300000, "diff: the kernel's workers");
	b->steal_ns = a->steal_ns + 1000000;
	load_diff(a, b, &st);
	is_uint(st.busy_ns, "==", 12000000,
		"diff: cpuidle's busy leaves the hypervisor's steal out");
	b->steal_ns = a->steal_ns;

	a->src = b->src = IPC_LOAD_SRC_CPUACCT;
	a->acct_ns = 64454906351138ull;
	b->acct_ns = a->acct_ns + 12345678;
	load_diff(a, b, &st);
	ok(st.load_src == IPC_LOAD_SRC_CPUACCT && st.busy_ns == 12345678 &&
		   st.idle_stays == 0,
	   "diff: cpuacct's busy is its usage's growth");

	/* A source read at one end only: /proc/stat, as before. */
	b->src = IPC_LOAD_SRC_STAT;
	load_diff(a, b, &st);
	ok(st.load_src == IPC_LOAD_SRC_STAT && st.busy_ns == 20000000 &&
		   st.kernel_ns == 0,
	   "diff: a source missing at one end falls back to /proc/stat");
	a->src = IPC_LOAD_SRC_STAT;
	load_diff(a, b, &st);
	ok(st.load_src == IPC_LOAD_SRC_STAT && st.busy_ns == 20000000,
	   "diff: /proc/stat's busy");
	b->ok = false;
	load_diff(a, b, &st);
	ok(!st.have_load && st.wall_ns == 10000000,
	   "diff: no /proc/stat, no load, the wall time still");
	free(a);
}

/* The real thing, on whatever this machine has: sane, not exact. */
static void test_here(void)
{
	struct load_probe p;
	struct load_snap *s = calloc(2, sizeof(*s));
	struct ipc_run_stats st;

	if (!s) {
		skip("out of memory");
		return;
	}
	load_probe(&p, NULL, -1);
	ok(p.src == IPC_LOAD_SRC_STAT || p.src == IPC_LOAD_SRC_CPUIDLE ||
		   p.src == IPC_LOAD_SRC_CPUACCT,
	   "here: a source (%d%s%s)", (int)p.src, p.why[0] ? ", " : "", p.why);
	load_snap(&s[0], &p, NULL);
	load_snap(&s[1], &p, &s[0]);
	memset(&st, 0, sizeof(st));
	load_diff(&s[0], &s[1], &st);
	ok(!st.have_load || st.load_src == p.src ||
		   st.load_src == IPC_LOAD_SRC_STAT,
	   "here: the run's source is the probe's or /proc/stat");
	free(s);
}

int main(void)
{
	if (tmpdir_make("load", top, sizeof(top))) {
		skip("cannot make a temporary directory");
		return done_testing();
	}
	test_numbers();
	test_mountinfo();
	test_cpuidle();
	test_cpuacct();
	test_cgroup2();
	test_kthreads();
	test_diff();
	test_here();
	rm_tree("");
	return done_testing();
}
