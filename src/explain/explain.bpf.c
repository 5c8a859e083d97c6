/* SPDX-License-Identifier: MIT */
/*
 * The kernel side of --explain: tracepoints on the scheduler, system
 * calls, idle states and interrupts cut the time of the watched threads
 * into phases and sum them in maps, so that user space reads totals once
 * per run and does nothing per event.
 *
 * The client's time is counted whole: every nanosecond of its measured
 * window is in exactly one of its phases.  While the client is off its
 * CPU, the server's time is counted instead where it is what the client
 * waits for: all of it while the client sleeps (waiting for the answer),
 * and its time on the client's CPU while the client waits for that CPU
 * (behind the server, on one CPU).  What the server covers is taken out
 * of the client's off-CPU phase, so that the two sides follow one round
 * trip's path and add up to it; what the server does elsewhere while the
 * client runs or waits for its own CPU is not on that path.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "explain_abi.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/*
 * Set by the loader before loading (read-only data: the verifier drops
 * the code it turns off).  Every program returns at once: what attaching
 * alone costs, for bench/explain.sh.
 */
const volatile bool xa_empty = false;
/* Events and their histograms not counted: what they cost. */
const volatile bool xa_no_events = false;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XA_SLOTS);
	__type(key, __u32);
	__type(value, struct xa_slot);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XA_OTHERS_MAX);
	__type(key, __u32);
	__type(value, struct xa_other);
} others SEC(".maps");

/* What one CPU is doing, for the events that happen on it. */
struct xa_cpu {
	__u64 in_ts;	    /* when its current task was switched in */
	__u64 idle_exit_ts; /* when it last left an idle state */
	__u64 ipi_ts;	    /* when it last received a wake-up's IPI */
	__u64 soft_ts;	    /* start of the softirq stretch in progress */
	__u64 hard_ts;	    /* start of the hard interrupt in progress */
	__u32 soft_vec;	    /* its kind */
	__u32 in_soft, in_hard;
	__u32 watched; /* a watched thread ran here in the window */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xa_cpu);
} cpus SEC(".maps");

/*
 * The measured window, written by the measuring thread through the
 * skeleton's mapped .bss (a plain store, no system call): begin 0 means
 * nothing is counted, end 0 that the window is still open.
 */
__u64 win_begin;
__u64 win_end;
/*
 * The client as the server's counting needs it: its state (XA_ST_*), the
 * CPU it last ran on, its latest stretch off that CPU [off_begin,
 * off_end) (off_end < off_begin while it lasts), and the server time
 * counted in that stretch and not yet taken out of the client's phase.
 */
__u32 cli_state;
__u32 cli_cpu;
__u64 off_begin;
__u64 off_end;
__u64 covered;
/*
 * The watched threads, in the mapped .bss too: user space registers a
 * thread with plain stores (its state, then its tid), from a forked
 * process as well, whose mapping is shared.  Finding a tid among a few
 * words costs less than a hash lookup, and every event pays for it.
 */
__u32 thr_tid[XA_THREADS_MAX];
struct xa_thread thr[XA_THREADS_MAX];

static __always_inline __u64 max64(__u64 a, __u64 b)
{
	return a > b ? a : b;
}

static __always_inline __u64 min64(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

/* How much of [a, b) counts for @side: inside the window, and for the
   server inside the client's latest sleep. */
static __always_inline __u64 clip(__u32 side, __u64 a, __u64 b)
{
	__u64 lo, hi;

	if (!win_begin)
		return 0;
	lo = max64(a, win_begin);
	hi = win_end ? min64(b, win_end) : b;
	if (side == XA_SERVER) {
		lo = max64(lo, off_begin);
		if (off_end >= off_begin)
			hi = min64(hi, off_end);
	}
	return hi > lo ? hi - lo : 0;
}

/* Does the server's stretch in state @t count for the round trip now? */
static __always_inline bool server_counts(const struct xa_thread *t)
{
	if (cli_state == XA_ST_BLOCKED)
		return true; /* the client waits for the server, whatever it does */
	/* The client waits for its CPU: the server on that CPU holds it. */
	return cli_state != XA_ST_RUN && t->state == XA_ST_RUN &&
	       t->cpu == cli_cpu;
}

/* Take what the server covered out of @n ns of the client's wait. */
static __always_inline __u64 uncovered(__u64 n)
{
	__u64 c = min64(covered, n);

	covered -= c;
	return n - c;
}

static __always_inline bool in_window(__u64 t)
{
	return win_begin && t >= win_begin && (!win_end || t <= win_end);
}

/* The log-linear bucket of @v ns (explain_abi.h). */
static __always_inline __u32 bucket_of(__u64 v)
{
	__u32 msb = 0;
	__u64 x = v;

	if (v < 4)
		return (__u32)v;
	/* The highest bit set, by halves (the BPF target has no clz). */
#pragma unroll
	for (__u32 sh = 32; sh; sh >>= 1) {
		if (x >> sh) {
			msb += sh;
			x >>= sh;
		}
	}
	return (msb - 1) * 4 + (__u32)((v >> (msb - 2)) & 3);
}

static __always_inline void add_ns(__u32 side, __u32 ph, __u64 ns)
{
	__u32 key = side * XA_PHASES + ph;
	struct xa_slot *s;

	if (!ns || key >= XA_SLOTS)
		return;
	s = bpf_map_lookup_elem(&stats, &key);
	if (s)
		s->ns += ns;
}

/*
 * The functions below that are neither static nor inlined are global
 * functions for the verifier: it checks each once, on its own, instead
 * of once per path of every caller (the scheduler's program, which looks
 * up two threads, would otherwise pass its limit).  A pointer they take
 * may be NULL for the verifier, so they test it.
 */

/* One event of @len ns ending at @end, in the window. */
__noinline int add_event(__u32 side, __u32 ph, __u64 end, __u64 len)
{
	__u32 key = side * XA_PHASES + ph, b;
	struct xa_slot *s;

	if (xa_no_events || !in_window(end) || key >= XA_SLOTS)
		return 0;
	s = bpf_map_lookup_elem(&stats, &key);
	if (!s)
		return 0;
	s->events++;
	b = bucket_of(len);
	if (b >= XA_BUCKETS)
		b = XA_BUCKETS - 1;
	s->bucket[b]++;
	return 0;
}

static __always_inline __u32 run_phase(const struct xa_thread *t)
{
	return t->in_sys ? t->sys_ph : XA_USER;
}

/* Count @t's stretch up to @now in the phase of its state. */
__noinline int flush(struct xa_thread *t, __u64 now)
{
	__u64 ts, n;
	__u32 ph;

	if (!t)
		return 0;
	ts = t->ts ? t->ts : now;
	switch (t->state) {
	case XA_ST_RUN:
		ph = run_phase(t);
		break;
	case XA_ST_BLOCKED:
		ph = XA_BLOCKED;
		break;
	case XA_ST_WAKE:
		ph = XA_RUNQ;
		break;
	default:
		ph = XA_PREEMPT;
		break;
	}
	n = clip(t->side, ts, now);
	if (t->side == XA_SERVER) {
		if (!server_counts(t))
			n = 0;
		covered += n;
	} else if (t->state != XA_ST_RUN) {
		n = uncovered(n);
	}
	add_ns(t->side, ph, n);
	if (t->state == XA_ST_RUN && t->in_sys)
		t->sys_ns += n;
	t->ts = now;
	return 0;
}

static __always_inline struct xa_cpu *this_cpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpus, &zero);
}

static __always_inline struct xa_thread *watched(__u32 tid)
{
	if (!tid)
		return NULL;
#pragma unroll
	for (int i = 0; i < XA_THREADS_MAX; i++)
		if (thr_tid[i] == tid)
			return &thr[i];
	return NULL;
}

static __always_inline struct xa_thread *current_watched(void)
{
	return watched((__u32)bpf_get_current_pid_tgid());
}

/*
 * The system call numbers of the classes, per architecture; elsewhere
 * every call is "other".
 */
static __always_inline __u32 sys_class(long id)
{
#if defined(__TARGET_ARCH_x86)
	switch (id) {
	case 1: case 20: case 44: case 46: case 307:
		return XA_SEND;
	case 0: case 19: case 45: case 47: case 299:
		return XA_RECV;
	case 232: case 281: case 441:
		return XA_EPOLL;
	case 7: case 23: case 270: case 271:
		return XA_POLL;
	case 426:
		return XA_URING;
	case 202:
		return XA_FUTEX;
	}
#elif defined(__TARGET_ARCH_arm64)
	switch (id) {
	case 64: case 66: case 206: case 211: case 269:
		return XA_SEND;
	case 63: case 65: case 207: case 212: case 243:
		return XA_RECV;
	case 22: case 441:
		return XA_EPOLL;
	case 72: case 73:
		return XA_POLL;
	case 426:
		return XA_URING;
	case 98:
		return XA_FUTEX;
	}
#endif
	return XA_SYSOTHER;
}

/* The current task if watched, its stretch counted up to *@now. */
static __always_inline struct xa_thread *current_flushed(__u64 *now)
{
	struct xa_thread *t = current_watched();

	if (t) {
		*now = bpf_ktime_get_ns();
		flush(t, *now);
	}
	return t;
}

/* The current task leaves a system call, if watched. */
static __always_inline int sys_out(void)
{
	__u64 now;
	struct xa_thread *t = current_flushed(&now);

	if (!t)
		return 0;
	if (t->in_sys)
		add_event(t->side, t->sys_ph, now, t->sys_ns);
	t->in_sys = 0;
	return 0;
}

/* The current task enters system call @id, if watched. */
static __always_inline int sys_in(long id)
{
	struct xa_thread *t;
	__u64 now;

	if (xa_empty)
		return 0;
	/* Classed only for a watched thread: the others pay one scan. */
	t = current_flushed(&now);
	if (!t)
		return 0;
	t->in_sys = 1;
	t->sys_ph = sys_class(id);
	t->sys_ns = 0;
	return 0;
}

/*
 * The system calls, classed by number.  While these are attached every
 * system call of the machine takes the kernel's slower entry path; the
 * loader can leave them out (a call's time is then its thread's "user"
 * time), which bench/explain.sh uses to say what they cost.  The same
 * hook three ways, one loaded: BTF-typed (the default), untyped raw
 * tracepoint, and the classic tracepoint that fills a trace record
 * first; bench/explain.sh compares them.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(xa_sys_enter, struct pt_regs *regs, long id)
{
	return sys_in(id);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(xa_sys_exit, struct pt_regs *regs, long ret)
{
	if (xa_empty)
		return 0;
	return sys_out();
}

SEC("raw_tp/sys_enter")
int xa_raw_enter(struct bpf_raw_tracepoint_args *ctx)
{
	return sys_in((long)ctx->args[1]);
}

SEC("raw_tp/sys_exit")
int xa_raw_exit(struct bpf_raw_tracepoint_args *ctx)
{
	if (xa_empty)
		return 0;
	return sys_out();
}

SEC("tracepoint/raw_syscalls/sys_enter")
int xa_tp_enter(struct trace_event_raw_sys_enter *ctx)
{
	return sys_in(ctx->id);
}

SEC("tracepoint/raw_syscalls/sys_exit")
int xa_tp_exit(struct trace_event_raw_sys_exit *ctx)
{
	if (xa_empty)
		return 0;
	return sys_out();
}

/* A task not watched ran on a watched CPU from c->in_ts to @now. */
static __always_inline void other_ran(struct task_struct *task,
				      struct xa_cpu *c, __u64 now, __u64 runq,
				      __u32 side)
{
	__u32 pid = task->pid;
	struct xa_other zero = {}, *o;
	__u64 n = clip(XA_CLIENT, c->in_ts, now);

	if (!pid || (!n && !runq))
		return;
	o = bpf_map_lookup_elem(&others, &pid);
	if (!o) {
		BPF_CORE_READ_STR_INTO(&zero.comm, task, comm);
		bpf_map_update_elem(&others, &pid, &zero, BPF_NOEXIST);
		o = bpf_map_lookup_elem(&others, &pid);
		if (!o)
			return;
	}
	__sync_fetch_and_add(&o->ns, n);
	if (runq && side < XA_SIDES)
		__sync_fetch_and_add(&o->runq_ns[side], runq);
}

/*
 * [@from, @to) of @t's wait for its CPU, in phase @ph, one event ending at
 * @now: the client's less what the server covered of it, the server's
 * where the client waits for it.  Returns what was counted.
 */
__noinline __u64 wait_part(struct xa_thread *t, __u32 ph, __u64 from,
			   __u64 to, __u64 now)
{
	__u64 q;

	if (!t)
		return 0;
	q = clip(t->side, from, to);
	if (t->side == XA_CLIENT)
		q = uncovered(q);
	else if (!server_counts(t))
		q = 0;
	else
		covered += q;
	add_ns(t->side, ph, q);
	add_event(t->side, ph, now, to - from);
	return q;
}

/*
 * @t runs again on this CPU after waiting since t->ts.  Woken, its wait
 * is cut where this CPU received the wake-up's IPI (the waker's CPU
 * asked this one to run it) and where the CPU left its idle state: up to
 * the IPI is its delivery, then the idle exit, the rest run-queue wait
 * (behind @prev when it is another task).  Returns the run-queue part.
 */
static __always_inline __u64 resume(struct xa_thread *t, struct xa_cpu *c,
				    __u64 now)
{
	__u64 ts = t->ts ? t->ts : now, mid;
	__u32 ph = t->state == XA_ST_WAKE ? XA_RUNQ : XA_PREEMPT;

	if (t->state == XA_ST_BLOCKED) {
		flush(t, now); /* its waking was not seen */
		return 0;
	}
	if (t->state == XA_ST_WAKE && c->ipi_ts > ts) {
		mid = min64(c->ipi_ts, now);
		wait_part(t, XA_IPI, ts, mid, now);
		ts = mid;
	}
	if (t->state == XA_ST_WAKE && c->idle_exit_ts > ts) {
		mid = min64(c->idle_exit_ts, now);
		wait_part(t, XA_IDLE, ts, mid, now);
		ts = mid;
	}
	t->ts = now;
	return wait_part(t, ph, ts, now, now);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(xa_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	struct xa_cpu *c = this_cpu();
	struct xa_thread *p, *n;
	__u64 now, q = 0;
	__u32 ppid, npid;

	if (xa_empty || !c)
		return 0;
	/* Typed arguments: read directly, no helper call. */
	ppid = prev->pid;
	npid = next->pid;
	p = watched(ppid);
	n = watched(npid);
	/* Tested one by one: the verifier refuses two pointers or-ed. */
	if (!c->watched) {
		if (!p) {
			barrier_var(n);
			if (!n)
				return 0;
		}
	}
	now = bpf_ktime_get_ns();
	if (p) {
		flush(p, now);
		if (preempt || prev->__state == 0)
			p->state = XA_ST_PREEMPT;
		else
			p->state = XA_ST_BLOCKED;
		p->ev_ts = now;
		if (p->side == XA_CLIENT) {
			off_begin = now;
			covered = 0;
			cli_state = p->state;
		}
	}
	if (n) {
		if (n->state == XA_ST_PREEMPT || n->state == XA_ST_WAKE)
			q = resume(n, c, now);
		else
			flush(n, now);
		n->state = XA_ST_RUN;
		n->cpu = bpf_get_smp_processor_id();
		if (n->side == XA_CLIENT) {
			off_end = now;
			cli_state = XA_ST_RUN;
			cli_cpu = n->cpu;
		}
		if (in_window(now))
			c->watched = 1;
	}
	if (!p && c->watched)
		other_ran(prev, c, now, n ? q : 0, n ? n->side : 0);
	c->in_ts = now;
	return 0;
}

/*
 * The watched thread an interrupt runs on top of, with its CPU's state
 * and the time; NULL when the current task is not watched.
 */
static __always_inline struct xa_thread *on_watched(struct xa_cpu **c,
						    __u64 *now)
{
	struct xa_thread *t;

	if (xa_empty)
		return NULL;
	t = current_watched();
	if (!t)
		return NULL;
	*c = this_cpu();
	if (!*c)
		return NULL;
	*now = bpf_ktime_get_ns();
	return t;
}

/* An interrupt's stretch [@from, @now) in phase @ph of @t's side. */
static __always_inline void irq_count(struct xa_thread *t, __u32 ph,
				      __u64 from, __u64 now, bool event)
{
	__u64 n = clip(t->side, from, now);

	if (t->side == XA_SERVER) {
		if (!server_counts(t))
			n = 0;
		covered += n;
	}
	add_ns(t->side, ph, n);
	if (event)
		add_event(t->side, ph, now, now - from);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(xa_waking, struct task_struct *task)
{
	struct xa_thread *t, *w;
	struct xa_cpu *c;
	__u64 now;

	if (xa_empty)
		return 0;
	t = watched(task->pid);
	if (!t || t->state != XA_ST_BLOCKED)
		return 0;
	now = bpf_ktime_get_ns();
	if (t->side == XA_CLIENT) {
		/*
		 * The server waking the client (in its system call, or in a
		 * softirq on top of it): its time up to here is the client's
		 * sleep's, counted before the client's state moves on.
		 */
		w = current_watched();
		c = w && w->side == XA_SERVER ? this_cpu() : NULL;
		if (c && c->in_hard) {
			irq_count(w, XA_HARDIRQ, c->hard_ts, now, false);
			c->hard_ts = now;
		} else if (c && c->in_soft) {
			irq_count(w, XA_SOFTIRQ0 + c->soft_vec, c->soft_ts, now,
				  false);
			c->soft_ts = now;
		} else if (c) {
			flush(w, now);
		}
	}
	flush(t, now);
	add_event(t->side, XA_BLOCKED, now, now - t->ev_ts);
	t->state = XA_ST_WAKE;
	if (t->side == XA_CLIENT)
		cli_state = XA_ST_WAKE;
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(xa_migrate, struct task_struct *task, int dest_cpu)
{
	struct xa_thread *t;

	if (xa_empty)
		return 0;
	t = watched(task->pid);
	if (t)
		add_event(t->side, XA_MIGRATE, bpf_ktime_get_ns(), 0);
	return 0;
}

SEC("tp_btf/cpu_idle")
int BPF_PROG(xa_cpu_idle, unsigned int state, unsigned int cpu_id)
{
	struct xa_cpu *c;

	if (xa_empty || state != (unsigned int)-1)
		return 0;
	c = this_cpu();
	if (c)
		c->idle_exit_ts = bpf_ktime_get_ns();
	return 0;
}

#if defined(__TARGET_ARCH_x86)
/*
 * An idle CPU receives the IPI of a wake-up: a function call (the woken
 * task queued for it to enqueue) or a reschedule.  Only while idle: a
 * busy CPU's IPIs are not what a task woken there waits for (it waits
 * behind the task running, which run queue names).  x86's vectors; the
 * loader goes on without them where the kernel lacks them.
 */
static __always_inline int ipi_in(void)
{
	struct xa_cpu *c;

	if (xa_empty || (__u32)bpf_get_current_pid_tgid())
		return 0;
	c = this_cpu();
	if (c)
		c->ipi_ts = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/call_function_single_entry")
int BPF_PROG(xa_ipi_call, int vector)
{
	return ipi_in();
}

SEC("tp_btf/reschedule_entry")
int BPF_PROG(xa_ipi_resched, int vector)
{
	return ipi_in();
}
#endif

SEC("tp_btf/softirq_entry")
int BPF_PROG(xa_softirq_entry, unsigned int vec)
{
	struct xa_cpu *c;
	__u64 now;
	struct xa_thread *t = on_watched(&c, &now);

	if (!t)
		return 0;
	flush(t, now);
	c->soft_ts = now;
	c->soft_vec = vec < 10 ? vec : 9;
	c->in_soft = 1;
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(xa_softirq_exit, unsigned int vec)
{
	struct xa_cpu *c;
	__u64 now;
	struct xa_thread *t = on_watched(&c, &now);

	if (!t || !c->in_soft)
		return 0;
	irq_count(t, XA_SOFTIRQ0 + c->soft_vec, c->soft_ts, now, true);
	c->in_soft = 0;
	t->ts = now; /* the softirq is not the interrupted phase's time */
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(xa_irq_entry, int irq, struct irqaction *action)
{
	struct xa_cpu *c;
	__u64 now;
	struct xa_thread *t = on_watched(&c, &now);

	if (!t)
		return 0;
	if (c->in_soft) /* the softirq so far is its own; it resumes after */
		irq_count(t, XA_SOFTIRQ0 + c->soft_vec, c->soft_ts, now, false);
	else
		flush(t, now);
	c->hard_ts = now;
	c->in_hard = 1;
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(xa_irq_exit, int irq, struct irqaction *action, int ret)
{
	struct xa_cpu *c;
	__u64 now;
	struct xa_thread *t = on_watched(&c, &now);

	if (!t || !c->in_hard)
		return 0;
	irq_count(t, XA_HARDIRQ, c->hard_ts, now, true);
	c->in_hard = 0;
	if (c->in_soft)
		c->soft_ts = now;
	else
		t->ts = now;
	return 0;
}
