/* SPDX-License-Identifier: MIT */
/*
 * Recorded conversations: GDB remotelogfile and native traces parsed into
 * writes (escapes, comments, markers, acks cut from packets), the counts
 * each way, every kind of malformed file refused with its line number, and
 * the cut to a smaller packet size.
 */
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "ipcperf/framing.h"
#include "framing/lib_internal.h"

static char err[512];

static struct ipc_trace *parse(const char *text)
{
	struct ipc_trace *t = NULL;

	err[0] = '\0';
	if (ipc_trace_parse("dir/some.log", text, strlen(text), &t, err,
			    sizeof(err)))
		return NULL;
	return t;
}

/* Unit @i of @t is @dir with the bytes @want (@len of them). */
static void unit_is(const struct ipc_trace *t, size_t i, enum ipc_dir dir,
		    const char *want, size_t len)
{
	const struct ipc_trace_unit *u = &t->units[i];

	ok(i < t->nunits && u->dir == dir && u->len == len &&
		   !memcmp(t->bytes + u->off, want, len),
	   "write %zu is %s '%.*s'", i, dir == IPC_C2S ? "client" : "server",
	   (int)len, want);
}

/* Parsing @text fails, and the message names @needle. */
static void bad(const char *text, const char *needle, const char *what)
{
	struct ipc_trace *t = parse(text);

	ok(!t && strstr(err, needle), "%s: refused with '%s'", what, needle);
	if (t || !strstr(err, needle))
		diag("got: %s", t ? "(parsed)" : err);
	ipc_trace_free(t);
}

static void test_gdb(void)
{
	static const char log[] =
		"\n"
		"w +$qSupported:xmlRegisters=i386#6a\n"
		"r +$PacketSize=47ff;QStartNoAckMode+#a3\n"
		"c info registers\n"
		"w +$m0,4#fd\n"
		"r <Timeout: 0 seconds>$\\x14\\\\\\r\\x00#41\r\n"
		"w $k#6b\n"
		"r $OK#9a\n"
		"End of log\n";
	struct ipc_trace *t = parse(log);

	ok(t != NULL, "a GDB remote log parses (%s)", err);
	if (!t)
		return;
	ok(t->gdb, "it is recognised as GDB's format");
	is_str(t->name, "some", "its name is the file's base name");
	is_int(t->nunits, "==", 9, "9 writes: each ack apart");
	unit_is(t, 0, IPC_C2S, "+", 1);
	unit_is(t, 1, IPC_C2S, "$qSupported:xmlRegisters=i386#6a", 32);
	unit_is(t, 2, IPC_S2C, "+", 1);
	unit_is(t, 6, IPC_S2C, "$\x14\\\r\x00#41", 8);
	unit_is(t, 7, IPC_C2S, "$k#6b", 5);
	is_int(t->bytes_c2s, "==", 1 + 32 + 1 + 8 + 5,
	       "bytes the client wrote");
	is_int(t->bytes_s2c, "==", 1 + 36 + 8 + 6,
	       "bytes the server wrote (escapes decoded, marker dropped, "
	       "CR of CRLF dropped)");
	is_int(t->exchanges, "==", 3, "3 exchanges");
	is_int(t->max_unit, "==", 36, "longest write");
	is_int(t->units[6].line, "==", 6, "writes remember their line");
	ipc_trace_free(t);

	/* '#' inside an escape or a run does not end the packet. */
	t = parse("w $m#00\nr $a}\x03"
		  "b*##xx\n");
	ok(t && t->nunits == 2 && t->units[1].len == 10,
	   "a packet's end is found past escapes and runs");
	ipc_trace_free(t);
	t = parse("w \\x03\nr $S05#b8\n");
	ok(t && t->nunits == 2 && t->units[0].len == 1,
	   "an interrupt (^C) is a write of its own");
	ipc_trace_free(t);
}

static void test_gdb_bad(void)
{
	bad("w $m#00\nr $OK\\q#9a\n", "dir/some.log:2: unknown escape '\\q'",
	    "an unknown escape");
	bad("w $m#00\nr $OK\\x4#9a\n", ":2: '\\x' needs two hex digits",
	    "a short \\x escape");
	bad("w $m#00\nr $OK\\", ":2: a '\\' ends the line",
	    "a backslash at the end");
	bad("w $m#00\nx $OK#9a\n", ":2: a line of a GDB remote log starts",
	    "a line of no known kind");
	bad("w $m#00\nrr $OK#9a\n", ":2:", "a direction letter not alone");
	bad("c target remote\nr +$OK#9a\nw +\n",
	    ":2: the conversation starts "
	    "with the server's bytes",
	    "a log where the stub speaks first");
	bad("c nothing\n", "no bytes to replay", "a log without bytes");
}

static void test_native(void)
{
	static const char text[] = "# a native trace\n"
				   "> \"+$qC#b4\"\n"
				   "  < @0.5 \"+\"\n"
				   "< @0.75 \"$QC1\\x00\\\"#\\\\x\"\n"
				   ">   @1 \"\\r\\n\\t\\0\"   \n"
				   "\n";
	struct ipc_trace *t = parse(text);

	ok(t != NULL, "a native trace parses (%s)", err);
	if (!t)
		return;
	ok(!t->gdb, "it is recognised as the native format");
	is_int(t->nunits, "==", 4, "one write per record, never cut");
	unit_is(t, 0, IPC_C2S, "+$qC#b4", 7);
	unit_is(t, 2, IPC_S2C, "$QC1\x00\"#\\x", 9);
	unit_is(t, 3, IPC_C2S, "\r\n\t\0", 4);
	is_int(t->units[1].think_ns, "==", 0,
	       "no think time before the first timestamp");
	is_int(t->units[2].think_ns, "==", 250000000,
	       "think time is the gap to the record before");
	is_int(t->units[3].think_ns, "==", 250000000, "and again");
	is_int(t->think_ns, "==", 500000000, "total think time");
	is_int(t->exchanges, "==", 1,
	       "one exchange (the last write is not "
	       "answered)");
	ipc_trace_free(t);

	bad("> \"a\"\n< \"b\n", ":2: the closing '\"' is missing",
	    "an unterminated string");
	bad("> \"a\\q\"\n", ":1: unknown escape '\\q'", "an unknown escape");
	bad("> \"a\"\n= \"b\"\n", ":2: a record starts with '>'",
	    "an unknown direction");
	bad("> @2 \"a\"\n< @1 \"b\"\n", ":2: timestamp goes back",
	    "a timestamp that goes back");
	bad("> @x \"a\"\n", ":1: bad timestamp", "a bad timestamp");
	bad("> \"a\" b\n", ":1: text after the closing", "trailing text");
	bad("> \"\"\n", ":1: an empty write", "an empty write");
	bad("< \"a\"\n> \"b\"\n",
	    ":1: the conversation starts with the "
	    "server's",
	    "a native trace where the server speaks first");
}

/*
 * Each format's escapes, through the one decoder and each format's table:
 * every letter it takes, \xHH in either case, and the letters it does
 * not take (the other format's).
 */
static void test_escapes(void)
{
	struct ipc_trace *t;

	t = parse("w \\\\\\b\\f\\n\\r\\t\\v\\xAb\\xcD\n");
	ok(t && t->nunits == 1, "gdb: every escape in one write (%s)", err);
	if (t)
		unit_is(t, 0, IPC_C2S, "\\\b\f\n\r\t\v\xab\xcd", 9);
	ipc_trace_free(t);
	bad("w a\\0\n", ":1: unknown escape '\\0'",
	    "gdb: \\0 is the native format's, not GDB's");
	bad("w a\\\"\n", ":1: unknown escape '\\\"'",
	    "gdb: \\\" is the native format's, not GDB's");
	bad("w a\\\n", ":1: a '\\' ends the line", "gdb: a trailing '\\'");
	bad("w a\\xg0\n", ":1: '\\x' needs two hex digits",
	    "gdb: \\x with a bad digit");

	t = parse("> \"\\\\\\\"\\n\\r\\t\\0\\xfF\"\n");
	ok(t && t->nunits == 1, "native: every escape in one write (%s)", err);
	if (t)
		unit_is(t, 0, IPC_C2S, "\\\"\n\r\t\0\xff", 7);
	ipc_trace_free(t);
	bad("> \"a\\b\"\n", ":1: unknown escape '\\b'",
	    "native: \\b is GDB's, not the native format's");
	bad("> \"a\\\"\n", ":1: the closing '\"' is missing",
	    "native: an escaped quote does not close the string");
	bad("> \"a\\x1\"\n", ":1: '\\x' needs two hex digits",
	    "native: \\x with one digit");
}

static void test_load(void)
{
	struct ipc_trace *t = NULL;
	int rc = ipc_trace_load("/nonexistent/x.log", &t, err, sizeof(err));

	ok(rc == -ENOENT && !t && strstr(err, "/nonexistent/x.log: "),
	   "a missing file is refused with its name (%s)", err);
	rc = ipc_trace_load("traces/stub-multi.log", &t, err, sizeof(err));
	if (rc) {
		skip("traces/stub-multi.log is not here (%s)", err);
		return;
	}
	ok(t->gdb && t->exchanges == 13 && t->bytes_c2s == 794 &&
		   t->bytes_s2c == 1166,
	   "the shipped stub-multi trace: 13 exchanges, 794 and 1166 bytes");
	ipc_trace_free(t);
}

/*
 * Input that is not a regular file: a FIFO nobody
 * writes to once hung replay in open(); now it is refused at once, a pipe
 * with a writer is read to its end, a device is refused.
 */
static void test_load_pipes(void)
{
	static const char conv[] = "> \"+$qC#b4\"\n< \"+\"\n";
	char dir[] = "/tmp/ipcperf-test-trace.XXXXXX", fifo[64];
	struct ipc_trace *t = NULL;
	int fds[2], rc, status;
	pid_t pid;

	if (!mkdtemp(dir)) {
		skip("mkdtemp failed");
		return;
	}
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	if (mkfifo(fifo, 0600)) {
		skip("mkfifo failed");
		rmdir(dir);
		return;
	}
	rc = ipc_trace_load(fifo, &t, err, sizeof(err));
	ok(rc == -ENODATA && !t && strstr(err, "nothing was writing"),
	   "a FIFO without a writer is refused at once (%s)", err);
	unlink(fifo);
	rmdir(dir);

	rc = ipc_trace_load("/dev/zero", &t, err, sizeof(err));
	ok(rc == -EINVAL && strstr(err, "not a regular file or a pipe"),
	   "/dev/zero is refused, not read forever (%s)", err);
	rc = ipc_trace_load("/tmp", &t, err, sizeof(err));
	is_int(rc, "==", -EISDIR, "a directory is refused");

	if (pipe(fds)) {
		skip("pipe failed");
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		_exit(write(fds[1], conv, sizeof(conv) - 1) !=
		      (ssize_t)sizeof(conv) - 1);
	}
	close(fds[1]);
	snprintf(fifo, sizeof(fifo), "/proc/self/fd/%d", fds[0]);
	rc = ipc_trace_load(fifo, &t, err, sizeof(err));
	ok(!rc && t && t->nunits == 2 && t->bytes_c2s == 7,
	   "a pipe (as /dev/stdin would be) is read to its end (%s)",
	   rc ? err : "ok");
	ipc_trace_free(t);
	close(fds[0]);
	waitpid(pid, &status, 0);
}

/* Every server packet of @t decodes; their payloads, concatenated. */
static size_t payloads(const struct ipc_trace *t, uint8_t *all, size_t cap,
		       size_t *npk, size_t *maxbody, bool *sums_ok)
{
	size_t n = 0;

	*npk = 0;
	*maxbody = 0;
	*sums_ok = true;
	for (size_t i = 0; i < t->nunits; i++) {
		const struct ipc_trace_unit *u = &t->units[i];
		const uint8_t *b = t->bytes + u->off;
		struct ipc_frame_dec d;
		enum ipc_frame_ev ev;

		if (u->dir != IPC_S2C || b[0] != '$')
			continue;
		ipc_framing_rsp.dec_init(&d, all + n, cap - n);
		if (ipc_framing_rsp.dec_feed(&d, b, u->len, &ev) !=
			    (ssize_t)u->len ||
		    ev != IPC_FRAME_PACKET)
			*sums_ok = false;
		n += d.len;
		(*npk)++;
		if (u->len - 4 > *maxbody)
			*maxbody = u->len - 4;
	}
	return n;
}

static void test_split(void)
{
	static uint8_t a[1 << 16], b[1 << 16];
	char text[4096], body[1100];
	struct ipc_trace *t, *s = NULL;
	size_t na, nb, pa, pb, ma, mb;
	bool ca, cb;
	unsigned sum = 0;

	/* A 1000-byte response with escapes and runs, acks on. */
	for (size_t i = 0; i < 1000; i++)
		body[i] = "ab}]c*!d"[i % 8];
	memcpy(body + 100, "0*~", 3);
	body[1000] = '\0';
	for (size_t i = 0; i < 1000; i++)
		sum += (uint8_t)body[i];
	snprintf(text, sizeof(text),
		 "w +$qXfer:features:read:target.xml:0,fff#xx\n"
		 "r +$%s#%02x\nw +$k#6b\nr +$OK#9a\n",
		 body, sum & 0xff);
	t = parse(text);
	ok(t != NULL, "a trace with a 1000-byte response (%s)", err);
	if (!t)
		return;
	ok(!ipc_trace_split(t, 256, &s), "cut to 256-byte packets");
	if (!s) {
		ipc_trace_free(t);
		return;
	}
	na = payloads(t, a, sizeof(a), &pa, &ma, &ca);
	nb = payloads(s, b, sizeof(b), &pb, &mb, &cb);
	ok(ca && cb, "every packet before and after has a good checksum");
	ok(na == nb && !memcmp(a, b, na),
	   "the server sends the same payload, in pieces");
	is_int(mb, "<=", 256, "no packet body is longer than 256 bytes");
	is_int(pb, "==", pa + 3, "three more packets (1000 bytes in four)");
	is_int(s->exchanges, "==", t->exchanges + 3,
	       "each fetched by an exchange of its own");
	is_int(s->bytes_c2s, "==", t->bytes_c2s + 3 * (1 + t->units[1].len),
	       "each piece asked for with an ack and the request again");
	is_int(s->max_packet, "==", 256, "the trace says what it was cut to");
	ok(s->units[4].dir == IPC_C2S && s->units[4].len == 1 &&
		   s->bytes[s->units[4].off] == '+',
	   "acks stay where the trace had them");
	ipc_trace_free(s);
	ok(!ipc_trace_split(t, 4096, &s) && s->nunits == t->nunits &&
		   s->nbytes == t->nbytes &&
		   !memcmp(s->bytes, t->bytes, t->nbytes),
	   "a limit above every packet changes nothing");
	ipc_trace_free(s);
	ipc_trace_free(t);
}

/*
 * Memory stays proportional to the trace: a 20 KB request
 * answered by 20 KB, cut at 16 bytes, is 1,250 pieces each fetched by the
 * request again.  The repeats are sent, but the new trace stores the
 * request once: before, each piece copied it (25 MB here, 614 MB for the
 * review's 200 KB trace).
 */
static void test_split_memory(void)
{
	const size_t n = 20000;
	char *text = malloc(2 * n + 64), *p = text;
	struct ipc_trace *t, *s = NULL;
	unsigned qs = 0, rs = 0;
	size_t i;

	p += sprintf(p, "w +$X0,0:");
	for (i = 0; i < n; i++)
		*p++ = 'a';
	qs = ipc_rsp_checksum((const uint8_t *)text + 4,
			      (size_t)(p - text) - 4);
	p += sprintf(p, "#%02x\nr +$", qs);
	for (i = 0; i < n; i++) {
		*p++ = "bc"[i % 2];
		rs += (uint8_t) "bc"[i % 2];
	}
	sprintf(p, "#%02x\n", rs & 0xff);
	t = parse(text);
	ok(t && !ipc_trace_split(t, 16, &s), "a 40 KB trace cut to 16 bytes");
	if (s) {
		is_int(s->bytes_c2s, ">", 1250 * n,
		       "the request is sent again for each of 1,250 pieces");
		is_int(s->nbytes, "<", 2 * t->nbytes + 8 * 1250,
		       "what is stored grows by the pieces' frames, not by "
		       "a request per piece");
	}
	ipc_trace_free(s);
	ipc_trace_free(t);
	free(text);
}

int main(void)
{
	test_gdb();
	test_gdb_bad();
	test_native();
	test_escapes();
	test_load();
	test_load_pipes();
	test_split();
	test_split_memory();
	return done_testing();
}
