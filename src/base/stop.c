/* SPDX-License-Identifier: MIT */
/*
 * Stopping a side (see base.h): a cancel's flag, its eventfd and the
 * per-thread timers that repeat the wake signal at the threads watching it;
 * the one way the library starts a helper thread; and SIGPIPE held off a
 * thread that writes to peers that may be gone.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "ipcperf/base.h"
#include "base/lib_internal.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* States of a watch slot. */
enum { W_FREE = 0, W_SETUP, W_ARMED, W_LEAVING };

/*
 * A stop that lands just before a blocking call is repeated this often
 * until the watching thread sees it: the same 10 ms the process-wide
 * SIGALRM used to give, now per thread.
 */
#define REPEAT_NS 10000000L

int ipc_wake_signal(void)
{
	return SIGRTMIN + 8;
}

static void on_wake(int sig)
{
	(void)sig; /* there only to make the blocked call return EINTR */
}

static struct {
	pthread_once_t once;
	int err;
} wake = {.once = PTHREAD_ONCE_INIT};

static void wake_install(void)
{
	struct sigaction sa, old;
	int sig = ipc_wake_signal();

	if (sigaction(sig, NULL, &old) < 0) {
		wake.err = -errno;
		return;
	}
	if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
		wake.err = -EBUSY; /* someone else's: it might restart */
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wake;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: the call must return EINTR */
	if (sigaction(sig, &sa, NULL) < 0)
		wake.err = -errno;
}

static int wake_ready(void)
{
	pthread_once(&wake.once, wake_install);
	return wake.err;
}

int ipc_cancel_init(struct ipc_cancel *c)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	err = wake_ready();
	if (err)
		return err;
	c->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return c->fd < 0 ? -errno : 0;
}

void ipc_cancel_fini(struct ipc_cancel *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static void arm(timer_t t)
{
	const struct itimerspec its = {.it_value = {0, 1},
				       .it_interval = {0, REPEAT_NS}};

	timer_settime(t, 0, &its, NULL);
}

/*
 * The busy count keeps a timer alive while a firing uses it: unwatch
 * marks the slot leaving, then waits for busy to drop before it deletes
 * the timer.  Both sides use sequentially consistent atomics, so either
 * the firing sees the slot leaving or unwatch sees it busy.
 */
void ipc_cancel_fire(struct ipc_cancel *c)
{
	const uint64_t one = 1;
	int i;

	__atomic_store_n(&c->fired, 1, __ATOMIC_SEQ_CST);
	if (c->fd >= 0)
		(void)!write(c->fd, &one, sizeof(one)); /* EAGAIN: it is set */
	for (i = 0; i < IPC_CANCEL_WATCHERS; i++) {
		__atomic_add_fetch(&c->watch[i].busy, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&c->watch[i].state, __ATOMIC_SEQ_CST) ==
		    W_ARMED)
			arm(c->watch[i].timer);
		__atomic_sub_fetch(&c->watch[i].busy, 1, __ATOMIC_SEQ_CST);
	}
}

void ipc_cancel_reset(struct ipc_cancel *c)
{
	uint64_t v;

	if (c->fd >= 0)
		while (read(c->fd, &v, sizeof(v)) < 0 && errno == EINTR)
			;
	__atomic_store_n(&c->fired, 0, __ATOMIC_SEQ_CST);
}

int ipc_cancel_watch(struct ipc_cancel *c)
{
	struct sigevent sev;
	int i, expect, err;

	err = wake_ready();
	if (err)
		return err;
	for (i = 0; i < IPC_CANCEL_WATCHERS; i++) {
		expect = W_FREE;
		if (__atomic_compare_exchange_n(
			    &c->watch[i].state, &expect, W_SETUP, false,
			    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			break;
	}
	if (i == IPC_CANCEL_WATCHERS)
		return -EBUSY;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = ipc_wake_signal();
	sev.sigev_notify_thread_id = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &c->watch[i].timer) < 0) {
		err = -errno;
		__atomic_store_n(&c->watch[i].state, W_FREE, __ATOMIC_SEQ_CST);
		return err;
	}
	__atomic_store_n(&c->watch[i].state, W_ARMED, __ATOMIC_SEQ_CST);
	/* A firing before the store above did not see this thread. */
	if (__atomic_load_n(&c->fired, __ATOMIC_SEQ_CST))
		arm(c->watch[i].timer);
	return i;
}

int ipc_wake_timer_new(timer_t *t)
{
	struct sigevent sev;
	int err = wake_ready();

	if (err)
		return err;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = ipc_wake_signal();
	sev.sigev_notify_thread_id = gettid();
	return timer_create(CLOCK_MONOTONIC, &sev, t) < 0 ? -errno : 0;
}

void ipc_cancel_unwatch(struct ipc_cancel *c, int w)
{
	if (w < 0 || w >= IPC_CANCEL_WATCHERS)
		return;
	__atomic_store_n(&c->watch[w].state, W_LEAVING, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&c->watch[w].busy, __ATOMIC_SEQ_CST))
		sched_yield(); /* a firing is between two atomics */
	timer_delete(c->watch[w].timer);
	__atomic_store_n(&c->watch[w].state, W_FREE, __ATOMIC_SEQ_CST);
}

int ipc_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	static const int open_sigs[] = {SIGSEGV, SIGBUS,  SIGFPE,
					SIGILL,	 SIGTRAP, SIGSYS};
	pthread_attr_t attr;
	sigset_t mask;
	int err;

	sigfillset(&mask);
	for (size_t i = 0; i < sizeof(open_sigs) / sizeof(open_sigs[0]); i++)
		sigdelset(&mask, open_sigs[i]);
	sigdelset(&mask, ipc_wake_signal());
	err = pthread_attr_init(&attr);
	if (err)
		return -err;
	err = pthread_attr_setsigmask_np(&attr, &mask);
	if (!err)
		err = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return -err;
}

void ipc_sigpipe_hold(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

void ipc_sigpipe_release(const sigset_t *old)
{
	const struct timespec zero = {0, 0};
	sigset_t pend, pipe;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	if (!sigismember(old, SIGPIPE) && !sigpending(&pend) &&
	    sigismember(&pend, SIGPIPE))
		sigtimedwait(&pipe, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}
