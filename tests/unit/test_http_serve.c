/* SPDX-License-Identifier: MIT */
/*
 * The built-in HTTP target, driven over loopback by clients written here:
 * every body checked byte for byte against the page (Content-Length and
 * chunked), pipelining with HEAD mixed in, HTTP/1.0 with and without
 * keep-alive, 100 Continue, malformed requests and oversized headers (400,
 * 431, close), a client that dribbles its request and one that never
 * reads (both closed at the timeout while another client is served),
 * the memory deep-pipelining clients that never read cost, a connection
 * limit, and the ways a run ends.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "ipcperf/framing.h"
#include "ipcperf/pattern.h"
#include "framing/lib_internal.h"
#include "pattern/lib_internal.h"

#define PAGE 16294

static char page[PAGE];

/* The ways the server's loop waits, by engine. */
static const char *const ways[] = {"epoll", "poll", "busy"};

/* A server running in a thread. */
struct srv {
	struct ipc_http_server *s;
	int stop;
	int port;
	int end;
	pthread_t t;
};

static void *serve_thread(void *arg)
{
	struct srv *v = arg;

	v->end = ipc_http_serve_run(v->s);
	return NULL;
}

static struct ipc_http_serve_opts opts(void)
{
	return (struct ipc_http_serve_opts){.addr = "127.0.0.1:0",
					    .listen_fd = -1,
					    .page_bytes = PAGE,
					    .chunk_bytes = 4096,
					    .stop_fd = -1};
}

static bool start(struct srv *v, struct ipc_http_serve_opts o)
{
	char why[256], addr[64];

	memset(v, 0, sizeof(*v));
	v->stop = eventfd(0, EFD_CLOEXEC);
	o.stop_fd = v->stop;
	if (ipc_http_serve_open(&v->s, &o, why, sizeof(why))) {
		diag("cannot start the server: %s", why);
		return false;
	}
	ipc_http_serve_addr(v->s, addr, sizeof(addr));
	v->port = atoi(strrchr(addr, ':') + 1);
	return !pthread_create(&v->t, NULL, serve_thread, v);
}

/* Stop it; its stats in @st (may be NULL).  Returns why it ended. */
static int stop(struct srv *v, struct ipc_http_serve_stats *st)
{
	uint64_t one = 1;

	if (write(v->stop, &one, sizeof(one)) != sizeof(one))
		return -1;
	pthread_join(v->t, NULL);
	if (st)
		ipc_http_serve_stats(v->s, st);
	ipc_http_serve_free(v->s);
	close(v->stop);
	return v->end;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- a client ------------------------------------------------------- */

struct cl {
	int fd;
	struct ipc_http_parser p;
	char in[1 << 16]; /* read, not parsed yet */
	size_t len, off;
	char *raw; /* the bytes of the last message */
	size_t raw_len, raw_cap;
	bool eof;
};

static int dial(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)port)};
	struct timeval tv = {.tv_sec = 10};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct cl *cl_new(int port)
{
	struct cl *c = calloc(1, sizeof(*c));

	c->fd = dial(port);
	ipc_http_parser_init(&c->p, false);
	return c;
}

static void cl_free(struct cl *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->raw);
	free(c);
}

static bool say(struct cl *c, const char *text)
{
	size_t len = strlen(text), at = 0;

	while (at < len) {
		ssize_t n = send(c->fd, text + at, len - at, MSG_NOSIGNAL);

		if (n <= 0)
			return false;
		at += (size_t)n;
	}
	return true;
}

static void keep_raw(struct cl *c, const char *b, size_t n)
{
	if (c->raw_len + n > c->raw_cap) {
		c->raw_cap = (c->raw_len + n) * 2;
		c->raw = realloc(c->raw, c->raw_cap);
	}
	memcpy(c->raw + c->raw_len, b, n);
	c->raw_len += n;
}

/*
 * Read the next response (to a HEAD if @head).  1 and c->p.msg, c->raw;
 * 0 at a clean end of stream; -errno.
 */
static int next(struct cl *c, bool head)
{
	c->raw_len = 0;
	ipc_http_expect_head(&c->p, head);
	for (;;) {
		bool done;
		ssize_t n;

		if (c->off < c->len) {
			n = ipc_http_feed(&c->p, c->in + c->off,
					  c->len - c->off, &done);
			if (n < 0)
				return (int)n;
			keep_raw(c, c->in + c->off, (size_t)n);
			c->off += (size_t)n;
			if (done)
				return 1;
			continue;
		}
		if (c->eof)
			return ipc_http_eof(&c->p);
		n = recv(c->fd, c->in, sizeof(c->in), 0);
		if (n < 0)
			return -errno;
		c->off = 0;
		c->len = (size_t)n;
		if (!n)
			c->eof = true;
	}
}

/* The body of the last message, decoded, into @out; its length. */
static size_t body_of(const struct cl *c, char *out, size_t cap)
{
	const char *r = c->raw, *end = c->raw + c->raw_len;
	const char *b = memmem(r, c->raw_len, "\r\n\r\n", 4);
	size_t n = 0;

	if (!b)
		return 0;
	b += 4;
	if (!c->p.msg.chunked) {
		n = (size_t)(end - b);
		memcpy(out, b, n < cap ? n : cap);
		return n;
	}
	while (b < end) {
		char *e;
		unsigned long k = strtoul(b, &e, 16);

		b = strstr(e, "\r\n") + 2;
		if (!k || n + k > cap)
			break;
		memcpy(out + n, b, k);
		n += k;
		b += k + 2;
	}
	return n;
}

static bool page_ok(const struct cl *c)
{
	static char got[PAGE + 4096];
	size_t n = body_of(c, got, sizeof(got));

	return n == PAGE && !memcmp(got, page, PAGE);
}

/* Does the last message's head contain @text? */
static bool head_has(const struct cl *c, const char *text)
{
	const char *b = memmem(c->raw, c->raw_len, "\r\n\r\n", 4);

	return b &&
	       memmem(c->raw, (size_t)(b + 2 - c->raw), text, strlen(text));
}

/* Is the connection closed by the server within @ms? */
static bool closed_within(struct cl *c, int ms)
{
	struct pollfd pf = {.fd = c->fd, .events = POLLIN};
	char b[4096];
	uint64_t until = now_ms() + (uint64_t)ms;

	while (now_ms() < until) {
		ssize_t n;

		if (poll(&pf, 1, (int)(until - now_ms())) <= 0)
			return false;
		n = recv(c->fd, b, sizeof(b), 0);
		if (n <= 0)
			return n == 0 || errno == ECONNRESET;
	}
	return false;
}

/*
 * Is the connection reset or hung up within @ms, without reading from it?
 * (A server that closes with unread requests resets the connection.)
 */
static bool hung_up_within(struct cl *c, int ms)
{
	struct pollfd pf = {.fd = c->fd, .events = 0};

	return poll(&pf, 1, ms) == 1 && (pf.revents & (POLLHUP | POLLERR));
}

#define GET "GET /any/path?x=1 HTTP/1.1\r\nHost: t\r\n\r\n"
#define HEAD "HEAD / HTTP/1.1\r\nHost: t\r\n\r\n"

/* ---- the tests ------------------------------------------------------ */

static void test_keepalive(struct srv *v)
{
	struct cl *c = cl_new(v->port);
	int good = 0;

	for (int i = 0; i < 3; i++)
		good += say(c, GET) && next(c, false) == 1 &&
			c->p.msg.status == 200 && c->p.msg.keep_alive &&
			page_ok(c) && head_has(c, "\r\nDate: ") &&
			head_has(c, "Content-Length: 16294\r\n");
	is_int(good, "==", 3,
	       "three GETs on one connection: 200, kept alive, the page "
	       "byte for byte, Date and Content-Length");
	cl_free(c);
}

static void test_pipelined(struct srv *v)
{
	struct cl *c = cl_new(v->port);
	static char many[100 * 64];
	int good = 0, heads = 0;

	many[0] = '\0';
	for (int i = 0; i < 100; i++)
		strcat(many, i % 3 == 1 ? HEAD : GET);
	ok(say(c, many), "100 pipelined requests sent in one write");
	for (int i = 0; i < 100; i++) {
		bool head = i % 3 == 1;

		if (next(c, head) != 1 || c->p.msg.status != 200)
			break;
		if (head)
			heads += c->p.msg.body_bytes == 0 &&
				 c->p.msg.length == PAGE;
		else
			good += page_ok(c);
	}
	is_int(good, "==", 67, "... 67 GET answers, each the whole page");
	is_int(heads, "==", 33,
	       "... 33 HEAD answers in their places, heads only");
	cl_free(c);
}

static void test_http10(struct srv *v)
{
	struct cl *c = cl_new(v->port);

	ok(say(c, "GET /fast HTTP/1.0\r\nConnection: Keep-Alive\r\n"
		  "Host: localhost\r\nUser-Agent: ApacheBench/2.3\r\n"
		  "Accept: */*\r\n\r\n") &&
		   next(c, false) == 1 && page_ok(c) &&
		   head_has(c, "Connection: keep-alive\r\n") &&
		   c->p.msg.keep_alive,
	   "ab -k's HTTP/1.0 keep-alive request: the page, and "
	   "Connection: keep-alive");
	ok(say(c, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n") &&
		   next(c, false) == 1 && page_ok(c),
	   "... a second request on the same connection");
	ok(say(c, "GET / HTTP/1.0\r\n\r\n") && next(c, false) == 1 &&
		   page_ok(c) && !c->p.msg.keep_alive,
	   "a plain HTTP/1.0 request: the page, not kept alive");
	ok(closed_within(c, 5000), "... and the server closes");
	cl_free(c);

	c = cl_new(v->port);
	ok(say(c, "GET / HTTP/1.1\r\nConnection: close\r\n\r\n") &&
		   next(c, false) == 1 && page_ok(c) &&
		   head_has(c, "Connection: close\r\n"),
	   "HTTP/1.1 Connection: close: the page, Connection: close");
	ok(closed_within(c, 5000), "... and the server closes");
	cl_free(c);

	c = cl_new(v->port);
	ok(say(c, GET) && !shutdown(c->fd, SHUT_WR) && next(c, false) == 1 &&
		   page_ok(c) && next(c, false) == 0,
	   "a client that half-closes after its request gets the page, then "
	   "the end");
	cl_free(c);
}

static void test_chunked(void)
{
	struct ipc_http_serve_opts o = opts();
	struct srv v;
	struct cl *c;

	o.chunked = true;
	o.chunk_bytes = 1000;
	if (!start(&v, o)) {
		ok(0, "a chunked server starts");
		return;
	}
	c = cl_new(v.port);
	ok(say(c, GET) && next(c, false) == 1 && c->p.msg.chunked &&
		   page_ok(c) && head_has(c, "Transfer-Encoding: chunked"),
	   "chunked answer, 1000-byte chunks: the page byte for byte");
	ok(memmem(c->raw, c->raw_len, "\r\n3e8\r\n", 7) &&
		   memmem(c->raw, c->raw_len, "\r\n126\r\n", 7),
	   "... chunks of 0x3e8 bytes and a last one of 0x126");
	ok(say(c, HEAD) && next(c, true) == 1 && c->p.msg.body_bytes == 0,
	   "... HEAD on it: the head alone");
	ok(say(c, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n") &&
		   next(c, false) == 1 && !c->p.msg.chunked &&
		   c->p.msg.has_length && page_ok(c),
	   "... an HTTP/1.0 client gets a Content-Length instead");
	cl_free(c);
	stop(&v, NULL);

	o.chunked = false;
	o.chunk_bytes = 1;
	o.page_bytes = 100;
	if (start(&v, o)) {
		c = cl_new(v.port);
		ok(say(c, GET) && next(c, false) == 1 &&
			   c->p.msg.body_bytes == 100,
		   "a 100-byte page written a byte at a time arrives whole");
		cl_free(c);
		stop(&v, NULL);
	}
	o.page_bytes = 0;
	o.chunked = true;
	if (start(&v, o)) {
		c = cl_new(v.port);
		ok(say(c, GET) && next(c, false) == 1 &&
			   c->p.msg.body_bytes == 0 && c->p.msg.chunked,
		   "an empty page, chunked: the last chunk alone");
		cl_free(c);
		stop(&v, NULL);
	}
}

static void test_continue(struct srv *v)
{
	struct cl *c = cl_new(v->port);
	const char *want = "HTTP/1.1 100 Continue\r\n\r\n";
	char got[64] = "";
	size_t n = 0;

	ok(say(c, "POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n"
		  "Expect: 100-continue\r\n\r\n"),
	   "a POST head with Expect: 100-continue, no body yet");
	while (n < strlen(want)) {
		ssize_t k = recv(c->fd, got + n, strlen(want) - n, 0);

		if (k <= 0)
			break;
		n += (size_t)k;
	}
	is_str(got, want, "... the server answers 100 Continue at once");
	ok(say(c, "hello") && next(c, false) == 1 && c->p.msg.status == 200 &&
		   page_ok(c),
	   "... then, the body sent, 200 and the page");
	ok(say(c, "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
		  "3;ext=1\r\nabc\r\n0\r\nTrailer: x\r\n\r\n") &&
		   next(c, false) == 1 && page_ok(c),
	   "a chunked request body with an extension and a trailer: 200");
	cl_free(c);
}

static void test_bad(struct srv *v)
{
	struct cl *c = cl_new(v->port), *good = cl_new(v->port);
	static char big[(1 << 20) + 64];

	ok(say(c, "GARBAGE\r\n\r\n") && next(c, false) == 1 &&
		   c->p.msg.status == 400 && !c->p.msg.keep_alive,
	   "a malformed request: 400 Bad Request, Connection: close");
	ok(closed_within(c, 5000), "... and the connection closes");
	ok(say(good, GET) && next(good, false) == 1 && page_ok(good),
	   "another client is served meanwhile");
	cl_free(c);

	c = cl_new(v->port);
	strcpy(big, "GET / HTTP/1.1\r\nX-Big: ");
	memset(big + strlen(big), 'a', 1 << 20);
	strcat(big, "\r\n\r\n");
	say(c, big); /* the server may close before it has it all */
	ok(next(c, false) == 1 && c->p.msg.status == 431,
	   "a 1 MB header line: 431 Request Header Fields Too Large");
	ok(closed_within(c, 5000), "... and the connection closes");
	cl_free(c);

	c = cl_new(v->port);
	ok(say(c, "POST / HTTP/1.1\r\nContent-Length: 4\r\n"
		  "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n") &&
		   next(c, false) == 1 && c->p.msg.status == 400,
	   "Content-Length with chunked (a smuggling attempt): 400");
	cl_free(c);
	c = cl_new(v->port);
	ok(say(c, "CONNECT example.org:443 HTTP/1.1\r\n\r\n") &&
		   next(c, false) == 1 && !c->p.msg.keep_alive &&
		   closed_within(c, 5000),
	   "CONNECT: answered with the page, then closed (no tunnel)");
	cl_free(c);
	c = cl_new(v->port);
	ok(say(c,
	       "OPTIONS * HTTP/1.1\r\n\r\nGET http://h/x HTTP/1.1\r\n\r\n") &&
		   next(c, false) == 1 && next(c, false) == 1 && page_ok(c),
	   "OPTIONS * and an absolute-form target are answered");
	cl_free(c);
	c = cl_new(v->port);
	ok(say(c,
	       "GET / HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nab") &&
		   !shutdown(c->fd, SHUT_WR) && next(c, false) == 1 &&
		   c->p.msg.status == 400,
	   "a request cut short by the client's close: 400");
	cl_free(c);
	ok(say(good, GET) && next(good, false) == 1 && page_ok(good),
	   "the other client is still served");
	cl_free(good);
}

static void test_slow(const char *way)
{
	struct ipc_http_serve_opts o = opts();
	struct ipc_http_serve_stats st;
	struct srv v;
	struct cl *slow, *deaf, *good;
	static char many[4000 * 41];
	uint64_t t0;
	int served = 0;

	diag("slow clients, the server waiting with %s", way);
	o.engine = way;
	o.client_timeout_ns = 1000 * 1000000ull;
	if (!start(&v, o)) {
		ok(0, "a server with a 1 s client timeout starts");
		return;
	}
	/* 4000 requests (65 MB of answers) that one client never reads. */
	for (size_t i = 0; i < 4000; i++)
		memcpy(many + i * strlen(GET), GET, strlen(GET) + 1);
	slow = cl_new(v.port);
	deaf = cl_new(v.port);
	good = cl_new(v.port);
	t0 = now_ms();
	ok(say(slow, "GET / HTTP/1.1\r\nHo"), "a client sends half a head");
	ok(say(deaf, many), "a client pipelines 4000 requests, reads nothing");
	for (int i = 0; i < 20; i++) {
		bool sent = say(good, GET);
		int r = sent ? next(good, false) : -999;

		served += r == 1 && page_ok(good);
		if (r != 1)
			diag("request %d: sent %d, next %d", i, sent, r);
	}
	is_int(served, "==", 20, "another client is served meanwhile");
	ok(say(slow, "st: t\r\n") && closed_within(slow, 5000),
	   "the dribbling client is closed");
	is_uint(now_ms() - t0, ">=", 950, "... not before its timeout");
	ok(hung_up_within(deaf, 5000),
	   "the client that does not read is closed");
	cl_free(good);
	good = cl_new(v.port);
	ok(say(good, GET) && next(good, false) == 1 && page_ok(good),
	   "the server still serves (a new connection: the old one idled "
	   "past the timeout too)");
	cl_free(slow);
	cl_free(deaf);
	cl_free(good);
	stop(&v, &st);
	is_uint(st.timeouts, "==", 2, "two connections counted as timed out");
	if (st.timeouts != 2)
		diag("conns %llu requests %llu bad %llu resets %llu",
		     (unsigned long long)st.conns,
		     (unsigned long long)st.requests,
		     (unsigned long long)st.bad, (unsigned long long)st.resets);
}

/*
 * Clients that pipeline deeply and never read cost the server a bounded
 * amount of memory each: what its queue has no room for stays in the
 * kernel.  (Its heap, through mallinfo2: skipped where a sanitizer's
 * allocator answers for it.)
 */
static void test_deaf_memory(void)
{
	enum { DEAF = 40 };
	struct ipc_http_serve_opts o = opts();
	struct ipc_http_serve_stats st;
	static char many[4000 * 41];
	struct cl *deaf[DEAF];
	struct srv v;
	size_t before, after;
	bool sent = true;

	if (!mallinfo2().arena) {
		skip("mallinfo2 does not see this allocator");
		return;
	}
	if (!start(&v, o)) {
		ok(0, "a server starts");
		return;
	}
	for (size_t i = 0; i < 4000; i++)
		memcpy(many + i * strlen(GET), GET, strlen(GET) + 1);
	/* The clients' own buffers are allocated before the count. */
	for (int i = 0; i < DEAF; i++)
		deaf[i] = calloc(1, sizeof(*deaf[i]));
	before = mallinfo2().uordblks;
	for (int i = 0; i < DEAF; i++) {
		deaf[i]->fd = dial(v.port);
		sent = sent && say(deaf[i], many);
	}
	ok(sent, "%d clients pipeline 4000 requests each, read nothing", DEAF);
	usleep(500 * 1000); /* the server reads what it takes, then stops */
	after = mallinfo2().uordblks;
	is_uint((after > before ? after - before : 0) / DEAF, "<", 16 << 10,
		"... the server's heap grew by less than 16 KiB each");
	for (int i = 0; i < DEAF; i++)
		cl_free(deaf[i]);
	stop(&v, &st);
}

static void test_max_conns(const char *way)
{
	struct ipc_http_serve_opts o = opts();
	struct srv v;
	struct cl *a, *b, *c;
	struct pollfd pf;

	diag("a connection limit, the server waiting with %s", way);
	o.engine = way;
	o.max_conns = 2;
	if (start(&v, o)) {
		a = cl_new(v.port);
		b = cl_new(v.port);
		ok(say(a, GET) && next(a, false) == 1 && say(b, GET) &&
			   next(b, false) == 1,
		   "max 2 connections: two are served");
		/* Both idle now: a third pushes out the one idle longest. */
		c = cl_new(v.port);
		ok(say(c, GET) && next(c, false) == 1 && page_ok(c),
		   "... a third is answered at once, both being idle");
		ok(closed_within(a, 2000), "... the one idle longest closed");
		cl_free(a);
		/* b and c each in the middle of a request: nothing idle. */
		ok(say(b, "GET / HTTP/1.1\r\nHo") &&
			   say(c, "GET / HTTP/1.1\r\nHo"),
		   "... the two left each begin a request");
		a = cl_new(v.port);
		pf = (struct pollfd){.fd = a->fd, .events = POLLIN};
		ok(say(a, GET) && poll(&pf, 1, 300) == 0,
		   "... a new one then waits unanswered");
		cl_free(b);
		ok(next(a, false) == 1 && page_ok(a),
		   "... and is answered once one closes");
		cl_free(a);
		cl_free(c);
		is_int(stop(&v, NULL), "==", IPC_SERVE_STOPPED,
		       "a stop through the descriptor ends the run");
	}
}

static void test_limits_and_ends(void)
{
	struct ipc_http_serve_opts o = opts();
	struct srv v;
	struct cl *a;
	uint64_t t0;
	char why[256];
	struct ipc_http_server *s;

	o = opts();
	o.max_duration_ns = 300 * 1000000ull;
	if (ipc_http_serve_open(&s, &o, why, sizeof(why)) == 0) {
		t0 = now_ms();
		is_int(ipc_http_serve_run(s), "==", IPC_SERVE_DURATION,
		       "--max-duration ends the run");
		is_uint(now_ms() - t0, ">=", 290, "... after 300 ms");
		ipc_http_serve_free(s);
	}
	o = opts();
	o.idle_timeout_ns = 200 * 1000000ull;
	if (ipc_http_serve_open(&s, &o, why, sizeof(why)) == 0) {
		is_int(ipc_http_serve_run(s), "==", IPC_SERVE_IDLE,
		       "--idle-timeout ends the run");
		ipc_http_serve_free(s);
	}

	const char *bad[] = {"127.0.0.1", "127.0.0.1:99999", "[::1:80",
			     "host.invalid:80", "1.2.3.4:x"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o = opts();
		o.addr = bad[i];
		is_int(ipc_http_serve_open(&s, &o, why, sizeof(why)),
		       "==", -EINVAL, "address '%s' is refused: %s", bad[i],
		       why);
	}
	if (start(&v, opts())) {
		char addr[32];

		o = opts();
		snprintf(addr, sizeof(addr), "127.0.0.1:%d", v.port);
		o.addr = addr;
		is_int(ipc_http_serve_open(&s, &o, why, sizeof(why)),
		       "==", -EADDRINUSE, "a port in use: EADDRINUSE (%s)",
		       why);
		a = cl_new(v.port);
		ok(say(a, GET) && next(a, false) == 1, "a client is connected");
		stop(&v, NULL);
		ok(next(a, false) <= 0 && a->eof,
		   "a stop closes the open connections");
		cl_free(a);
	}
}

/* The engines it cannot wait as are refused with a reason. */
static void test_engines(void)
{
	static const char *const no[] = {"blocking", "io_uring", "nope"};
	struct ipc_http_serve_opts o = opts();
	struct ipc_http_server *s;
	char why[256];

	ok(ipc_http_serve_engine(NULL) >= 0, "no engine: the default");
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		o.engine = no[i];
		why[0] = '\0';
		is_int(ipc_http_serve_open(&s, &o, why, sizeof(why)),
		       "==", -EINVAL, "-e %s is refused", no[i]);
		ok(strstr(why, no[i]) != NULL,
		   "... and the reason names it: %s", why);
	}
}

int main(void)
{
	struct srv v;

	ipc_http_page_fill(page, PAGE);
	ok(!memcmp(page, "<!DOCTYPE html>", 15) &&
		   !memcmp(page + PAGE - 21, "</pre></body></html>\n", 21),
	   "the page is an HTML document of %d bytes", PAGE);
	/* The exchanges through each way the loop can wait (-e). */
	for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		struct ipc_http_serve_opts o = opts();
		struct ipc_http_serve_stats st;

		diag("the server waits with %s", ways[i]);
		o.engine = ways[i];
		if (!start(&v, o)) {
			ok(0, "the server starts on 127.0.0.1:0 (%s)", ways[i]);
			return done_testing();
		}
		test_keepalive(&v);
		test_pipelined(&v);
		test_http10(&v);
		test_continue(&v);
		test_bad(&v);
		is_int(stop(&v, &st), "==", IPC_SERVE_STOPPED, "stopped (%s)",
		       ways[i]);
	}
	test_engines();
	test_chunked();
	test_slow("epoll");
	test_slow("poll");
	test_deaf_memory();
	test_max_conns("epoll");
	test_max_conns("poll");
	test_limits_and_ends();
	return done_testing();
}
