/* SPDX-License-Identifier: MIT */
/*
 * --explain over --remote, the wire's part: what a server that could not
 * explain sends ("why" only) and how the client reads the server's
 * object back into its peer record: phases by name, the window, nothing
 * from a field it does not know, a negative figure or a text that is not
 * an object; and the message that carries it through the protocol's own
 * encoder and parser.
 */
#include <stdlib.h>
#include <string.h>

#include "explain/explain_abi.h"
#include "ipcperf/explain.h"
#include "remote/lib_internal.h"
#include "ipcperf/run.h"
#include "remote/remote_internal.h"
#include "../tap.h"

static struct ipc_peer *peer_new(void)
{
	struct ipc_peer *p = calloc(1, sizeof(*p));

	if (!p)
		abort();
	return p;
}

static void test_why(void)
{
	struct ipc_peer *p = peer_new();
	char text[IPC_RM_HOST_MAX];

	rm_xserve_text(NULL, "not permitted (load: Operation not permitted)",
		       text, sizeof(text));
	is_str(text,
	       "{\"why\":\"not permitted (load: Operation not permitted)\"}",
	       "a server that cannot explain sends why only");
	rm_xclient_take(p, text);
	is_str(p->remote_xwhy, "not permitted (load: Operation not permitted)",
	       "the client keeps the why");
	is_int(p->remote_xwindow_ns, "==", 0, "... and no window: no phases");
	free(p);
}

static void test_take(void)
{
	struct ipc_peer *p = peer_new();

	p->remote_xns[XA_FUTEX] = 99; /* from an earlier run: cleared */
	p->remote_xp99[XA_FUTEX] = 99;
	rm_xclient_take(p,
			"{\"window_ns\":5000,\"user\":100,\"wake-up: IPI\":7,"
			"\"softirq NET_RX\":30,\"bogus\":3,\"send\":-1,"
			"\"receive\":\"12\",\"p99 wake-up: IPI\":63,"
			"\"p99 bogus\":5,\"p99 user\":-4}");
	is_int(p->remote_xwindow_ns, "==", 5000, "the window");
	is_int(p->remote_xns[XA_USER], "==", 100, "a phase by its name");
	is_int(p->remote_xns[XA_IPI], "==", 7, "the IPI's");
	is_int(p->remote_xns[XA_SOFTIRQ0 + 3], "==", 30, "a softirq's");
	is_int(p->remote_xns[XA_SEND], "==", 0,
	       "a negative figure is not taken");
	is_int(p->remote_xns[XA_RECV], "==", 0, "nor a string");
	is_int(p->remote_xns[XA_FUTEX], "==", 0, "the earlier run's is gone");
	is_int(p->remote_xp99[XA_IPI], "==", 63, "a p99 by its phase's name");
	is_int(p->remote_xns[XA_IPI], "==", 7, "... apart from its time");
	is_int(p->remote_xp99[XA_USER], "==", 0, "a negative p99 is not taken");
	is_int(p->remote_xp99[XA_FUTEX], "==", 0,
	       "the earlier run's p99 is gone");
	ok(!p->remote_xwhy[0], "no why");
	rm_xclient_take(p, "[1, 2]");
	is_int(p->remote_xwindow_ns, "==", 0, "not an object: nothing");
	rm_xclient_take(p, "");
	is_int(p->remote_xwindow_ns, "==", 0, "empty: nothing");
	free(p);
}

static void test_wire(void)
{
	struct ipc_rmsg *m = calloc(1, sizeof(*m)),
			*back = calloc(1, sizeof(*m));
	static unsigned char buf[IPC_REMOTE_MSG_MAX + 4];
	char why[256];
	int n;

	if (!m || !back)
		abort();
	m->type = IPC_RM_TEST;
	strcpy(m->test.pattern, "rr");
	strcpy(m->test.transport, "tcp");
	n = ipc_rmsg_encode(m, buf, sizeof(buf));
	ok(n > 4 && !memmem(buf + 4, (size_t)n - 4, "explain", 7),
	   "a test that does not ask for explain does not name it");
	m->test.explain = true;
	n = ipc_rmsg_encode(m, buf, sizeof(buf));
	ok(n > 4 && memmem(buf + 4, (size_t)n - 4, "\"explain\":true", 14),
	   "one that asks sends explain: true");
	is_int(ipc_rmsg_parse(buf + 4, (size_t)n - 4, back, why, sizeof(why)),
	       "==", 0, "... which the server reads");
	ok(back->test.explain, "... as asked");
	memset(m, 0, sizeof(*m));
	m->type = IPC_RM_RUN_STATS;
	strcpy(m->stats.explain, "{\"user\":5,\"window_ns\":9}");
	n = ipc_rmsg_encode(m, buf, sizeof(buf));
	is_int(ipc_rmsg_parse(buf + 4, (size_t)n - 4, back, why, sizeof(why)),
	       "==", 0, "run_stats with explain goes through");
	is_str(back->stats.explain, "{\"user\":5,\"window_ns\":9}",
	       "... and arrives as sent");
	free(m);
	free(back);
}

int main(void)
{
	test_why();
	test_take();
	test_wire();
	return done_testing();
}
