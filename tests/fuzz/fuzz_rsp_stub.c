/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for what a stub sends a client: the input is the
 * stub's side of a session (after a mode byte and a byte that sets how
 * the stream is cut into reads).  Mode 0 opens a session (feature list,
 * stop reply, target description, memory replies), runs matrix samples
 * and closes it; mode 1 replays a small recorded conversation against
 * the input, replies matched by shape (mode 3: with a max packet of 16,
 * so that its reads come in pieces).  Either must end (the input runs
 * out: end of stream) without a crash, a leak or a read out of bounds.
 *
 *   make fuzz                      every target, FUZZ_TIME seconds each
 *   build/fuzz/fuzz_rsp_stub tests/fuzz/corpus/fuzz_rsp_stub
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/framing.h"
#include "framing/lib_internal.h"

struct feed {
	const uint8_t *p;
	size_t n;
	size_t piece; /* bytes per read, 1..256 */
};

static int f_send(void *ctx, const void *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return 0;
}

static ssize_t f_recv(void *ctx, void *buf, size_t len, uint64_t deadline)
{
	struct feed *f = ctx;
	size_t k = f->n < f->piece ? f->n : f->piece;

	(void)deadline;
	if (!f->n)
		return 0;
	if (k > len)
		k = len;
	memcpy(buf, f->p, k);
	f->p += k;
	f->n -= k;
	return (ssize_t)k;
}

static void session(struct ipc_rsp_io *io)
{
	struct ipc_rsp_sess_opts o = {.max_payload = 512};
	struct ipc_rsp_sess *s = NULL;
	struct ipc_rsp_cell c;
	char err[256];
	static const size_t sizes[][2] = {{0, 0}, {64, 64}, {0, 511}, {300, 3}};

	if (ipc_rsp_sess_new(&s, io, &o))
		return;
	if (!ipc_rsp_sess_open(s, err, sizeof(err))) {
		for (size_t i = 0; i < 4; i++) {
			if (ipc_rsp_cell_plan(s, sizes[i][0], sizes[i][1], &c,
					      err, sizeof(err)))
				continue;
			for (uint64_t seq = 0; seq < 3; seq++) {
				int rc = ipc_rsp_cell_run(s, &c, seq);

				if (ipc_rsp_cell_check(s, &c, err,
						       sizeof(err)) ||
				    rc == -ECONNRESET)
					break;
			}
		}
		ipc_rsp_sess_close(s, true);
	}
	ipc_rsp_sess_free(s);
}

static void replay(struct ipc_rsp_io *io, uint32_t max_packet)
{
	static const char log[] =
		"w +$qSupported:multiprocess+#c6\n"
		"r +$PacketSize=47ff;QStartNoAckMode+#7d\n"
		"w +$QStartNoAckMode#b0\n"
		"r +$OK#9a\n"
		"w +$?#3f\n"
		"r $T0506:0*,;07:b0e7f*\"7f0* ;thread:p6901.6901;#18\n"
		"w $qAttached:6901#99\n"
		"r $1#31\n"
		"w $vFile:open:2f70726f632f32363838312f6d617073,0,1c0#df\n"
		"r $F3#79\n"
		"w $vFile:pread:3,47ff,0#68\n"
		"r $F4;abcd#3f\n"
		"w $m401000,10#1f\n"
		"r $0011223344556677#38\n"
		"w $qXfer:features:read:target.xml:0,1000#0c\n"
		"r "
		"$l<target><architecture>i386:x86-64</architecture></"
		"target>#87\n";
	struct ipc_rsp_sess_opts o = {.max_payload = 4096};
	struct ipc_rsp_sess *s = NULL;
	struct ipc_rsp_replay *r = NULL;
	struct ipc_trace *t = NULL;
	char err[256];
	int rc = 0;

	if (ipc_trace_parse("fuzz.log", log, sizeof(log) - 1, &t, err,
			    sizeof(err)) ||
	    ipc_rsp_sess_new(&s, io, &o) ||
	    ipc_rsp_replay_new(&r, t, s, err, sizeof(err)))
		goto out;
	ipc_rsp_replay_max_packet(r, max_packet);
	for (size_t i = 0, j; i < t->nunits && !rc; i = j) {
		for (j = i + 1;
		     j < t->nunits && t->units[j].dir == t->units[i].dir; j++)
			;
		for (size_t k = i; k < j && !rc; k++)
			if (t->units[k].dir == IPC_C2S)
				rc = ipc_rsp_replay_send(r, k);
		if (!rc && t->units[i].dir == IPC_S2C)
			rc = ipc_rsp_replay_recv(r, i, j, UINT64_MAX);
	}
out:
	ipc_rsp_replay_free(r);
	ipc_rsp_sess_free(s);
	ipc_trace_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed f;
	struct ipc_rsp_io io = {.ctx = &f, .send = f_send, .recv = f_recv};
	struct ipc_rsp_shape sh;
	struct ipc_rsp_stub_info in;

	if (size < 2)
		return 0;
	f.p = data + 2;
	f.n = size - 2;
	f.piece = (size_t)data[1] + 1;
	if (data[0] & 1)
		replay(&io, data[0] & 2 ? 16 : 0);
	else
		session(&io);
	/* The pure parsers on the whole input too. */
	memset(&in, 0, sizeof(in));
	ipc_rsp_parse_supported(data + 2, size - 2, &in);
	ipc_rsp_shape_of(data + 2, size - 2, &sh);
	return 0;
}
