/* SPDX-License-Identifier: MIT */
/*
 * Options of the http command and its serve-only mode: the built-in
 * target's page and how it is written, and the limits of serving
 * (`ipcperf http --serve ADDR:PORT` until Ctrl-C, a duration or an idle
 * time).
 */
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "cli.h"
#include "framing/lib_internal.h"
#include "pattern/lib_internal.h"
#include "run/lib_internal.h"

#define PAGE_DEFAULT 16294 /* the seed's page (shared/seeds/002) */
#define CHUNK_DEFAULT 4096 /* ... written 4 KB at a time */
#define REQ_TIMEOUT_DEFAULT 30000000000ull /* ab's -s default, 30 s */
#define CONNS_MAX 1000000u
#define PIPELINE_MAX 1024u
#define STREAMS_MAX 1024u
#define HEADERS_MAX 64

static int set_serve(struct cli_config *c, const char *a)
{
	c->serve.addr = a;
	c->serve_only = true;
	return 0;
}

static int set_page(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_SIZE, a, 0, CLI_SIZE_MAX, &c->serve.page_bytes))
		return cli_bad_value(
			"--page",
			"give a size such as 16294 or 1M (at most 1G)");
	c->set |= SET_PAGE;
	return 0;
}

static int set_chunk(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_SIZE, a, 0, CLI_SIZE_MAX, &c->serve.chunk_bytes))
		return cli_bad_value("--chunk",
				     "give a size such as 4k, or 0 for the "
				     "whole body in one write");
	c->set |= SET_CHUNK;
	return 0;
}

static int set_chunked(struct cli_config *c, const char *a)
{
	(void)a;
	c->serve.chunked = true;
	return 0;
}

static int set_client_timeout(struct cli_config *c, const char *a)
{
	return cli_duration("--client-timeout", a, &c->serve.client_timeout_ns);
}

static int set_request_timeout(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_TIME, a, 0, CLI_TIME_MAX, &c->http.timeout_ns))
		return cli_bad_value("--request-timeout",
				     "give a time such as 30s or 500ms, or 0 "
				     "to wait for ever");
	c->set |= SET_REQ_TIMEOUT;
	return 0;
}

static int set_max_duration(struct cli_config *c, const char *a)
{
	return cli_duration("--max-duration", a, &c->serve.max_duration_ns);
}

static int set_idle_timeout(struct cli_config *c, const char *a)
{
	return cli_duration("--idle-timeout", a, &c->serve.idle_timeout_ns);
}

static int set_max_conns(struct cli_config *c, const char *a)
{
	uint64_t n;

	if (cli_units(IPC_UNIT_COUNT, a, 1, CONNS_MAX, &n))
		return cli_bad_value("--max-conns",
				     "give a number from 1 to 1000000");
	c->serve.max_conns = (uint32_t)n;
	return 0;
}

static int set_no_keepalive(struct cli_config *c, const char *a)
{
	(void)a;
	c->http.keepalive = false;
	c->set |= SET_NO_KA;
	return 0;
}

static int set_method(struct cli_config *c, const char *a)
{
	char why[160];
	struct ipc_http_req_spec sp = {.method = a, .host = "h", .path = "/"};
	char head[512];

	if (strlen(a) >= sizeof(c->http.method) ||
	    ipc_http_req_head(head, sizeof(head), &sp, why, sizeof(why)) < 0)
		return usage_error("give a method such as GET, HEAD or POST",
				   "--method: '%s' is not a method", a);
	strcpy(c->http.method, a);
	return 0;
}

static int set_header(struct cli_config *c, const char *a)
{
	const char **h;
	char why[200];

	if (ipc_http_header_check(a, why, sizeof(why)))
		return usage_error(NULL, "-H: %s", why);
	if (c->http.nheaders >= HEADERS_MAX)
		return usage_error(NULL, "-H: more than %d headers",
				   HEADERS_MAX);
	h = realloc(c->headers, (c->http.nheaders + 1) * sizeof(*h));
	if (!h)
		return cli_error("out of memory");
	c->headers = h;
	h[c->http.nheaders++] = a;
	c->http.headers = h;
	return 0;
}

static int set_body(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_SIZE, a, 0, CLI_SIZE_MAX, &c->http.body))
		return cli_bad_value(
			"--body", "give a size such as 1k or 0 (at most 1G)");
	return 0;
}

static int set_pipeline(struct cli_config *c, const char *a)
{
	uint64_t n;

	if (cli_units(IPC_UNIT_COUNT, a, 1, PIPELINE_MAX, &n))
		return cli_bad_value("--pipeline",
				     "give a depth from 1 to 1024");
	c->http.pipeline = (uint32_t)n;
	return 0;
}

static int set_http2(struct cli_config *c, const char *a)
{
	(void)a;
	c->http.http2 = true;
	return 0;
}

static int set_streams(struct cli_config *c, const char *a)
{
	uint64_t n;

	if (cli_units(IPC_UNIT_COUNT, a, 1, STREAMS_MAX, &n))
		return cli_bad_value("--max-concurrent-streams",
				     "give a number of streams from 1 to 1024");
	c->http.streams = (uint32_t)n;
	return 0;
}

static int set_tls(struct cli_config *c, const char *a)
{
	(void)a;
	c->http.tls = true;
	c->serve.tls = true;
	return 0;
}

/* A file option's value into @dst: a readable file, else EXIT_USAGE. */
static int file_opt(const char *opt, const char *a, char *dst, size_t len)
{
	if (!*a || strlen(a) >= len)
		return usage_error(NULL,
				   "%s: give a file name (below %zu bytes)",
				   opt, len);
	if (access(a, R_OK))
		return usage_error(NULL, "%s %s: %s", opt, a, strerror(errno));
	snprintf(dst, len, "%s", a);
	return 0;
}

static int set_cert(struct cli_config *c, const char *a)
{
	set_tls(c, a);
	c->serve.cert_file = c->http.cert;
	return file_opt("--cert", a, c->http.cert, sizeof(c->http.cert));
}

static int set_cert_key(struct cli_config *c, const char *a)
{
	set_tls(c, a);
	c->serve.key_file = c->http.key;
	return file_opt("--key", a, c->http.key, sizeof(c->http.key));
}

static int set_cacert(struct cli_config *c, const char *a)
{
	return file_opt("--cacert", a, c->http.cacert, sizeof(c->http.cacert));
}

static int set_insecure(struct cli_config *c, const char *a)
{
	(void)a;
	c->http.insecure = true;
	return 0;
}

static int set_tls_version(struct cli_config *c, const char *a)
{
	if (!strcmp(a, "1.2"))
		c->http.tls_version = 12;
	else if (!strcmp(a, "1.3"))
		c->http.tls_version = 13;
	else
		return usage_error("give 1.2 or 1.3",
				   "--tls-version: '%s' is not a TLS version "
				   "measured here",
				   a);
	return 0;
}

static int set_token(struct cli_config *c, const char *a)
{
	size_t n = strlen(a);

	if (!n || n > 64 ||
	    strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789-_.~") != n)
		return usage_error("give 1 to 64 letters, digits, '-', '_', "
				   "'.' or '~'",
				   "--token: '%s' is not a token", a);
	c->serve.token = a;
	return 0;
}

/* Does @host resolve to an IPv4 address (or fail to resolve at all)? */
static bool has_ipv4(const char *host)
{
	struct addrinfo hints = {.ai_family = AF_INET,
				 .ai_socktype = SOCK_STREAM},
			*res = NULL;
	struct addrinfo h6 = {.ai_family = AF_INET6,
			      .ai_socktype = SOCK_STREAM};
	bool v4 = !getaddrinfo(host, NULL, &hints, &res);

	if (res)
		freeaddrinfo(res);
	res = NULL;
	if (v4 || getaddrinfo(host, NULL, &h6, &res))
		return true; /* unresolvable: tcp says so in its words */
	freeaddrinfo(res);
	return false;
}

/* The URL into the pattern's parameters; EXIT_USAGE when it is bad. */
static int take_url(struct cli_config *c)
{
	struct ipc_http_url u;
	char why[256];

	if (ipc_http_url_parse(c->http_url, &u, why, sizeof(why)))
		return usage_error("ipcperf http http://HOST[:PORT]/PATH", "%s",
				   why);
	snprintf(c->http.url, sizeof(c->http.url), "%s", c->http_url);
	snprintf(c->http.host, sizeof(c->http.host), "%s", u.host);
	snprintf(c->http.port, sizeof(c->http.port), "%s", u.port);
	snprintf(c->http.authority, sizeof(c->http.authority), "%s",
		 u.authority);
	snprintf(c->http.path, sizeof(c->http.path), "%s", u.path);
	c->http.tls = u.tls;
	if (!u.tls &&
	    (c->http.insecure || c->http.cacert[0] || c->http.tls_version))
		return usage_error("--insecure, --cacert and --tls-version are "
				   "for https:// URLs",
				   "%s is not an https:// URL", c->http_url);
	/*
	 * The server is already there: the external peer, reached over tcp,
	 * or tcp6 when the host is an IPv6 address or has no IPv4 one.
	 */
	c->peer = &ipc_peer_external;
	c->transports =
		strchr(u.host, ':') || !has_ipv4(u.host) ? "tcp6" : "tcp";
	snprintf(c->target_buf, sizeof(c->target_buf),
		 strchr(u.host, ':') ? "[%s]:%s" : "%s:%s", u.host, u.port);
	c->target = c->target_buf;
	return 0;
}

static int http_validate(struct cli_config *c)
{
	if (c->cmd != CMD_HTTP)
		return 0;
	c->serve.listen_fd = -1;
	c->serve.stop_fd = -1;
	if (!(c->set & SET_PAGE))
		c->serve.page_bytes = PAGE_DEFAULT;
	if (!(c->set & SET_CHUNK))
		c->serve.chunk_bytes = CHUNK_DEFAULT;
	if (c->serve_only && c->http_url)
		return usage_error("--serve serves; without it ipcperf http "
				   "measures URL",
				   "--serve %s and the URL %s: give one",
				   c->serve.addr, c->http_url);
	if ((c->http.cert[0] != 0) != (c->http.key[0] != 0))
		return usage_error("give both, or neither for a certificate "
				   "made for the run",
				   "--cert and --key go together");
	if (!c->serve_only && c->serve.token)
		return usage_error("a run's own target counts the connections "
				   "it did not expect",
				   "--token is for --serve");
	if (c->serve_only && c->http.insecure)
		return usage_error(NULL, "--insecure is the client's: --serve "
					 "measures nothing");
	if (c->serve_only && (c->http.http2 || c->http.streams))
		return usage_error(NULL,
				   "--http2 and -m are the client's: the "
				   "built-in target speaks HTTP/1.1, h2c to a "
				   "client that opens with its preface, and h2 "
				   "over --tls to one that offers it by ALPN");
	if (c->serve_only) {
		c->serve.engine = c->set & SET_ENGINE ? c->engines : NULL;
		if (c->serve.engine &&
		    ipc_http_serve_engine(c->serve.engine) < 0)
			return usage_error("give -e epoll, poll or busy",
					   "-e %s: the built-in target waits "
					   "with one of epoll, poll or busy",
					   c->serve.engine);
		return 0;
	}
	if (!c->http.method[0])
		strcpy(c->http.method, "GET");
	if (!c->http.pipeline)
		c->http.pipeline = 1;
	if (c->http.streams && !c->http.http2)
		return usage_error("streams are HTTP/2's: add --http2",
				   "--max-concurrent-streams %u without "
				   "--http2",
				   c->http.streams);
	if (!c->http.streams)
		c->http.streams = 1;
	if (c->http.http2 && c->http.pipeline > 1)
		return usage_error("HTTP/2 sends requests at once as streams: "
				   "give -m N",
				   "--pipeline %u with --http2",
				   c->http.pipeline);
	if (!(c->set & SET_NO_KA))
		c->http.keepalive = true;
	if (!(c->set & SET_REQ_TIMEOUT))
		c->http.timeout_ns = REQ_TIMEOUT_DEFAULT;
	if (!c->http.keepalive && c->http.pipeline > 1)
		return usage_error("a connection per request has no room for "
				   "a pipeline",
				   "--no-keepalive with --pipeline %u",
				   c->http.pipeline);
	if (c->http_url && c->serve.tls)
		return usage_error(
			"--tls, --cert and --key are the "
			"built-in target's (an https:// URL says TLS)",
			"not for a URL's server (%s)", c->http_url);
	if (!c->http_url &&
	    (c->http.insecure || c->http.cacert[0] || c->http.tls_version))
		return usage_error("the built-in target's certificate is made "
				   "for the run, and not verified",
				   "--insecure, --cacert and --tls-version are "
				   "for https:// URLs");
	if (c->http_url &&
	    ((c->set & (SET_PAGE | SET_CHUNK)) || c->serve.chunked))
		return usage_error("--page, --chunk and --chunked shape the "
				   "built-in target's pages",
				   "--page, --chunk, --chunked: not for a "
				   "URL's server (%s)",
				   c->http_url);
	/* A URL's server has its own pages: no built-in target's to say. */
	if (!c->http_url) {
		c->http.page = c->serve.page_bytes;
		c->http.chunk = c->serve.chunk_bytes;
		c->http.chunked = c->serve.chunked;
	}
	if (!(c->set & SET_TP))
		c->transports = "tcp";
	c->pat_cfg = &c->http;
	if (c->http_url) {
		if (c->set & SET_TP)
			return usage_error("a URL says where to connect",
					   "-t does not apply to a URL");
		return take_url(c);
	}
	snprintf(c->http.path, sizeof(c->http.path), "/");
	snprintf(c->http.authority, sizeof(c->http.authority), "localhost");
	/* Its certificate is the run's own: the client does not verify it. */
	c->http.insecure = c->http.tls;
	return 0;
}

static const struct cli_opt http_opts[] = {
	{"serve", 0, "ADDR:PORT", CMD_HTTP,
	 "serve the page at ADDR:PORT (port 0: any) to other clients until "
	 "Ctrl-C, --max-duration or --idle-timeout; measure nothing",
	 set_serve},
	{"page", 0, "SIZE", CMD_HTTP,
	 "bytes of the built-in target's page [16294, as in seed 002]",
	 set_page},
	{"chunk", 0, "SIZE", CMD_HTTP,
	 "the built-in target writes the body SIZE bytes at a time, one "
	 "write each; 0: all at once [4k]",
	 set_chunk},
	{"chunked", 0, NULL, CMD_HTTP,
	 "the built-in target answers HTTP/1.1 with Transfer-Encoding: "
	 "chunked, one chunk per write [Content-Length]",
	 set_chunked},
	{"client-timeout", 0, "TIME", CMD_HTTP,
	 "the built-in target closes a connection that takes longer to send "
	 "a request or to take an answer in [10s]",
	 set_client_timeout},
	{"max-duration", 0, "TIME", CMD_HTTP,
	 "--serve: stop after TIME [no limit]", set_max_duration},
	{"idle-timeout", 0, "TIME", CMD_HTTP,
	 "--serve: stop after TIME without a request [no limit]",
	 set_idle_timeout},
	{"no-keepalive", 0, NULL, CMD_HTTP,
	 "a new connection per request, sent with Connection: close "
	 "[keep-alive]",
	 set_no_keepalive},
	{"method", 0, "M", CMD_HTTP, "the request method [GET]", set_method},
	{"header", 'H', "'NAME: VALUE'", CMD_HTTP,
	 "a header to send (repeatable; replaces Host, User-Agent, Accept)",
	 set_header},
	{"body", 0, "SIZE", CMD_HTTP,
	 "a request body of SIZE bytes with its Content-Length [none]",
	 set_body},
	{"request-timeout", 0, "TIME", CMD_HTTP,
	 "a response not whole TIME after its request began fails "
	 "(\"timeout\") and its connection closes; 0: wait for ever [30s, "
	 "as ab]",
	 set_request_timeout},
	{"pipeline", 0, "N", CMD_HTTP,
	 "requests written at once on each connection before their "
	 "responses are read [1]",
	 set_pipeline},
	{"http2", 0, NULL, CMD_HTTP,
	 "HTTP/2: h2c with prior knowledge on http://, h2 chosen by ALPN on "
	 "https:// (a server that chooses another fails as \"alpn\"); "
	 "the built-in target speaks both [HTTP/1.1]",
	 set_http2},
	{"max-concurrent-streams", 'm', "N", CMD_HTTP,
	 "--http2: requests opened at once as streams on each connection, as "
	 "h2load's -m; the next N go when all N are answered [1]",
	 set_streams},
	{"max-conns", 0, "N", CMD_HTTP,
	 "the built-in target's open connections at most; a new one pushes "
	 "out the one idle longest, or waits when none is idle [10000]",
	 set_max_conns},
	{"tls", 0, NULL, CMD_HTTP,
	 "the built-in target serves https, with a certificate made for the "
	 "run unless --cert and --key give one [plain http]",
	 set_tls},
	{"cert", 0, "FILE", CMD_HTTP,
	 "the built-in target's certificate chain (PEM), with --key; implies "
	 "--tls",
	 set_cert},
	{"key", 0, "FILE", CMD_HTTP, "the private key of --cert (PEM)",
	 set_cert_key},
	{"insecure", 0, NULL, CMD_HTTP,
	 "https: do not verify the server's certificate (the result says so) "
	 "[verify]",
	 set_insecure},
	{"cacert", 0, "FILE", CMD_HTTP,
	 "https: trust the CAs in FILE (PEM) [the system's]", set_cacert},
	{"token", 0, "T", CMD_HTTP,
	 "--serve: requests whose path begins /T/ are the load's own; the "
	 "others are counted as strangers' when it stops [all own]",
	 set_token},
	{"tls-version", 0, "V", CMD_HTTP,
	 "https: only TLS 1.2 or only 1.3 [either]", set_tls_version},
};

const struct cli_optgroup cli_opts_http = {
	.opts = http_opts,
	.n = sizeof(http_opts) / sizeof(http_opts[0]),
	.validate = http_validate,
};

/* ---- serving -------------------------------------------------------- */

/* The handlers' only way out: a write to the server's stop descriptor. */
static int stop_efd = -1;

static void on_signal(int sig)
{
	uint64_t one = 1;
	int saved = errno;

	(void)sig;
	if (write(stop_efd, &one, sizeof(one)) < 0) {
		/* Nothing to do in a handler; the counter is already set. */
	}
	errno = saved;
}

static const char *why_ended(int end)
{
	switch (end) {
	case IPC_SERVE_DURATION:
		return "--max-duration reached";
	case IPC_SERVE_IDLE:
		return "--idle-timeout without a request";
	default:
		return "stopped";
	}
}

int cli_http_serve(const struct cli_config *c)
{
	struct ipc_http_serve_opts o = c->serve;
	struct ipc_http_server *s = NULL;
	struct ipc_http_serve_stats st;
	struct sigaction sa = {.sa_handler = on_signal};
	char why[256], addr[80], tls_failed[64] = "", strangers[80] = "";
	int rc;

	stop_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (stop_efd < 0) {
		cli_error("http --serve: eventfd: %s", strerror(errno));
		return EXIT_MEASURE;
	}
	o.stop_fd = stop_efd;
	rc = ipc_http_serve_open(&s, &o, why, sizeof(why));
	if (rc) {
		close(stop_efd);
		if (rc == -EINVAL)
			return usage_error(NULL, "--serve: %s", why);
		cli_error("--serve: %s", why);
		return EXIT_MEASURE;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ipc_http_serve_addr(s, addr, sizeof(addr));
	if (o.chunk_bytes)
		snprintf(why, sizeof(why), "writes of %llu bytes",
			 (unsigned long long)o.chunk_bytes);
	else
		snprintf(why, sizeof(why), "one write");
	/* With a token the address printed is where the load is to go. */
	printf("serving %s://%s/%s%s (a %llu-byte page in %s%s%s); Ctrl-C "
	       "stops\n",
	       o.tls ? "https" : "http", addr, o.token ? o.token : "",
	       o.token ? "/" : "", (unsigned long long)o.page_bytes, why,
	       o.chunked ? ", chunked" : "",
	       o.tls && !o.cert_file
		       ? "; a certificate for localhost made now, signed by "
			 "itself"
		       : "");
	fflush(stdout);
	rc = ipc_http_serve_run(s);
	ipc_http_serve_stats(s, &st);
	ipc_http_serve_free(s);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	close(stop_efd);
	if (rc < 0) {
		cli_error("--serve %s: the event loop failed: %s", addr,
			  strerror(-rc));
		return EXIT_MEASURE;
	}
	if (o.token)
		snprintf(strangers, sizeof(strangers),
			 "%llu without the token (strangers'); ",
			 (unsigned long long)st.strangers);
	if (o.tls)
		snprintf(tls_failed, sizeof(tls_failed),
			 "%llu TLS handshakes failed; ",
			 (unsigned long long)st.tls_failed);
	printf("served %llu requests (%llu keep-alive) on %llu connections "
	       "(%llu %s); "
	       "%llu malformed, %llu timed out, %llu reset; %llu bytes out, "
	       "%llu in; %s%s%s\n",
	       (unsigned long long)st.requests,
	       (unsigned long long)st.keepalive, (unsigned long long)st.conns,
	       (unsigned long long)st.h2, o.tls ? "h2" : "h2c",
	       (unsigned long long)st.bad, (unsigned long long)st.timeouts,
	       (unsigned long long)st.resets, (unsigned long long)st.bytes_out,
	       (unsigned long long)st.bytes_in, strangers, tls_failed,
	       why_ended(rc));
	return EXIT_OK;
}
