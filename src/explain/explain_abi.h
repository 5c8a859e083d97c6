/* SPDX-License-Identifier: MIT */
/*
 * What the BPF program of --explain and its loader share: the map layouts
 * and the indices of the phases, compiled into both (the program against
 * vmlinux.h, the loader against <linux/types.h>).
 */
#ifndef IPCPERF_EXPLAIN_ABI_H
#define IPCPERF_EXPLAIN_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* The two sides of a measurement; a thread being watched is one of them. */
#define XA_CLIENT 0
#define XA_SERVER 1
#define XA_SIDES 2

/*
 * The phases one side's time is cut into.  Per side, so that a slot is
 * side * XA_PHASES + phase.  A system call's on-CPU time goes to its
 * class; interrupts are taken out of the phase they interrupted.
 */
enum xa_phase {
	XA_USER = 0, /* on CPU, in user space */
	XA_SEND,     /* on CPU in write, send*, writev */
	XA_RECV,     /* ... read, recv*, readv */
	XA_EPOLL,    /* ... epoll_wait, epoll_pwait(2) */
	XA_POLL,     /* ... poll, ppoll, select, pselect6 */
	XA_URING,    /* ... io_uring_enter */
	XA_FUTEX,    /* ... futex */
	XA_SYSOTHER, /* ... any other system call */
	XA_BLOCKED,  /* off CPU, asleep until woken */
	XA_RUNQ,     /* woken, waiting for the CPU (behind a task) */
	XA_IDLE,     /* woken, the CPU coming out of an idle state */
	XA_PREEMPT,  /* preempted, waiting to run again */
	XA_SOFTIRQ0, /* softirq of kind n (HI, TIMER, NET_TX, NET_RX..)
			    interrupting the side: XA_SOFTIRQ0 + n */
	XA_HARDIRQ = XA_SOFTIRQ0 + 10, /* hard interrupts interrupting it */
	XA_IPI,	    /* woken, its CPU not yet interrupted by the IPI */
	XA_MIGRATE, /* moves to another CPU (events only) */
	XA_PHASES
};

#define XA_SLOTS (XA_SIDES * XA_PHASES)

/*
 * Log-linear histogram of event lengths in ns: values 0..3 exactly, then
 * four buckets per power of two (at most 19% wide), up to 2^41 ns.
 */
#define XA_BUCKETS 160

/* One slot of the per-CPU statistics map. */
struct xa_slot {
	__u64 ns;     /* time spent in the phase, within the window */
	__u64 events; /* events of the phase that ended in the window */
	__u64 bucket[XA_BUCKETS];
};

/* A thread being watched (the program's thr[], its tid in thr_tid[]). */
struct xa_thread {
	__u64 ts;     /* start of its current, not yet counted, stretch */
	__u64 sys_ns; /* on-CPU time of the system call in progress */
	__u32 side;   /* XA_CLIENT or XA_SERVER */
	__u32 state;  /* XA_ST_* */
	__u32 in_sys; /* inside a system call */
	__u32 sys_ph; /* its phase (XA_SEND..XA_SYSOTHER) */
	__u64 ev_ts;  /* start of the current off-CPU event */
	__u32 cpu;    /* the CPU it last ran on */
	__u32 pad;
};

#define XA_ST_RUN 0	/* on CPU */
#define XA_ST_BLOCKED 1 /* asleep */
#define XA_ST_WAKE 2	/* woken, not yet running */
#define XA_ST_PREEMPT 3 /* runnable, not running */

/* A task that ran on a watched CPU and is not watched: key its pid. */
struct xa_other {
	char comm[16];
	__u64 ns; /* its time on a watched CPU, within the window */
	__u64 runq_ns[XA_SIDES]; /* each side's wait for the CPU behind it */
};

#define XA_OTHERS_MAX 512
#define XA_THREADS_MAX 4

#endif
