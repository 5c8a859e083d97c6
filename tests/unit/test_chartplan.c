/* SPDX-License-Identifier: MIT */
/*
 * The sweep charts' plan on the seeds' shapes: the LLDB matrix (a heat
 * map, one per transport), the FreeBSD table (lines against size, one per
 * count), a replay across links (bars), and what makes no chart.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "doc/chartplan.h"

#define MAXC 64

static const struct cp_key keys[] = {
	{"transport", "", false},
	{"request size", "req", true},
	{"response size", "resp", true},
	{"count", "count", false},
	{"trace", "", false},
	{"link", "link", false},
};
enum { K_TP, K_REQ, K_RESP, K_COUNT, K_TRACE, K_LINK, NK };

/* Room for the cases a test makes up. */
static char lab[MAXC][NK][32];
static const char *labp[MAXC][NK];
static double nums[MAXC][NK];
static struct cp_case cases[MAXC];

static void set(size_t i, size_t k, const char *l, double n)
{
	snprintf(lab[i][k], sizeof(lab[i][k]), "%s", l);
	labp[i][k] = lab[i][k];
	nums[i][k] = n;
	cases[i].label = labp[i];
	cases[i].num = nums[i];
}

static void clear(void)
{
	memset(labp, 0, sizeof(labp));
	for (size_t i = 0; i < MAXC; i++)
		for (size_t k = 0; k < NK; k++)
			nums[i][k] = NAN;
}

static void num_label(size_t i, size_t k, double v)
{
	char b[32];

	snprintf(b, sizeof(b), "%.0f", v);
	set(i, k, b, v);
}

static void test_lldb(void)
{
	static const double sz[] = {0, 1, 2, 1024};
	struct cp_chart *c;
	size_t n, i, j, t, first[8];

	clear();
	for (t = 0; t < 2; t++)
		for (i = 0; i < 4; i++)
			for (j = 0; j < 4; j++) {
				size_t ci = t * 16 + i * 4 + j;

				set(ci, K_TP, t ? "unix" : "tcp", NAN);
				num_label(ci, K_REQ, sz[i]);
				num_label(ci, K_RESP, sz[j]);
			}
	is_int(cp_plan(keys, NK, cases, 16, &c, &n), "==", 0, "plan tcp");
	ok(n == 1 && c[0].kind == CP_HEAT && c[0].y == K_REQ &&
		   c[0].x == K_RESP && c[0].ncases == 16,
	   "req x resp on one transport: one heat map, rows req, columns resp");
	is_str(n ? c[0].title : NULL, "", "... with nothing else in its title");
	is_int(cp_values(&c[0], cases, keys, K_RESP, first, 8), "==", 4,
	       "four columns");
	ok(nums[first[0]][K_RESP] == 0 && nums[first[3]][K_RESP] == 1024,
	   "columns from 0 to 1024");
	cp_free(c, n);

	is_int(cp_plan(keys, NK, cases, 32, &c, &n), "==", 0, "plan both");
	ok(n == 2 && c[0].ncases == 16 && c[1].ncases == 16,
	   "two transports: a heat map each");
	is_str(n == 2 ? c[0].title : NULL, "tcp", "the first titled tcp");
	is_str(n == 2 ? c[1].title : NULL, "unix", "the second unix");
	cp_free(c, n);
}

static void test_freebsd(void)
{
	static const double sz[] = {4096, 64, 256, 1024};
	static const double cnt[] = {100, 1000, 100000};
	struct cp_chart *c;
	size_t n, i, j, first[8];
	char name[32];

	clear();
	for (i = 0; i < 3; i++)
		for (j = 0; j < 4; j++) {
			set(i * 4 + j, K_TP, "fifo", NAN);
			num_label(i * 4 + j, K_REQ, sz[j]);
			snprintf(name, sizeof(name), "%.0f", cnt[i]);
			set(i * 4 + j, K_COUNT, name, cnt[i]);
		}
	is_int(cp_plan(keys, NK, cases, 12, &c, &n), "==", 0, "plan");
	ok(n == 1 && c[0].kind == CP_LINES && c[0].x == K_REQ &&
		   c[0].nseries == 3,
	   "sizes x counts: lines against size, one per count");
	is_str(n ? c[0].series[0] : NULL, "count=100", "series named by count");
	is_str(n ? c[0].series[2] : NULL, "count=100000", "... each");
	ok(n && c[0].series_of[5] == 1, "case 5 on the count=1000 line");
	is_int(cp_values(&c[0], cases, keys, K_REQ, first, 8), "==", 4,
	       "four sizes");
	ok(nums[first[0]][K_REQ] == 64 && nums[first[1]][K_REQ] == 256 &&
		   nums[first[3]][K_REQ] == 4096,
	   "sizes sorted, whatever the order of the cases");
	cp_free(c, n);
}

static void test_replay(void)
{
	static const char *const tr[] = {"breakpoint", "stub-multi"};
	static const char *const ln[] = {"localhost", "wan", "serial-9600"};
	struct cp_chart *c;
	size_t n, i, j, first[8];

	clear();
	for (i = 0; i < 2; i++)
		for (j = 0; j < 3; j++) {
			set(i * 3 + j, K_TP, "tcp", NAN);
			set(i * 3 + j, K_TRACE, tr[i], NAN);
			set(i * 3 + j, K_LINK, ln[j], NAN);
		}
	is_int(cp_plan(keys, NK, cases, 6, &c, &n), "==", 0, "plan");
	ok(n == 1 && c[0].kind == CP_BARS && c[0].x == K_TRACE &&
		   c[0].nseries == 3,
	   "traces x links: bars grouped by trace, one per link");
	is_str(n ? c[0].series[1] : NULL, "link=wan", "a series per link");
	is_int(cp_values(&c[0], cases, keys, K_TRACE, first, 8), "==", 2,
	       "two groups");
	ok(first[0] == 0 && first[1] == 3, "groups in the order of the cases");
	cp_free(c, n);
}

static void test_none(void)
{
	struct cp_chart *c;
	size_t n;

	clear();
	set(0, K_TP, "tcp", NAN);
	set(1, K_TP, "tcp", NAN);
	is_int(cp_plan(keys, NK, cases, 1, &c, &n), "==", 0, "one case");
	ok(n == 0 && !c, "one case: no sweep chart");
	is_int(cp_plan(keys, NK, cases, 2, &c, &n), "==", 0, "same cases");
	ok(n == 0, "nothing varies: no sweep chart");
	set(1, K_TP, "pipe", NAN);
	is_int(cp_plan(keys, NK, cases, 2, &c, &n), "==", 0, "transports");
	ok(n == 1 && c[0].kind == CP_BARS && c[0].nseries == 1,
	   "only the transport varies: bars, one series");
	cp_free(c, n);
}

int main(void)
{
	test_lldb();
	test_freebsd();
	test_replay();
	test_none();
	return done_testing();
}
