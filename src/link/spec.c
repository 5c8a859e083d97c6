/* SPDX-License-Identifier: MIT */
/*
 * Link specifications: the presets, the --link list syntax, which
 * transports a link can run over, and the line time of a number of bytes.
 * The figures behind each preset and their sources are in docs/links.md.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcperf/base.h"
#include "ipcperf/link.h"
#include "link/lib_internal.h"

/*
 * Pieces of a byte stream: 1448 bytes is what one TCP segment carries on
 * Ethernet (1500-byte MTU less 20 bytes of IP and 32 of TCP with
 * timestamps).
 */
#define LINK_MTU_DEFAULT 1448

/*
 * Limits of the parameters: a delay or jitter of a minute is beyond any
 * link in docs/links.md; 1 Tbit/s beyond any line a relay could keep up
 * with.  rate=0 means no rate limit (the delay alone).
 */
#define LINK_TIME_MAX (60 * 1000000000ull)
#define LINK_RATE_MAX 1000000000000ull

const struct ipc_link_preset ipc_link_presets[] = {
	{"none", "", "no relay: the transport as it is"},
	{"localhost", "", "the same as none (the seed's \"local\" column)"},
	{"lan-100m", "rate=100mbit,overhead=90,delay=50us",
	 "switched Fast Ethernet: 100 Mbit/s, 90 B of headers per segment"},
	{"wifi-g", "rate=54mbit,overhead=1130,delay=700us,jitter=300us",
	 "802.11g: 54 Mbit/s, ~1.1 kB of airtime overhead per frame"},
	{"wan", "rate=10mbit,overhead=90,delay=35ms,jitter=1ms",
	 "a cross-country tunnel: 70 ms round trip, 10 Mbit/s"},
	{"serial-9600", "baud=9600", "serial line, 9600 baud, 8N1"},
	{"serial-115200", "baud=115200", "serial line, 115200 baud, 8N1"},
	{NULL, NULL, NULL},
};

static void link_reset(struct ipc_link *l)
{
	memset(l, 0, sizeof(*l));
	l->bits_per_byte = 8;
	l->mtu = LINK_MTU_DEFAULT;
}

/*
 * A bit for each parameter, to find one given twice; rate and baud set
 * the same line rate, so they share theirs.
 */
static unsigned key_bit(const char *item, size_t klen)
{
	static const char *const keys[] = {"delay", "jitter", "rate",	 "baud",
					   "loss",  "mtu",    "overhead"};

	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (klen == strlen(keys[i]) && !strncmp(item, keys[i], klen))
			return 1u << (i == 3 ? 2 : i);
	return 0;
}

/*
 * Apply one key=value item to @l.  0 or -EINVAL with @err filled; *key
 * (when not NULL) gets a bit of its own for each parameter.
 */
static int apply(struct ipc_link *l, const char *item, unsigned *key, char *err,
		 size_t err_len)
{
	const char *eq = strchr(item, '=');
	const char *v = eq + 1;
	size_t klen = (size_t)(eq - item);
	char why[200];
	uint64_t x;
	int rc;

#define PARSE(kind, min, max, out)                                             \
	ipc_units_parse(kind, v, min, max, out, why, sizeof(why))

#define KEY(k) (klen == strlen(k) && !strncmp(item, k, klen))
	if (KEY("delay")) {
		rc = PARSE(IPC_UNIT_TIME, 0, LINK_TIME_MAX, &l->delay_ns);
	} else if (KEY("jitter")) {
		rc = PARSE(IPC_UNIT_TIME, 0, LINK_TIME_MAX, &l->jitter_ns);
	} else if (KEY("rate")) {
		rc = PARSE(IPC_UNIT_BITRATE, 0, LINK_RATE_MAX, &l->rate_bps);
		if (!rc)
			l->bits_per_byte = 8;
	} else if (KEY("baud")) {
		rc = PARSE(IPC_UNIT_COUNT, 50, 100000000, &x);
		if (!rc) {
			l->rate_bps = x;
			l->bits_per_byte = 10;
		}
	} else if (KEY("loss")) {
		rc = PARSE(IPC_UNIT_PERCENT, 0, 1000000, &x);
		if (!rc)
			l->loss_ppm = (uint32_t)x;
	} else if (KEY("mtu")) {
		rc = PARSE(IPC_UNIT_SIZE, 1, 1u << 20, &x);
		if (!rc)
			l->mtu = (uint32_t)x;
	} else if (KEY("overhead")) {
		rc = PARSE(IPC_UNIT_SIZE, 0, 65536, &x);
		if (!rc)
			l->overhead = (uint32_t)x;
	} else {
		snprintf(err, err_len,
			 "unknown link parameter '%.*s' (parameters: delay, "
			 "jitter, rate, baud, loss, mtu, overhead)",
			 (int)klen, item);
		return -EINVAL;
	}
#undef KEY
#undef PARSE
	if (rc) {
		snprintf(err, err_len, "%.*s: %s", (int)klen, item, why);
		return -EINVAL;
	}
	if (key)
		*key = key_bit(item, klen);
	l->relay = true;
	return 0;
}

static const struct ipc_link_preset *preset_find(const char *name)
{
	for (size_t i = 0; ipc_link_presets[i].name; i++)
		if (!strcmp(ipc_link_presets[i].name, name))
			return &ipc_link_presets[i];
	return NULL;
}

/* A preset's link, from its own spec (which is known to parse). */
static void preset_link(const struct ipc_link_preset *p, struct ipc_link *l)
{
	char buf[128], *tok, *save = NULL, err[8];

	link_reset(l);
	snprintf(l->name, sizeof(l->name), "%s", p->name);
	snprintf(buf, sizeof(buf), "%s", p->spec);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		apply(l, tok, NULL, err, sizeof(err));
}

/* Add @item to the link's name: "wan+loss=1%" or "delay=1ms,jitter=1ms". */
static void name_add(struct ipc_link *l, const char *item, bool first)
{
	size_t n = strlen(l->name);

	if (n + 1 >= sizeof(l->name))
		return;
	snprintf(l->name + n, sizeof(l->name) - n, "%s%s",
		 n == 0	 ? ""
		 : first ? "+"
			 : ",",
		 item);
}

int ipc_link_parse(const char *list, struct ipc_link *out, size_t max,
		   size_t *n, char *err, size_t err_len)
{
	char buf[512], *tok, *save = NULL;
	struct ipc_link *cur = NULL;
	unsigned given = 0, key; /* the parameters typed for cur */
	bool first = false;
	size_t start = *n, len = strlen(list);

	if (!*list) {
		snprintf(err, err_len, "empty link list");
		return -EINVAL;
	}
	if (len >= sizeof(buf)) {
		snprintf(err, err_len, "link list too long");
		return -EINVAL;
	}
	/* strtok would pass over an empty item in silence. */
	if (list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,")) {
		snprintf(err, err_len, "empty item in the link list '%s'",
			 list);
		return -EINVAL;
	}
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct ipc_link_preset *p;

		if (strchr(tok, '=')) {
			if (!cur) {
				if (*n >= max)
					goto too_many;
				cur = &out[(*n)++];
				link_reset(cur);
				first = false;
			} else if (!cur->relay) {
				/* "none,delay=1ms" names itself after the
				   parameters alone. */
				cur->name[0] = '\0';
			}
			if (apply(cur, tok, &key, err, err_len))
				goto fail;
			if (given & key) {
				snprintf(err, err_len,
					 "'%.*s' given twice for one link%s",
					 (int)(strchr(tok, '=') - tok), tok,
					 key == 1u << 2 ? " (rate and baud "
							  "both set the line "
							  "rate)"
							: "");
				goto fail;
			}
			given |= key;
			name_add(cur, tok, first);
			first = false;
			continue;
		}
		p = preset_find(tok);
		if (!p) {
			snprintf(err, err_len, "unknown link '%s'", tok);
			goto fail;
		}
		if (*n >= max)
			goto too_many;
		cur = &out[(*n)++];
		preset_link(p, cur);
		given = 0;
		first = true;
	}
	if (*n == start) {
		snprintf(err, err_len, "empty link list '%s'", list);
		return -EINVAL;
	}
	return 0;
too_many:
	snprintf(err, err_len, "more than %zu links", max);
fail:
	*n = start;
	return -EINVAL;
}

int ipc_link_can_carry(const struct ipc_link *l,
		       const struct ipc_transport_ops *tp, char *why,
		       size_t why_len)
{
	if (!l || !l->relay)
		return 0;
	if (!(tp->caps & IPC_TP_FD)) {
		snprintf(why, why_len,
			 "the link relay waits with poll and %s has no "
			 "descriptors",
			 tp->name);
		return -EINVAL;
	}
	if (l->loss_ppm && !(tp->caps & IPC_TP_LOSSY)) {
		snprintf(why, why_len, "loss= drops datagrams and %s %s",
			 tp->name,
			 tp->caps & IPC_TP_STREAM
				 ? "is a byte stream (a lost segment is sent "
				   "again, which delay= models)"
				 : "is not a lossy transport (nothing would "
				   "notice the loss)");
		return -EINVAL;
	}
	return 0;
}

uint64_t ipc_link_wire_ns(const struct ipc_link *l, uint64_t bytes,
			  uint64_t pieces)
{
	long double bits;

	if (!l || !l->rate_bps)
		return 0;
	bits = ((long double)bytes + (long double)pieces * l->overhead) *
	       l->bits_per_byte;
	return (uint64_t)llroundl(bits * 1e9L / (long double)l->rate_bps);
}
