/* SPDX-License-Identifier: MIT */
/*
 * A client's case as a test of the protocol and back, and the one check
 * of it: the server refuses, before it accepts the test and again once a
 * replay's trace is in, whatever the command line would refuse for the
 * same case (the run layer's pair and case checks), and what the protocol
 * does not offer.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ipcperf/engine.h"
#include "ipcperf/framing.h"
#include "ipcperf/pattern.h"
#include "ipcperf/run.h"
#include "remote/remote_internal.h"
#include "run/lib_internal.h"

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

/*
 * The figures a test carries as they are, from the client's case and run
 * options to the server's: one table read both ways, so that what a
 * client sends and what a server runs cannot drift apart.
 */
enum carry {
	C_SIZE, /* size_t of the case; uint64_t on the wire */
	C_U64,	/* uint64_t */
	C_BOOL, /* bool */
	C_CPU,	/* int, -1: none; int64_t on the wire */
	C_INT,	/* int, 0 or less: the system's default; uint64_t, 0 */
	C_NS,	/* uint64_t; 0 on the wire: the run options' default */
};

struct carried {
	size_t wire;  /* offset in struct ipc_rtest */
	bool in_opts; /* in struct ipc_runopts, not struct ipc_case */
	size_t off;
	enum carry kind;
};

#define CS(w, m, k)                                                            \
	{                                                                      \
		offsetof(struct ipc_rtest, w), false,                          \
			offsetof(struct ipc_case, m), k                        \
	}
#define RO(w, m, k)                                                            \
	{                                                                      \
		offsetof(struct ipc_rtest, w), true,                           \
			offsetof(struct ipc_runopts, m), k                     \
	}
static const struct carried carried[] = {
	CS(req_size, req_size, C_SIZE),
	CS(resp_size, resp_size, C_SIZE),
	CS(msg_size, msg_size, C_SIZE),
	CS(count, count, C_U64),
	CS(total, total, C_U64),
	CS(chunk_size, chunk_size, C_SIZE),
	CS(flows, flows, C_U64),
	CS(bitrate_bps, bitrate_bps, C_U64),
	RO(verify, verify, C_BOOL),
	RO(pin_cpu, pin_server, C_CPU),
	RO(nodelay, tp.nodelay, C_BOOL),
	RO(sndbuf, tp.sndbuf, C_INT),
	RO(rcvbuf, tp.rcvbuf, C_INT),
	RO(busy_poll_us, tp.busy_poll_us, C_INT),
	RO(timeout_ns, timeout_ns, C_NS),
	RO(explain, explain, C_BOOL),
};
#undef CS
#undef RO

/*
 * One carried figure of kind @k from @from to @to: into the test when
 * @out, else back from it into the case or run options.
 */
static void carry(enum carry k, bool out, const void *from, void *to)
{
	int i;

	switch (k) {
	case C_SIZE:
		if (out)
			*(uint64_t *)to = *(const size_t *)from;
		else
			*(size_t *)to = *(const uint64_t *)from;
		break;
	case C_NS: /* 0 from the wire keeps the default */
		if (!out && !*(const uint64_t *)from)
			break;
		/* fall through */
	case C_U64:
		*(uint64_t *)to = *(const uint64_t *)from;
		break;
	case C_BOOL:
		*(bool *)to = *(const bool *)from;
		break;
	case C_CPU:
		if (out)
			*(int64_t *)to = *(const int *)from;
		else
			*(int *)to = (int)*(const int64_t *)from;
		break;
	case C_INT:
		if (out) {
			i = *(const int *)from;
			*(uint64_t *)to = i > 0 ? (uint64_t)i : 0;
		} else {
			*(int *)to = (int)*(const uint64_t *)from;
		}
		break;
	}
}

void rm_test_of(const struct ipc_case *cs, const struct ipc_runopts *ro,
		struct ipc_rtest *t)
{
	const struct carried *f;
	const char *from;

	memset(t, 0, sizeof(*t));
	rm_strlcpy(t->pattern, cs->pat->name, sizeof(t->pattern));
	rm_strlcpy(t->transport, cs->tp->name, sizeof(t->transport));
	rm_strlcpy(t->engine, cs->eng->name, sizeof(t->engine));
	if (cs->framing) {
		rm_strlcpy(t->framing, cs->framing->name, sizeof(t->framing));
		t->no_ack = cs->framing_noack;
	}
	for (f = carried; f < carried + sizeof(carried) / sizeof(*f); f++) {
		from = f->in_opts ? (const char *)ro : (const char *)cs;
		carry(f->kind, true, from + f->off, (char *)t + f->wire);
	}
	/* --bidir reaches a server as two tests, one of each direction. */
	t->reverse = cs->direction == IPC_DIR_REVERSE;
}

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
	if (t->reverse && strcmp(t->pattern, "stream")) {
		snprintf(why, why_len,
			 "reverse: only a stream test has a direction, not %s",
			 t->pattern);
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
	const struct carried *f;
	char what[64], *to;
	int rc;

	memset(cs, 0, sizeof(*cs));
	cs->pat = ipc_pattern_find(t->pattern);
	cs->tp = ipc_transport_find(t->transport);
	cs->eng = ipc_engine_find(t->engine);
	cs->framing = t->framing[0] ? ipc_framing_find(t->framing) : NULL;
	cs->framing_noack = t->no_ack;
	cs->trace = trace;
	ipc_runopts_default(ro);
	for (f = carried; f < carried + sizeof(carried) / sizeof(*f); f++) {
		to = f->in_opts ? (char *)ro : (char *)cs;
		carry(f->kind, false, (const char *)t + f->wire, to + f->off);
	}
	ro->tp.timeout_ns = ro->timeout_ns;
	cs->direction = t->reverse ? IPC_DIR_REVERSE : IPC_DIR_SEND;
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
