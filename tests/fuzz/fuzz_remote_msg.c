/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the control protocol's reader and parser: the input
 * is what a peer sends on a control connection.  It goes through the
 * length-prefixed reader in pieces, every complete message through the
 * parser, and every message that parses must encode and parse back to the
 * same bytes (the parser and the encoder share one field table).  The raw
 * input is also parsed as one message body.  A test that parses goes on
 * through the server's check of it (the one the command line's plan
 * uses too); one the check accepts has its server side's buffers made,
 * when they are small, so that what the check lets through is what the
 * server can prepare.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/pattern.h"
#include "remote/lib_internal.h"
#include "ipcperf/run.h"
#include "remote/remote_internal.h"
#include "run/lib_internal.h"

static uint8_t enc1[IPC_REMOTE_MSG_MAX + 4], enc2[IPC_REMOTE_MSG_MAX + 4];

static void roundtrip(const struct ipc_rmsg *m)
{
	struct ipc_rmsg again;
	char why[256];
	int n1, n2;

	n1 = ipc_rmsg_encode(m, enc1, sizeof(enc1));
	if (n1 < 0)
		abort(); /* whatever parses must encode */
	if (ipc_rmsg_parse(enc1 + 4, (size_t)n1 - 4, &again, why, sizeof(why)))
		abort();
	n2 = ipc_rmsg_encode(&again, enc2, sizeof(enc2));
	if (n2 != n1 || memcmp(enc1, enc2, (size_t)n1))
		abort();
}

/* Buffers made per input at most: more would only slow the fuzzer. */
#define PREPARE_MAX (1u << 20)

static void test_case(const struct ipc_rtest *t)
{
	struct ipc_serve_state *st = NULL;
	struct ipc_runopts ro;
	struct ipc_case cs;
	char why[256] = "";
	uint64_t bytes;

	if (rm_test_case(t, NULL, &cs, &ro, why, sizeof(why))) {
		if (!why[0])
			abort(); /* every refusal says why */
		return;
	}
	bytes = (t->req_size + t->resp_size + t->msg_size + t->chunk_size) *
		(t->flows ? t->flows : 1);
	if (bytes > IPC_REMOTE_TEST_BYTES_MAX)
		abort(); /* accepted past the budget */
	if (cs.pat->flags & IPC_PAT_TRACE)
		return; /* its sizes wait for the trace */
	if (cs.pat->buf_bytes(&cs) > PREPARE_MAX)
		return;
	if (ipc_serve_begin(&cs, &ro, &st) == 0)
		ipc_serve_end(st);
}

static void body(const uint8_t *p, size_t n)
{
	struct ipc_rmsg m;
	char why[256];

	if (ipc_rmsg_parse(p, n, &m, why, sizeof(why)) == 0) {
		roundtrip(&m);
		if (m.type == IPC_RM_TEST)
			test_case(&m.test);
	} else if (!why[0])
		abort(); /* every refusal says why */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipc_rframe f;
	size_t off = 0, used, step;
	int rc;

	body(data, size);
	/*
	 * The first byte sets the size of the pieces (1 to 7 bytes); the
	 * rest is the stream.
	 */
	step = size ? (size_t)(data[0] % 7) + 1 : 1;
	off = size ? 1 : 0;
	ipc_rframe_init(&f, IPC_REMOTE_HANDSHAKE_MAX);
	while (off < size) {
		size_t n = size - off < step ? size - off : step;

		rc = ipc_rframe_feed(&f, data + off, n, &used);
		if (used > n || (rc == 0 && used != n))
			abort();
		off += used;
		if (rc < 0)
			break;
		if (rc == 1) {
			if (f.len == 0 || f.len > IPC_REMOTE_HANDSHAKE_MAX)
				abort();
			body(f.body, f.len);
			ipc_rframe_reset(&f);
		}
	}
	ipc_rframe_reset(&f);
	return 0;
}
