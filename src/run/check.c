/* SPDX-License-Identifier: MIT */
/*
 * Whether a case can run on this host, asked the same way by whoever
 * builds one: the command line's plan, and the remote server for the test
 * a client sends.  What one refuses the other refuses, in the same words.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "ipcperf/run.h"
#include "engine/lib_internal.h"
#include "run/lib_internal.h"

int ipc_pair_check(const struct ipc_transport_ops *tp,
		   const struct ipc_engine_ops *eng,
		   const struct ipc_tp_opts *o, char *what, size_t what_len,
		   char *why, size_t why_len)
{
	int rc;

	why[0] = '\0';
	rc = tp->probe ? tp->probe(why, why_len) : 0;
	if (!rc && tp->check)
		rc = tp->check(o, why, why_len);
	if (rc) {
		snprintf(what, what_len, "transport %s", tp->name);
		return rc < 0 ? rc : -EINVAL;
	}
	if (!eng)
		return 0;
	why[0] = '\0';
	rc = eng->probe ? eng->probe(why, why_len) : 0;
	if (rc) {
		snprintf(what, what_len, "engine %s", eng->name);
		return rc < 0 ? rc : -EINVAL;
	}
	rc = ipc_engine_can_drive(eng, tp, why, why_len);
	if (rc)
		snprintf(what, what_len, "%s on %s", eng->name, tp->name);
	return rc;
}

int ipc_case_check(const struct ipc_case *cs, const struct ipc_runopts *ro,
		   char *why, size_t why_len)
{
	struct ipc_tp_opts o = ro->tp;
	size_t need, limit;
	int rc;

	why[0] = '\0';
	/* Its sizes come from the trace: nothing to ask the pattern without. */
	if ((cs->pat->flags & IPC_PAT_TRACE) && !cs->trace) {
		snprintf(why, why_len, "%s plays a trace and none was given",
			 cs->pat->name);
		return -EINVAL;
	}
	rc = cs->peer && cs->peer->check ? cs->peer->check(cs, ro, why, why_len)
					 : 0;
	if (!rc && cs->pat->check)
		rc = cs->pat->check(cs, ro->placement, why, why_len);
	if (rc)
		return rc < 0 ? rc : -EINVAL;
	if ((cs->streams > 1 || cs->direction == IPC_DIR_BIDIR) &&
	    (cs->tp->caps & IPC_TP_ONE_CHAN)) {
		snprintf(why, why_len,
			 "%s carries one channel at a time (its device): no "
			 "parallel streams (-P %llu%s)",
			 cs->tp->name, (unsigned long long)cs->streams,
			 cs->direction == IPC_DIR_BIDIR ? ", --bidir" : "");
		return -EINVAL;
	}
	need = cs->pat->max_msg(cs);
	o.max_msg = need;
	limit = cs->tp->max_msg ? cs->tp->max_msg(&o) : SIZE_MAX;
	if (need > limit) {
		snprintf(why, why_len,
			 "a %zu-byte message is larger than the largest %s "
			 "can carry (%zu bytes)",
			 need, cs->tp->name, limit);
		return -EMSGSIZE;
	}
	return 0;
}
