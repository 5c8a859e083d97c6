/* SPDX-License-Identifier: MIT */
/*
 * Another local process connecting to the port of a local tcp run (issue
 * 14, defect 8): the server must take only the connections that begin
 * with the run's token, count and close the others, and not wait on one
 * that says nothing.  crr, which accepts a connection per transaction, is
 * wrapped so that before its loop strangers connect to the run's port:
 * one that sends bytes of its own and closes, and one that stays silent
 * and open until the plan is over.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipcperf/report.h"
#include "ipcperf/run.h"

#include "../helpers.h"
#include "../tap.h"
#include "pattern/lib_internal.h"

#define RUNS 2
#define TRANSACTIONS 200

static struct ipc_pattern_ops crr_strangers;
static int silent[RUNS * 4];
static size_t nsilent;
static int stranger_err;

static int dial(const struct ipc_chan *ch)
{
	int fd = socket(ch->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 &&
	    connect(fd, (const struct sockaddr *)&ch->addr, ch->addr_len)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 && !stranger_err)
		stranger_err = errno;
	return fd;
}

/* The strangers first, queued before any of the client's connections. */
static int strangers_then_crr(struct ipc_pctx *c)
{
	char junk[32];
	int fd;

	memset(junk, 'X', sizeof(junk));
	fd = dial(c->ch);
	if (fd >= 0) {
		if (send(fd, junk, sizeof(junk), MSG_NOSIGNAL) < 0 &&
		    !stranger_err)
			stranger_err = errno;
		close(fd);
	}
	fd = dial(c->ch);
	if (fd >= 0 && nsilent < sizeof(silent) / sizeof(silent[0]))
		silent[nsilent++] = fd;
	else if (fd >= 0)
		close(fd);
	return ipc_pattern_crr.client(c);
}

struct got {
	enum ipc_status status;
	char error[512];
	uint64_t refused, total;
	unsigned flags;
	char why[256];
};

static int on_done(void *arg, size_t i, const struct ipc_result *res)
{
	struct got *g = arg;

	(void)i;
	g->status = res->status;
	snprintf(g->error, sizeof(g->error), "%s", res->error);
	g->refused = res->refused;
	g->flags = res->diag.flags;
	for (size_t r = 0; r < res->nruns; r++)
		g->total += res->runs[r].iterations;
	ipc_flag_why(res, IPC_FLAG_REFUSED, g->why, sizeof(g->why));
	return 0;
}

static void strangers(const char *tp, enum ipc_placement placement)
{
	const char *where =
		placement == IPC_PLACE_THREAD ? "thread" : "process";
	struct ipc_plan_hooks hooks = {0};
	struct ipc_run *run = NULL;
	struct ipc_runopts ro;
	struct ipc_case cs;
	struct got g = {0};
	int rc;

	memset(&cs, 0, sizeof(cs));
	cs.pat = &crr_strangers;
	cs.tp = ipc_transport_find(tp);
	cs.eng = ipc_engine_find("blocking");
	cs.req_size = 32;
	cs.resp_size = 32;
	ipc_runopts_default(&ro);
	ro.runs_auto = false;
	ro.runs = RUNS;
	ro.warmup = 10;
	ro.iterations = TRANSACTIONS;
	ro.verify = true;
	ro.placement = placement;
	hooks.arg = &g;
	hooks.done = on_done;
	nsilent = 0;
	stranger_err = 0;
	if (!cs.tp || ipc_run_new(&run)) {
		ok(0, "%s %s: a run", tp, where);
		return;
	}
	rc = ipc_run_plan(run, &cs, &ro, 1, &hooks);
	ipc_run_free(run);
	for (size_t i = 0; i < nsilent; i++)
		close(silent[i]);
	is_int(stranger_err, "==", 0, "%s %s: the strangers connected", tp,
	       where);
	is_int(nsilent, "==", RUNS, "%s %s: a silent one in every run", tp,
	       where);
	is_int(rc, "==", 0, "%s %s: the plan completes", tp, where);
	is_int(g.status, "==", IPC_STATUS_OK, "%s %s: the case is ok (%s)", tp,
	       where, g.error);
	is_int(g.total, "==", RUNS * TRANSACTIONS,
	       "%s %s: every transaction is the client's own", tp, where);
	/* The silent ones were still waiting, not waited out. */
	is_int(g.refused, "==", RUNS,
	       "%s %s: the stranger that spoke was refused in each run", tp,
	       where);
	ok(g.flags & (1u << IPC_FLAG_REFUSED), "%s %s: the result is flagged",
	   tp, where);
	ok(strstr(g.why, "2 connections") != NULL, "%s %s: and says why: %s",
	   tp, where, g.why);
}

int main(void)
{
	char tmp[256];
	int fds0;

	alarm(120);
	signal(SIGPIPE, SIG_IGN);
	if (tmpdir_make("token", tmp, sizeof(tmp))) {
		printf("1..0 # skip cannot make %s\n", tmp);
		return 77;
	}
	setenv("TMPDIR", tmp, 1);
	crr_strangers = ipc_pattern_crr;
	crr_strangers.client = strangers_then_crr;
	fds0 = count_fds();
	strangers("tcp", IPC_PLACE_THREAD);
	if (ipc_transport_find("tcp6")->probe &&
	    ipc_transport_find("tcp6")->probe(tmp, sizeof(tmp)))
		skip("tcp6: %s", tmp);
	else
		strangers("tcp6", IPC_PLACE_THREAD);
	/* valgrind sees a forked child's blocks as lost (test_run.c). */
	if (!getenv("VALGRIND"))
		strangers("tcp", IPC_PLACE_PROCESS);
	is_int(count_fds(), "==", fds0, "no descriptor left open");
	is_int(tmpdir_remove(tmp), "==", 0, "nothing left in TMPDIR");
	return done_testing();
}
