/*
 * Options of `ipcperf server`: where it listens, when it stops by itself,
 * how many tests it runs at once, its key, and the deadlines that keep a
 * slow or silent client from holding it.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define SRV CMD_SERVER

static int set_listen(struct cli_config *c, const char *a)
{
	if (c->nlisten == CLI_LISTEN_MAX)
		return usage_error("listen on fewer addresses",
				   "--listen: more than %d addresses",
				   CLI_LISTEN_MAX);
	if (!*a)
		return usage_error("give ADDR[:PORT], [ADDR6]:PORT or :PORT",
				   "--listen: empty address");
	c->listen[c->nlisten++] = a;
	return 0;
}

static int set_once(struct cli_config *c, const char *a)
{
	(void)a;
	c->once = true;
	return 0;
}

static int time_opt(const char *opt, const char *a, uint64_t *ns)
{
	if (cli_units(IPC_UNIT_TIME, a, 1, CLI_TIME_MAX, ns))
		return usage_error("give a time such as 30s, 10m or 2h",
				   "%s: %s", opt, cli_err);
	return 0;
}

static int set_idle(struct cli_config *c, const char *a)
{
	return time_opt("--idle-timeout", a, &c->idle_timeout_ns);
}

static int set_maxdur(struct cli_config *c, const char *a)
{
	return time_opt("--max-duration", a, &c->max_duration_ns);
}

static int set_ctltime(struct cli_config *c, const char *a)
{
	return time_opt("--control-timeout", a, &c->control_timeout_ns);
}

static int set_maxtest(struct cli_config *c, const char *a)
{
	return time_opt("--max-test", a, &c->max_test_ns);
}

static int set_maxclients(struct cli_config *c, const char *a)
{
	if (cli_units(IPC_UNIT_COUNT, a, 1, 1024, &c->max_clients))
		return usage_error("give how many tests may run at once, "
				   "1 to 1024",
				   "--max-clients: %s", cli_err);
	return 0;
}

static int set_key(struct cli_config *c, const char *a)
{
	if (!*a)
		return usage_error("make a key with: head -c 32 /dev/urandom "
				   "> FILE; chmod 600 FILE",
				   "--key: empty file name");
	c->key_file = a;
	return 0;
}

static const struct cli_opt server_opts[] = {
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
	{"key", 0, "FILE", SRV,
	 "clients must prove they hold this shared key (16 to 4096 bytes, "
	 "mode 600) [none]",
	 set_key},
	{"control-timeout", 0, "TIME", SRV,
	 "deadline of every control message; silent or slow connections end "
	 "then [10s]",
	 set_ctltime},
	{"max-test", 0, "TIME", SRV, "longest one test may take [1h]",
	 set_maxtest},
};

static int server_validate(struct cli_config *c)
{
	if (c->cmd != CMD_SERVER)
		return 0;
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
