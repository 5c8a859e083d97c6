/* SPDX-License-Identifier: MIT */
/*
 * Options of `ipcperf server`: where it listens, when it stops by itself,
 * how many tests it runs at once, its key, and the deadlines that keep a
 * slow or silent client from holding it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "remote/lib_internal.h"

#define SRV CMD_SERVER
/* Commands that can measure against a remote server. */
#define RMT (CMD_RR | CMD_STREAM | CMD_BULK | CMD_CRR | CMD_LOAD | CMD_REPLAY)

static int set_listen(struct cli_config *c, const char *a)
{
	if (c->nlisten == CLI_LISTEN_MAX)
		return usage_error("listen on fewer addresses",
				   "--listen: more than %d addresses",
				   CLI_LISTEN_MAX);
	if (!*a)
		return usage_error("give ADDR[:PORT], [ADDR6]:PORT or :PORT",
				   "--listen: empty address");
	if (ipc_addr_check(a, cli_err, sizeof(cli_err)))
		return cli_bad_value("--listen",
				     "give ADDR[:PORT], [ADDR6]:PORT or :PORT");
	c->listen[c->nlisten++] = a;
	return 0;
}

static int set_once(struct cli_config *c, const char *a)
{
	(void)a;
	c->once = true;
	return 0;
}

static int set_idle(struct cli_config *c, const char *a)
{
	return cli_duration("--idle-timeout", a, &c->idle_timeout_ns);
}

static int set_maxdur(struct cli_config *c, const char *a)
{
	return cli_duration("--max-duration", a, &c->max_duration_ns);
}

static int set_ctltime(struct cli_config *c, const char *a)
{
	return cli_duration("--control-timeout", a, &c->control_timeout_ns);
}

static int set_maxtest(struct cli_config *c, const char *a)
{
	return cli_duration("--max-test", a, &c->max_test_ns);
}

static int set_maxclients(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_COUNT, a, 1, 1024, &c->max_clients))
		return cli_bad_value(
			"--max-clients",
			"give how many tests may run at once, 1 to 1024");
	return 0;
}

static int set_key(struct cli_config *c, const char *a)
{
	return cli_file_arg("--key",
			    "make a key with: head -c 32 /dev/urandom > FILE; "
			    "chmod 600 FILE",
			    a, &c->key_file);
}

static int set_daemon(struct cli_config *c, const char *a)
{
	(void)a;
	c->daemon = true;
	return 0;
}

static int set_pidfile(struct cli_config *c, const char *a)
{
	return cli_file_arg(
		"--pidfile",
		"give the file to write the pid to, such as /run/ipcperf.pid",
		a, &c->pidfile);
}

static int set_log(struct cli_config *c, const char *a)
{
	return cli_file_arg("--log", "give a file to append to, or syslog", a,
			    &c->log);
}

static int set_remote(struct cli_config *c, const char *a)
{
	if (!*a)
		return usage_error(
			"give HOST or HOST:PORT of an ipcperf server",
			"--remote: empty address");
	c->remote = a;
	return 0;
}

static int set_server_engine(struct cli_config *c, const char *a)
{
	if (!ipc_engine_find(a))
		return usage_error("engines: blocking, poll, epoll, io_uring, "
				   "busy",
				   "--server-engine: unknown engine '%s'", a);
	c->server_engine = a;
	return 0;
}

static const struct cli_opt server_opts[] = {
	{"remote", 0, "HOST[:PORT]", RMT,
	 "the peer is the ipcperf server there (tcp, tcp6, udp, udp6) [5301]",
	 set_remote},
	{"server-engine", 0, "NAME", RMT,
	 "with --remote: the server side's engine [the client's]",
	 set_server_engine},
	{"listen", 0, "ADDR[:PORT]", SRV,
	 "listen for control connections there; repeatable; :PORT is every "
	 "address [[::]:5301, IPv4 too]",
	 set_listen},
	{"once", 0, NULL, SRV, "serve one test, then exit", set_once},
	{"idle-timeout", 0, "TIME", SRV,
	 "exit after TIME without a test [never]", set_idle},
	{"max-duration", 0, "TIME", SRV,
	 "exit after TIME, aborting tests still running [never]", set_maxdur},
	{"max-clients", 0, "N", SRV, "tests at once; more are told busy [8]",
	 set_maxclients},
	{"key", 0, "FILE", SRV | RMT,
	 "clients must prove they hold this shared key (16 to 4096 bytes, "
	 "mode 600) [none]",
	 set_key},
	{"control-timeout", 0, "TIME", SRV | RMT,
	 "deadline of every control message; silent or slow connections end "
	 "then [10s]",
	 set_ctltime},
	{"max-test", 0, "TIME", SRV, "longest one test may take [1h]",
	 set_maxtest},
	{"daemon", 0, NULL, SRV,
	 "once listening, run in the background, detached (errors until "
	 "then still reach the terminal); events go to --log [syslog]",
	 set_daemon},
	{"pidfile", 0, "FILE", SRV,
	 "write the server's pid to FILE while it runs; removed when it "
	 "stops [none]",
	 set_pidfile},
	{"log", 0, "FILE|syslog", SRV,
	 "write the event lines to FILE (appended) or to syslog (daemon "
	 "facility) [stdout; --daemon: syslog]",
	 set_log},
};

/*
 * --remote as the HOST:PORT the peer takes: the default port added to
 * "host", "10.0.0.1", "[fd00::1]" and a bare "fd00::1".
 */
static int remote_target(struct cli_config *c)
{
	const char *r = c->remote, *colon = strchr(r, ':');
	size_t n = strlen(r);
	int w;

	if (r[0] == '[' && r[n - 1] == ']')
		w = snprintf(c->remote_target, sizeof(c->remote_target),
			     "%s:%d", r, IPC_REMOTE_PORT);
	else if (r[0] != '[' && colon && strchr(colon + 1, ':'))
		w = snprintf(c->remote_target, sizeof(c->remote_target),
			     "[%s]:%d", r, IPC_REMOTE_PORT);
	else if (!colon)
		w = snprintf(c->remote_target, sizeof(c->remote_target),
			     "%s:%d", r, IPC_REMOTE_PORT);
	else
		w = snprintf(c->remote_target, sizeof(c->remote_target), "%s",
			     r);
	colon = strrchr(c->remote_target, ':');
	if (w < 0 || (size_t)w >= sizeof(c->remote_target) ||
	    colon == c->remote_target || !colon[1] ||
	    (r[0] == '[' && colon[-1] != ']'))
		return usage_error("give HOST, HOST:PORT, [IPV6] or "
				   "[IPV6]:PORT of an ipcperf server",
				   "--remote: '%s' is not an address", r);
	if (ipc_addr_check(c->remote_target, cli_err, sizeof(cli_err)))
		return cli_bad_value("--remote",
				     "give HOST, HOST:PORT, [IPV6] or "
				     "[IPV6]:PORT of an ipcperf server");
	return 0;
}

/* The client's side: the key loaded, the options for the remote peer. */
static int remote_validate(struct cli_config *c)
{
	char why[256];
	int rc;

	if (!c->remote) {
		if (c->key_file || c->server_engine)
			return usage_error("they go with --remote HOST[:PORT]",
					   "--%s without --remote",
					   c->key_file ? "key"
						       : "server-engine");
		return 0;
	}
	if (c->ntargets)
		return usage_error(
			"measure a stub with --target, or an ipcperf "
			"server with --remote",
			"--remote and --target: one other end at a "
			"time");
	rc = remote_target(c);
	if (rc)
		return rc;
	if (!(c->set & SET_TP))
		c->transports = "tcp";
	if (c->key_file) {
		c->key = calloc(1, sizeof(*c->key));
		if (!c->key)
			return cli_error("out of memory");
		if (ipc_rkey_load(c->key_file, c->key, why, sizeof(why)))
			return usage_error("make a key with: head -c 32 "
					   "/dev/urandom > FILE; chmod 600 "
					   "FILE",
					   "--key: %s", why);
	}
	c->remote_opts.key = c->key;
	c->remote_opts.server_engine = c->server_engine;
	c->remote_opts.timeout_ns = c->control_timeout_ns
					    ? c->control_timeout_ns
					    : IPC_REMOTE_CONTROL_TIMEOUT_NS;
	c->remote_opts.software = "ipcperf " IPCPERF_VERSION;
	return 0;
}

static int server_validate(struct cli_config *c)
{
	if (c->cmd != CMD_SERVER)
		return remote_validate(c);
	if (strcmp(c->format, "table") && strcmp(c->format, "json"))
		return usage_error("the server writes table or json lines",
				   "--format: '%s' is not for the server",
				   c->format);
	if (!c->control_timeout_ns)
		c->control_timeout_ns = IPC_REMOTE_CONTROL_TIMEOUT_NS;
	if (!c->max_test_ns)
		c->max_test_ns = IPC_REMOTE_MAX_TEST_NS;
	if (!c->max_clients)
		c->max_clients = IPC_REMOTE_MAX_CLIENTS;
	return 0;
}

const struct cli_optgroup cli_opts_server = {
	.opts = server_opts,
	.n = sizeof(server_opts) / sizeof(server_opts[0]),
	.validate = server_validate,
};
