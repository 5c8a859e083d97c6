/* SPDX-License-Identifier: MIT */
/*
 * A run by duration ends at its deadline, also when its peer stops
 * answering: the client's wait for a peer that was stopped (SIGSTOP) or
 * hangs would otherwise never end.  A helper thread sleeps until the
 * measured part's deadline plus a grace, and fires the client's stop if
 * the client is still at it then.  It is one thread asleep in poll: it
 * costs the measured loop nothing (the pattern's one store of its start
 * happens before the loop).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "run_internal.h"
#include "base/lib_internal.h"
#include "link/lib_internal.h"
#include "pattern/lib_internal.h"

/* What one iteration must take on an emulated link or a serial line. */
static uint64_t iter_floor_ns(const struct ipc_case *cs,
			      const struct ipc_runopts *ro, size_t max_msg)
{
	uint64_t iter = 0;

	if (cs->trace)
		iter = ipc_replay_link_ns(cs->trace, cs->link);
	else if (cs->link && cs->link->relay)
		iter = 2 * (cs->link->delay_ns + cs->link->jitter_ns) +
		       ipc_link_wire_ns(cs->link, 2 * (uint64_t)max_msg, 2);
	if (!strcmp(cs->tp->name, "serial")) /* 10 bits a byte, 8N1 */
		iter += 2 * (uint64_t)max_msg * 10 * 1000000000ull /
			(ro->tp.baud ? ro->tp.baud : 115200);
	return iter;
}

/* The slack a deadline gets before the peer is called stalled. */
uint64_t watchdog_grace_ns(const struct ipc_case *cs,
			   const struct ipc_runopts *ro, size_t max_msg)
{
	return 2000000000ull + ro->duration_ns / 4 +
	       4 * iter_floor_ns(cs, ro, max_msg);
}

uint64_t watchdog_warm_ns(const struct ipc_case *cs,
			  const struct ipc_runopts *ro, size_t max_msg)
{
	return 10000000000ull + ro->duration_ns +
	       watchdog_grace_ns(cs, ro, max_msg) +
	       4 * ro->warmup * iter_floor_ns(cs, ro, max_msg);
}

static void *watch(void *arg)
{
	struct watchdog *w = arg;
	uint64_t start, end, now, v, begun = ipc_now_ns();
	/* ms: a deadline from now, then the one the start gives. */
	int timeout = (int)((w->duration_ns + w->grace_ns) / 1000000);

	for (;;) {
		struct pollfd p = {.fd = w->fd, .events = POLLIN};
		int n = poll(&p, 1, timeout);

		if (n < 0 && errno != EINTR)
			break;
		if (n > 0)
			break; /* watchdog_stop */
		start = __atomic_load_n(&w->start_ns, __ATOMIC_ACQUIRE);
		if (!start) {
			/* Still warming up: look again a deadline later,
			 * unless the warm-up has taken longer than it may. */
			now = ipc_now_ns();
			if (now - begun >= w->warm_ns) {
				__atomic_store_n(&w->fired, true,
						 __ATOMIC_RELEASE);
				ipc_cancel_fire(w->stop);
				break;
			}
			timeout =
				(int)((w->duration_ns + w->grace_ns) / 1000000);
			if ((uint64_t)timeout >
			    (w->warm_ns - (now - begun)) / 1000000 + 1)
				timeout = (int)((w->warm_ns - (now - begun)) /
						1000000) +
					  1;
			continue;
		}
		end = start + w->duration_ns + w->grace_ns;
		now = ipc_now_ns();
		if (now >= end) {
			__atomic_store_n(&w->fired, true, __ATOMIC_RELEASE);
			ipc_cancel_fire(w->stop);
			break;
		}
		timeout = (int)((end - now) / 1000000) + 1;
	}
	(void)!read(w->fd, &v, sizeof(v));
	return NULL;
}

int watchdog_start(struct watchdog *w, struct ipc_cancel *stop,
		   uint64_t duration_ns, uint64_t grace_ns, uint64_t warm_ns)
{
	int err;

	memset(w, 0, sizeof(*w));
	w->stop = stop;
	w->duration_ns = duration_ns;
	w->grace_ns = grace_ns;
	w->warm_ns = warm_ns;
	w->fd = eventfd(0, EFD_CLOEXEC);
	if (w->fd < 0)
		return -errno;
	err = ipc_thread_start(&w->t, watch, w);
	if (err) {
		close(w->fd);
		w->fd = -1;
		return err;
	}
	w->running = true;
	return 0;
}

bool watchdog_stop(struct watchdog *w)
{
	uint64_t one = 1;

	if (!w->running)
		return false;
	(void)!write(w->fd, &one, sizeof(one));
	pthread_join(w->t, NULL);
	close(w->fd);
	w->fd = -1;
	w->running = false;
	return __atomic_load_n(&w->fired, __ATOMIC_ACQUIRE);
}
