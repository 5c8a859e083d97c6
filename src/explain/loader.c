/* SPDX-License-Identifier: MIT */
/*
 * Loading the BPF program of --explain through libbpf and its generated
 * skeleton, and reading its maps between runs.  Nothing here runs per
 * event: the program sums in the kernel, this reads the sums once a run.
 */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "explain/explain_abi.h"
#include "explain.skel.h"
#include "ipcperf/explain.h"
#include "explain/lib_internal.h"

_Static_assert(offsetof(struct explain_bpf__bss, win_end) ==
		       offsetof(struct explain_bpf__bss, win_begin) + 8,
	       "the window is two adjacent words");

struct ipc_explain {
	struct explain_bpf *skel;
	int ncpus;
	void *buf; /* one per-CPU value of the largest map, ncpus copies */
};

/* libbpf prints its warnings on stderr by default; a library does not. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static bool locked_down(void)
{
	char line[128] = "";
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");

	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return strstr(line, "[integrity]") || strstr(line, "[confidentiality]");
}

/* Why loading or attaching failed with @err, in words. */
static void why_failed(int err, const char *doing, char *why, size_t len)
{
	if (err == -EACCES && geteuid() == 0) {
		/* As root, EACCES is the verifier's refusal. */
		snprintf(why, len,
			 "the kernel's verifier refused the program (%s: %s)",
			 doing, strerror(-err));
		return;
	}
	if (err == -EPERM || err == -EACCES) {
		if (locked_down())
			snprintf(why, len, "kernel locked down (%s: %s)", doing,
				 strerror(-err));
		else
			snprintf(why, len,
				 "not permitted (%s: %s; run as root or with "
				 "CAP_BPF and CAP_PERFMON)",
				 doing, strerror(-err));
		return;
	}
	snprintf(why, len, "kernel too old or without a tracepoint (%s: %s)",
		 doing, strerror(-err));
}

/*
 * How the system calls are seen: not at all, or through one of three
 * attachments of the same hook (explain.bpf.c), for bench/explain.sh.
 */
enum calls { CALLS_NONE, CALLS_BTF, CALLS_RAW, CALLS_TP };

/* The programs on the IPIs' tracepoints, where the program has them. */
static const char *const ipi_progs[] = {"xa_ipi_call", "xa_ipi_resched"};

/*
 * Open, load and attach the skeleton, the system calls seen or not
 * (@calls), the IPIs too (@ipi), every program returning at once or not
 * (@empty), the events and their histograms counted or not (@no_events);
 * 0, or -errno with @why said.
 */
static int load(struct ipc_explain *x, enum calls calls, bool ipi, bool empty,
		bool no_events, char *why, size_t len)
{
	struct bpf_program *p;
	size_t i;
	int err;

	x->skel = explain_bpf__open();
	if (!x->skel) {
		err = -errno;
		why_failed(err, "open", why, len);
		return err;
	}
	x->skel->rodata->xa_empty = empty;
	x->skel->rodata->xa_no_events = no_events;
	bpf_program__set_autoload(x->skel->progs.xa_sys_enter,
				  calls == CALLS_BTF);
	bpf_program__set_autoload(x->skel->progs.xa_sys_exit,
				  calls == CALLS_BTF);
	bpf_program__set_autoload(x->skel->progs.xa_raw_enter,
				  calls == CALLS_RAW);
	bpf_program__set_autoload(x->skel->progs.xa_raw_exit,
				  calls == CALLS_RAW);
	bpf_program__set_autoload(x->skel->progs.xa_tp_enter,
				  calls == CALLS_TP);
	bpf_program__set_autoload(x->skel->progs.xa_tp_exit, calls == CALLS_TP);
	for (i = 0; i < sizeof(ipi_progs) / sizeof(ipi_progs[0]); i++) {
		p = bpf_object__find_program_by_name(x->skel->obj,
						     ipi_progs[i]);
		if (p)
			bpf_program__set_autoload(p, ipi);
	}
	err = explain_bpf__load(x->skel);
	if (err) {
		why_failed(err, "load", why, len);
		return err;
	}
	err = explain_bpf__attach(x->skel);
	if (err)
		why_failed(err, "attach", why, len);
	return err;
}

int ipc_explain_open(struct ipc_explain **out, char *why, size_t len)
{
	const char *off = getenv("IPCPERF_EXPLAIN_OFF");
	/* For bench/explain.sh: what each part of the program costs. */
	const char *how = getenv("IPCPERF_EXPLAIN_CALLS");
	const char *empty = getenv("IPCPERF_EXPLAIN_EMPTY");
	const char *events = getenv("IPCPERF_EXPLAIN_EVENTS");
	enum calls calls = CALLS_BTF;
	bool nothing, no_events;
	struct ipc_explain *x;
	int err;

	*out = NULL;
	why[0] = '\0';
	if (off && *off && strcmp(off, "0")) {
		snprintf(why, len, "disabled by IPCPERF_EXPLAIN_OFF");
		return -ENOTSUP;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, len,
			 "no BTF in this kernel (/sys/kernel/btf/vmlinux)");
		return -ENOENT;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	libbpf_set_print(quiet);
	x->ncpus = libbpf_num_possible_cpus();
	if (x->ncpus <= 0) {
		err = x->ncpus < 0 ? x->ncpus : -EINVAL;
		snprintf(why, len, "cannot count the CPUs: %s", strerror(-err));
		goto fail;
	}
	x->buf = calloc((size_t)x->ncpus, sizeof(struct xa_slot));
	if (!x->buf) {
		err = -ENOMEM;
		snprintf(why, len, "out of memory");
		goto fail;
	}
	if (how && !strcmp(how, "none"))
		calls = CALLS_NONE;
	else if (how && !strcmp(how, "raw"))
		calls = CALLS_RAW;
	else if (how && !strcmp(how, "tracepoints"))
		calls = CALLS_TP;
	nothing = empty && *empty && strcmp(empty, "0");
	no_events = events && !strcmp(events, "0");
	err = load(x, calls, true, nothing, no_events, why, len);
	if (err && err != -EPERM) {
		/* A kernel without the IPIs' tracepoints: explain without. */
		explain_bpf__destroy(x->skel);
		x->skel = NULL;
		err = load(x, calls, false, nothing, no_events, why, len);
	}
	if (err)
		goto fail;
	*out = x;
	return 0;
fail:
	ipc_explain_free(x);
	return err;
}

void ipc_explain_free(struct ipc_explain *x)
{
	if (!x)
		return;
	explain_bpf__destroy(x->skel); /* NULL-safe; detaches first */
	free(x->buf);
	free(x);
}

/* Delete every key of hash map @fd. */
static void clear_hash(int fd)
{
	__u32 key;

	while (!bpf_map_get_next_key(fd, NULL, &key))
		if (bpf_map_delete_elem(fd, &key))
			break;
}

/* Zero every entry of per-CPU array @fd of @n entries of @size bytes. */
static int zero_percpu(struct ipc_explain *x, int fd, __u32 n, size_t size)
{
	__u32 key;

	memset(x->buf, 0, (size_t)x->ncpus * ((size + 7) & ~(size_t)7));
	for (key = 0; key < n; key++)
		if (bpf_map_update_elem(fd, &key, x->buf, BPF_ANY))
			return -errno;
	return 0;
}

int ipc_explain_reset(struct ipc_explain *x)
{
	struct explain_bpf *s = x->skel;
	int err;

	s->bss->win_begin = s->bss->win_end = 0;
	s->bss->off_begin = s->bss->off_end = s->bss->covered = 0;
	s->bss->cli_state = XA_ST_RUN;
	s->bss->cli_cpu = 0;
	memset(s->bss->thr_tid, 0, sizeof(s->bss->thr_tid));
	memset(s->bss->thr, 0, sizeof(s->bss->thr));
	clear_hash(bpf_map__fd(s->maps.others));
	err = zero_percpu(x, bpf_map__fd(s->maps.stats), XA_SLOTS,
			  sizeof(struct xa_slot));
	if (!err)
		err = zero_percpu(x, bpf_map__fd(s->maps.cpus), 1,
				  bpf_map__value_size(s->maps.cpus));
	return err;
}

int ipc_explain_watch(struct ipc_explain *x, pid_t tid, enum ipc_xside side)
{
	struct explain_bpf__bss *b = x->skel->bss;
	__u32 key = tid ? (__u32)tid : (__u32)gettid();
	size_t i;

	/*
	 * The slot is taken by its tid (atomically: the client's process
	 * and a forked server register at the same time), its state is
	 * written, then the tid is published for the program to see.
	 * Running, in user space: the program's first event for it is then
	 * its next system call or switch, and counts from there.
	 */
	for (i = 0; i < XA_THREADS_MAX; i++) {
		__u32 none = 0, busy = UINT32_MAX;

		if (!__atomic_compare_exchange_n(&b->thr_tid[i], &none, busy,
						 false, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		memset(&b->thr[i], 0, sizeof(b->thr[i]));
		b->thr[i].side = side;
		b->thr[i].state = XA_ST_RUN;
		__atomic_store_n(&b->thr_tid[i], key, __ATOMIC_RELEASE);
		return 0;
	}
	return -ENOSPC;
}

int ipc_explain_rewatch(struct ipc_explain *x, enum ipc_xside side)
{
	struct explain_bpf__bss *b = x->skel->bss;
	size_t i;

	for (i = 0; i < XA_THREADS_MAX; i++) {
		__u32 tid = __atomic_load_n(&b->thr_tid[i], __ATOMIC_ACQUIRE);

		if (!tid || tid == UINT32_MAX || b->thr[i].side != side)
			continue;
		/* Unpublished while its state is rewritten, as at first. */
		__atomic_store_n(&b->thr_tid[i], UINT32_MAX, __ATOMIC_RELEASE);
		memset(&b->thr[i], 0, sizeof(b->thr[i]));
		b->thr[i].side = side;
		b->thr[i].state = XA_ST_RUN;
		if (side == IPC_XCLIENT) {
			/* The client's state is the new thread's: running. */
			b->cli_state = XA_ST_RUN;
			b->cli_cpu = (__u32)sched_getcpu();
			b->covered = 0;
		}
		__atomic_store_n(&b->thr_tid[i], (__u32)gettid(),
				 __ATOMIC_RELEASE);
		return 0;
	}
	return ipc_explain_watch(x, 0, side);
}

uint64_t *ipc_explain_window(struct ipc_explain *x)
{
	return (uint64_t *)&x->skel->bss->win_begin;
}

/* Keep the largest others by time, at most IPC_XOTHERS. */
static void keep_other(struct ipc_explain_counts *c, __u32 pid,
		       const struct xa_other *o)
{
	struct ipc_explain_other *slot = &c->others[0];
	size_t i;

	if (c->nothers < IPC_XOTHERS) {
		slot = &c->others[c->nothers++];
	} else {
		for (i = 1; i < c->nothers; i++)
			if (c->others[i].ns < slot->ns)
				slot = &c->others[i];
		if (slot->ns >= o->ns)
			return;
	}
	memcpy(slot->comm, o->comm, sizeof(slot->comm));
	slot->comm[sizeof(slot->comm) - 1] = '\0';
	slot->pid = (int)pid;
	slot->ns = o->ns;
	memcpy(slot->runq_ns, o->runq_ns, sizeof(slot->runq_ns));
}

static int read_others(struct ipc_explain *x, struct ipc_explain_counts *c)
{
	int fd = bpf_map__fd(x->skel->maps.others);
	struct xa_other o;
	__u32 key, next;
	int err;

	c->nothers = 0;
	err = bpf_map_get_next_key(fd, NULL, &key);
	while (!err) {
		if (!bpf_map_lookup_elem(fd, &key, &o))
			keep_other(c, key, &o);
		err = bpf_map_get_next_key(fd, &key, &next);
		key = next;
	}
	return err == -ENOENT ? 0 : err;
}

int ipc_explain_read(struct ipc_explain *x, struct ipc_explain_counts *c)
{
	int fd = bpf_map__fd(x->skel->maps.stats);
	const struct xa_slot *v = x->buf;
	const uint64_t *w = ipc_explain_window(x);
	__u32 key;
	int cpu;

	memset(c, 0, sizeof(*c));
	c->window_ns = w[1] > w[0] && w[0] ? w[1] - w[0] : 0;
	for (key = 0; key < XA_SLOTS; key++) {
		unsigned s = key / XA_PHASES, ph = key % XA_PHASES, b;

		if (bpf_map_lookup_elem(fd, &key, x->buf))
			return -errno;
		for (cpu = 0; cpu < x->ncpus; cpu++) {
			c->ns[s][ph] += v[cpu].ns;
			c->events[s][ph] += v[cpu].events;
			for (b = 0; b < XA_BUCKETS; b++)
				c->bucket[s][ph][b] += v[cpu].bucket[b];
		}
	}
	return read_others(x, c);
}
