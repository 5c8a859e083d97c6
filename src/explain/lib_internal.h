/* SPDX-License-Identifier: MIT */
/*
 * What the other layers of ipcperf (and its tests) use of explain and a user
 * of libipcperf does not: not installed, not exported (the public part
 * is ipcperf/explain.h; docs/library.md says where the line is and why).
 */
#ifndef IPCPERF_EXPLAIN_LIB_INTERNAL_H
#define IPCPERF_EXPLAIN_LIB_INTERNAL_H

#include "ipcperf/explain.h"

/*
 * Load and attach the program.  0 and *@x, or -errno with *@x NULL and
 * @why (NUL-terminated, at most @len bytes) saying in words why explain
 * cannot run here: "disabled by IPCPERF_EXPLAIN_OFF", "built without
 * explain (no libbpf, bpftool or BTF at build time)", "not permitted (run
 * as root or with CAP_BPF and CAP_PERFMON)", "no BTF in this kernel",
 * "kernel locked down", "kernel too old". Never prints.  The program and
 * its maps are held by descriptors only (nothing is pinned), so they go
 * when the process ends, whatever ends it.  The descriptors survive a
 * fork, which is how a forked server registers itself.
 */
int ipc_explain_open(struct ipc_explain **x, char *why, size_t len);

/* Detach and unload.  NULL: no-op. */
void ipc_explain_free(struct ipc_explain *x);

/*
 * Before a run: every counter zeroed, no thread watched, no window (0 or
 * -errno).  Then the threads to watch are added, the client by the
 * measuring thread itself, the server by the thread that serves, in its
 * own process if it was forked (the program's memory is mapped shared,
 * and survives the fork even where the descriptors do not):
 * ipc_explain_watch with @tid 0 means the calling thread.  It is a few
 * stores, no system call, safe from several threads and processes at
 * once; 0, or -ENOSPC past four threads.  Neither while a window is open.
 */
int ipc_explain_reset(struct ipc_explain *x);
int ipc_explain_watch(struct ipc_explain *x, pid_t tid, enum ipc_xside side);

/*
 * The thread watched as @side is now the calling one, counted afresh
 * (a pattern's measuring thread taking over from the thread that
 * started it); the same as ipc_explain_watch where none was.  Before the
 * window opens.  0 or -ENOSPC.
 */
int ipc_explain_rewatch(struct ipc_explain *x, enum ipc_xside side);

/*
 * Where the measuring thread stores the measured window's begin and end
 * (ipc_now_ns, CLOCK_MONOTONIC, the kernel's clock too): two words the
 * program reads, in memory shared with it, so that marking the window is
 * one store and no system call.  Begin 0 means nothing is counted.
 */
uint64_t *ipc_explain_window(struct ipc_explain *x);

/* After a run, once its threads have ended or gone quiet: the sums. */
int ipc_explain_read(struct ipc_explain *x, struct ipc_explain_counts *c);

/* A new empty explanation (available), or NULL when out of memory. */
struct ipc_explain_result *ipc_explain_result_new(void);
void ipc_explain_result_free(struct ipc_explain_result *r);

/*
 * Add one run: its counts, its @round_trips and the @elapsed_ns they
 * took as measured.  A run without round trips is ignored.  0 or -ENOMEM.
 */
int ipc_explain_add(struct ipc_explain_result *r,
		    const struct ipc_explain_counts *c, uint64_t round_trips,
		    uint64_t elapsed_ns);

/* Compute measured_ns, the phases, shares, p99s and others from the runs. */
void ipc_explain_finish(struct ipc_explain_result *r);

/* Mark @r unavailable because of @why. */
void ipc_explain_unavailable(struct ipc_explain_result *r, const char *why);

/* The name and side of phase @ph of side @side ("send", "client"). */
const char *ipc_explain_phase_name(unsigned ph);
const char *ipc_explain_side_name(enum ipc_xside side, unsigned ph);

/* The upper bound of histogram bucket @b, ns. */
uint64_t ipc_explain_bucket_ns(unsigned b);

/*
 * The 99th percentile of the histogram @bucket (IPC_XBUCKETS counts),
 * @bucket2's counts added where not NULL: the upper bound of its bucket,
 * ns; -1 when it has no event.
 */
double ipc_explain_p99(const uint64_t *bucket, const uint64_t *bucket2);

#endif
