/* SPDX-License-Identifier: MIT */
/*
 * The control protocol's pieces without a server: the length-prefixed
 * reader, the message parser against every kind of bad field, encoding
 * round trips, the HMAC proofs against an independent implementation's
 * values, key files and addresses.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipcperf/engine.h"
#include "ipcperf/framing.h"
#include "ipcperf/pattern.h"
#include "remote/lib_internal.h"
#include "ipcperf/run.h"
#include "ipcperf/transport.h"
#include "remote/remote_internal.h"
#include "../tap.h"
#include "base/lib_internal.h"
#include "framing/lib_internal.h"

static char why[256];

static int parse_str(const char *json, struct ipc_rmsg *m)
{
	return ipc_rmsg_parse(json, strlen(json), m, why, sizeof(why));
}

/* The parse of @json fails, and the reason mentions @word. */
static void refused(const char *json, const char *word, const char *what)
{
	struct ipc_rmsg m;
	int rc = parse_str(json, &m);

	ok(rc == -EPROTO && strstr(why, word), "refused: %s", what);
	if (rc != -EPROTO || !strstr(why, word))
		printf("#   rc %d, why \"%s\", want a mention of \"%s\"\n", rc,
		       why, word);
	is_int(m.type, "==", IPC_RM_NONE, "%s: no type left set", what);
}

static void test_frame(void)
{
	struct ipc_rframe f;
	uint8_t big[4][4] = {{0, 0, 0, 0},
			     {0, 0, 0x10, 1},
			     {0x80, 0, 0, 0},
			     {0xff, 0xff, 0xff, 0xff}};
	const char *names[] = {"0", "4097", "2^31", "2^32-1"};
	uint8_t msg[] = {0, 0, 0, 3, 'a', 'b', 'c', 0, 0, 0, 1, 'z'};
	size_t used, total = 0;
	int rc = 0, n = 0;

	for (int i = 0; i < 4; i++) {
		ipc_rframe_init(&f, IPC_REMOTE_HANDSHAKE_MAX);
		rc = ipc_rframe_feed(&f, big[i], 4, &used);
		is_int(rc, "==", -EMSGSIZE, "length %s refused", names[i]);
		ok(f.body == NULL, "length %s: nothing allocated", names[i]);
		ipc_rframe_reset(&f);
	}
	ipc_rframe_init(&f, 16);
	/* One byte at a time: two messages come out whole. */
	for (size_t i = 0; i < sizeof(msg); i++) {
		rc = ipc_rframe_feed(&f, msg + i, 1, &used);
		total += used;
		if (rc == 1) {
			n++;
			if (n == 1)
				ok(f.len == 3 && !memcmp(f.body, "abc", 3),
				   "first message whole");
			else
				ok(f.len == 1 && f.body[0] == 'z',
				   "second message whole");
			ipc_rframe_reset(&f);
		}
	}
	is_int(n, "==", 2, "two messages fed byte by byte");
	is_int(total, "==", sizeof(msg), "every byte consumed");
	/* All at once: the reader stops at the end of the first. */
	rc = ipc_rframe_feed(&f, msg, sizeof(msg), &used);
	ok(rc == 1 && used == 7, "a feed stops at the end of a message");
	ipc_rframe_reset(&f);
}

static void test_roundtrip(void)
{
	struct ipc_rmsg a, b;
	uint8_t buf[IPC_REMOTE_MSG_MAX + 4];
	int n;

	memset(&a, 0, sizeof(a)); /* padding too: compared with memcmp */
	a.type = IPC_RM_TEST;
	strcpy(a.test.pattern, "rr");
	strcpy(a.test.transport, "udp6");
	strcpy(a.test.engine, "epoll");
	strcpy(a.test.framing, "gdb-rsp");
	a.test.no_ack = true;
	a.test.req_size = 64;
	a.test.resp_size = 1 << 20;
	a.test.flows = 100;
	a.test.pin_cpu = 1;
	a.test.verify = false;
	a.test.nodelay = true;
	a.test.timeout_ns = 1000000000;
	n = ipc_rmsg_encode(&a, buf, sizeof(buf));
	ok(n > 4, "test encodes");
	is_int(ntohl(*(uint32_t *)buf), "==", n - 4, "prefix is body length");
	is_int(ipc_rmsg_parse(buf + 4, (size_t)n - 4, &b, why, sizeof(why)),
	       "==", 0, "test parses back");
	ok(b.type == IPC_RM_TEST && !memcmp(&a.test, &b.test, sizeof(a.test)),
	   "every field of test survives");

	memset(&a, 0, sizeof(a));
	a.type = IPC_RM_WELCOME;
	a.proto = IPC_REMOTE_PROTO;
	strcpy(a.software, "ipcperf test");
	a.auth = true;
	for (int i = 0; i < IPC_REMOTE_NONCE_BYTES; i++)
		a.nonce[i] = (uint8_t)(i * 7 + 1);
	n = ipc_rmsg_encode(&a, buf, sizeof(buf));
	is_int(ipc_rmsg_parse(buf + 4, (size_t)n - 4, &b, why, sizeof(why)),
	       "==", 0, "welcome parses back");
	ok(b.auth && !memcmp(a.nonce, b.nonce, sizeof(a.nonce)),
	   "challenge survives as hex");

	memset(&a, 0, sizeof(a));
	a.type = IPC_RM_RUN_STATS;
	a.stats.run = 3;
	a.stats.user_ns = 123456789;
	a.stats.others = 2;
	a.stats.err = 104;
	strcpy(a.stats.what, "peer reset");
	n = ipc_rmsg_encode(&a, buf, sizeof(buf));
	is_int(ipc_rmsg_parse(buf + 4, (size_t)n - 4, &b, why, sizeof(why)),
	       "==", 0, "run_stats parses back");
	ok(!memcmp(&a.stats, &b.stats, sizeof(a.stats)),
	   "every field of run_stats survives");

	memset(&a, 0, sizeof(a));
	a.type = IPC_RM_BYE;
	strcpy(a.host, "{\"cpus\":2,\"hostname\":\"b\"}");
	n = ipc_rmsg_encode(&a, buf, sizeof(buf));
	is_int(ipc_rmsg_parse(buf + 4, (size_t)n - 4, &b, why, sizeof(why)),
	       "==", 0, "bye parses back");
	is_str(b.host, a.host, "the fingerprint survives");

	memset(&a, 0, sizeof(a));
	a.type = IPC_RM_ERROR;
	a.code = IPC_RERR_BUSY;
	a.running = 4;
	strcpy(a.message, "busy, 4 tests running");
	n = ipc_rmsg_encode(&a, buf, sizeof(buf));
	is_int(ipc_rmsg_parse(buf + 4, (size_t)n - 4, &b, why, sizeof(why)),
	       "==", 0, "error parses back");
	ok(b.code == IPC_RERR_BUSY && b.running == 4 &&
		   !strcmp(b.message, a.message),
	   "busy error survives");
	memset(&a, 0, sizeof(a));
	a.type = IPC_RM_TRACE;
	a.data_len = sizeof(a.data);
	for (size_t i = 0; i < a.data_len; i++)
		a.data[i] = (uint8_t)(i * 31 + 7);
	n = ipc_rmsg_encode(&a, buf, sizeof(buf));
	ok(n > 0 && n <= (int)IPC_REMOTE_MSG_MAX + 4,
	   "a full trace piece fits one message (%d bytes)", n);
	is_int(ipc_rmsg_parse(buf + 4, (size_t)n - 4, &b, why, sizeof(why)),
	       "==", 0, "trace parses back");
	ok(b.data_len == a.data_len && !memcmp(a.data, b.data, a.data_len),
	   "its 32 KiB survive base64");
	a.type = IPC_RM_COUNT;
	is_int(ipc_rmsg_encode(&a, buf, sizeof(buf)), "==", -EINVAL,
	       "unknown type does not encode");
	a.type = IPC_RM_DONE;
	is_int(ipc_rmsg_encode(&a, buf, 8), "==", -EMSGSIZE,
	       "too small a buffer is refused");
}

static void test_bad_fields(void)
{
	struct ipc_rmsg m;
	/* Every field of test with each wrong JSON type. */
	static const char *const fields[] = {
		"pattern",  "transport",    "engine",	  "framing",
		"req_size", "resp_size",    "msg_size",	  "count",
		"total",    "chunk_size",   "flows",	  "runs",
		"verify",   "pin_cpu",	    "nodelay",	  "sndbuf",
		"rcvbuf",   "busy_poll_us", "timeout_ns", "no_ack",
	};
	static const char *const strs[] = {"pattern", "transport", "engine",
					   "framing"};
	static const char *const bools[] = {"verify", "nodelay", "no_ack"};
	const char *wrong_for_num[] = {
		"\"1\"", "1.5",	      "true", "null",
		"[1]",	 "{\"a\":1}", "-2",   "18446744073709551615"};
	const char *wrong_for_str[] = {"1", "true", "null", "[\"rr\"]",
				       "{\"x\":\"rr\"}"};
	char json[512];

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		bool is_s = false, is_b = false;
		const char **w;
		size_t nw;

		for (size_t k = 0; k < 4; k++)
			is_s |= !strcmp(fields[i], strs[k]);
		for (size_t k = 0; k < sizeof(bools) / sizeof(bools[0]); k++)
			is_b |= !strcmp(fields[i], bools[k]);
		w = is_s ? wrong_for_str : wrong_for_num;
		nw = is_s ? sizeof(wrong_for_str) / sizeof(*w)
			  : sizeof(wrong_for_num) / sizeof(*w);
		for (size_t k = 0; k < nw; k++) {
			char what[128];

			if (is_b && !strcmp(w[k], "true"))
				continue;
			snprintf(json, sizeof(json),
				 "{\"type\":\"test\",\"pattern\":\"rr\","
				 "\"transport\":\"tcp\",\"%s\":%s}",
				 fields[i], w[k]);
			/* pattern/transport given twice: a duplicate. */
			snprintf(what, sizeof(what), "test.%s = %s", fields[i],
				 w[k]);
			is_int(parse_str(json, &m), "==", -EPROTO, "%s", what);
			ok(strstr(why, fields[i]) || strstr(why, "duplicate") ||
				   strstr(why, "too big integer"),
			   "%s: the reason names the field (%s)", what, why);
		}
	}
	refused("{\"type\":\"test\",\"transport\":\"tcp\"}", "pattern",
		"missing pattern");
	refused("{\"type\":\"hello\",\"software\":\"x\"}", "proto",
		"missing proto");
	refused("{\"type\":\"hello\",\"proto\":1,\"proto\":1,"
		"\"software\":\"x\"}",
		"duplicate", "duplicated field");
	refused("{\"type\":\"hello\",\"type\":\"test\",\"proto\":1,"
		"\"software\":\"x\"}",
		"duplicate", "duplicated type");
	refused("{\"type\":\"hello\",\"proto\":1,\"software\":\"x\","
		"\"extra\":1}",
		"extra", "unknown field");
	refused("{\"type\":\"shell\"}", "shell", "unknown type");
	refused("{\"type\":7}", "type", "type not a string");
	refused("{\"proto\":1}", "type", "no type");
	refused("[1,2,3]", "object", "an array");
	refused("\"hello\"", "expected", "a bare string");
	refused("{\"type\":\"hello\",\"proto\":1,\"software\":\"x\"} x", "JSON",
		"trailing garbage");
	refused("{\"type\":\"hello\",\"proto\":1,\"software\":\"a\\u0000b\"}",
		"JSON", "NUL in a string");
	refused("{\"type\":\"hello\",\"proto\":1,\"software\":\"\xff\xfe\"}",
		"JSON", "invalid UTF-8");
	refused("{\"type\":\"hello\",\"proto\":1,\"software\":\"a\\nb\"}",
		"control", "newline in a string");
	refused("{\"type\":\"hello\",\"proto\":1,\"software\":\"a\\u009b2J\"}",
		"control", "a C1 control (CSI) in a string");
	refused("{\"type\":\"hello\",\"proto\":1,\"software\":\"\\u001b[2J\"}",
		"control", "an escape in a string");
	is_int(parse_str("{\"type\":\"hello\",\"proto\":1,"
			 "\"software\":\"caf\\u00e9 \\u00a0\"}",
			 &m),
	       "==", 0, "other non-ASCII text is fine (%s)", why);
	refused("{\"type\":\"run\",\"run\":100001}", "run", "run out of range");
	refused("{\"type\":\"test\",\"pattern\":\"rr\",\"transport\":\"tcp\","
		"\"req_size\":67108865}",
		"req_size", "request over 64 MiB");
	refused("{\"type\":\"test\",\"pattern\":\"rr\",\"transport\":\"tcp\","
		"\"pin_cpu\":-2}",
		"pin_cpu", "pin_cpu below -1");
	refused("{\"type\":\"run_stats\",\"run\":0,\"user_ns\":0,\"sys_ns\":0,"
		"\"vcsw\":0,\"ivcsw\":0,\"messages\":0,\"bytes\":0,"
		"\"others\":0,\"rejected\":0,\"err\":-1}",
		"err", "an errno of -1");
	refused("{\"type\":\"auth\",\"nonce\":\"00\",\"mac\":\"00\"}", "nonce",
		"short hex");
	refused("{\"type\":\"auth_ok\",\"mac\":"
		"\"abcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdef"
		"abcg\"}",
		"mac", "a letter that is not hex");
	refused("{\"type\":\"auth_ok\",\"mac\":"
		"\"ab:"
		"cdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdef"
		"abc\"}",
		"mac", "a separator in hex");
	refused("{\"type\":\"welcome\",\"proto\":1,\"software\":\"s\","
		"\"auth\":true}",
		"challenge", "auth without a challenge");
	refused("{\"type\":\"error\",\"code\":\"teapot\",\"message\":\"x\"}",
		"code", "unknown error code");
	refused("{\"type\":\"bye\",\"host\":{\"a\":{\"b\":1}}}", "host",
		"nested fingerprint");

	/* A string one byte over its buffer, then one that fits. */
	{
		char *s = malloc(IPC_RM_TEXT_MAX + 64);
		int rc;

		snprintf(s, IPC_RM_TEXT_MAX + 64,
			 "{\"type\":\"hello\",\"proto\":1,\"software\":\"%0*"
			 "d\"}",
			 IPC_RM_TEXT_MAX, 0);
		refused(s, "software", "string of 256 bytes");
		snprintf(s, IPC_RM_TEXT_MAX + 64,
			 "{\"type\":\"hello\",\"proto\":1,\"software\":\"%0*"
			 "d\"}",
			 IPC_RM_TEXT_MAX - 1, 0);
		rc = parse_str(s, &m);
		is_int(rc, "==", 0, "string of 255 bytes fits (%s)", why);
		free(s);
	}
	/* Nesting 10,000 deep inside a known field and as the message. */
	{
		size_t depth = 10000, n = 0;
		char *s = malloc(2 * depth + 128);

		n += (size_t)sprintf(s, "{\"type\":\"bye\",\"host\":");
		for (size_t i = 0; i < depth; i++)
			s[n++] = '[';
		for (size_t i = 0; i < depth; i++)
			s[n++] = ']';
		s[n++] = '}';
		s[n] = '\0';
		is_int(parse_str(s, &m), "==", -EPROTO,
		       "nesting 10,000 deep refused (%s)", why);
		free(s);
	}
	{
		char *s = malloc(IPC_REMOTE_MSG_MAX + 2);

		memset(s, ' ', IPC_REMOTE_MSG_MAX + 1);
		is_int(ipc_rmsg_parse(s, IPC_REMOTE_MSG_MAX + 1, &m, why,
				      sizeof(why)),
		       "==", -EMSGSIZE, "a body over the cap is refused");
		free(s);
	}
	is_int(parse_str("{\"type\":\"test\",\"pattern\":\"rr\","
			 "\"transport\":\"tcp\"}",
			 &m),
	       "==", 0, "a minimal test parses");
	ok(m.test.verify && m.test.nodelay && m.test.pin_cpu == -1 &&
		   !strcmp(m.test.engine, "blocking"),
	   "its defaults: verify, nodelay, not pinned, blocking");
}

static void hex(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sscanf(s + 2 * i, "%2hhx", &out[i]);
}

static void test_auth(void)
{
	struct ipc_rkey key = {.len = 32}, other = {.len = 32};
	uint8_t chal[32], nonce[32], mac[32], want[32], smac[32];

	for (int i = 0; i < 32; i++) {
		key.bytes[i] = (uint8_t)i;
		other.bytes[i] = (uint8_t)(i + 1);
	}
	memset(chal, 0xa5, sizeof(chal));
	memset(nonce, 0x5a, sizeof(nonce));
	/* Computed with Python's hmac module (an independent HMAC). */
	hex("9a05fca4603e97a97c777596bc12906176cf1033c08ea856d2ecb171c1c4f66e",
	    want, 32);
	ipc_rauth_mac(&key, IPC_RAUTH_CLIENT, chal, nonce, mac);
	ok(!memcmp(mac, want, 32), "client proof matches HMAC-SHA-512/256");
	hex("c622bf76851a79ab976064f99b06232043a00cdebdef561aecf489901397d095",
	    want, 32);
	ipc_rauth_mac(&key, IPC_RAUTH_SERVER, chal, nonce, smac);
	ok(!memcmp(smac, want, 32), "server proof matches HMAC-SHA-512/256");
	ok(ipc_rauth_check(&key, IPC_RAUTH_CLIENT, chal, nonce, mac),
	   "the right proof passes");
	ok(!ipc_rauth_check(&other, IPC_RAUTH_CLIENT, chal, nonce, mac),
	   "another key fails");
	ok(!ipc_rauth_check(&key, IPC_RAUTH_SERVER, chal, nonce, mac),
	   "a client proof is not a server proof");
	chal[0] ^= 1;
	ok(!ipc_rauth_check(&key, IPC_RAUTH_CLIENT, chal, nonce, mac),
	   "an old proof fails against a new challenge (replay)");
	chal[0] ^= 1;
	mac[31] ^= 0x80;
	ok(!ipc_rauth_check(&key, IPC_RAUTH_CLIENT, chal, nonce, mac),
	   "a flipped bit fails");
	ipc_random_bytes(chal, sizeof(chal));
	ipc_random_bytes(nonce, sizeof(nonce));
	ok(memcmp(chal, nonce, sizeof(chal)), "random bytes differ");
}

static void test_key_file(void)
{
	char path[] = "/tmp/ipcperf-key.XXXXXX";
	struct ipc_rkey k;
	int fd = mkstemp(path);

	ok(fd >= 0, "temporary key file");
	if (fd < 0)
		return;
	is_int(write(fd, "0123456789abcdef0123", 20), "==", 20, "key written");
	fchmod(fd, 0644);
	is_int(ipc_rkey_load(path, &k, why, sizeof(why)), "==", -EPERM,
	       "a key others may read is refused");
	ok(strstr(why, "chmod 600") != NULL, "and says what to do: %s", why);
	fchmod(fd, 0600);
	is_int(ipc_rkey_load(path, &k, why, sizeof(why)), "==", 0,
	       "a 20-byte key of mode 600 loads");
	is_int(k.len, "==", 20, "its length");
	ipc_rkey_wipe(&k);
	is_int(k.len, "==", 0, "wiped");
	/* Another user's file, however private, is theirs to swap. */
	if (geteuid() == 0 && fchown(fd, 65534, 65534) == 0) {
		is_int(ipc_rkey_load(path, &k, why, sizeof(why)), "==", -EPERM,
		       "a key file of another owner is refused");
		ok(strstr(why, "uid 65534") != NULL, "and names it: %s", why);
		fchown(fd, 0, 0);
	} else {
		skip("not root: no file of another owner to make");
		skip("not root");
	}
	ftruncate(fd, 8);
	is_int(ipc_rkey_load(path, &k, why, sizeof(why)), "==", -EINVAL,
	       "an 8-byte key is refused");
	ftruncate(fd, IPC_REMOTE_KEY_MAX + 1);
	is_int(ipc_rkey_load(path, &k, why, sizeof(why)), "==", -EINVAL,
	       "a key over 4096 bytes is refused");
	close(fd);
	unlink(path);
	is_int(ipc_rkey_load(path, &k, why, sizeof(why)), "==", -ENOENT,
	       "a missing key file");
	/* A FIFO with no writer: refused at once, not waited on for good. */
	if (mkfifo(path, 0600) == 0) {
		alarm(10);
		is_int(ipc_rkey_load(path, &k, why, sizeof(why)), "==", -EINVAL,
		       "a FIFO for a key is refused without waiting");
		alarm(0);
		ok(strstr(why, "regular") != NULL, "as not a file: %s", why);
		unlink(path);
	} else {
		skip("mkfifo: %s", strerror(errno));
		skip("no FIFO");
	}
}

static void test_addr(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char buf[80];

	is_int(ipc_addr_parse("10.1.2.3:80", AF_UNSPEC, 5301, &ss, &len, why,
			      sizeof(why)),
	       "==", 0, "v4 with port");
	is_str(ipc_addr_format((struct sockaddr *)&ss, len, buf, sizeof(buf)),
	       "10.1.2.3:80", "formatted back");
	is_int(ipc_addr_parse("[::1]:7", AF_UNSPEC, 5301, &ss, &len, why,
			      sizeof(why)),
	       "==", 0, "bracketed v6 with port");
	is_str(ipc_addr_format((struct sockaddr *)&ss, len, buf, sizeof(buf)),
	       "[::1]:7", "formatted back");
	is_int(ipc_addr_parse("fd00::2", AF_UNSPEC, 5301, &ss, &len, why,
			      sizeof(why)),
	       "==", 0, "bare v6 takes the default port");
	is_str(ipc_addr_format((struct sockaddr *)&ss, len, buf, sizeof(buf)),
	       "[fd00::2]:5301", "formatted back");
	is_int(ipc_addr_parse(":9000", AF_INET, 5301, &ss, &len, why,
			      sizeof(why)),
	       "==", 0, ":PORT is the wildcard");
	is_str(ipc_addr_format((struct sockaddr *)&ss, len, buf, sizeof(buf)),
	       "0.0.0.0:9000", "v4 wildcard");
	is_int(ipc_addr_parse("1.2.3.4:65536", AF_UNSPEC, 1, &ss, &len, why,
			      sizeof(why)),
	       "==", -EINVAL, "port 65536 refused");
	is_int(ipc_addr_parse("1.2.3.4:x", AF_UNSPEC, 1, &ss, &len, why,
			      sizeof(why)),
	       "==", -EINVAL, "port x refused");
	is_int(ipc_addr_parse("[::1", AF_UNSPEC, 1, &ss, &len, why,
			      sizeof(why)),
	       "==", -EINVAL, "a lone [ refused");
	is_int(ipc_addr_parse("[::1]:1", AF_INET, 1, &ss, &len, why,
			      sizeof(why)),
	       "==", -EAFNOSUPPORT, "v6 where v4 is needed");
	is_int(ipc_addr_parse("127.0.0.1", AF_INET6, 1, &ss, &len, why,
			      sizeof(why)),
	       "!=", 0, "v4 literal where v6 is needed");
	/*
	 * inet_aton's old forms, each of them 127.0.0.1 to inet_aton (only
	 * loopback spellings: a test that went wrong connects nowhere).
	 */
	{
		static const char *const old[] = {
			"0177.1",     "127.1",	       "0x7f.1:80",
			"2130706433", "127.000.0.1:9", "0177.0.0.01",
		};

		for (size_t i = 0; i < sizeof(old) / sizeof(old[0]); i++) {
			is_int(ipc_addr_parse(old[i], AF_UNSPEC, 1, &ss, &len,
					      why, sizeof(why)),
			       "==", -EINVAL, "'%s' refused: %s", old[i], why);
			is_int(ipc_addr_check(old[i], why, sizeof(why)),
			       "==", -EINVAL, "'%s' refused unresolved",
			       old[i]);
		}
	}
	is_int(ipc_addr_check("127.0.0.1:80", why, sizeof(why)), "==", 0,
	       "a dotted quad passes the check");
	is_int(ipc_addr_check("localhost:80", why, sizeof(why)), "==", 0,
	       "and so does a name");
	is_int(ipc_addr_check("[::1]:80", why, sizeof(why)), "==", 0,
	       "and IPv6");
}

/* A peer that is not ipcperf: told so, not "a message of N bytes". */
static void test_not_ipcperf(void)
{
	static const char http[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
	struct ipc_rmsg m;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		skip("socketpair: %s", strerror(errno));
		return;
	}
	is_int(write(sv[0], http, sizeof(http) - 1),
	       "==", (int)sizeof(http) - 1, "an HTTP answer written");
	is_int(ipc_rwire_recv(sv[1], &m, IPC_REMOTE_MSG_MAX, UINT64_MAX, -1,
			      why, sizeof(why)),
	       "==", -EMSGSIZE, "read as a message that is too long");
	ok(strstr(why, "does not speak") && strstr(why, "HTTP"),
	   "which says the peer is not ipcperf: %s", why);
	close(sv[0]);
	close(sv[1]);
}

/* Every unit of @a in @b: direction, bytes and think time. */
static bool same_units(const struct ipc_trace *a, const struct ipc_trace *b)
{
	if (a->nunits != b->nunits)
		return false;
	for (size_t i = 0; i < a->nunits; i++) {
		const struct ipc_trace_unit *u = &a->units[i],
					    *v = &b->units[i];

		if (u->dir != v->dir || u->len != v->len ||
		    memcmp(a->bytes + u->off, b->bytes + v->off, u->len) ||
		    (u->think_ns > v->think_ns ? u->think_ns - v->think_ns
					       : v->think_ns - u->think_ns) > 1)
			return false;
	}
	return true;
}

/* A trace written for a remote server parses back to the same units. */
static void test_trace_text(void)
{
	static const char *const files[] = {"traces/breakpoint.log",
					    "traces/stub-multi.log"};
	static const char native[] = "> @0 \"a\\\\b\\\"c\\x00\\xff\"\n"
				     "< @0.25 \"\\n\\r\\t\"\n"
				     "> @1.000000001 \"x\"\n";
	struct ipc_trace *t = NULL, *back = NULL;
	char err[256] = "", *text;
	size_t len;

	is_int(ipc_trace_parse("mem", native, strlen(native), &t, err,
			       sizeof(err)),
	       "==", 0, "a native trace with escapes and times (%s)", err);
	ok(t && rm_trace_text(t, &text, &len) == 0, "written out");
	if (t && text) {
		is_int(ipc_trace_parse("back", text, len, &back, err,
				       sizeof(err)),
		       "==", 0, "parses back (%s)", err);
		ok(back && same_units(t, back),
		   "same units: bytes, directions, think times to the ns");
		ipc_trace_free(back);
		free(text);
	}
	ipc_trace_free(t);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		t = back = NULL;
		text = NULL;
		if (ipc_trace_load(files[i], &t, err, sizeof(err))) {
			skip("%s: %s", files[i], err);
			continue;
		}
		ok(rm_trace_text(t, &text, &len) == 0, "%s written out",
		   files[i]);
		is_int(ipc_trace_parse("back", text, len, &back, err,
				       sizeof(err)),
		       "==", 0, "%s parses back (%s)", files[i], err);
		ok(back && same_units(t, back), "%s: the same %zu units",
		   files[i], t->nunits);
		ipc_trace_free(back);
		ipc_trace_free(t);
		free(text);
	}
}

/* A case of @pattern over tcp with the blocking engine. */
static struct ipc_case tcp_case(const char *pattern)
{
	struct ipc_case cs = {0};

	cs.pat = ipc_pattern_find(pattern);
	cs.tp = ipc_transport_find("tcp");
	cs.eng = ipc_engine_find("blocking");
	return cs;
}

/*
 * A client's case carried to the server and read back there: the same
 * figures, the server's own defaults where the client left them at 0.
 */
static void test_case_carried(void)
{
	struct ipc_case cs = tcp_case("rr"), back;
	struct ipc_runopts ro, bro, def;
	struct ipc_rtest t;
	char text[256] = "";

	ipc_runopts_default(&ro);
	ipc_runopts_default(&def);
	cs.req_size = 100;
	cs.resp_size = 3000;
	ro.verify = false;
	ro.pin_server = 1;
	ro.tp.nodelay = false;
	ro.tp.sndbuf = 65536;
	ro.tp.rcvbuf = -1;
	ro.tp.busy_poll_us = 50;
	ro.timeout_ns = 0;
	rm_test_of(&cs, &ro, &t);
	is_str(t.pattern, "rr", "carried: the pattern's name");
	is_int(t.req_size, "==", 100, "carried: req_size");
	is_int(t.pin_cpu, "==", 1, "carried: the server's CPU");
	is_int(t.rcvbuf, "==", 0, "carried: a default buffer as 0");
	is_int(rm_test_case(&t, NULL, &back, &bro, text, sizeof(text)), "==", 0,
	       "carried: the server takes the case (%s)", text);
	ok(back.pat == cs.pat && back.tp == cs.tp && back.eng == cs.eng,
	   "carried: the same pattern, transport and engine");
	is_int(back.req_size, "==", 100, "carried back: req_size");
	is_int(back.resp_size, "==", 3000, "carried back: resp_size");
	ok(!bro.verify && !bro.tp.nodelay, "carried back: verify, nodelay");
	is_int(bro.pin_server, "==", 1, "carried back: pin_server");
	is_int(bro.tp.sndbuf, "==", 65536, "carried back: sndbuf");
	is_int(bro.tp.rcvbuf, "==", 0, "carried back: rcvbuf, the default");
	is_int(bro.tp.busy_poll_us, "==", 50, "carried back: busy_poll_us");
	is_int(bro.timeout_ns, "==", def.timeout_ns,
	       "carried back: timeout 0 keeps the server's default");
	is_int(bro.tp.timeout_ns, "==", def.timeout_ns,
	       "carried back: the transport's timeout too");
	ok(!t.reverse && back.direction == IPC_DIR_SEND,
	   "carried: rr has no direction, the client sends");
}

/* -R reaches the server as reverse, on a stream only. */
static void test_direction_carried(void)
{
	struct ipc_case cs = tcp_case("stream"), back;
	struct ipc_runopts ro, bro;
	struct ipc_rtest t;
	char text[256] = "";

	ipc_runopts_default(&ro);
	cs.msg_size = 1024;
	cs.count = 10;
	cs.direction = IPC_DIR_REVERSE;
	rm_test_of(&cs, &ro, &t);
	ok(t.reverse, "-R: carried as reverse");
	is_int(rm_test_case(&t, NULL, &back, &bro, text, sizeof(text)), "==", 0,
	       "-R: the server takes the stream (%s)", text);
	is_int(back.direction, "==", IPC_DIR_REVERSE,
	       "-R: the server's side sends");
	rm_strlcpy(t.transport, "udp", sizeof(t.transport));
	is_int(rm_test_case(&t, NULL, &back, &bro, text, sizeof(text)), "==", 0,
	       "-R over udp: taken, as locally (%s)", text);
	is_int(back.direction, "==", IPC_DIR_REVERSE,
	       "-R over udp: the server's side sends");
	rm_strlcpy(t.transport, "tcp", sizeof(t.transport));
	rm_strlcpy(t.pattern, "rr", sizeof(t.pattern));
	t.req_size = t.resp_size = 64;
	is_int(rm_test_case(&t, NULL, &back, &bro, text, sizeof(text)), "<", 0,
	       "reverse on rr: refused");
	ok(strstr(text, "only a stream test has a direction") != NULL,
	   "... naming it (%s)", text);
}

int main(void)
{
	test_frame();
	test_roundtrip();
	test_bad_fields();
	test_auth();
	test_key_file();
	test_addr();
	test_not_ipcperf();
	test_trace_text();
	test_case_carried();
	test_direction_carried();
	return done_testing();
}
