/* SPDX-License-Identifier: MIT */
/*
 * The flags of a diagnosis in the words a document records and every
 * formatter prints: each flag's name and the hint that says what to do
 * about it.
 */
#include <stdio.h>

#include "ipcperf/doc.h"
#include "doc/lib_internal.h"

static const struct {
	const char *name, *hint;
} flags[IPC_FLAG_COUNT] = {
	[IPC_FLAG_UNSTABLE] = {"unstable",
			       "more runs (--max-runs, --budget), --pin, or "
			       "a quieter machine"},
	[IPC_FLAG_BIMODAL] = {"bimodal",
			      "unpinned, the scheduler placed the sides "
			      "differently from run to run: --pin split or "
			      "--pin same; pinned, the channel or the machine "
			      "ran at two speeds: rerun, and report both"},
	[IPC_FLAG_OUTLIERS] = {"outliers",
			       "something ran alongside for a while: rerun, "
			       "or find the other load"},
	[IPC_FLAG_LOAD] = {"load",
			   "stop the other load, or expect noise in these "
			   "numbers"},
	[IPC_FLAG_SHORT] = {"short",
			    "measure longer (-d 1s, a larger -n) to let "
			    "ipcperf check the machine's load"},
	[IPC_FLAG_SHARED] = {"shared",
			     "the server measured other clients meanwhile: "
			     "rerun when it is alone, or --max-clients 1 "
			     "there"},
	[IPC_FLAG_REFUSED] = {"refused",
			      "find what connects to ipcperf's ports "
			      "(ss -tnp) and rerun without it"},
};

/*
 * Where a flag's general hint above would be untrue for a result, the
 * hint that is, by id (1, 2, ...; the general one is 0), with a label
 * saying when it applies for a table that prints several of a kind.
 */
enum {
	HINT_FIXED_RUNS = 1, /* unstable after -r N: --max-runs is moot */
	HINT_OUT_OF_REACH,   /* unstable, stopped out of reach */
	HINT_IN_SUITE,	     /* short in the quick suite: -d is moot */
};
_Static_assert(
	HINT_IN_SUITE < IPC_FLAG_HINT_IDS,
	"a table keeps the hint ids it prints in IPC_FLAG_HINT_IDS bits");

static const struct {
	enum ipc_flag_kind kind;
	unsigned id;
	const char *label, *hint;
} variants[] = {
	{IPC_FLAG_UNSTABLE, HINT_FIXED_RUNS, "-r N",
	 "more runs (a larger -r, or -r auto to run to the target), --pin, "
	 "or a quieter machine"},
	/*
	 * Stopped because even --max-runs runs would leave the interval
	 * above twice the target: a larger --max-runs or --budget buys
	 * little; what the runs disagree about does.
	 */
	{IPC_FLAG_UNSTABLE, HINT_OUT_OF_REACH, "out-of-reach",
	 "more runs would not bring it to the target, its runs disagree too "
	 "much: see its bimodal or outliers flag if any, try another --pin, "
	 "or rerun on a quiet machine"},
	/*
	 * The quick suite sizes its runs itself (rr 10 ms, stream 20 ms);
	 * the load figure's resolution grows with the time of all runs.
	 */
	{IPC_FLAG_SHORT, HINT_IN_SUITE, "quick suite",
	 "the suite's runs are short by design: more of them (--max-runs, "
	 "--budget), or measure the case alone with -d 1s"},
};

unsigned ipc_flag_hint_id(const struct ipc_result *res, enum ipc_flag_kind kind,
			  bool suite)
{
	switch (kind) {
	case IPC_FLAG_UNSTABLE:
		if (res->diag.stop == IPC_STOP_OUT_OF_REACH)
			return HINT_OUT_OF_REACH;
		if (res->diag.stop == IPC_STOP_RUNS)
			return HINT_FIXED_RUNS;
		return 0;
	case IPC_FLAG_SHORT:
		return suite ? HINT_IN_SUITE : 0;
	default:
		return 0;
	}
}

const char *ipc_flag_hint_text(enum ipc_flag_kind kind, unsigned id,
			       const char **label)
{
	size_t i;

	if (label)
		*label = "";
	if ((unsigned)kind >= IPC_FLAG_COUNT)
		return NULL;
	if (!id)
		return flags[kind].hint;
	for (i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
		if (variants[i].kind == kind && variants[i].id == id) {
			if (label)
				*label = variants[i].label;
			return variants[i].hint;
		}
	return NULL;
}

const char *ipc_flag_hint_for(const struct ipc_result *res,
			      enum ipc_flag_kind kind, bool suite)
{
	const char *h = ipc_flag_hint_text(
		kind, ipc_flag_hint_id(res, kind, suite), NULL);

	return h ? h : ipc_flag_hint(kind);
}

const char *ipc_flag_name(enum ipc_flag_kind kind)
{
	return (unsigned)kind < IPC_FLAG_COUNT ? flags[kind].name : "?";
}

const char *ipc_flag_hint(enum ipc_flag_kind kind)
{
	return (unsigned)kind < IPC_FLAG_COUNT ? flags[kind].hint : "";
}
