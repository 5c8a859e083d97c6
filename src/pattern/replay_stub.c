/* SPDX-License-Identifier: MIT */
/*
 * replay --target: the client's side of a recorded GDB conversation played
 * against a live stub (framing's ipc_rsp_replay: ids made the live ones,
 * replies matched by shape, reads in pieces under --max-packet).  One
 * replay per run, on the run's fresh connection, since a conversation
 * starts with the handshake.  Timed as replay's own client: the replay
 * from the first write to the last byte read (the sample), each exchange
 * from its first client write to the end of the answer (the second
 * histogram).  A few mismatches are counted, not failures (the first
 * said in words); more than one reply in ten of another shape is no longer
 * the recorded conversation, and the run fails saying so, its figures
 * kept.  A reply that does not come, a broken frame or a closed connection
 * end the run too.
 */
#include <math.h>

#include "replay.h"
#include "framing/lib_internal.h"

/*
 * Replies of another shape beyond this share (1 / RS_DIVERGED) of all of
 * them fail the run: gdbserver refusing every file after a vFile:setfs of
 * another process showed as 135 mismatches in 471 replies, a stray error
 * reply or two (a register the CPU lacks) as 2 in 161.
 */
#define RS_DIVERGED 10

/* More than one in RS_DIVERGED replies of another shape: fail, saying so. */
static int diverged(struct ipc_pctx *c, const struct ipc_rsp_replay_counts *n)
{
	uint64_t all = n->matched + n->mismatched + n->cpu_dependent;

	if (!n->mismatched || n->mismatched * RS_DIVERGED <= all)
		return 0;
	snprintf(c->out.what, sizeof(c->out.what),
		 "the replay diverged: %llu of %llu replies unlike the "
		 "trace's, more than one in %d (the first is noted)",
		 (unsigned long long)n->mismatched, (unsigned long long)all,
		 RS_DIVERGED);
	c->out.err = -EPROTO;
	return -EPROTO;
}

static int rs_send(void *ctx, const void *buf, size_t len)
{
	return msg_send(ctx, buf, len);
}

/* As rr-stub's: the engine waits io.timeout_ns at most per receive. */
static ssize_t rs_recv(void *ctx, void *buf, size_t len, uint64_t deadline)
{
	struct ipc_pctx *c = ctx;

	if (deadline != UINT64_MAX && ipc_now_ns() >= deadline)
		return -ETIMEDOUT;
	return c->io.eng->recv(&c->io, buf, len);
}

/* One replay: the wall time into *wall_ns, each exchange into xhist. */
static int rs_once(struct ipc_pctx *c, struct ipc_rsp_replay *r,
		   uint64_t timeout_ns, uint64_t *wall_ns)
{
	const struct ipc_trace *t = c->cs->trace;
	uint64_t start = ipc_now_ns(), first = start;
	bool asked = false;
	int err = 0;

	for (size_t i = 0, j; i < t->nunits && !err; i = j) {
		j = rp_group_end(t, i);
		if (t->units[i].dir == IPC_C2S) {
			for (size_t k = i; k < j && !err; k++) {
				if (t->units[k].think_ns)
					err = rp_think(c, t->units[k].think_ns);
				if (k == i)
					first = ipc_now_ns();
				if (!err)
					err = ipc_rsp_replay_send(r, k);
			}
			if (err)
				return msg_fail(c, err, "send to the stub");
			asked = true;
			continue;
		}
		err = ipc_rsp_replay_recv(r, i, j, ipc_now_ns() + timeout_ns);
		if (err) {
			snprintf(c->out.what, sizeof(c->out.what), "%s:%u: %s",
				 t->path, t->units[i].line,
				 err == -ETIMEDOUT    ? "the stub's reply did "
							"not come in time"
				 : err == -EBADMSG    ? "a reply with a bad "
							"checksum or escape"
				 : err == -ECONNRESET ? "the stub closed the "
							"connection"
						      : strerror(-err));
			c->out.err = err;
			return err;
		}
		if (asked)
			ipc_hist_record(c->xhist, ipc_now_ns() - first);
		asked = false;
	}
	*wall_ns = ipc_now_ns() - start;
	return 0;
}

int rp_stub_client(struct ipc_pctx *c)
{
	const struct ipc_stub_cfg *cfg = c->cs->cfg;
	const struct ipc_trace *t = c->cs->trace;
	struct ipc_rsp_io io = {.ctx = c, .send = rs_send, .recv = rs_recv};
	/* A live reply may be longer than the recorded one. */
	struct ipc_rsp_sess_opts o = {.max_payload = 65536 + t->max_unit};
	uint64_t timeout = cfg->timeout_ns ? cfg->timeout_ns : 5000000000ull;
	struct ipc_rsp_sess *s = NULL;
	struct ipc_rsp_replay *r = NULL;
	const struct ipc_rsp_replay_counts *n;
	char err[160] = "";
	struct ipc_rsp_counts before = {0}, after = {0};
	uint64_t wall = 0, out, in;
	int rc;

	ipc_hist_reset(c->hist);
	ipc_hist_reset(c->xhist);
	c->io.timeout_ns = timeout;
	rc = ipc_rsp_sess_new(&s, &io, &o);
	if (!rc)
		rc = ipc_rsp_replay_new(&r, t, s, err, sizeof(err));
	if (rc) {
		ipc_rsp_sess_free(s);
		if (err[0]) {
			snprintf(c->out.what, sizeof(c->out.what), "%s", err);
			c->out.err = rc;
			return rc;
		}
		return msg_fail(c, rc, "a replay against the stub");
	}
	ipc_rsp_replay_max_packet(r, t->max_packet);
	/* A stub several runs share, with a process: untimed, not counted. */
	rc = ipc_rsp_replay_prepare(s);
	if (rc) {
		ipc_rsp_replay_free(r);
		ipc_rsp_sess_free(s);
		return msg_fail(c, rc, "prepare the stub");
	}
	before = *ipc_rsp_sess_counts(s);
	rc = rs_once(c, r, timeout, &wall);
	if (!rc) {
		/*
		 * Leave the stub as it was found, with a process stopped at
		 * its start, if the trace ended it and the stub can; a stub
		 * the trace told to exit is gone, which is no failure.
		 */
		after = *ipc_rsp_sess_counts(s);
		ipc_rsp_replay_prepare(s);
		ipc_hist_record(c->hist, wall);
		c->out.done = 1;
		c->out.elapsed_ns = wall;
		c->out.messages = t->exchanges;
	}
	n = ipc_rsp_replay_counts(r);
	c->out.extra[RP_MATCHED] = (double)n->matched;
	c->out.extra[RP_MISMATCHED] = (double)n->mismatched;
	c->out.extra[RP_CPU] = (double)n->cpu_dependent;
	snprintf(c->out.mismatch, sizeof(c->out.mismatch), "%s",
		 ipc_rsp_replay_first(r));
	c->out.extra[RP_ACKS] = (double)(n->acks_missing + n->acks_extra);
	c->out.extra[RP_REWRITTEN] = (double)n->rewritten;
	c->out.extra[RP_PIECES] = (double)n->pieces;
	if (rc)
		after = *ipc_rsp_sess_counts(s);
	out = after.bytes_out - before.bytes_out;
	in = after.bytes_in - before.bytes_in;
	c->out.extra[RP_BYTES_OUT] = (double)out;
	c->out.extra[RP_BYTES_IN] = (double)in;
	c->out.bytes = out + in;
	if (!rc)
		rc = diverged(c, n);
	ipc_rsp_replay_free(r);
	ipc_rsp_sess_free(s);
	return rc;
}
