/* SPDX-License-Identifier: MIT */
/*
 * Link emulation: the --link syntax and presets, which transports a link
 * can run over, the shaper's arithmetic (line time, delay, jitter that
 * never reorders, loss), and the relay itself on real channels: bytes in
 * order and intact, the end of stream passed on, datagrams dropped as
 * asked.  Speed is not checked here; the accuracy checks against
 * arithmetic are in tests/e2e/link.sh.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "../tap.h"
#include "ipcperf/ipcperf.h"
#include "link/lib_internal.h"
#include "transport/lib_internal.h"

static char err[256];

static bool parse1(const char *s, struct ipc_link *l)
{
	size_t n = 0;

	err[0] = '\0';
	return !ipc_link_parse(s, l, 1, &n, err, sizeof(err)) && n == 1;
}

static void test_parse(void)
{
	struct ipc_link l[8];
	size_t n = 0;

	ok(!ipc_link_parse("localhost,lan-100m,wifi-g,wan,serial-9600,"
			   "serial-115200",
			   l, 8, &n, err, sizeof(err)) &&
		   n == 6,
	   "the seed's six columns parse as six links");
	ok(!l[0].relay && l[1].relay, "localhost has no relay, lan-100m one");
	ok(l[4].rate_bps == 9600 && l[4].bits_per_byte == 10 && !l[4].delay_ns,
	   "serial-9600: 9600 baud, 10 bits a byte, no delay");
	ok(l[3].delay_ns == 35000000 && l[3].jitter_ns == 1000000 &&
		   l[3].rate_bps == 10000000,
	   "wan: 35 ms each way, 1 ms jitter, 10 Mbit/s");
	is_str(l[5].name, "serial-115200", "a preset keeps its name");
	ok(parse1("delay=35ms,jitter=2ms", l) && l->relay &&
		   l->delay_ns == 35000000 && l->jitter_ns == 2000000,
	   "key=value items make one custom link");
	is_str(l->name, "delay=35ms,jitter=2ms", "named after its items");
	ok(parse1("wan,loss=1%", l) && l->loss_ppm == 10000 &&
		   l->delay_ns == 35000000,
	   "an item after a preset changes that preset");
	is_str(l->name, "wan+loss=1%", "and is named so");
	ok(parse1("none,delay=1ms", l) && l->relay, "none with a delay");
	is_str(l->name, "delay=1ms", "is named after the delay alone");
	ok(parse1("rate=1.5mbit,mtu=512,overhead=40", l) &&
		   l->rate_bps == 1500000 && l->bits_per_byte == 8 &&
		   l->mtu == 512 && l->overhead == 40,
	   "rate, mtu and overhead");
	ok(parse1("delay=0", l) && l->relay && !l->delay_ns,
	   "delay=0 is a relay that adds nothing (its own cost)");
	ok(parse1("delay=250us", l) && l->delay_ns == 250000, "microseconds");
	n = 0;
	ok(!ipc_link_parse("wan", l, 8, &n, err, sizeof(err)) &&
		   !ipc_link_parse("delay=1ms", l, 8, &n, err, sizeof(err)) &&
		   n == 2,
	   "a second list appends (--link given twice)");

	n = 0;
	ok(ipc_link_parse("wlan", l, 8, &n, err, sizeof(err)) == -EINVAL &&
		   strstr(err, "unknown link 'wlan'") && n == 0,
	   "an unknown preset is refused by name");
	ok(!parse1("speed=10", l) && strstr(err, "'speed'"),
	   "an unknown parameter is refused by name");
	ok(!parse1("delay=5parsecs", l) && strstr(err, "delay") &&
		   strstr(err, "'5parsecs'"),
	   "a bad time is refused: %s", err);
	ok(!parse1("loss=1", l) && strstr(err, "loss") && strstr(err, "%"),
	   "loss needs a percent sign: %s", err);
	ok(!parse1("loss=101%", l) && strstr(err, "at most 100%"),
	   "more than 100%% loss: %s", err);
	ok(!parse1("baud=0", l) && strstr(err, "at least 50"), "baud 0: %s",
	   err);
	ok(!parse1("", l), "an empty list");
	ok(parse1("rate=0", l) && l->relay && l->rate_bps == 0,
	   "rate=0 is a link without a rate limit");
	ok(parse1("wan,rate=0", l) && l->rate_bps == 0 &&
		   l->delay_ns == 35000000,
	   "rate=0 lifts a preset's rate, keeping its delay");
	ok(parse1("delay=1.5ms,jitter=500µs", l) && l->delay_ns == 1500000 &&
		   l->jitter_ns == 500000,
	   "times take fractions and µs, as the command line's do");
	ok(parse1("mtu=1k,overhead=0", l) && l->mtu == 1024 && !l->overhead,
	   "mtu and overhead are sizes");
}

/* A --link item that must be refused, with @why and the value named. */
static void link_bad(const char *s, const char *value, const char *why)
{
	struct ipc_link l;

	ok(!parse1(s, &l) && strstr(err, value) && strstr(err, why) &&
		   !strchr(err, '\n'),
	   "'%s' is refused, naming '%s' and '%s': %s", s, value, why, err);
}

/* The hostile review's inputs: each is refused. */
static void test_parse_hostile(void)
{
	link_bad("delay=1ms,jitter= -1ms", "' -1ms'", "space");
	link_bad("delay= -5ms", "' -5ms'", "space");
	link_bad("delay=-5ms", "'-5ms'", "negative");
	link_bad("jitter=-1ms", "'-1ms'", "negative");
	link_bad("delay=0x10", "'0x10'", "hexadecimal");
	link_bad("delay=0x10ms", "'0x10ms'", "hexadecimal");
	link_bad("rate=0x10", "'0x10'", "hexadecimal");
	link_bad("rate=-1mbit", "'-1mbit'", "negative");
	link_bad("rate= 10mbit", "' 10mbit'", "space");
	link_bad("rate=0.4", "'0.4'", "resolution");
	link_bad("baud= 9600", "' 9600'", "space");
	link_bad("baud=+9600", "'+9600'", "sign");
	link_bad("mtu=-1", "'-1'", "negative");
	link_bad("overhead= 90", "' 90'", "space");
	link_bad("loss= 1%", "' 1%'", "space");
	link_bad("loss=-1%", "'-1%'", "negative");
	link_bad("delay=61s", "'61s'", "at most 60s");
	link_bad("delay=1e3ms", "'1e3ms'", "unknown unit");
	link_bad("delay=nan", "'nan'", "not a number");
	link_bad("delay=inf", "'inf'", "not a number");
	/* Beyond the review's list: items strtok passed over in silence. */
	link_bad("delay=5ms,delay=6ms", "'delay'", "given twice");
	link_bad("rate=1mbit,baud=9600", "'baud'", "both set the line rate");
	link_bad("delay=5ms,", "'delay=5ms,'", "empty item");
	link_bad(",delay=5ms", "',delay=5ms'", "empty item");
	link_bad("wan,,delay=1ms", "'wan,,delay=1ms'", "empty item");
}

/* A preset's parameter may be changed once; a jitter beyond the delay. */
static void test_parse_edges(void)
{
	struct ipc_link l;

	ok(parse1("wan,delay=40ms", &l) && l.delay_ns == 40000000 &&
		   l.jitter_ns == 1000000,
	   "wan,delay=40ms changes the preset's delay");
	ok(parse1("delay=1ms,jitter=2ms", &l) && l.jitter_ns == 2 * l.delay_ns,
	   "a jitter beyond the delay is taken (the delay stops at 0, "
	   "docs/links.md)");
	ok(parse1("rate=0", &l) && l.relay && !l.rate_bps,
	   "rate=0 is no rate limit");
}

static void test_carry(void)
{
	struct ipc_link l;
	char why[192];

	parse1("loss=1%", &l);
	ok(!ipc_link_can_carry(&l, ipc_transport_find("udp"), why, sizeof(why)),
	   "loss runs over udp");
	ok(ipc_link_can_carry(&l, ipc_transport_find("tcp"), why,
			      sizeof(why)) == -EINVAL &&
		   strstr(why, "byte stream"),
	   "loss is refused on tcp: %s", why);
	ok(ipc_link_can_carry(&l, ipc_transport_find("unix-dgram"), why,
			      sizeof(why)) == -EINVAL,
	   "loss is refused on a transport that is not lossy");
	parse1("delay=1ms", &l);
	for (size_t i = 0; ipc_transports[i]; i++)
		if (ipc_transports[i]->caps & IPC_TP_FD)
			ok(!ipc_link_can_carry(&l, ipc_transports[i], why,
					       sizeof(why)),
			   "a delay runs over %s", ipc_transports[i]->name);
}

static void test_shaper(void)
{
	struct ipc_link l;
	struct ipc_shaper s;
	uint64_t due = 0, prev = 0, t;
	bool drop, ordered = true, within = true;
	unsigned dropped = 0;

	/* 480 bytes at 9600 baud: 480 x 10 / 9600 = 0.5 s exactly. */
	parse1("baud=9600", &l);
	ipc_shaper_init(&s, &l, 1);
	due = ipc_shaper_due(&s, 1000, 480, false, &drop);
	is_int(due - 1000, "==", 500000000, "480 bytes at 9600 baud: 0.5 s");
	ipc_shaper_init(&s, &l, 1);
	for (int i = 0; i < 480; i++)
		due = ipc_shaper_due(&s, 1000, 1, false, &drop);
	is_int(due - 1000, "==", 500000000,
	       "480 one-byte writes add up to exactly the same");
	is_int(ipc_link_wire_ns(&l, 480, 1), "==", 500000000,
	       "the line time of 480 bytes agrees");
	/* The line is free again after a pause: no time is owed. */
	due = ipc_shaper_due(&s, 2000000000, 96, false, &drop);
	is_int(due - 2000000000, "==", 100000000,
	       "after an idle line, 96 bytes take 0.1 s from their arrival");

	parse1("rate=100mbit,overhead=90,delay=50us", &l);
	ipc_shaper_init(&s, &l, 1);
	due = ipc_shaper_due(&s, 0, 1448, false, &drop);
	is_int(due, "==", 123040 + 50000,
	       "lan-100m: a full segment is (1448 + 90) x 8 / 100e6 s, "
	       "then the delay");

	/* Jitter: within +-jitter of the delay, and never reordered. */
	parse1("delay=1ms,jitter=1ms", &l);
	ipc_shaper_init(&s, &l, 42);
	for (int i = 0; i < 10000; i++) {
		t = (uint64_t)i * 10000; /* one piece every 10 us */
		due = ipc_shaper_due(&s, t, 100, false, &drop);
		if (due < prev)
			ordered = false;
		if (due > t + 2000000)
			within = false;
		prev = due;
	}
	ok(ordered, "with jitter far above the spacing, no piece overtakes");
	ok(within, "no piece is held longer than delay + jitter");

	/* Loss: about the asked share, only where dropping is allowed. */
	parse1("loss=20%", &l);
	ipc_shaper_init(&s, &l, 7);
	for (int i = 0; i < 10000; i++) {
		ipc_shaper_due(&s, 0, 10, true, &drop);
		dropped += drop;
	}
	ok(dropped > 1700 && dropped < 2300, "20%% loss drops %u of 10000",
	   dropped);
	ipc_shaper_due(&s, 0, 10, false, &drop);
	ok(!drop, "a byte stream's pieces are never dropped");
}

/* Read what arrives on @fd for up to @ms into @buf; bytes read. */
static size_t drain(int fd, uint8_t *buf, size_t cap, int ms, bool dgram,
		    size_t *msgs)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	size_t got = 0;
	ssize_t n;

	*msgs = 0;
	while (got < cap && poll(&p, 1, ms) == 1) {
		n = read(fd, buf + got, dgram ? cap - got : cap - got);
		if (n <= 0)
			break;
		got += (size_t)n;
		(*msgs)++;
	}
	return got;
}

static void test_relay_stream(void)
{
	const struct ipc_transport_ops *tp = ipc_transport_find("socketpair");
	struct ipc_tp_opts o = {.max_msg = 1};
	struct ipc_ep c = {.rfd = -1, .wfd = -1}, s = {.rfd = -1, .wfd = -1};
	struct ipc_chan ch, *cch = NULL;
	struct ipc_relay *r = NULL;
	struct ipc_relay_stats st;
	struct ipc_link l;
	static uint8_t out[60000], in[60000];
	uint64_t t0, t1;
	size_t got, msgs;
	bool sent = true;
	int rc;

	parse1("delay=2ms,jitter=2ms,rate=100mbit,mtu=100", &l);
	ipc_chan_init(&ch, tp, &o);
	ok(!tp->setup(&ch), "a socketpair channel for the server");
	rc = ipc_relay_start(&r, &l, tp, &o, &ch, &cch);
	ok(!rc && r && cch, "the relay starts");
	if (rc)
		return;
	ok(!tp->open(cch, IPC_CLIENT, &c) && !tp->open(&ch, IPC_SERVER, &s),
	   "both sides open through it");
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7 + i / 251);
	t0 = ipc_now_ns();
	/* Many small writes: with jitter, pieces could overtake each other. */
	for (size_t i = 0; i < sizeof(out) && sent; i += 300)
		sent = tp->send(&c, out + i, 300) == 300;
	ok(sent, "60000 bytes written in 300-byte writes");
	got = drain(s.rfd, in, sizeof(in), 1000, false, &msgs);
	t1 = ipc_now_ns();
	is_int(got, "==", sizeof(out), "every byte arrived");
	ok(!memcmp(in, out, sizeof(out)), "in order and intact");
	/* 60000 bytes at 100 Mbit/s: 4.8 ms on the line, at least. */
	is_uint(t1 - t0, ">=", 4800000,
		"not before the line could carry them (never early)");
	ok(tp->send(&s, "pong", 4) == 4, "the server answers");
	got = drain(c.rfd, in, 4, 1000, false, &msgs);
	ok(got == 4 && !memcmp(in, "pong", 4), "the answer comes back");
	tp->close(&c);
	got = drain(s.rfd, in, sizeof(in), 2000, false, &msgs);
	is_int(got, "==", 0, "the client's close reaches the server as EOF");
	rc = ipc_relay_stop(r);
	is_int(rc, "==", 0, "the relay stopped without failure (%s)",
	       ipc_relay_error(r));
	ipc_relay_get_stats(r, &st);
	ok(st.bytes_c2s == sizeof(out) && st.bytes_s2c == 4 && !st.dropped,
	   "it counted 60000 bytes one way and 4 the other");
	ipc_relay_free(r);
	tp->close(&s);
	tp->teardown(&ch);
}

static void test_relay_loss(void)
{
	const struct ipc_transport_ops *tp = ipc_transport_find("udp");
	struct ipc_tp_opts o = {.max_msg = 16};
	struct ipc_ep c = {.rfd = -1, .wfd = -1}, s = {.rfd = -1, .wfd = -1};
	struct ipc_chan ch, *cch = NULL;
	struct ipc_relay *r = NULL;
	struct ipc_relay_stats st;
	struct ipc_link l;
	uint8_t buf[16 * 200];
	size_t got, msgs;
	bool sent = true;

	parse1("loss=50%", &l);
	ipc_chan_init(&ch, tp, &o);
	if (tp->setup(&ch)) {
		skip("no udp on loopback here");
		return;
	}
	ok(!ipc_relay_start(&r, &l, tp, &o, &ch, &cch), "a udp relay");
	ok(!tp->open(cch, IPC_CLIENT, &c) && !tp->open(&ch, IPC_SERVER, &s),
	   "both udp sides open");
	/* Paced, so that no socket buffer overflows (even under valgrind). */
	for (int i = 0; i < 200 && sent; i++) {
		sent = tp->send(&c, "0123456789abcdef", 16) == 16;
		usleep(1000);
	}
	ok(sent, "200 datagrams sent");
	got = drain(s.rfd, buf, sizeof(buf), 500, true, &msgs);
	ok(msgs > 50 && msgs < 150 && got == 16 * msgs,
	   "about half arrived, each whole (%zu)", msgs);
	ipc_relay_stop(r);
	ipc_relay_get_stats(r, &st);
	is_int(st.dropped + msgs, "==", 200,
	       "the relay dropped the rest on purpose (%llu)",
	       (unsigned long long)st.dropped);
	ipc_relay_free(r);
	tp->close(&c);
	tp->close(&s);
	tp->teardown(&ch);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_parse();
	test_parse_hostile();
	test_parse_edges();
	test_carry();
	test_shaper();
	test_relay_stream();
	test_relay_loss();
	return done_testing();
}
