/* SPDX-License-Identifier: MIT */
/*
 * Options of a real GDB stub at the other end (docs/stubs.md): --target,
 * which makes rr's cases memory packets against gdbserver or a board's
 * stub (or ipcperf's own stub, the yardstick), and --ack.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "framing/lib_internal.h"

/*
 * One --target item: "gdb://HOST:PORT[?addr=ADDRESS]" or "ipcperf".
 * HOST may be an IPv6 address in brackets.
 */
static int parse_target(const char *item, struct cli_target *t)
{
	const char *hp, *q, *colon;
	char *end;
	unsigned long port;
	size_t n;

	memset(t, 0, sizeof(*t));
	if (strlen(item) >= sizeof(t->cfg.target))
		return usage_error(NULL, "--target: '%.40s...' is too long",
				   item);
	strcpy(t->cfg.target, item);
	if (!strcmp(item, "ipcperf")) {
		t->own = true;
		return 0;
	}
	if (strncmp(item, "gdb://", 6))
		return usage_error("give gdb://HOST:PORT (a stub such as "
				   "gdbserver) or ipcperf (ipcperf's own stub)",
				   "--target: '%s' is not gdb://HOST:PORT",
				   item);
	hp = item + 6;
	q = strchr(hp, '?');
	n = q ? (size_t)(q - hp) : strlen(hp);
	colon = n ? memrchr(hp, ':', n) : NULL;
	if (!colon || colon == hp || n >= sizeof(t->hostport) ||
	    (hp[0] == '[' && colon[-1] != ']'))
		return usage_error("give gdb://HOST:PORT, such as "
				   "gdb://127.0.0.1:1234",
				   "--target: '%s' has no HOST:PORT", item);
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || end != hp + n || !port || port > 65535)
		return usage_error("a port is 1 to 65535",
				   "--target: bad port in '%s'", item);
	memcpy(t->hostport, hp, n);
	t->hostport[n] = '\0';
	for (q = q ? q + 1 : NULL; q && *q;) {
		const char *amp = strchr(q, '&');
		size_t len = amp ? (size_t)(amp - q) : strlen(q);
		char num[32];

		if (len > 5 && len - 5 < sizeof(num) &&
		    !strncmp(q, "addr=", 5)) {
			memcpy(num, q + 5, len - 5);
			num[len - 5] = '\0';
			errno = 0;
			t->cfg.buf_addr = strtoull(num, &end, 16);
			if (errno || *end || !t->cfg.buf_addr)
				return usage_error("an address in hex, such as "
						   "addr=0x4c6300",
						   "--target: bad address '%s'",
						   num);
		} else {
			return usage_error("the only setting is "
					   "?addr=ADDRESS (a buffer in the "
					   "target)",
					   "--target: unknown setting '%.*s'",
					   (int)len, q);
		}
		q = amp ? amp + 1 : NULL;
	}
	return 0;
}

static int set_target(struct cli_config *c, const char *a)
{
	char *copy = strdup(a), *save = NULL, *item;
	int err = 0;

	if (!copy)
		return cli_error("out of memory");
	c->ntargets = 0;
	for (item = strtok_r(copy, ",", &save); item && !err;
	     item = strtok_r(NULL, ",", &save)) {
		if (c->ntargets == CLI_TARGETS_MAX)
			err = usage_error(NULL, "--target: more than %d",
					  CLI_TARGETS_MAX);
		else
			err = parse_target(item, &c->targets[c->ntargets++]);
	}
	free(copy);
	if (!err && !c->ntargets)
		err = usage_error("give gdb://HOST:PORT or ipcperf",
				  "--target: empty list");
	return err;
}

static int set_ack(struct cli_config *c, const char *a)
{
	(void)a;
	c->ack = true;
	return 0;
}

static int set_stub_cpu(struct cli_config *c, const char *a)
{
	cpu_set_t set;
	char *end;
	long cpu;

	errno = 0;
	cpu = strtol(a, &end, 10);
	if (errno || end == a || *end || cpu < 0 || cpu >= CPU_SETSIZE)
		return usage_error("a CPU number, such as 0",
				   "--stub-cpu: bad CPU '%s'", a);
	/* Both sides go on it once: this process must be allowed there. */
	if (sched_getaffinity(0, sizeof(set), &set) == 0 &&
	    !CPU_ISSET((int)cpu, &set))
		return usage_error(
			"give a CPU this process may run on "
			"(taskset -p $$)",
			"--stub-cpu: CPU %ld is not one this process "
			"may run on",
			cpu);
	c->stub_cpu = (int)cpu;
	c->stub_cpu_set = true;
	return 0;
}

bool cli_loopback(const char *hostport)
{
	char host[128];
	const char *colon = strrchr(hostport, ':');
	size_t n = colon ? (size_t)(colon - hostport) : strlen(hostport);
	struct in_addr a4;
	struct in6_addr a6;

	if (n >= sizeof(host))
		return false;
	memcpy(host, hostport, n);
	host[n] = '\0';
	if (host[0] == '[' && n > 2 && host[n - 1] == ']') {
		host[n - 1] = '\0';
		return inet_pton(AF_INET6, host + 1, &a6) == 1 &&
		       IN6_IS_ADDR_LOOPBACK(&a6);
	}
	if (!strcmp(host, "localhost"))
		return true;
	/* inet_aton takes every IPv4 spelling (0177.1, 127.1). */
	return inet_aton(host, &a4) && (ntohl(a4.s_addr) >> 24) == 127;
}

/* The inode of the socket listening on TCP @port here, 0 if none seen. */
static unsigned long listener_inode(unsigned port)
{
	static const char *const tables[] = {"/proc/net/tcp", "/proc/net/tcp6"};
	char line[512];
	unsigned long inode = 0;

	for (size_t t = 0; t < 2 && !inode; t++) {
		FILE *f = fopen(tables[t], "r");
		unsigned lport, state;
		unsigned long ino;

		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line,
				   " %*d: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x "
				   "%x %*x:%*x %*x:%*x %*x %*u %*u %lu",
				   &lport, &state, &ino) == 3 &&
			    lport == port && state == 0x0a && ino) {
				inode = ino;
				break;
			}
		if (f)
			fclose(f);
	}
	return inode;
}

/* The process holding socket @inode open, 0 if none can be seen. */
static long socket_owner(unsigned long inode)
{
	char want[64], path[600], got[64];
	DIR *proc = opendir("/proc"), *fds;
	struct dirent *p, *d;
	long pid = 0;
	ssize_t n;

	snprintf(want, sizeof(want), "socket:[%lu]", inode);
	while (proc && !pid && (p = readdir(proc))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		while (fds && !pid && (d = readdir(fds))) {
			snprintf(path, sizeof(path), "/proc/%s/fd/%s",
				 p->d_name, d->d_name);
			n = readlink(path, got, sizeof(got) - 1);
			if (n > 0 && (got[n] = '\0', !strcmp(got, want)))
				pid = strtol(p->d_name, NULL, 10);
		}
		if (fds)
			closedir(fds);
	}
	if (proc)
		closedir(proc);
	return pid;
}

/*
 * --stub-cpu says where a stub runs; on this machine it can be seen: the
 * process listening on its port may run on that CPU alone, or the cases
 * would be recorded on CPUs they did not run on.  0, or a usage error.
 * A stub not found (another host, another user's process) stays as said.
 */
static int check_stub_cpu(struct cli_config *c, struct cli_target *t)
{
	const char *colon = strrchr(t->hostport, ':');
	unsigned long inode;
	cpu_set_t set;
	int n;

	if (t->own || !cli_loopback(t->hostport) || !colon)
		return 0;
	inode = listener_inode((unsigned)strtoul(colon + 1, NULL, 10));
	t->stub_pid = inode ? socket_owner(inode) : 0;
	if (t->stub_pid <= 0 ||
	    sched_getaffinity((pid_t)t->stub_pid, sizeof(set), &set)) {
		t->stub_pid = 0;
		return 0;
	}
	n = CPU_COUNT(&set);
	if (n == 1 && CPU_ISSET(c->stub_cpu, &set))
		return 0;
	return usage_error("pin it there: taskset -pc CPU PID, or start it "
			   "with taskset -c CPU",
			   "--stub-cpu %d: the stub at %s (pid %ld) may run on "
			   "%d CPU%s, not CPU %d alone",
			   c->stub_cpu, t->hostport, t->stub_pid, n,
			   n == 1 ? "" : "s", c->stub_cpu);
}

static const struct cli_opt target_opts[] = {
	{"target", 0, "STUBS", CMD_RR | CMD_REPLAY,
	 "the other end is a GDB stub, comma separated: gdb://HOST:PORT"
	 "[?addr=ADDRESS] (gdbserver...) or ipcperf (its own, rr); rr sends "
	 "memory writes and reads, replay the client's side",
	 set_target},
	{"ack", 0, NULL, CMD_RR | CMD_REPLAY,
	 "with --target: keep '+' acks (no QStartNoAckMode)", set_ack},
	{"stub-cpu", 0, "CPU", CMD_RR | CMD_REPLAY,
	 "with --target gdb://...: the CPU you pinned that stub to "
	 "(taskset -c CPU gdbserver ...; checked when it is on this "
	 "machine): its cases, and ipcperf's own stub's, are then placed "
	 "as local ones, on that CPU with the client and beside it",
	 set_stub_cpu},
};

/* Does @c have a stub elsewhere (gdb://), not only ipcperf's own? */
static bool elsewhere(const struct cli_config *c)
{
	for (size_t i = 0; i < c->ntargets; i++)
		if (!c->targets[i].own)
			return true;
	return false;
}

/* Is the first stub elsewhere at an IPv6 address, gdb://[...]:PORT? */
static bool first_v6(const struct cli_config *c)
{
	for (size_t i = 0; i < c->ntargets; i++)
		if (!c->targets[i].own)
			return c->targets[i].hostport[0] == '[';
	return false;
}

/* Does the -t list name only tcp and tcp6? */
static bool tcp_only(const char *list)
{
	char *copy = strdup(list), *save = NULL, *t;
	bool ok = copy != NULL;

	for (t = copy ? strtok_r(copy, ",", &save) : NULL; t && ok;
	     t = strtok_r(NULL, ",", &save))
		ok = !strcmp(t, "tcp") || !strcmp(t, "tcp6");
	free(copy);
	return ok;
}

static int target_validate(struct cli_config *c)
{
	if (c->ack && !c->ntargets)
		return usage_error("ipcperf's own gdb-rsp acks unless "
				   "--no-ack",
				   "--ack: only with --target");
	if (!c->ntargets)
		return 0;
	if (c->framing && c->framing != &ipc_framing_rsp)
		return usage_error("leave --framing out or give gdb-rsp",
				   "--target: a GDB stub speaks gdb-rsp, not "
				   "%s",
				   c->framing->name);
	if (c->ack && c->no_ack)
		return usage_error(NULL, "--ack and --no-ack: choose one");
	if (c->stub_cpu_set && !elsewhere(c))
		return usage_error("give it with --target gdb://HOST:PORT",
				   "--stub-cpu: no stub elsewhere to place");
	if (c->stub_cpu_set && c->pin == PIN_NONE)
		return usage_error("--stub-cpu places the sides; --pin none "
				   "leaves them to the scheduler",
				   "--stub-cpu and --pin none: choose one");
	for (size_t i = 0; c->stub_cpu_set && i < c->ntargets; i++)
		if (check_stub_cpu(c, &c->targets[i]))
			return EXIT_USAGE;
	if (c->stub_cpu_set && c->pin == PIN_FIXED &&
	    c->ro.pin_server != c->stub_cpu)
		return usage_error("the stub's CPU is the server's: --pin "
				   "C,S with S the --stub-cpu",
				   "--stub-cpu %d and --pin %d,%d disagree",
				   c->stub_cpu, c->ro.pin_client,
				   c->ro.pin_server);
	c->framing = &ipc_framing_rsp;
	c->no_ack = !c->ack;
	for (size_t i = 0; i < c->ntargets; i++) {
		if (c->targets[i].own && c->cmd == CMD_REPLAY)
			return usage_error(
				"without --target, ipcperf plays the stub's "
				"side itself",
				"--target ipcperf: replay against ipcperf's "
				"own stub is plain replay");
		if (c->ro.timeout_ns && (c->set & SET_TIMEOUT))
			c->targets[i].cfg.timeout_ns = c->ro.timeout_ns;
	}
	if (c->cmd == CMD_REPLAY &&
	    (((c->set & (SET_ITER | SET_DUR)) && c->ro.iterations != 1) ||
	     ((c->set & SET_WARM) && c->ro.warmup)))
		return usage_error("-r N runs it N times, each on a new "
				   "connection",
				   "replay --target: one replay per run (a "
				   "conversation starts with its handshake)");
	/* A stub listens on TCP: tcp6 when the first elsewhere is [IPV6]. */
	if (!(c->set & SET_TP))
		c->transports = first_v6(c) ? "tcp6" : "tcp";
	else if (elsewhere(c) && !tcp_only(c->transports))
		return usage_error("give -t tcp, or -t tcp6 for gdb://[IPV6]:"
				   "PORT",
				   "--target gdb://...: a stub elsewhere is "
				   "reached over tcp or tcp6, not -t %s",
				   c->transports);
	return 0;
}

const struct cli_optgroup cli_opts_target = {
	.opts = target_opts,
	.n = sizeof(target_opts) / sizeof(target_opts[0]),
	.validate = target_validate,
};
