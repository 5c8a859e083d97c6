/* SPDX-License-Identifier: MIT */
/*
 * The progress line: its words, its cut to the terminal's width, the time
 * left, and that it is drawn on a terminal (a pty here) and nowhere else:
 * not into a pipe, not into a file, not with -q.
 */
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "cli/progress.h"
#include "run/lib_internal.h"

#define S 1000000000ull

/* Whatever the pty's other end received so far, as a string. */
static size_t drain(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len) {
		r = read(fd, buf + n, len - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return n;
}

static void test_format(void)
{
	struct progress_state st = {"rr tcp req=64 resp=1024",
				    3,
				    144,
				    4,
				    30,
				    false,
				    2.345,
				    1,
				    80,
				    0,
				    0};
	char buf[256];

	is_str(progress_format(&st, 0, buf, sizeof(buf)),
	       "[3/144] rr tcp req=64 resp=1024: run 4 of at most 30, "
	       "\xc2\xb1"
	       "2.3% (target 1%), at most 1m20s left",
	       "auto runs: the bound, the interval against its target, eta");
	st.half_pct = -1;
	st.eta_s = -1;
	is_str(progress_format(&st, 0, buf, sizeof(buf)),
	       "[3/144] rr tcp req=64 resp=1024: run 4 of at most 30, "
	       "target \xc2\xb1"
	       "1%",
	       "no interval yet, no eta yet: the target alone");
	st = (struct progress_state){"stream fifo size=64 count=100",
				     1,
				     35,
				     2,
				     10,
				     true,
				     -1,
				     0,
				     3725,
				     0,
				     0};
	is_str(progress_format(&st, 0, buf, sizeof(buf)),
	       "[1/35] stream fifo size=64 count=100: run 2 of 10, about "
	       "1h02m left",
	       "-r N: the number of runs and about how long");
	st = (struct progress_state){"rr tcp", 1, 1, 7, 30, false,
				     12.5,     1, 5, 0, 0};
	is_str(progress_format(&st, 30, buf, sizeof(buf)),
	       "[1/1] rr tcp: run 7 of at most",
	       "cut to 30 characters for a narrow terminal");
	is_str(progress_format(&st, 37, buf, sizeof(buf)),
	       "[1/1] rr tcp: run 7 of at most 30, \xc2\xb1"
	       "1",
	       "the cut counts characters, not bytes");
}

static void test_eta(void)
{
	ok(progress_eta_s(0, 5 * S, 10) == -1, "-r N, no run done: unknown");
	is_near(progress_eta_s(2, 2 * S, 3), 3.0, 1e-9,
		"-r N: 3 runs left at 1 s each: about 3 s");
}

/*
 * A pty of @ws's size: its terminal end as a stream (the line's @out), its
 * other end in *@master, read without blocking.  NULL, with a skip, when
 * there is none to be had.
 */
static FILE *pty_open(const struct winsize *ws, int *master)
{
	int slave;
	FILE *f;

	if (openpty(master, &slave, NULL, NULL, ws)) {
		skip("openpty: %s", strerror(errno));
		return NULL;
	}
	fcntl(*master, F_SETFL, O_NONBLOCK);
	f = fdopen(slave, "w");
	if (!f) {
		skip("fdopen: %s", strerror(errno));
		close(slave);
		close(*master);
	}
	return f;
}

/* -r @n: every case exactly @n runs, no budget. */
static struct ipc_runopts fixed_ro(unsigned n)
{
	struct ipc_runopts ro;

	ipc_runopts_default(&ro);
	ro.runs_auto = false;
	ro.runs = n;
	return ro;
}

/*
 * Two cases by @ro on the pty @f: case 0's run, case 1's, case 0's again,
 * each 3 s from start to start, the runner having timed case 0's first
 * at 2 s.  The bound when case 0's second run starts.
 */
static double bound_after_three(FILE *f, int master,
				const struct ipc_runopts *ro)
{
	struct progress_state st = {"rr pipe", 1, 2,  1, 30, false,
				    -1,	       1, -1, 0, 0};
	struct progress p;
	char got[4096];
	uint64_t t = 0;

	progress_init(&p, f, false, 2, ro, 0);
	progress_run(&p, 0, &st, t += 3 * S);
	ok(st.eta_s == -1, "bound: no run done, unknown");
	progress_run(&p, 1, &st, t += 3 * S);
	ok(st.eta_s == -1, "bound: case 1 not run yet, unknown");
	st.case_wall_ns = 2 * S;
	progress_run(&p, 0, &st, t += 3 * S);
	progress_fini(&p);
	drain(master, got, sizeof(got));
	return st.eta_s;
}

/*
 * The time left at most as the plan's runs start, on a pty (the line is
 * drawn only there).  Each case counted at its longest run (3 s), the
 * floor the budget never cuts a case below (6 at 95%, 8 at 99%, not
 * --runs auto's minimum of 5), what is left of the budget scaled by the
 * runs' start-to-start time over the runner's (3 / 2), one more run of
 * each open case, and never more than every case's 30.
 */
static void test_bound(void)
{
	struct winsize ws = {.ws_row = 24, .ws_col = 200};
	struct progress_state st = {"rr pipe", 1, 2,  1, 30, true,
				    -1,	       1, -1, 0, 0};
	struct ipc_runopts ro;
	struct progress p;
	int master;
	uint64_t t = 0;
	char got[4096];
	FILE *f;

	f = pty_open(&ws, &master);
	if (!f)
		return;

	ipc_runopts_default(&ro);
	ro.budget_ns = 1 * S;
	is_uint(ipc_sched_floor_runs(&ro), "==", 6,
		"the scheduler's floor at 95%%: 6 runs");
	progress_init(&p, f, false, 2, &ro, 0);
	is_uint(p.min_runs, "==", 6, "bound: the least runs a case has: 6");
	is_uint(p.max_runs, "==", 30, "bound: the most: 30");
	progress_fini(&p);
	/* Floor: 4 + 5 runs of 3 s; budget spent; one more of each. */
	is_near(bound_after_three(f, master, &ro), 3 + 27 + 0 + 6, 1e-9,
		"bound: the run starting, the floors, one more each");
	ro.budget_ns = 20 * S;
	/* 18 s of budget left, in runner time: 27 s from start to start. */
	is_near(bound_after_three(f, master, &ro), 3 + 27 + 18 * 1.5 + 6, 1e-9,
		"bound: what is left of the budget, scaled to the runs' "
		"length");
	ro.budget_ns = 100 * S;
	is_near(bound_after_three(f, master, &ro), 3 + (28 + 29) * 3, 1e-9,
		"bound: never more than every case's 30 runs");

	ro.ci_level = 0.99;
	ro.budget_ns = 1 * S;
	progress_init(&p, f, false, 2, &ro, 0);
	is_uint(p.min_runs, "==", ipc_sched_floor_runs(&ro),
		"bound at 99%%: the scheduler's floor (%zu)", p.min_runs);
	is_uint(p.min_runs, "==", 8, "... which is 8 runs");
	progress_fini(&p);
	is_near(bound_after_three(f, master, &ro), 3 + (6 + 7) * 3 + 6, 1e-9,
		"bound at 99%%: 6 and 7 runs left to the floor of 8");

	ro = fixed_ro(4);
	progress_init(&p, f, false, 2, &ro, 0);
	ok(p.min_runs == 4 && p.max_runs == 4 && !p.budget_ns,
	   "-r 4: exactly 4 runs a case, no budget");
	progress_run(&p, 0, &st, t += 3 * S);
	progress_run(&p, 1, &st, t += 3 * S);
	is_near(st.eta_s, 6.0 * (3 + 3 + 1), 1e-9, "-r 4: 3 left a case");
	progress_fini(&p);
	drain(master, got, sizeof(got));
	fclose(f);
	close(master);
}

/*
 * A flagged case's second pass: its own words, and the time left counts
 * its runs still to come, as long as the case's own, not as the
 * measured runs' (those are done).
 */
static void test_again(void)
{
	struct winsize ws = {.ws_row = 24, .ws_col = 200};
	struct progress_state st = {.what = "rr pipe",
				    .case_no = 1,
				    .ncases = 2,
				    .exact = true,
				    .half_pct = -1,
				    .eta_s = -1};
	struct ipc_runopts ro = fixed_ro(2);
	struct progress p;
	char buf[256], got[2048];
	int master;
	FILE *f;

	st.run = 2;
	st.max_runs = 6;
	st.pass_runs = 6;
	st.eta_s = 4;
	is_str(progress_format(&st, 0, buf, sizeof(buf)),
	       "[1/2] rr pipe: --explain pass, run 2 of 6, about 4s left",
	       "a second pass says so, and counts its own runs");
	f = pty_open(&ws, &master);
	if (!f)
		return;
	progress_init(&p, f, false, 2, &ro, 0);
	st.pass_runs = 0;
	st.run = 1;
	st.max_runs = 2;
	progress_run(&p, 0, &st, 0);
	progress_run(&p, 0, &st, 1 * S);
	/* Case 0's 2 runs took 1 s each; its pass of 6 begins at 2 s. */
	st.pass_runs = 6;
	st.run = 1;
	progress_again(&p, 0, &st, 2 * S);
	is_near(st.eta_s, 1.0 * (5 + 1 + 2), 1e-9,
		"a pass's first run: 5 more of it, the one now, case 1's 2");
	is_uint(p.runs[0], "==", 2, "a pass's run is not one of the case's");
	for (st.run = 2; st.run <= 6; st.run++)
		progress_again(&p, 0, &st, (st.run + 1) * S);
	st.run = 6;
	is_near(st.eta_s, 1.0 * (0 + 1 + 2), 1e-9,
		"a pass's last run: itself and case 1's 2");
	usleep(20000);
	drain(master, got, sizeof(got));
	ok(strstr(got, "--explain pass, run 6 of 6") != NULL,
	   "drawn on the terminal");
	progress_fini(&p);
	usleep(20000);
	drain(master, buf, sizeof(buf));
	fclose(f);
	close(master);
}

static void test_pty(void)
{
	struct winsize ws = {.ws_row = 24, .ws_col = 40};
	struct progress_state st = {"rr unix-seqpacket req=1024 resp=1024",
				    1,
				    2,
				    0,
				    0,
				    false,
				    -1,
				    1,
				    -1,
				    0,
				    0};
	struct ipc_runopts ro;
	struct progress p;
	int master;
	char got[1024];
	FILE *f;

	f = pty_open(&ws, &master);
	if (!f)
		return;
	ro = fixed_ro(30);
	is_int(progress_init(&p, f, false, 2, &ro, 0), "==", 0,
	       "progress on a pty");
	ok(p.on, "a terminal: the line is on");
	progress_run(&p, 0, &st, 1 * S);
	usleep(20000);
	drain(master, got, sizeof(got));
	is_str(got, "\r\033[K[1/2] rr unix-seqpacket req=1024 resp=1",
	       "drawn with \\r and clear-to-end, cut at 39 of 40 columns");
	progress_run(&p, 1, &st, 3 * S);
	usleep(20000);
	drain(master, got, sizeof(got));
	ok(!strncmp(got, "\r\033[K[1/2] ", 9), "redrawn in place: %s", got + 3);
	progress_fini(&p);
	usleep(20000);
	drain(master, got, sizeof(got));
	is_str(got, "\r\033[K", "erased at the end");

	is_int(progress_init(&p, f, true, 2, &ro, 0), "==", 0,
	       "progress with -q");
	ok(!p.on, "-q: off");
	progress_run(&p, 0, &st, 1 * S);
	progress_fini(&p);
	usleep(20000);
	is_int(drain(master, got, sizeof(got)), "==", 0,
	       "-q: nothing written to the terminal");
	fclose(f);
	close(master);
}

static void test_not_tty(void)
{
	struct progress_state st = {"rr pipe", 1, 1,  0, 0, false,
				    -1,	       1, -1, 0, 0};
	struct ipc_runopts ro = fixed_ro(30);
	struct progress p;
	char got[256];
	int fd[2];
	FILE *f;

	if (pipe(fd)) {
		skip("pipe: %s", strerror(errno));
		return;
	}
	fcntl(fd[0], F_SETFL, O_NONBLOCK);
	f = fdopen(fd[1], "w");
	progress_init(&p, f, false, 1, &ro, 0);
	ok(!p.on, "a pipe: off");
	progress_run(&p, 0, &st, 1 * S);
	progress_clear(&p);
	progress_fini(&p);
	fflush(f);
	is_int(drain(fd[0], got, sizeof(got)), "==", 0,
	       "a pipe: nothing written");
	fclose(f);
	close(fd[0]);

	f = tmpfile();
	progress_init(&p, f, false, 1, &ro, 0);
	progress_run(&p, 0, &st, 1 * S);
	progress_fini(&p);
	is_int(ftell(f), "==", 0, "a file: nothing written");
	fclose(f);
}

int main(void)
{
	test_format();
	test_eta();
	test_bound();
	test_again();
	test_pty();
	test_not_tty();
	return done_testing();
}
