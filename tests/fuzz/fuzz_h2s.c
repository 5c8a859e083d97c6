/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the built-in target's h2c connection
 * (pattern/h2_serve.c): what an h2c client sends is untrusted.  The first
 * byte is the read size (1 << (value % 17) bytes, so frames are cut
 * anywhere); the rest, after HTTP/2's preface (put in front unless the
 * input has it), goes to h2s_feed a read at a time, and everything the
 * session has to write is taken after each read, as the target's loop
 * does.
 *
 * Checked: the session never gives more bytes than it says, never counts
 * more strangers than answers, and once a feed failed it ends: after
 * its GOAWAY is taken it reads nothing more and has nothing to write.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pattern/h2_serve.h"

static void check(bool cond)
{
	if (!cond)
		abort();
}

/* Take what it has to write; -1 when it failed. */
static int drain(struct h2s *h)
{
	for (int i = 0; i < 100000; i++) {
		const uint8_t *p;
		long n = h2s_out(h, &p);

		if (n < 0)
			return -1;
		if (!n)
			return 0;
		check(p != NULL);
		/* Half at a time: a write the socket takes in part. */
		h2s_sent(h, n > 1 ? (size_t)n / 2 : (size_t)n);
	}
	abort(); /* it never stops writing */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static const char page[] = "<html>a page</html>";
	const struct h2s_page pg = {.body = page,
				    .len = sizeof(page) - 1,
				    .type = "text/html",
				    .token = "t0k"};
	uint8_t *buf;
	size_t step, off = 0, n;
	struct h2s *h;
	bool failed = false;

	if (!len)
		return 0;
	step = (size_t)1 << (data[0] % 17);
	data++;
	len--;
	/* The preface in front, unless the input brings its own. */
	n = len >= H2S_PREFACE_LEN &&
			    !memcmp(data, H2S_PREFACE, H2S_PREFACE_LEN)
		    ? len
		    : len + H2S_PREFACE_LEN;
	buf = malloc(n ? n : 1);
	if (!buf)
		return 0;
	if (n == len) {
		memcpy(buf, data, len);
	} else {
		memcpy(buf, H2S_PREFACE, H2S_PREFACE_LEN);
		memcpy(buf + H2S_PREFACE_LEN, data, len);
	}
	h = h2s_new(&pg);
	if (!h) {
		free(buf);
		return 0;
	}
	while (off < n && !failed) {
		size_t k = n - off < step ? n - off : step;

		if (h2s_feed(h, buf + off, k))
			failed = true;
		off += k;
		if (drain(h))
			failed = true;
	}
	drain(h);
	check(h2s_count(h)->strangers <= h2s_count(h)->answered);
	if (failed)
		check(!h2s_wants_read(h) && !h2s_wants_write(h));
	h2s_free(h);
	free(buf);
	return 0;
}
