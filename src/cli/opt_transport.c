/* SPDX-License-Identifier: MIT */
/*
 * Options that shape the channel rather than the measurement: socket
 * buffers, TCP_NODELAY and busy polling; the shared-memory ring's size and
 * way of waiting; the serial ports and their speed.  They end up in
 * ro.tp, which every transport is set up with and every result records.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "transport/lib_internal.h"

#define BUSY_POLL_MAX 1000000 /* 1 s, in microseconds */

/* The two halves of --device, kept for the life of the program. */
static char device_buf[2][PATH_MAX];

static int set_shm_wait(struct cli_config *c, const char *a)
{
	if (!strcmp(a, "futex"))
		c->ro.tp.shm_wait = IPC_SHM_FUTEX;
	else if (!strcmp(a, "spin"))
		c->ro.tp.shm_wait = IPC_SHM_SPIN;
	else
		return usage_error("use spin (busy-wait, one CPU each) or "
				   "futex (sleep)",
				   "--shm-wait: unknown mode '%s'", a);
	return 0;
}

static int set_shm_size(struct cli_config *c, const char *a)
{
	uint64_t v;

	if (cli_units(IPC_UNIT_SIZE, a, 0, CLI_SIZE_MAX, &v))
		return cli_bad_value(
			"--shm-size",
			"give a power of two such as 64k, 1M or 16M");
	c->ro.tp.shm_bytes = (size_t)v;
	return 0;
}

/* A buffer size for SO_SNDBUF/SO_RCVBUF: 1 byte to 1 GiB. */
static int sock_buf(const char *opt, const char *a, int *out)
{
	uint64_t v;

	if (cli_units(IPC_UNIT_SIZE, a, 1, CLI_SIZE_MAX, &v))
		return cli_bad_value(
			opt,
			"give a size such as 64k or 4M (the kernel doubles it "
			"and caps it at net.core.wmem_max/rmem_max)");
	*out = (int)v;
	return 0;
}

static int set_sndbuf(struct cli_config *c, const char *a)
{
	return sock_buf("--sndbuf", a, &c->ro.tp.sndbuf);
}

static int set_rcvbuf(struct cli_config *c, const char *a)
{
	return sock_buf("--rcvbuf", a, &c->ro.tp.rcvbuf);
}

static int set_nodelay(struct cli_config *c, const char *a)
{
	(void)a;
	c->ro.tp.nodelay = true;
	return 0;
}

static int set_no_nodelay(struct cli_config *c, const char *a)
{
	(void)a;
	c->ro.tp.nodelay = false;
	return 0;
}

static int set_busy_poll(struct cli_config *c, const char *a)
{
	uint64_t v;

	if (cli_units(IPC_UNIT_COUNT, a, 0, BUSY_POLL_MAX, &v))
		return cli_bad_value(
			"--busy-poll",
			"give microseconds from 0 to 1000000, such as 50");
	c->ro.tp.busy_poll_us = (int)v;
	return 0;
}

static int set_device(struct cli_config *c, const char *a)
{
	const char *comma = strchr(a, ',');
	size_t n0 = comma ? (size_t)(comma - a) : strlen(a);
	const char *second = comma ? comma + 1 : "";

	if (!comma || !n0 || !*second || strchr(second, ','))
		return usage_error("write --device CLIENT,SERVER: two ports "
				   "joined by a null-modem cable, such as "
				   "/dev/ttyUSB0,/dev/ttyUSB1 (one port "
				   "alone has no peer to answer it)",
				   "--device: '%s' is not two ports", a);
	if (n0 >= sizeof(device_buf[0]) ||
	    strlen(second) >= sizeof(device_buf[1]))
		return usage_error(NULL,
				   "--device: a name in '%s' is too "
				   "long",
				   a);
	memcpy(device_buf[0], a, n0);
	device_buf[0][n0] = '\0';
	strcpy(device_buf[1], second);
	c->ro.tp.device[IPC_CLIENT] = device_buf[0];
	c->ro.tp.device[IPC_SERVER] = device_buf[1];
	return 0;
}

static int set_baud(struct cli_config *c, const char *a)
{
	uint64_t v;

	if (cli_units(IPC_UNIT_COUNT, a, 1, UINT_MAX, &v))
		return cli_bad_value(
			"--baud", "give a line speed such as 9600 or 115200");
	c->ro.tp.baud = (unsigned)v;
	return 0;
}

static const struct cli_opt tp_opts[] = {
	{"sndbuf", 0, "BYTES", CMD_MEASURE,
	 "SO_SNDBUF of socket transports [system default]", set_sndbuf},
	{"rcvbuf", 0, "BYTES", CMD_MEASURE,
	 "SO_RCVBUF of socket transports [system default]", set_rcvbuf},
	{"nodelay", 0, NULL, CMD_MEASURE, "TCP_NODELAY on tcp and tcp6 [on]",
	 set_nodelay},
	{"no-nodelay", 0, NULL, CMD_MEASURE,
	 "leave Nagle's algorithm on (TCP_NODELAY off)", set_no_nodelay},
	{"busy-poll", 0, "USEC", CMD_MEASURE,
	 "SO_BUSY_POLL on socket transports [system default]", set_busy_poll},
	{"shm-wait", 0, "MODE", CMD_MEASURE,
	 "shm: spin (a CPU each: by default on two CPUs only) or futex "
	 "(sleep) [futex]",
	 set_shm_wait},
	{"shm-size", 0, "BYTES", CMD_MEASURE,
	 "shm: bytes of each ring, a power of two; messages up to 8 less "
	 "[from the CPUs' L2: four of them, 8M at least]",
	 set_shm_size},
	{"device", 0, "C,S", CMD_MEASURE,
	 "serial: the client's and the server's port (null-modem cable)",
	 set_device},
	{"baud", 0, "N", CMD_MEASURE, "serial: line speed, 8N1 [115200]",
	 set_baud},
};

/* Does the -t list name @name (or say all)? */
static bool names_transport(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	if (!strcmp(list, "all"))
		return true;
	for (p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* Ask the kernel now rather than fail every socket case later. */
static int check_busy_poll(int us)
{
	int fd, rc = 0;

	if (!us)
		return 0;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0; /* no sockets at all: the cases will say so */
	if (setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &us, sizeof(us)) < 0)
		rc = -errno;
	close(fd);
	if (!rc)
		return 0;
	return usage_error(
		"raising it above sysctl net.core.busy_read "
		"needs CAP_NET_ADMIN",
		"--busy-poll %d: the kernel refuses SO_BUSY_POLL: %s", us,
		strerror(-rc));
}

static int tp_validate(struct cli_config *c)
{
	const struct ipc_transport_ops *tp;
	char why[256];

	/*
	 * Record what the case runs with, not "the default": the ring the
	 * CPUs' caches call for, unless --shm-size said.
	 */
	if (!c->ro.tp.shm_bytes) {
		struct ipc_shm_choice ch;

		ipc_shm_choose("", c->ro.pin_client, c->ro.pin_server, &ch);
		c->ro.tp.shm_bytes = ch.bytes;
		snprintf(c->ro.tp.shm_choice, sizeof(c->ro.tp.shm_choice), "%s",
			 ch.why);
	} else {
		snprintf(c->ro.tp.shm_choice, sizeof(c->ro.tp.shm_choice),
			 "--shm-size");
	}
	tp = ipc_transport_find("shm");
	if (tp && tp->check && tp->check(&c->ro.tp, why, sizeof(why)))
		return usage_error("give a power of two such as 64k, 1M or "
				   "16M",
				   "--shm-size: %s", why);
	if (c->ro.tp.shm_wait == IPC_SHM_SPIN && c->ro.pin_client >= 0 &&
	    c->ro.pin_client == c->ro.pin_server)
		cli_warn("--shm-wait spin with both sides on CPU %d: each wait "
			 "spins until it yields its time slice",
			 c->ro.pin_client);
	if (check_busy_poll(c->ro.tp.busy_poll_us))
		return EXIT_USAGE;
	if (!c->ro.tp.device[0] && !c->ro.tp.baud) {
		c->ro.tp.baud = IPC_SERIAL_BAUD_DEFAULT;
		return 0;
	}
	if (!names_transport(c->transports, "serial"))
		return usage_error("add -t serial",
				   "--device and --baud are for the serial "
				   "transport, which -t %s leaves out",
				   c->transports);
	if (!c->ro.tp.baud)
		c->ro.tp.baud = IPC_SERIAL_BAUD_DEFAULT;
	tp = ipc_transport_find("serial");
	if (tp && tp->check && tp->check(&c->ro.tp, why, sizeof(why)))
		return usage_error(
			strstr(why, " baud ")
				? "give a standard speed such as "
				  "9600 or 115200"
				: "see the ports with: ls /dev/ttyS* "
				  "/dev/ttyUSB* /dev/ttyACM*",
			"serial: %s", why);
	return 0;
}

const struct cli_optgroup cli_opts_transport = {
	.opts = tp_opts,
	.n = sizeof(tp_opts) / sizeof(tp_opts[0]),
	.validate = tp_validate,
};
