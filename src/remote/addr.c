/* SPDX-License-Identifier: MIT */
/*
 * Addresses of remote mode: "ADDR[:PORT]", "[ADDR6]:PORT", "HOST:PORT" and
 * ":PORT" in, "10.0.0.1:5301" and "[fd00::1]:5301" out.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/remote_internal.h"

__attribute__((format(printf, 4, 5))) static int
bad(char *why, size_t why_len, int rc, const char *fmt, ...)
{
	va_list ap;

	if (why && why_len) {
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* A port number 0..65535 from the whole of @s. */
static int port_of(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

static socklen_t wildcard(struct sockaddr_storage *ss, int family,
			  uint16_t port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return sizeof(*sin);
	}
	sin6->sin6_family = AF_INET6;
	sin6->sin6_addr = in6addr_any;
	sin6->sin6_port = htons(port);
	return sizeof(*sin6);
}

/*
 * A name whose last label starts with a digit is no DNS name (no top-level
 * domain does): it is an IPv4 address, and only as a.b.c.d.  getaddrinfo
 * would also take inet_aton's old forms, where "010" is 0.0.0.8, "1.5" is
 * 1.0.0.5 and a lone port number an address: a typo would then measure
 * some other host.
 */
static int numeric_ok(const char *host, const char *spec, char *why,
		      size_t why_len)
{
	const char *last = strrchr(host, '.');
	struct in_addr a;

	last = last ? last + 1 : host;
	if (strchr(host, ':') || !(*last >= '0' && *last <= '9'))
		return 0;
	if (inet_pton(AF_INET, host, &a) == 1)
		return 0;
	return bad(why, why_len, -EINVAL,
		   "'%s' is not an IPv4 address: give four numbers 0 to 255 "
		   "without leading zeros (a.b.c.d), a host name, or HOST:PORT",
		   spec);
}

int ipc_addr_check(const char *spec, char *why, size_t why_len)
{
	const char *colon = strrchr(spec, ':');
	char host[256];
	size_t hlen;

	/* Bracketed or bare IPv6 has no IPv4 forms to refuse. */
	if (spec[0] == '[' || (colon && strchr(spec, ':') != colon))
		return 0;
	hlen = colon ? (size_t)(colon - spec) : strlen(spec);
	if (hlen >= sizeof(host))
		return 0; /* the parse says it is too long */
	memcpy(host, spec, hlen);
	host[hlen] = '\0';
	return hlen ? numeric_ok(host, spec, why, why_len) : 0;
}

int ipc_addr_parse(const char *spec, int family, uint16_t port,
		   struct sockaddr_storage *ss, socklen_t *len, char *why,
		   size_t why_len)
{
	char host[256], pbuf[8];
	const char *colon, *h = spec;
	size_t hlen;
	struct addrinfo hints = {0}, *ai = NULL;
	int rc;

	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close)
			return bad(why, why_len, -EINVAL,
				   "'%s': a '[' without its ']'", spec);
		h = spec + 1;
		hlen = (size_t)(close - h);
		if (close[1] == ':') {
			if (port_of(close + 2, &port))
				return bad(why, why_len, -EINVAL,
					   "'%s': bad port '%s'", spec,
					   close + 2);
		} else if (close[1]) {
			return bad(why, why_len, -EINVAL,
				   "'%s': unexpected '%s' after ']'", spec,
				   close + 1);
		}
		if (family == AF_INET)
			return bad(why, why_len, -EAFNOSUPPORT,
				   "'%s' is an IPv6 address", spec);
		if (family == AF_UNSPEC)
			family = AF_INET6;
	} else {
		colon = strrchr(spec, ':');
		/* Two colons or more without brackets: a bare IPv6 address. */
		if (colon && strchr(spec, ':') != colon)
			colon = NULL;
		hlen = colon ? (size_t)(colon - spec) : strlen(spec);
		if (colon && port_of(colon + 1, &port))
			return bad(why, why_len, -EINVAL, "'%s': bad port '%s'",
				   spec, colon + 1);
	}
	if (hlen >= sizeof(host))
		return bad(why, why_len, -ENAMETOOLONG,
			   "'%.40s...': the host name is too long", spec);
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	if (!hlen) {
		*len = wildcard(ss, family, port);
		return 0;
	}
	rc = numeric_ok(host, spec, why, why_len);
	if (rc)
		return rc;
	hints.ai_family = family;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
	snprintf(pbuf, sizeof(pbuf), "%u", (unsigned)port);
	rc = getaddrinfo(host, pbuf, &hints, &ai);
	if (rc == EAI_ADDRFAMILY || rc == EAI_NONAME || rc == EAI_FAMILY) {
		/* AI_ADDRCONFIG hides ::1 on a host without IPv6 routes. */
		hints.ai_flags = AI_NUMERICSERV;
		rc = getaddrinfo(host, pbuf, &hints, &ai);
	}
	if (rc)
		return bad(why, why_len, -EHOSTUNREACH,
			   "cannot resolve '%s': %s", host,
			   family == AF_INET6 && rc == EAI_NONAME
				   ? "no IPv6 address"
				   : gai_strerror(rc));
	if (ai->ai_addrlen > sizeof(*ss)) {
		freeaddrinfo(ai);
		return bad(why, why_len, -EINVAL, "'%s': odd address", spec);
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

char *ipc_addr_format(const struct sockaddr *sa, socklen_t len, char *buf,
		      size_t buf_len)
{
	char a[INET6_ADDRSTRLEN];

	(void)len;
	if (sa->sa_family == AF_INET6 &&
	    IN6_IS_ADDR_V4MAPPED(
		    &((const struct sockaddr_in6 *)sa)->sin6_addr)) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		/* An IPv4 client of a dual-stack listener, as IPv4. */
		inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], a, sizeof(a));
		snprintf(buf, buf_len, "%s:%u", a, ntohs(s6->sin6_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(buf, buf_len, "[%s]:%u", a, ntohs(s6->sin6_port));
	} else if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, buf_len, "%s:%u", a, ntohs(s4->sin_port));
	} else {
		snprintf(buf, buf_len, "(family %d)", sa->sa_family);
	}
	return buf;
}
