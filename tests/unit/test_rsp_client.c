/* SPDX-License-Identifier: MIT */
/*
 * The stub session against a fake stub written for this test (a thread on
 * the other end of a socket pair): negotiation, the buffer found below
 * the stack pointer, saved and put back, every matrix size written and
 * read back, the wire sizes the matrix asks for, x/X and m/M, acks; and
 * the bad stubs: garbage, wrong checksums, bad escapes, error replies,
 * wrong data, a stub that dies, one that goes silent or trickles noise,
 * one that keeps asking for the packet again.  Each is counted, and none
 * hangs.  Then reply shapes and the qSupported parser.
 */
#include <pthread.h>

#include "../tap.h"
#include "rsp_io.h"
#include "framing/lib_internal.h"

/* The fake target's memory: MEM bytes from BASE; the stack pointer. */
#define BASE 0x7ffe0000ull
#define MEM 8192
#define SP (BASE + MEM - 128)

enum fault {
	F_NONE,
	F_GARBAGE,    /* noise before every reply */
	F_BADSUM,     /* one reply with a wrong checksum */
	F_BADESC,     /* one reply with a bad escape */
	F_ERROR,      /* reads answer E14 */
	F_FLIP,	      /* reads answer one byte changed */
	F_DIE,	      /* close the connection instead of answering */
	F_SILENT,     /* stop answering */
	F_TRICKLE,    /* answer noise, a byte every 5 ms, forever */
	F_NAK,	      /* ask for one packet again */
	F_NAK_ALWAYS, /* ask for every packet again */
	F_EMPTY,      /* writes answer "" */
	F_NOPROC,     /* '?' answers W00 */
	F_NOTFEAT,    /* qSupported answers E01 */
};

struct fake {
	int fd;
	enum fault fault;
	unsigned after; /* the fault starts with this request (1-based) */
	int x_mode;	/* x: 0 unsupported, 1 "OK" probe, 2 'b' prefix */
	bool X;		/* X supported */
	unsigned psize; /* PacketSize it lists, 0: 0x4000 */
	bool ack_only;	/* QStartNoAckMode not listed */
	bool noack;
	unsigned requests;
	unsigned acks_seen;	     /* '+' received */
	bool faulted;		     /* a one-shot fault happened */
	char last[64];		     /* the last request, cut */
	char log[16][96];	     /* the first requests, cut */
	uint8_t frame[2 * MEM + 64]; /* the last reply, to send again */
	size_t frame_len;
	uint8_t mem[MEM];
	pthread_t th;
};

static int fake_send(struct fake *f, const void *buf, size_t len)
{
	return rio_send(&f->fd, buf, len);
}

static void fake_reply(struct fake *f, const uint8_t *p, size_t len)
{
	static uint8_t frame[2 * MEM + 64];
	size_t n = ipc_framing_rsp.encode(frame, p, len, IPC_FRAME_RLE);

	memcpy(f->frame, frame, n);
	f->frame_len = n;
	if (f->fault == F_GARBAGE && f->requests >= f->after)
		fake_send(f, "junk\r\n", 6);
	if (f->fault == F_BADSUM && f->requests >= f->after && !f->faulted) {
		frame[n - 1] = frame[n - 1] == '0' ? '1' : '0';
		f->faulted = true;
	}
	if (f->fault == F_BADESC && f->requests >= f->after && !f->faulted) {
		fake_send(f, "$ab}#", 5); /* '}' then '#': no byte escaped */
		f->faulted = true;
	}
	fake_send(f, frame, n);
}

static void fake_text(struct fake *f, const char *s)
{
	fake_reply(f, (const uint8_t *)s, strlen(s));
}

/* The fake's target description, long enough to come in pieces. */
static const char fake_xml[] =
	"<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\">"
	"<target><architecture>i386:x86-64</architecture><osabi>GNU/Linux"
	"</osabi><feature name=\"org.gnu.gdb.i386.core\"><reg name=\"rax\" "
	"bitsize=\"64\" type=\"int64\" regnum=\"0\"/><reg name=\"rbx\" "
	"bitsize=\"64\" type=\"int64\" regnum=\"1\"/></feature></target>";

/* "ADDR,LEN" at @p: the offset into mem, or -1 when outside it. */
static long fake_range(const char *p, size_t *len)
{
	unsigned long long a;

	if (sscanf(p, "%llx,%zx", &a, len) != 2 || a < BASE ||
	    a + *len > BASE + MEM)
		return -1;
	return (long)(a - BASE);
}

static void hex_out(const uint8_t *in, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", in[i]);
}

static void fake_answer(struct fake *f, const uint8_t *pkt, size_t len)
{
	static char out[2 * MEM + 64];
	char req[MEM * 2 + 64];
	size_t n = 0;
	long off;

	memcpy(req, pkt, len);
	req[len] = '\0';
	snprintf(f->last, sizeof(f->last), "%.60s", req);
	if (f->requests <= 16)
		snprintf(f->log[f->requests - 1], sizeof(f->log[0]), "%.90s",
			 req);
	if (!strncmp(req, "qSupported", 10)) {
		char feat[160];

		snprintf(feat, sizeof(feat),
			 "PacketSize=%x;%smultiprocess+;qXfer:features:read+",
			 f->psize ? f->psize : 0x4000,
			 f->ack_only ? "" : "QStartNoAckMode+;");
		fake_text(f, f->fault == F_NOTFEAT ? "E01" : feat);
	} else if (!strcmp(req, "QStartNoAckMode")) {
		fake_text(f, "OK");
		f->noack = true;
	} else if (!strcmp(req, "?")) {
		uint64_t sp = SP;
		char t[96];
		int k = snprintf(t, sizeof(t), "T0507:");

		for (int i = 0; i < 8; i++, sp >>= 8)
			k += snprintf(t + k, sizeof(t) - (size_t)k, "%02x",
				      (unsigned)(sp & 0xff));
		snprintf(t + k, sizeof(t) - (size_t)k, ";thread:p1234.1234;");
		fake_text(f, f->fault == F_NOPROC ? "W00" : t);
	} else if (!strncmp(req, "qXfer:features:read:target.xml:", 31)) {
		size_t o, l, tl = strlen(fake_xml);

		if (sscanf(req + 31, "%zx,%zx", &o, &l) != 2 || o > tl) {
			fake_text(f, "E00");
			return;
		}
		l = l < tl - o ? l : tl - o;
		out[0] = o + l < tl ? 'm' : 'l';
		memcpy(out + 1, fake_xml + o, l);
		fake_reply(f, (uint8_t *)out, l + 1);
	} else if (req[0] == 'm' && (off = fake_range(req + 1, &n)) >= 0) {
		if (f->fault == F_ERROR && f->requests >= f->after) {
			fake_text(f, "E14");
			return;
		}
		hex_out(f->mem + off, n, out);
		if (f->fault == F_FLIP && f->requests >= f->after && n)
			out[0] = out[0] == 'a' ? 'b' : 'a';
		fake_reply(f, (uint8_t *)out, 2 * n);
	} else if (req[0] == 'x' && f->x_mode &&
		   (off = fake_range(req + 1, &n)) >= 0) {
		if (!n) {
			fake_text(f, f->x_mode == 1 ? "OK" : "b");
			return;
		}
		out[0] = 'b';
		memcpy(out + 1, f->mem + off, n);
		if (f->x_mode == 1)
			fake_reply(f, f->mem + off, n);
		else
			fake_reply(f, (uint8_t *)out, n + 1);
	} else if ((req[0] == 'M' || (req[0] == 'X' && f->X)) &&
		   (off = fake_range(req + 1, &n)) >= 0) {
		const char *colon = memchr(req, ':', len);
		size_t data = colon ? len - (size_t)(colon + 1 - req) : 0;

		if (f->fault == F_EMPTY && f->requests >= f->after) {
			fake_text(f, "");
			return;
		}
		if (!colon || data != (req[0] == 'M' ? 2 * n : n)) {
			fake_text(f, "E02");
			return;
		}
		if (req[0] == 'M')
			ipc_rsp_unhex((const uint8_t *)colon + 1, 2 * n,
				      f->mem + off);
		else
			memcpy(f->mem + off, colon + 1, n);
		fake_text(f, "OK");
	} else if (req[0] == 'D') {
		fake_text(f, "OK");
	} else if (!strncmp(req, "qAttached:", 10)) {
		fake_text(f, "1");
	} else if (!strncmp(req, "vFile:open:", 11)) {
		fake_text(f, "F7");
	} else if (!strncmp(req, "vFile:pread:", 12)) {
		fake_text(f, "F4;abcd");
	} else if (req[0] == 'm' || req[0] == 'M' || req[0] == 'X') {
		fake_text(f, "E01");
	} else {
		fake_text(f, "");
	}
}

/* Handle one request; false when the fake should stop. */
static bool fake_request(struct fake *f, const uint8_t *pkt, size_t len)
{
	f->requests++;
	if (f->requests >= f->after) {
		switch (f->fault) {
		case F_DIE:
			return false;
		case F_SILENT:
			return true;
		case F_TRICKLE:
			for (int i = 0; i < 400; i++) {
				if (fake_send(f, "z", 1))
					return false;
				usleep(5000);
			}
			return false;
		case F_NAK:
			if (!f->faulted) {
				f->faulted = true;
				fake_send(f, "-", 1);
				return true;
			}
			break;
		case F_NAK_ALWAYS:
			fake_send(f, "-", 1);
			return true;
		default:
			break;
		}
	}
	if (!f->noack)
		fake_send(f, "+", 1);
	fake_answer(f, pkt, len);
	return true;
}

static void *fake_main(void *arg)
{
	struct fake *f = arg;
	static __thread uint8_t rx[4 * MEM], out[4 * MEM];
	struct ipc_frame_dec d;
	enum ipc_frame_ev ev;
	bool go = true;
	ssize_t n;

	ipc_framing_rsp.dec_init(&d, out, sizeof(out));
	while (go && (n = read(f->fd, rx, sizeof(rx))) > 0) {
		for (size_t i = 0; go && i < (size_t)n;) {
			ssize_t k = ipc_framing_rsp.dec_feed(
				&d, rx + i, (size_t)n - i, &ev);

			if (k < 0) {
				go = false;
				break;
			}
			i += (size_t)k;
			if (ev == IPC_FRAME_ACK)
				f->acks_seen++;
			if (ev == IPC_FRAME_NAK) /* as a stub does */
				fake_send(f, f->frame, f->frame_len);
			if (ev == IPC_FRAME_PACKET)
				go = fake_request(f, out, d.len);
		}
	}
	shutdown(f->fd, SHUT_RDWR);
	return NULL;
}

/* A fake on one end of a socket pair; *cfd gets the other end. */
static struct fake *fake_start(enum fault fault, unsigned after, int x_mode,
			       bool X, int *cfd)
{
	struct fake *f = calloc(1, sizeof(*f));
	int sv[2];

	if (!f || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		free(f);
		return NULL;
	}
	f->fd = sv[1];
	*cfd = sv[0];
	f->fault = fault;
	f->after = after ? after : 1;
	f->x_mode = x_mode;
	f->X = X;
	for (size_t i = 0; i < MEM; i++)
		f->mem[i] = (uint8_t)(i * 7 + 3);
	if (pthread_create(&f->th, NULL, fake_main, f)) {
		close(sv[0]);
		close(sv[1]);
		free(f);
		return NULL;
	}
	return f;
}

static void fake_stop(struct fake *f, int cfd)
{
	shutdown(cfd, SHUT_RDWR);
	pthread_join(f->th, NULL);
	close(cfd);
	close(f->fd);
	free(f);
}

/* A session over @cfd: 1 KiB payloads, @timeout_ms per reply. */
static struct ipc_rsp_sess *sess(int *cfd, struct ipc_rsp_io *io, bool ack,
				 unsigned timeout_ms)
{
	struct ipc_rsp_sess_opts o = {.ack = ack,
				      .timeout_ns = timeout_ms * 1000000ull,
				      .max_payload = 1024};
	struct ipc_rsp_sess *s = NULL;

	rio_init(io, cfd);
	if (ipc_rsp_sess_new(&s, io, &o))
		return NULL;
	return s;
}

static void test_open_and_close(void)
{
	struct ipc_rsp_io io;
	struct ipc_rsp_sess *s;
	const struct ipc_rsp_stub_info *in;
	uint8_t orig[MEM];
	char err[256] = "";
	int cfd, rc;
	struct fake *f = fake_start(F_NONE, 0, 2, true, &cfd);

	if (!f) {
		ok(0, "fake stub started");
		return;
	}
	memcpy(orig, f->mem, MEM);
	s = sess(&cfd, &io, false, 2000);
	rc = ipc_rsp_sess_open(s, err, sizeof(err));
	is_int(rc, "==", 0, "a session opens: %s", err);
	in = ipc_rsp_sess_info(s);
	is_uint(in->packet_size, "==", 0x4000, "PacketSize read");
	ok(in->can_noack && in->noack && f->noack, "no-ack mode negotiated");
	ok(in->multiprocess, "multiprocess listed");
	is_str(in->arch, "i386:x86-64", "architecture from the description");
	is_uint(in->pid, "==", 0x1234, "pid from the stop reply");
	ok(in->buf_found, "buffer found below the stack pointer");
	is_uint(in->buf_len, "==", 1024, "buffer as long as the payload");
	is_uint(in->buf_addr, "==", (SP - 4096 - 1024) & ~63ull,
		"buffer 4 KiB below the stack pointer, aligned");
	ok(in->has_X && in->has_x && in->x_prefix, "X and x ('b') probed");
	ok(in->binary_write && in->binary_read, "binary packets chosen");
	ok(strstr(in->features, "PacketSize=4000") != NULL,
	   "features kept as received");
	ok(memcmp(f->mem + (in->buf_addr - BASE), orig + (in->buf_addr - BASE),
		  1024) != 0,
	   "the buffer holds the pattern while the session is open");
	rc = ipc_rsp_sess_close(s, true);
	is_int(rc, "==", 0, "close with detach");
	ok(!memcmp(f->mem, orig, MEM), "the buffer's bytes are put back");
	is_str(f->last, "D;1234", "detached with the pid (multiprocess)");
	is_uint(ipc_rsp_sess_counts(s)->garbage +
			ipc_rsp_sess_counts(s)->errors +
			ipc_rsp_sess_counts(s)->malformed,
		"==", 0, "a good stub: nothing counted as wrong");
	ipc_rsp_sess_free(s);
	fake_stop(f, cfd);
}

/* Run @n samples of req x resp: the number that failed. */
static int run_cell(struct ipc_rsp_sess *s, size_t req, size_t resp, unsigned n,
		    struct ipc_rsp_cell *c, char *why, size_t why_len)
{
	int bad = 0;

	if (ipc_rsp_cell_plan(s, req, resp, c, why, why_len))
		return -1;
	for (unsigned i = 0; i < n; i++) {
		int rc = ipc_rsp_cell_run(s, c, i);
		int chk = ipc_rsp_cell_check(s, c, why, why_len);

		if (rc || chk) {
			if (!bad && rc)
				snprintf(why, why_len, "run: %s",
					 strerror(-rc));
			bad++;
		}
	}
	return bad;
}

/* Every size 0..1024 both ways, with x/X or m/M, acks or not. */
static void test_every_size(int x_mode, bool X, bool ack, bool no_binary)
{
	struct ipc_rsp_io io;
	struct ipc_rsp_sess_opts o = {.ack = ack,
				      .no_binary = no_binary,
				      .timeout_ns = 2000000000ull,
				      .max_payload = 1024};
	struct ipc_rsp_sess *s = NULL;
	struct ipc_rsp_cell c;
	char err[256] = "", what[96];
	int cfd, bad = 0, exact_w = 0, exact_r = 0, rc;
	size_t first_bad = 0;
	struct fake *f = fake_start(F_NONE, 0, x_mode, X, &cfd);

	snprintf(what, sizeof(what), "x mode %d, X %s, %s%s", x_mode,
		 X ? "on" : "off", ack ? "acks" : "no acks",
		 no_binary ? ", hex only" : "");
	rio_init(&io, &cfd);
	if (!f || ipc_rsp_sess_new(&s, &io, &o) ||
	    ipc_rsp_sess_open(s, err, sizeof(err))) {
		ok(0, "%s: session opens: %s", what, err);
		goto out;
	}
	for (size_t n = 0; n <= 1024; n++) {
		int b = run_cell(s, n, n, 2, &c, err, sizeof(err));

		if (b && !bad)
			first_bad = n;
		bad += b != 0;
		exact_w += c.write && c.req_wire == n;
		exact_r += c.read && c.resp_wire == n;
	}
	is_int(bad, "==", 0,
	       "%s: sizes 0..1024 written and read back (first "
	       "bad %zu: %s)",
	       what, first_bad, err);
	/* Writes below the header size and odd hex replies cannot be exact. */
	is_int(exact_w, ">=", ipc_rsp_sess_info(s)->binary_write ? 1000 : 500,
	       "%s: writes of the asked size", what);
	is_int(exact_r, ">=", ipc_rsp_sess_info(s)->binary_read ? 1023 : 512,
	       "%s: replies of the asked size", what);
	ok(ipc_rsp_sess_info(s)->noack == !ack, "%s: ack mode as asked", what);
	if (ack)
		is_uint(f->acks_seen, ">=", 2 * 1025, "%s: replies acked",
			what);
	is_uint(ipc_rsp_sess_counts(s)->mismatches, "==", 0,
		"%s: no mismatch counted", what);
	rc = ipc_rsp_sess_close(s, false);
	is_int(rc, "==", 0, "%s: closes", what);
out:
	ipc_rsp_sess_free(s);
	if (f)
		fake_stop(f, cfd);
}

static void test_cell_sizes(void)
{
	struct ipc_rsp_io io;
	struct ipc_rsp_sess *s;
	struct ipc_rsp_cell c;
	char err[256] = "";
	int cfd, rc;
	struct fake *f = fake_start(F_NONE, 0, 0, true, &cfd);

	s = sess(&cfd, &io, false, 2000);
	if (!f || !s || ipc_rsp_sess_open(s, err, sizeof(err))) {
		ok(0, "session for cell sizes: %s", err);
		goto out;
	}
	/* Address 7ffe0b80 is 8 digits: "X7ffe0b80,LEN:" is 11 + digits. */
	ok(!ipc_rsp_cell_plan(s, 0, 0, &c, err, sizeof(err)), "plan 0 x 0");
	ok(!c.write && c.read && c.packets == 1 && c.resp_wire == 0,
	   "0 x 0: one read of nothing");
	ok(!memcmp(c.rpkt, "m", 1), "0 x 0: m (x unsupported)");
	ok(!ipc_rsp_cell_plan(s, 1024, 0, &c, err, sizeof(err)) && c.write &&
		   !c.read && c.req_wire == 1024 && c.packets == 1,
	   "1024 x 0: one write packet of 1024 bytes");
	ok(c.whead[0] == 'X' && c.write_len == 1024 - 14,
	   "1024 x 0: X with 1010 data bytes (%zu)", c.write_len);
	rc = ipc_rsp_cell_plan(s, 4, 16, &c, err, sizeof(err));
	ok(!rc && c.req_wire == 12 && c.write_len == 0 && c.packets == 2,
	   "4 x 16: the smallest write (12 bytes) then a read (%zu)",
	   c.req_wire);
	ok(c.resp_wire == 16 && c.read_len == 8, "4 x 16: m of 8 bytes");
	ok(!ipc_rsp_cell_plan(s, 0, 1, &c, err, sizeof(err)) &&
		   c.resp_wire == 0,
	   "0 x 1: an odd hex reply is one digit pair short");
	ok(ipc_rsp_cell_plan(s, 0, 4096, &c, err, sizeof(err)) == -EMSGSIZE,
	   "a reply larger than the session's payload is refused: %s", err);
	ipc_rsp_sess_close(s, false);
out:
	ipc_rsp_sess_free(s);
	if (f)
		fake_stop(f, cfd);
}

/*
 * A fault from request @after on: open, then samples of 64 x 64 until
 * one fails or 20 ran.  Returns the first failure (0: none) and the time
 * taken in *ms.
 */
static int faulty(enum fault fault, unsigned after, bool ack,
		  unsigned timeout_ms, struct ipc_rsp_counts *cnt, int *open_rc,
		  uint64_t *ms)
{
	struct ipc_rsp_io io;
	struct ipc_rsp_sess *s;
	struct ipc_rsp_cell c;
	char err[256] = "";
	uint64_t t0 = rio_now_ns();
	int cfd, rc = 0;
	struct fake *f = fake_start(fault, after, 0, true, &cfd);

	memset(cnt, 0, sizeof(*cnt));
	s = sess(&cfd, &io, ack, timeout_ms);
	if (!f || !s) {
		*open_rc = -ENOMEM;
		goto out;
	}
	*open_rc = ipc_rsp_sess_open(s, err, sizeof(err));
	if (*open_rc)
		goto done;
	if (ipc_rsp_cell_plan(s, 64, 64, &c, err, sizeof(err))) {
		rc = -EINVAL;
		goto done;
	}
	for (unsigned i = 0; i < 20 && !rc; i++) {
		rc = ipc_rsp_cell_run(s, &c, i);
		if (!rc)
			rc = ipc_rsp_cell_check(s, &c, err, sizeof(err));
	}
done:
	*cnt = *ipc_rsp_sess_counts(s);
out:
	*ms = (rio_now_ns() - t0) / 1000000;
	ipc_rsp_sess_free(s);
	if (f)
		fake_stop(f, cfd);
	return rc;
}

/* Requests of opening against the fake: +, qSupported ... fill. */
#define OPENED 30

static void test_bad_stubs(void)
{
	struct ipc_rsp_counts n;
	uint64_t ms;
	int open_rc, rc;

	rc = faulty(F_GARBAGE, OPENED, false, 2000, &n, &open_rc, &ms);
	ok(!open_rc && !rc, "noise between replies does not fail a sample");
	is_uint(n.garbage, "==", 6 * (n.replies - (OPENED - 1)),
		"garbage: 6 bytes counted per reply after the fault");
	rc = faulty(F_BADSUM, OPENED, false, 2000, &n, &open_rc, &ms);
	is_int(rc, "==", -EBADMSG, "a wrong checksum without acks fails");
	is_uint(n.bad_checksum, "==", 1, "... and is counted");
	rc = faulty(F_BADSUM, OPENED, true, 2000, &n, &open_rc, &ms);
	is_int(rc, "==", 0, "with acks the reply is asked for again");
	is_uint(n.bad_checksum, "==", 1, "... and the bad one counted");
	rc = faulty(F_BADESC, OPENED, false, 2000, &n, &open_rc, &ms);
	ok(!open_rc && rc == -EBADMSG, "a bad escape fails the sample (%d)",
	   rc);
	is_uint(n.malformed, "==", 1, "... counted as malformed, not checksum");
	is_uint(n.bad_checksum, "==", 0, "... (no checksum counted)");
	rc = faulty(F_ERROR, OPENED, false, 2000, &n, &open_rc, &ms);
	is_int(rc, "==", -EIO, "an error reply to a read fails the sample");
	is_uint(n.errors, "==", 1, "... and is counted");
	rc = faulty(F_FLIP, OPENED, false, 2000, &n, &open_rc, &ms);
	is_int(rc, "==", -EBADMSG, "a read that returns other bytes fails");
	is_uint(n.mismatches, "==", 1, "... counted as a mismatch");
	rc = faulty(F_EMPTY, OPENED, false, 2000, &n, &open_rc, &ms);
	is_int(rc, "==", -EPROTO, "an empty reply to a write fails");
	is_uint(n.malformed, "==", 1, "... counted as malformed");
	rc = faulty(F_DIE, OPENED, false, 2000, &n, &open_rc, &ms);
	is_int(rc, "==", -ECONNRESET, "a stub that dies: the connection reset");
	is_uint(ms, "<", 1500, "... seen at once, not after the timeout");
	rc = faulty(F_SILENT, OPENED, false, 200, &n, &open_rc, &ms);
	is_int(rc, "==", -ETIMEDOUT, "a silent stub: a timeout");
	is_uint(n.timeouts, "==", 1, "... counted");
	is_uint(ms, "<", 3000, "... within the deadline, not a hang");
	rc = faulty(F_TRICKLE, OPENED, false, 200, &n, &open_rc, &ms);
	is_int(rc, "==", -ETIMEDOUT, "a stub that trickles noise: a timeout");
	is_uint(n.garbage, ">", 0, "... the noise counted");
	is_uint(ms, "<", 3000, "... the deadline is per reply, not per read");
	rc = faulty(F_NAK, 2, true, 2000, &n, &open_rc, &ms);
	ok(!open_rc && !rc, "a packet asked for again is sent again");
	is_uint(n.naks, "==", 1, "... the '-' counted");
	rc = faulty(F_NAK_ALWAYS, 2, true, 2000, &n, &open_rc, &ms);
	is_int(open_rc, "==", -EPROTO, "a stub that always says '-': given up");
	is_uint(n.naks, "==", 3, "... after three tries");
	faulty(F_NOPROC, 0, false, 2000, &n, &open_rc, &ms);
	is_int(open_rc, "==", -ESRCH, "a stub with no process is refused");
	faulty(F_NOTFEAT, 0, false, 2000, &n, &open_rc, &ms);
	is_int(open_rc, "==", -EPROTO, "an error to qSupported is refused");
	faulty(F_DIE, 1, false, 2000, &n, &open_rc, &ms);
	is_int(open_rc, "==", -ECONNRESET, "a stub that dies at once");
}

static void shape(const char *p, enum ipc_rsp_kind want)
{
	struct ipc_rsp_shape sh;

	ipc_rsp_shape_of((const uint8_t *)p, strlen(p), &sh);
	ok(sh.kind == want, "\"%.*s\" is %s (got %s)", (int)strcspn(p, "\n"), p,
	   ipc_rsp_kind_name(want), ipc_rsp_kind_name(sh.kind));
}

static bool match(const char *a, const char *b)
{
	struct ipc_rsp_shape x, y;

	ipc_rsp_shape_of((const uint8_t *)a, strlen(a), &x);
	ipc_rsp_shape_of((const uint8_t *)b, strlen(b), &y);
	return ipc_rsp_shape_match(&x, &y);
}

static void test_shapes(void)
{
	shape("", IPC_RSP_EMPTY);
	shape("OK", IPC_RSP_OK);
	shape("E01", IPC_RSP_ERROR);
	shape("E.no memory", IPC_RSP_ERROR);
	shape("0a1b2c3d", IPC_RSP_HEX);
	shape("T0506:0000;07:80e7;thread:p694b.694b;core:1;", IPC_RSP_STOP);
	shape("S05", IPC_RSP_STOP);
	shape("W00", IPC_RSP_EXIT);
	shape("X09", IPC_RSP_EXIT);
	shape("l<threads>\n</threads>\n", IPC_RSP_XFER);
	shape("m<?xml version=", IPC_RSP_XFER);
	shape("l", IPC_RSP_XFER);
	shape("F5", IPC_RSP_FILE);
	shape("F-1,2", IPC_RSP_FILE);
	shape("O48656c6c6f", IPC_RSP_OUTPUT);
	shape("QC1", IPC_RSP_OTHER);
	ok(match("0a1b2c3d", "00112233445566"), "hex 8 and 14 match");
	ok(!match("0a1b", "00112233445566778899aabbccddeeff00112233445566"),
	   "hex 4 and 46 do not");
	ok(match("T0506:0;thread:p694b.694b;", "T0506:0;thread:p4a5b6.4a5b6;"),
	   "stop replies with other thread ids match");
	ok(!match("T05", "W00"), "a stop is not an exit");
	ok(!match("W00", "X09"), "an exit is not a kill");
	ok(!match("OK", "E01"), "OK is not an error");
	ok(!match("", "OK"), "empty is not OK");
	ok(match("E01", "E.bad"), "errors match errors");
	ok(!match("QC1", "Z1"), "other kinds by their first byte");
	ok(match("QC1", "QC4a5b"), "... and then by length");
}

static void test_supported(void)
{
	static const char gs[] =
		"PacketSize=47ff;QPassSignals+;QProgramSignals+;"
		"QStartupWithShell+;qXfer:features:read+;QStartNoAckMode+;"
		"multiprocess+;fork-events+;vContSupported+";
	struct ipc_rsp_stub_info in;
	uint8_t b[4];

	memset(&in, 0, sizeof(in));
	ok(!ipc_rsp_parse_supported((const uint8_t *)gs, strlen(gs), &in),
	   "gdbserver 13's feature list parses");
	is_uint(in.packet_size, "==", 0x47ff, "PacketSize");
	ok(in.can_noack && in.multiprocess && !in.has_X, "features read");
	is_str(in.features, gs, "the list kept");
	memset(&in, 0, sizeof(in));
	ok(ipc_rsp_parse_supported((const uint8_t *)"E01", 3, &in) == -EBADMSG,
	   "an error is not a feature list");
	ok(ipc_rsp_parse_supported((const uint8_t *)"", 0, &in) == -EBADMSG,
	   "nor is an empty reply");
	ok(ipc_rsp_parse_supported((const uint8_t *)"PacketSize=zz", 13, &in) ==
		   -EBADMSG,
	   "a PacketSize that is not hex is refused");
	ok(!ipc_rsp_parse_supported((const uint8_t *)"X+;foo=bar", 10, &in) &&
		   in.has_X && !in.packet_size,
	   "X+ read, unknown features ignored");
	ok(!ipc_rsp_unhex((const uint8_t *)"0aFf", 4, b) && b[0] == 0x0a &&
		   b[1] == 0xff,
	   "hex digits of both cases decode");
	ok(ipc_rsp_unhex((const uint8_t *)"0a0", 3, b) == -EBADMSG,
	   "an odd count of hex digits is refused");
	ok(ipc_rsp_unhex((const uint8_t *)"0g", 2, b) == -EBADMSG,
	   "a character that is not hex is refused");
}

/* Append a trace line: "w " or "r ", '+' if @ack, then $@body#xx. */
static void line(char *t, size_t cap, char dir, bool ack, const char *body)
{
	uint8_t frame[2 * 1100 + 8];
	size_t n = ipc_framing_rsp.encode(frame, (const uint8_t *)body,
					  strlen(body), 0);
	size_t k = strlen(t);

	snprintf(t + k, cap - k, "%c %s%.*s\n", dir, ack ? "+" : "", (int)n,
		 (const char *)frame);
}

/*
 * A recorded session replayed against the fake: the recorded process
 * (694b) becomes the live one (1234) in thread ids, qAttached, a /proc
 * path (decimal) and a vFile descriptor; replies are matched by shape.
 */
static void test_replay_rewrites(void)
{
	static const char path[] = "/proc/26955/task/26955/maps";
	char text[2048] = "", hex[128], open[160], err[256] = "";
	struct ipc_trace *t = NULL;
	struct ipc_rsp_replay *r = NULL;
	struct ipc_rsp_io io;
	struct ipc_rsp_sess *s;
	const struct ipc_rsp_replay_counts *n;
	int cfd, rc = 0;
	struct fake *f = fake_start(F_NONE, 0, 0, true, &cfd);

	for (size_t i = 0; i < strlen(path); i++)
		sprintf(hex + 2 * i, "%02x", path[i]);
	snprintf(open, sizeof(open), "vFile:open:%s,0,1c0", hex);
	line(text, sizeof(text), 'w', true, "QStartNoAckMode");
	line(text, sizeof(text), 'r', true, "OK");
	line(text, sizeof(text), 'w', true, "?");
	line(text, sizeof(text), 'r', false,
	     "T0507:0000000000000000;thread:p694b.694b;");
	line(text, sizeof(text), 'w', false, "qAttached:694b");
	line(text, sizeof(text), 'r', false, "1");
	line(text, sizeof(text), 'w', false, open);
	line(text, sizeof(text), 'r', false, "F3");
	line(text, sizeof(text), 'w', false, "vFile:pread:3,47ff,0");
	line(text, sizeof(text), 'r', false, "F4;wxyz");
	line(text, sizeof(text), 'w', false, "Hgp694b.694b");
	line(text, sizeof(text), 'r', false, "OK");
	s = sess(&cfd, &io, false, 2000);
	if (!f || !s ||
	    ipc_trace_parse("mem.log", text, strlen(text), &t, err,
			    sizeof(err)) ||
	    ipc_rsp_replay_new(&r, t, s, err, sizeof(err))) {
		ok(0, "a replay is prepared: %s", err);
		goto out;
	}
	for (size_t i = 0, j; i < t->nunits && !rc; i = j) {
		for (j = i + 1;
		     j < t->nunits && t->units[j].dir == t->units[i].dir; j++)
			;
		for (size_t k = i; k < j && !rc; k++)
			if (t->units[k].dir == IPC_C2S)
				rc = ipc_rsp_replay_send(r, k);
		if (!rc && t->units[i].dir == IPC_S2C)
			rc = ipc_rsp_replay_recv(r, i, j,
						 rio_now_ns() + 2000000000ull);
	}
	n = ipc_rsp_replay_counts(r);
	is_int(rc, "==", 0, "the replay runs to the end");
	is_str(f->log[2], "qAttached:1234", "the pid replaced in qAttached");
	for (size_t i = 0; i < strlen("/proc/4660/task/4660/maps"); i++)
		sprintf(hex + 2 * i, "%02x", "/proc/4660/task/4660/maps"[i]);
	snprintf(open, sizeof(open), "vFile:open:%s,0,1c0", hex);
	is_str(f->log[3], open, "the pid replaced in a /proc path, decimal");
	is_str(f->log[4], "vFile:pread:7,47ff,0",
	       "the live descriptor used for pread");
	is_str(f->log[5], "Hgp1234.1234", "the pid replaced in a thread id");
	is_uint(n->rewritten, "==", 4, "four packets rewritten");
	is_uint(n->matched, "==", 5, "five replies of the recorded shape");
	is_uint(n->mismatched, "==", 1, "one not (\"\" for Hg, OK recorded)");
	ok(strstr(ipc_rsp_replay_first(r), "empty") != NULL,
	   "the mismatch said: %s", ipc_rsp_replay_first(r));
out:
	ipc_rsp_replay_free(r);
	ipc_trace_free(t);
	ipc_rsp_sess_free(s);
	if (f)
		fake_stop(f, cfd);
}

struct own {
	struct ipc_rsp_stub st;
	int fd;
	int rc;
	pthread_t th;
};

static void *own_main(void *arg)
{
	struct own *o = arg;
	struct ipc_rsp_io io;

	rio_init(&io, &o->fd);
	o->rc = ipc_rsp_stub_serve(&o->st, &io);
	shutdown(o->fd, SHUT_RDWR);
	return NULL;
}

/* ipcperf's own stub: every size both ways, found buffer, x and X. */
static void test_own_stub(bool ack)
{
	struct ipc_rsp_sess_opts so = {
		.ack = ack, .timeout_ns = 2000000000ull, .max_payload = 1024};
	struct ipc_rsp_sess *s = NULL;
	struct ipc_rsp_io io;
	struct ipc_rsp_cell c;
	struct own o;
	char err[256] = "";
	int sv[2], bad = 0, exact = 0;
	size_t first_bad = 0;

	if (ipc_rsp_stub_init(&o.st, 0) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		ok(0, "own stub set up");
		return;
	}
	o.fd = sv[1];
	pthread_create(&o.th, NULL, own_main, &o);
	rio_init(&io, &sv[0]);
	if (ipc_rsp_sess_new(&s, &io, &so) ||
	    ipc_rsp_sess_open(s, err, sizeof(err))) {
		ok(0, "own stub (%s): a session opens: %s",
		   ack ? "acks" : "no acks", err);
		goto out;
	}
	ok(ipc_rsp_sess_info(s)->has_X && ipc_rsp_sess_info(s)->has_x &&
		   ipc_rsp_sess_info(s)->x_prefix,
	   "own stub: X and x ('b') answered");
#if defined(__x86_64__) || defined(__aarch64__)
	ok(ipc_rsp_sess_info(s)->buf_found,
	   "own stub: the buffer found below its stack pointer");
#endif
	for (size_t n = 0; n <= 1024; n++) {
		int b = run_cell(s, n, n, 2, &c, err, sizeof(err));

		if (b && !bad)
			first_bad = n;
		bad += b != 0;
		exact += c.resp_wire == n;
	}
	is_int(bad, "==", 0,
	       "own stub (%s): sizes 0..1024 (first bad %zu: "
	       "%s)",
	       ack ? "acks" : "no acks", first_bad, err);
	is_int(exact, ">=", 1024, "own stub: replies of the asked size");
	ok(!ipc_rsp_sess_close(s, true), "own stub: detach answered");
	is_uint(o.st.served, ">=", 2 * 2 * 1024, "own stub: packets served");
out:
	ipc_rsp_sess_free(s);
	shutdown(sv[0], SHUT_RDWR);
	pthread_join(o.th, NULL);
	is_int(o.rc, "==", 0, "own stub: ends when the client leaves");
	close(sv[0]);
	close(sv[1]);
	ipc_rsp_stub_fini(&o.st);
}

/*
 * A stub without no-ack mode and with a small PacketSize: acks kept, the
 * setup in pieces that fit, cells beyond the size refused; a buffer the
 * stub will not read is refused with the way out in the message.
 */
static void test_small_stub(void)
{
	struct ipc_rsp_io io;
	struct ipc_rsp_sess_opts o = {.timeout_ns = 2000000000ull,
				      .max_payload = 1024};
	struct ipc_rsp_sess *s = NULL;
	struct ipc_rsp_cell c;
	char err[256] = "";
	int cfd, bad;
	struct fake *f = fake_start(F_NONE, 0, 0, true, &cfd);

	if (!f)
		return;
	f->psize = 0x80;
	f->ack_only = true;
	rio_init(&io, &cfd);
	if (ipc_rsp_sess_new(&s, &io, &o) ||
	    ipc_rsp_sess_open(s, err, sizeof(err))) {
		ok(0, "a small stub: session opens: %s", err);
		goto out;
	}
	ok(!ipc_rsp_sess_info(s)->noack && !f->noack,
	   "no QStartNoAckMode listed: acks kept");
	is_uint(ipc_rsp_sess_info(s)->packet_size, "==", 0x80,
		"PacketSize 0x80");
	ok(ipc_rsp_cell_plan(s, 0, 128, &c, err, sizeof(err)) == 0,
	   "a 128-byte reply fits");
	ok(ipc_rsp_cell_plan(s, 0, 256, &c, err, sizeof(err)) == -EMSGSIZE &&
		   strstr(err, "PacketSize"),
	   "a 256-byte reply is refused: %s", err);
	bad = run_cell(s, 100, 100, 5, &c, err, sizeof(err));
	is_int(bad, "==", 0, "100 x 100 runs with acks (%s)", err);
	is_uint(f->acks_seen, ">=", 10, "the client acked replies");
	ok(!ipc_rsp_sess_close(s, false), "closes, the buffer put back in "
					  "small pieces");
out:
	ipc_rsp_sess_free(s);
	s = NULL;
	fake_stop(f, cfd);

	f = fake_start(F_NONE, 0, 0, true, &cfd);
	if (!f)
		return;
	o.buf_addr = 0x1000; /* not in the fake's memory */
	rio_init(&io, &cfd);
	if (!ipc_rsp_sess_new(&s, &io, &o)) {
		is_int(ipc_rsp_sess_open(s, err, sizeof(err)), "==", -EIO,
		       "a buffer the stub will not read is refused");
		ok(strstr(err, "0x1000") && strstr(err, "?addr="),
		   "... saying where and what to do: %s", err);
	}
	ipc_rsp_sess_free(s);
	fake_stop(f, cfd);
}

/*
 * With a max packet of 64, a recorded qXfer read and a recorded m read
 * are asked for in pieces (offset and address advanced), and the pieces
 * together match the recorded reply.
 */
static void test_replay_pieces(void)
{
	char text[4096] = "", reply[1100], err[256] = "", mreq[40];
	struct ipc_trace *t = NULL;
	struct ipc_rsp_replay *r = NULL;
	struct ipc_rsp_io io;
	struct ipc_rsp_sess *s;
	const struct ipc_rsp_replay_counts *n;
	int cfd, rc = 0;
	struct fake *f = fake_start(F_NONE, 0, 0, true, &cfd);
	size_t xl = strlen(fake_xml);

	if (!f)
		return;
	line(text, sizeof(text), 'w', true, "QStartNoAckMode");
	line(text, sizeof(text), 'r', true, "OK");
	line(text, sizeof(text), 'w', true,
	     "qXfer:features:read:target.xml:0,1000");
	reply[0] = 'l';
	memcpy(reply + 1, fake_xml, xl + 1);
	line(text, sizeof(text), 'r', false, reply);
	snprintf(mreq, sizeof(mreq), "m%llx,100", BASE + 0x100);
	line(text, sizeof(text), 'w', false, mreq);
	hex_out(f->mem + 0x100, 0x100, reply);
	line(text, sizeof(text), 'r', false, reply);
	s = sess(&cfd, &io, false, 2000);
	if (!s ||
	    ipc_trace_parse("pieces.log", text, strlen(text), &t, err,
			    sizeof(err)) ||
	    ipc_rsp_replay_new(&r, t, s, err, sizeof(err))) {
		ok(0, "a replay in pieces is prepared: %s", err);
		goto out;
	}
	ipc_rsp_replay_max_packet(r, 64);
	for (size_t i = 0, j; i < t->nunits && !rc; i = j) {
		for (j = i + 1;
		     j < t->nunits && t->units[j].dir == t->units[i].dir; j++)
			;
		for (size_t k = i; k < j && !rc; k++)
			if (t->units[k].dir == IPC_C2S)
				rc = ipc_rsp_replay_send(r, k);
		if (!rc && t->units[i].dir == IPC_S2C)
			rc = ipc_rsp_replay_recv(r, i, j,
						 rio_now_ns() + 2000000000ull);
	}
	n = ipc_rsp_replay_counts(r);
	is_int(rc, "==", 0, "the replay in pieces runs to the end");
	is_uint(n->matched, "==", 3,
		"the pieces add up to the recorded "
		"replies (%s)",
		ipc_rsp_replay_first(r));
	is_uint(n->pieces, "==", (xl + 62) / 63 - 1 + 256 / 32 - 1,
		"pieces: the description in 63-byte and memory in 32-byte "
		"parts");
	is_str(f->log[1], "qXfer:features:read:target.xml:0,3f",
	       "the first piece asks for 63 bytes");
	is_str(f->log[2], "qXfer:features:read:target.xml:3f,3f",
	       "the next from where it ended");
out:
	ipc_rsp_replay_free(r);
	ipc_trace_free(t);
	ipc_rsp_sess_free(s);
	fake_stop(f, cfd);
}

int main(void)
{
	test_supported();
	test_shapes();
	test_open_and_close();
	test_cell_sizes();
	test_small_stub();
	test_every_size(0, false, false, false);
	test_every_size(0, true, false, false);
	test_every_size(1, true, false, false);
	test_every_size(2, true, true, false);
	test_every_size(2, true, false, true);
	test_bad_stubs();
	test_replay_rewrites();
	test_replay_pieces();
	test_own_stub(false);
	test_own_stub(true);
	return done_testing();
}
