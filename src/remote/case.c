/* SPDX-License-Identifier: MIT */
/*
 * A client's test as a case of the run layer, and the one check of it:
 * the server refuses, before it accepts the test and again once a replay's
 * trace is in, whatever the command line would refuse for the same case
 * (the run layer's pair and case checks), and what the protocol does not
 * offer.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ipcperf/engine.h"
#include "ipcperf/framing.h"
#include "ipcperf/pattern.h"
#include "ipcperf/run.h"
#include "remote/remote_internal.h"

/* The patterns docs/protocol.md offers; the rest stay local. */
static const char *const served[] = {
	"rr", "stream", "bulk", "crr", "load", "replay", NULL,
};

bool rm_pattern_served(const char *name)
{
	for (size_t i = 0; served[i]; i++)
		if (!strcmp(served[i], name))
			return true;
	return false;
}

/*
 * What the server side of @t may hold in buffers: each flow a request
 * and a response (rr, crr, load), or a message or chunk (stream, bulk).
 * Each size is capped by the parser at 64 MiB and flows at 10000, but
 * their product is not: 10000 flows of 64 MiB would be 625 GiB.
 */
static uint64_t test_bytes(const struct ipc_rtest *t)
{
	uint64_t per = t->req_size + t->resp_size + t->msg_size + t->chunk_size;

	return per * (t->flows ? t->flows : 1);
}

static int budget(uint64_t bytes, char *why, size_t why_len);

/* Names and what only the protocol limits. */
static int check_names(const struct ipc_rtest *t, const struct ipc_case *cs,
		       char *why, size_t why_len)
{
	int family, type;

	if (!rm_pattern_served(t->pattern)) {
		snprintf(why, why_len,
			 "pattern '%s' is not served remotely: the server "
			 "runs rr, stream, bulk, crr, load and replay",
			 t->pattern);
		return -EINVAL;
	}
	if (rm_transport_socket(t->transport, &family, &type)) {
		snprintf(why, why_len,
			 "transport '%s' cannot run remotely: remote mode runs "
			 "over tcp, tcp6, udp and udp6",
			 t->transport);
		return -EPROTONOSUPPORT;
	}
	if (!cs->pat || !cs->tp || !cs->eng ||
	    (t->framing[0] && !cs->framing)) {
		snprintf(why, why_len, "this server has no %s '%s'",
			 !cs->pat   ? "pattern"
			 : !cs->tp  ? "transport"
			 : !cs->eng ? "engine"
				    : "framing",
			 !cs->pat   ? t->pattern
			 : !cs->tp  ? t->transport
			 : !cs->eng ? t->engine
				    : t->framing);
		return -EINVAL;
	}
	if (cs->framing && !(cs->pat->flags & IPC_PAT_FRAMED)) {
		snprintf(why, why_len, "pattern %s takes no framing",
			 t->pattern);
		return -EINVAL;
	}
	if (t->no_ack && !(cs->framing && cs->framing->acks)) {
		snprintf(why, why_len, "no_ack without a framing that acks");
		return -EINVAL;
	}
	if (!(cs->pat->flags & IPC_PAT_TRACE) != !t->trace_bytes) {
		snprintf(why, why_len,
			 t->trace_bytes ? "pattern %s plays no trace"
					: "pattern %s needs its trace "
					  "(trace_bytes)",
			 t->pattern);
		return -EINVAL;
	}
	return budget(test_bytes(t), why, why_len);
}

static int budget(uint64_t bytes, char *why, size_t why_len)
{
	if (bytes <= IPC_REMOTE_TEST_BYTES_MAX)
		return 0;
	snprintf(why, why_len,
		 "the test needs %llu MiB of buffers; this server allows %llu "
		 "MiB per test",
		 (unsigned long long)(bytes >> 20),
		 (unsigned long long)(IPC_REMOTE_TEST_BYTES_MAX >> 20));
	return -E2BIG;
}

int rm_test_case(const struct ipc_rtest *t, const struct ipc_trace *trace,
		 struct ipc_case *cs, struct ipc_runopts *ro, char *why,
		 size_t why_len)
{
	char what[64];
	int rc;

	memset(cs, 0, sizeof(*cs));
	cs->pat = ipc_pattern_find(t->pattern);
	cs->tp = ipc_transport_find(t->transport);
	cs->eng = ipc_engine_find(t->engine);
	cs->framing = t->framing[0] ? ipc_framing_find(t->framing) : NULL;
	cs->framing_noack = t->no_ack;
	cs->req_size = t->req_size;
	cs->resp_size = t->resp_size;
	cs->msg_size = t->msg_size;
	cs->count = t->count;
	cs->total = t->total;
	cs->chunk_size = t->chunk_size;
	cs->flows = t->flows;
	cs->trace = trace;
	ipc_runopts_default(ro);
	ro->verify = t->verify;
	ro->pin_server = (int)t->pin_cpu;
	ro->timeout_ns = t->timeout_ns ? t->timeout_ns : ro->timeout_ns;
	ro->tp.nodelay = t->nodelay;
	ro->tp.sndbuf = (int)t->sndbuf;
	ro->tp.rcvbuf = (int)t->rcvbuf;
	ro->tp.busy_poll_us = (int)t->busy_poll_us;
	ro->tp.timeout_ns = ro->timeout_ns;
	rc = check_names(t, cs, why, why_len);
	if (!rc)
		rc = ipc_pair_check(cs->tp, cs->eng, &ro->tp, what,
				    sizeof(what), why, why_len);
	/* A replay's sizes are in its trace: its case is checked once in. */
	if (!rc && (trace || !(cs->pat->flags & IPC_PAT_TRACE)))
		rc = ipc_case_check(cs, ro, why, why_len);
	/*
	 * What the run layer allocates besides, with the framing's room for
	 * escapes: a replay's once its trace says how large.
	 */
	if (!rc && (trace || !(cs->pat->flags & IPC_PAT_TRACE)))
		rc = budget(test_bytes(t) + ipc_case_buf_total(cs), why,
			    why_len);
	return rc;
}
