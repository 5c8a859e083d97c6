/* SPDX-License-Identifier: MIT */
/*
 * Tests of choosing where a case's sides run: the two CPUs come from
 * those this process may use, the second on another core where the
 * topology says there is one, and with one CPU allowed there is no
 * second; and the words a placement gives a case.
 */
#include <sched.h>
#include <string.h>

#include "ipcperf/run.h"
#include "../tap.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"

static void test_pick(void)
{
	cpu_set_t set, one;
	int cpu[2], smt, n, first = -1;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		skip("sched_getaffinity failed");
		return;
	}
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &set))
			first = c;
	n = ipc_cpus_pick(cpu, &smt);
	is_int(cpu[0], "==", first, "pick: the first CPU allowed comes first");
	if (CPU_COUNT(&set) >= 2) {
		is_int(n, "==", 2, "pick: two CPUs where two are allowed");
		ok(cpu[1] != cpu[0] && CPU_ISSET(cpu[1], &set),
		   "pick: the second is another allowed CPU (%d, %d)", cpu[0],
		   cpu[1]);
		is_int(smt, "==", ipc_cpus_siblings(cpu[0], cpu[1]),
		       "pick: says whether they share a core, as the topology "
		       "does");
		if (smt == 1) {
			bool other_core = false;

			for (int c = 0; c < CPU_SETSIZE; c++)
				other_core |= CPU_ISSET(c, &set) &&
					      ipc_cpus_siblings(cpu[0], c) == 0;
			ok(!other_core, "pick: SMT siblings only when no "
					"allowed CPU is on another core");
		} else {
			ok(smt == 0 || smt == -1,
			   "pick: another core, or the topology unknown");
		}
	} else {
		skip("one CPU allowed here: no second to check");
	}
	is_int(ipc_cpus_siblings(first, first), "!=", 0,
	       "siblings: a CPU shares its own core (or the topology is "
	       "unknown)");
	is_int(ipc_cpus_siblings(first, CPU_SETSIZE + 7), "<", 1,
	       "siblings: a CPU that does not exist is no sibling");

	/* Allowed one CPU, the process has no second to offer. */
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		skip("sched_setaffinity failed");
		return;
	}
	n = ipc_cpus_pick(cpu, &smt);
	ok(n == 1 && cpu[0] == first && cpu[1] == -1,
	   "pick: one CPU allowed, one CPU found");
	sched_setaffinity(0, sizeof(set), &set);
}

static void test_words(void)
{
	struct ipc_case cs = {.pat = &ipc_pattern_rr, .tp = NULL};
	char buf[128];

	cs.req_size = cs.resp_size = 1;
	cs.place = (struct ipc_place){
		.cpus = IPC_CPUS_TWO, .client_cpu = 0, .server_cpu = 1};
	ipc_case_describe(&cs, buf, sizeof(buf));
	is_str(buf, "rr ? req=1 resp=1 cpus=2", "words: cpus=2");
	cs.place.cpus = IPC_CPUS_ONE;
	ipc_case_describe(&cs, buf, sizeof(buf));
	is_str(buf, "rr ? req=1 resp=1 cpus=1", "words: cpus=1");
	cs.place.cpus = IPC_CPUS_ANY;
	ipc_case_describe(&cs, buf, sizeof(buf));
	is_str(buf, "rr ? req=1 resp=1",
	       "words: the scheduler's choice adds nothing");
}

int main(void)
{
	test_pick();
	test_words();
	return done_testing();
}
