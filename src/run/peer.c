/* SPDX-License-Identifier: MIT */
/*
 * The kinds of peer (see struct ipc_peer_ops in run.h): ipcperf's server
 * side in a forked process or in a helper thread, or nothing at all when
 * the server is already there.
 *
 *   process:  parent                              child
 *             fork ──────────────────────────────► own signals, only its
 *             watcher thread: poll(pidfd) ─┐        descriptors, serve()
 *               the child ended early ─────┴─► fire the client's stop
 *               (only where the channel would not show its death)
 *             stop: fire the child's stop (shared flag + eventfd), then
 *                   the wake signal to its pid every 10 ms; SIGKILL at 2 s
 *   thread:   helper thread, watching its own stop: serve(); a failure
 *             fires the client's stop.  stop: fire its stop, join.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_internal.h"
#include "base/lib_internal.h"
#include "run/lib_internal.h"
#include "transport/lib_internal.h"

const struct ipc_peer_ops *ipc_peer_of(const struct ipc_case *cs,
				       const struct ipc_runopts *ro)
{
	if (cs->peer)
		return cs->peer;
	return ro->placement == IPC_PLACE_THREAD ? &ipc_peer_thread
						 : &ipc_peer_process;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000,
			      .tv_nsec = (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		; /* the client's wake signal may cut it short */
}

/* ---- process --------------------------------------------------------- */

/* What parent and child share, MAP_SHARED, fresh for every run. */
struct shared {
	struct ipc_cancel stop;	   /* the child's: its flag is read there */
	struct ipc_pout out;	   /* the child's serve(), copied back */
	struct ipc_side_cost cost; /* likewise */
};

struct proc {
	struct shared *sh;
	pid_t pid;
	int pidfd; /* readable once the child ended; -1: none */
	int quit;  /* eventfd that ends the watcher */
	pthread_t watcher;
	bool watching;
	bool killed; /* it had to be SIGKILLed */
	int status;  /* waitpid's */
};

/*
 * In the child, before serving: signals are the child's own business now.
 * The parent decides when it stops, so the user's Ctrl-C and SIGHUP (sent
 * to the whole process group) are ignored; handlers the parent's program
 * installed for other signals go back to their defaults; SIGPIPE is
 * ignored (a write to a closed pipe returns EPIPE); the wake signal keeps
 * the library's handler; nothing is blocked.  The faults keep theirs
 * (sanitizers report crashes there).
 */
static void child_signals(void)
{
	static const int dfl[] = {SIGTERM,  SIGQUIT, SIGCHLD,	SIGUSR1,
				  SIGUSR2,  SIGALRM, SIGVTALRM, SIGPROF,
				  SIGWINCH, SIGURG,  SIGTSTP};
	static const int ign[] = {SIGINT, SIGHUP, SIGPIPE};
	struct sigaction sa;
	sigset_t none;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_DFL;
	for (size_t i = 0; i < sizeof(dfl) / sizeof(dfl[0]); i++)
		sigaction(dfl[i], &sa, NULL);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		if (sig != ipc_wake_signal())
			sigaction(sig, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	for (size_t i = 0; i < sizeof(ign) / sizeof(ign[0]); i++)
		sigaction(ign[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/*
 * In the child: close every descriptor it does not need, keeping 0-2,
 * its side of the channel and its stop.  A child of a process that runs
 * other plans at the same time would otherwise hold their channels open
 * (their ends would not see end of stream until it exits) and their
 * stops.
 */
static void child_close_others(const struct ipc_chan *ch, int stop_fd)
{
	int keep[IPC_CHAN_FDS + 2], n = 0, lo = 3;

	for (int i = 0; i < IPC_CHAN_FDS; i++)
		if (ch->fd[i] >= 3)
			keep[n++] = ch->fd[i];
	if (stop_fd >= 3)
		keep[n++] = stop_fd;
	qsort(keep, (size_t)n, sizeof(keep[0]), cmp_int);
	for (int i = 0; i <= n; i++) {
		int hi = i < n ? keep[i] - 1 : -1; /* -1: to the end */

		if (i < n && hi < lo) {
			lo = keep[i] + 1;
			continue;
		}
		syscall(SYS_close_range, (unsigned)lo,
			hi < 0 ? ~0u : (unsigned)hi, 0u);
		if (i < n)
			lo = keep[i] + 1;
	}
}

static void __attribute__((noreturn))
child(struct ipc_peer *p, struct proc *pr, pid_t parent)
{
	/* Die with the parent, even if it is killed. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	child_signals();
	ipc_chan_drop_other(p->ch, IPC_SERVER);
	child_close_others(p->ch, pr->sh->stop.fd);
	p->serve(p, &pr->sh->stop);
	pr->sh->out = p->out;
	pr->sh->cost = p->cost;
	_exit(p->out.err ? 1 : 0);
}

/*
 * The watcher: a helper thread that fires the client's stop when the
 * child ends before it is told to (killed, crashed, failed), which a
 * client waiting on a datagram, a message queue or shared memory would
 * not see otherwise.  It waits on the child's pidfd; without pidfds
 * (Linux before 5.3, or valgrind) it looks every 10 ms, leaving the child
 * unreaped.  Only where the channel would not show the death
 * (IPC_TP_PEER_END): a second thread makes the kernel count references on
 * every descriptor a system call of this process uses (fdget), about 1%
 * of a pipe round trip here.
 */
static void *watch_child(void *arg)
{
	struct ipc_peer *p = arg;
	struct proc *pr = p->priv;
	struct pollfd pfd[2] = {{.fd = pr->quit, .events = POLLIN},
				{.fd = pr->pidfd, .events = POLLIN}};
	siginfo_t si;
	int n;

	for (;;) {
		n = poll(pfd, pr->pidfd >= 0 ? 2 : 1, pr->pidfd >= 0 ? -1 : 10);
		if (n < 0 && errno != EINTR)
			return NULL;
		if (n > 0 && pfd[0].revents)
			return NULL; /* stop() took over */
		if (n > 0 && pfd[1].revents)
			break;
		memset(&si, 0, sizeof(si));
		if (pr->pidfd < 0 &&
		    !waitid(P_PID, (id_t)pr->pid, &si,
			    WEXITED | WNOHANG | WNOWAIT) &&
		    si.si_pid == pr->pid)
			break;
	}
	ipc_cancel_fire(p->client);
	return NULL;
}

static void proc_free(struct proc *pr)
{
	if (pr->pidfd >= 0)
		close(pr->pidfd);
	if (pr->quit >= 0)
		close(pr->quit);
	if (pr->sh) {
		ipc_cancel_fini(&pr->sh->stop);
		munmap(pr->sh, sizeof(*pr->sh));
	}
	free(pr);
}

static int proc_start(struct ipc_peer *p)
{
	pid_t parent = getpid();
	struct proc *pr;
	int err;

	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	pr->pidfd = -1;
	pr->quit = -1;
	pr->sh = mmap(NULL, sizeof(*pr->sh), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pr->sh == MAP_FAILED) {
		pr->sh = NULL;
		err = -errno;
		goto fail;
	}
	err = ipc_cancel_init(&pr->sh->stop);
	if (err)
		goto fail;
	pr->quit = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (pr->quit < 0) {
		err = -errno;
		goto fail;
	}
	fflush(NULL);
	pr->pid = fork();
	if (pr->pid < 0) {
		err = -errno;
		goto fail;
	}
	if (pr->pid == 0)
		child(p, pr, parent);
	ipc_chan_drop_other(p->ch, IPC_CLIENT);
	pr->pidfd = (int)syscall(SYS_pidfd_open, pr->pid, 0);
	p->priv = pr;
	if (p->cs->tp->caps & IPC_TP_PEER_END)
		return 0; /* its death shows on the channel: no watcher */
	/* Without a watcher the peer's death could go unseen: no peer. */
	err = ipc_thread_start(&pr->watcher, watch_child, p);
	pr->watching = !err;
	if (err) {
		p->priv = NULL;
		kill(pr->pid, SIGKILL);
		while (waitpid(pr->pid, NULL, 0) < 0 && errno == EINTR)
			;
		goto fail;
	}
	return 0;
fail:
	snprintf(p->story, sizeof(p->story), "start the peer process: %s",
		 strerror(-err));
	proc_free(pr);
	return err;
}

/* How the child ended, in words, or "" if it ended well. */
static void proc_story(struct ipc_peer *p, const struct proc *pr)
{
	if (pr->killed)
		snprintf(p->story, sizeof(p->story),
			 "peer did not stop within 2 s and was killed");
	else if (WIFSIGNALED(pr->status))
		snprintf(p->story, sizeof(p->story),
			 "peer killed by signal %d (%s)", WTERMSIG(pr->status),
			 strsignal(WTERMSIG(pr->status)));
	else if (p->out.err && p->out.what[0])
		snprintf(p->story, sizeof(p->story), "peer: %s", p->out.what);
	else if (WIFEXITED(pr->status) && WEXITSTATUS(pr->status) != 0)
		snprintf(p->story, sizeof(p->story),
			 "peer exited with status %d", WEXITSTATUS(pr->status));
}

/*
 * The child normally leaves on end of stream once the client closed; a
 * datagram peer cannot see that, so after 1 ms its stop is fired and the
 * wake signal sent every 10 ms (one that lands just before it blocks is
 * lost); after 2 s it is killed.
 */
static void proc_stop(struct ipc_peer *p)
{
	struct proc *pr = p->priv;
	const uint64_t one = 1;
	int i;

	if (!pr)
		return;
	if (pr->watching) {
		(void)!write(pr->quit, &one, sizeof(one));
		pthread_join(pr->watcher, NULL);
	}
	for (i = 0; i < 200; i++) {
		if (waitpid(pr->pid, &pr->status, WNOHANG) == pr->pid)
			goto reaped;
		if (i == 1)
			ipc_cancel_fire(&pr->sh->stop);
		if (i > 0)
			kill(pr->pid, ipc_wake_signal());
		sleep_ms(i ? 10 : 1);
	}
	kill(pr->pid, SIGKILL);
	pr->killed = true;
	while (waitpid(pr->pid, &pr->status, 0) < 0 && errno == EINTR)
		;
reaped:
	p->out = pr->sh->out; /* it has ended: nothing writes them now */
	p->cost = pr->sh->cost;
	proc_story(p, pr);
	proc_free(pr);
	p->priv = NULL;
}

const struct ipc_peer_ops ipc_peer_process = {
	.name = "process",
	.help = "ipcperf's server side in a forked process",
	.start = proc_start,
	.stop = proc_stop,
};

/* ---- thread ---------------------------------------------------------- */

struct thr {
	struct ipc_cancel stop;
	pthread_t t;
};

static void *serve_thread(void *arg)
{
	struct ipc_peer *p = arg;
	struct thr *th = p->priv;
	int w = ipc_cancel_watch(&th->stop);

	if (w < 0) {
		p->out.err = w;
		snprintf(p->out.what, sizeof(p->out.what),
			 "watch the peer's stop: %s", strerror(-w));
	} else {
		p->serve(p, &th->stop);
		ipc_cancel_unwatch(&th->stop, w);
	}
	if (p->out.err)
		ipc_cancel_fire(p->client); /* wake a blocked client */
	return NULL;
}

static int thr_start(struct ipc_peer *p)
{
	struct thr *th = calloc(1, sizeof(*th));
	int err;

	if (!th)
		return -ENOMEM;
	err = ipc_cancel_init(&th->stop);
	p->priv = th;
	if (!err)
		err = ipc_thread_start(&th->t, serve_thread, p);
	if (err) {
		snprintf(p->story, sizeof(p->story),
			 "start the peer thread: %s", strerror(-err));
		ipc_cancel_fini(&th->stop);
		free(th);
		p->priv = NULL;
	}
	return err;
}

/*
 * Asked to stop at once; a thread cannot be killed, so one stuck in a
 * call no signal interrupts is waited for.
 */
static void thr_stop(struct ipc_peer *p)
{
	struct thr *th = p->priv;

	if (!th)
		return;
	ipc_cancel_fire(&th->stop);
	pthread_join(th->t, NULL);
	if (p->out.err && p->out.what[0])
		snprintf(p->story, sizeof(p->story), "peer: %s", p->out.what);
	ipc_cancel_fini(&th->stop);
	free(th);
	p->priv = NULL;
}

const struct ipc_peer_ops ipc_peer_thread = {
	.name = "thread",
	.help = "ipcperf's server side in a thread of this process",
	.start = thr_start,
	.stop = thr_stop,
};

/* ---- external -------------------------------------------------------- */

static int ext_check(const struct ipc_case *cs, const struct ipc_runopts *ro,
		     char *why, size_t why_len)
{
	struct ipc_tp_opts o = ro->tp;

	if (!(cs->tp->caps & IPC_TP_TARGET)) {
		snprintf(why, why_len,
			 "transport %s cannot reach a server that is already "
			 "there (use tcp, tcp6, udp or udp6)",
			 cs->tp->name);
		return -EINVAL;
	}
	if (!cs->target || !cs->target[0]) {
		snprintf(why, why_len,
			 "an external peer needs its address, HOST:PORT");
		return -EINVAL;
	}
	o.target = cs->target;
	return cs->tp->check ? cs->tp->check(&o, why, why_len) : 0;
}

/* Nothing to start or end: the server was there and stays. */
static int ext_start(struct ipc_peer *p)
{
	(void)p;
	return 0;
}

static void ext_stop(struct ipc_peer *p)
{
	p->cost.valid = false;
}

const struct ipc_peer_ops ipc_peer_external = {
	.name = "external",
	.help = "a server that is already there, at HOST:PORT",
	.flags = IPC_PEER_ELSEWHERE,
	.check = ext_check,
	.start = ext_start,
	.stop = ext_stop,
};
