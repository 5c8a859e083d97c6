/* SPDX-License-Identifier: MIT */
/*
 * TLS over OpenSSL: the client's connections through memory buffers, the
 * built-in target's on its sockets, and the certificate it makes for
 * itself when it is given none.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "tls.h"

/* ALPN's list on the wire: a length byte before each name. */
static const unsigned char alpn_h1[] = "\x08http/1.1";
static const unsigned char alpn_h2[] = "\x02h2\x08http/1.1";

static void err_text(char *buf, size_t len)
{
	unsigned long e = ERR_peek_last_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	snprintf(buf, len, "%s", r ? r : "unknown TLS error");
	ERR_clear_error();
}

static int set_version(SSL_CTX *ctx, unsigned v)
{
	int lo = TLS1_2_VERSION, hi = TLS1_3_VERSION;

	if (v == 12)
		hi = TLS1_2_VERSION;
	else if (v == 13)
		lo = TLS1_3_VERSION;
	return SSL_CTX_set_min_proto_version(ctx, lo) &&
			       SSL_CTX_set_max_proto_version(ctx, hi)
		       ? 0
		       : -1;
}

SSL_CTX *tls_client_ctx(const struct tls_client_opts *o, char *why,
			size_t why_len)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	char e[160];

	if (!ctx) {
		err_text(e, sizeof(e));
		snprintf(why, why_len, "TLS: %s", e);
		return NULL;
	}
	if (set_version(ctx, o->version))
		goto fail;
	/*
	 * Sessions stay with their flow (tls_client_free), not in a cache
	 * shared by the threads: a flow resumes its own, as a browser's tab
	 * does, and no lock is taken on a reconnect.
	 */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT |
						    SSL_SESS_CACHE_NO_INTERNAL);
	if (o->h2 ? SSL_CTX_set_alpn_protos(ctx, alpn_h2, sizeof(alpn_h2) - 1)
		  : SSL_CTX_set_alpn_protos(ctx, alpn_h1, sizeof(alpn_h1) - 1))
		goto fail;
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
	if (o->insecure) {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
		return ctx;
	}
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if (o->cacert) {
		if (!SSL_CTX_load_verify_locations(ctx, o->cacert, NULL)) {
			err_text(e, sizeof(e));
			snprintf(why, why_len, "--cacert %s: %s", o->cacert, e);
			SSL_CTX_free(ctx);
			return NULL;
		}
	} else if (!SSL_CTX_set_default_verify_paths(ctx)) {
		goto fail;
	}
	return ctx;
fail:
	err_text(e, sizeof(e));
	snprintf(why, why_len, "TLS: %s", e);
	SSL_CTX_free(ctx);
	return NULL;
}

void tls_ctx_free(SSL_CTX *ctx)
{
	SSL_CTX_free(ctx);
}

SSL *tls_client_new(SSL_CTX *ctx, const struct tls_client_opts *o, void *sess)
{
	SSL *ssl = SSL_new(ctx);
	BIO *in = BIO_new(BIO_s_mem()), *out = BIO_new(BIO_s_mem());
	unsigned char ip[16];
	bool literal = inet_pton(AF_INET, o->host, ip) == 1 ||
		       inet_pton(AF_INET6, o->host, ip) == 1;

	if (!ssl || !in || !out) {
		SSL_free(ssl);
		BIO_free(in);
		BIO_free(out);
		return NULL;
	}
	/* An empty buffer says "retry" (wait), not end of stream. */
	BIO_set_mem_eof_return(in, -1);
	BIO_set_mem_eof_return(out, -1);
	SSL_set_bio(ssl, in, out);
	SSL_set_connect_state(ssl);
	if (literal) {
		/* No SNI for an address (RFC 6066); the address is checked. */
		X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), o->host);
	} else {
		SSL_set_tlsext_host_name(ssl, o->host);
		SSL_set1_host(ssl, o->host);
	}
	if (sess)
		SSL_set_session(ssl, sess);
	return ssl;
}

void tls_client_free(SSL *ssl, void **sess)
{
	SSL_SESSION *s;

	if (!ssl)
		return;
	s = SSL_get1_session(ssl);
	if (s && SSL_SESSION_is_resumable(s)) {
		SSL_SESSION_free(*sess);
		*sess = s;
	} else {
		SSL_SESSION_free(s);
	}
	/*
	 * A connection freed unshut would mark its session unusable; the
	 * HTTP exchange decides what a close means, not TLS.
	 */
	SSL_set_shutdown(ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
	SSL_free(ssl);
}

void tls_session_free(void *sess)
{
	SSL_SESSION_free(sess);
}

int tls_handshake(SSL *ssl)
{
	int r = SSL_do_handshake(ssl);

	if (r == 1)
		return 1;
	return SSL_get_error(ssl, r) == SSL_ERROR_WANT_READ ? 0 : -1;
}

int tls_put(SSL *ssl, const void *buf, size_t len)
{
	size_t n;

	return BIO_write_ex(SSL_get_rbio(ssl), buf, len, &n) && n == len ? 0
									 : -1;
}

size_t tls_take(SSL *ssl, void *buf, size_t cap)
{
	size_t n = 0;

	if (!BIO_read_ex(SSL_get_wbio(ssl), buf, cap, &n))
		return 0;
	return n;
}

long tls_write(SSL *ssl, const void *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return 0;
	return SSL_write_ex(ssl, buf, len, &n) ? (long)n : -1;
}

long tls_read(SSL *ssl, void *buf, size_t cap)
{
	size_t n = 0;

	if (SSL_read_ex(ssl, buf, cap, &n))
		return (long)n;
	switch (SSL_get_error(ssl, 0)) {
	case SSL_ERROR_WANT_READ:
		return 0;
	case SSL_ERROR_ZERO_RETURN:
		return TLS_CLOSED;
	default:
		return -1;
	}
}

bool tls_alpn_h2(const SSL *ssl)
{
	const unsigned char *a = NULL;
	unsigned alen = 0;

	SSL_get0_alpn_selected(ssl, &a, &alen);
	return alen == 2 && !memcmp(a, "h2", 2);
}

bool tls_resumed(const SSL *ssl)
{
	return SSL_session_reused(ssl);
}

char *tls_describe(const SSL *ssl, char *buf, size_t len)
{
	const unsigned char *a = NULL;
	unsigned alen = 0;

	SSL_get0_alpn_selected(ssl, &a, &alen);
	snprintf(buf, len, "%s %s%s%.*s", SSL_get_version(ssl),
		 SSL_get_cipher_name(ssl), alen ? " " : "", (int)alen,
		 alen ? (const char *)a : "");
	return buf;
}

bool tls_why(const SSL *ssl, char *buf, size_t len)
{
	long v = SSL_get_verify_result(ssl);
	unsigned long e = ERR_peek_last_error();

	if (v != X509_V_OK &&
	    ERR_GET_REASON(e) == SSL_R_CERTIFICATE_VERIFY_FAILED) {
		snprintf(buf, len,
			 "the server's certificate does not verify: %s",
			 X509_verify_cert_error_string(v));
		ERR_clear_error();
		return true;
	}
	err_text(buf, len);
	return false;
}

/* ---- the built-in target ------------------------------------------- */

/* A key and a certificate for localhost, 127.0.0.1 and ::1, for a day. */
static int self_signed(SSL_CTX *ctx)
{
	EVP_PKEY *key = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	X509_NAME *name;
	X509_EXTENSION *san = NULL;
	X509V3_CTX v3;
	int ok = 0;

	if (!key || !x)
		goto out;
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_set_version(x, 2);
	X509_gmtime_adj(X509_getm_notBefore(x), -3600);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400);
	name = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
				   (const unsigned char *)"localhost", -1, -1,
				   0);
	X509_set_issuer_name(x, name);
	X509_set_pubkey(x, key);
	X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
	san = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name,
				  "DNS:localhost,IP:127.0.0.1,IP:::1");
	if (!san || !X509_add_ext(x, san, -1))
		goto out;
	if (!X509_sign(x, key, EVP_sha256()))
		goto out;
	ok = SSL_CTX_use_certificate(ctx, x) &&
	     SSL_CTX_use_PrivateKey(ctx, key);
out:
	X509_EXTENSION_free(san);
	X509_free(x);
	EVP_PKEY_free(key);
	return ok ? 0 : -1;
}

/*
 * ALPN: h2 when the client offers it, else http/1.1, as a server with
 * HTTP/2 enabled chooses; a client offering neither is served HTTP/1.1.
 */
static int pick_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen,
		     const unsigned char *in, unsigned inlen, void *arg)
{
	(void)ssl;
	(void)arg;
	if (SSL_select_next_proto((unsigned char **)out, outlen, alpn_h2,
				  sizeof(alpn_h2) - 1, in,
				  inlen) == OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_OK;
	return SSL_TLSEXT_ERR_NOACK;
}

SSL_CTX *tls_server_ctx(const char *cert_file, const char *key_file, char *why,
			size_t why_len)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	char e[160];

	if (!ctx || set_version(ctx, 0)) {
		err_text(e, sizeof(e));
		snprintf(why, why_len, "TLS: %s", e);
		SSL_CTX_free(ctx);
		return NULL;
	}
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
				      SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
				      SSL_MODE_RELEASE_BUFFERS);
	SSL_CTX_set_alpn_select_cb(ctx, pick_alpn, NULL);
	/* A client's close without close_notify ends the stream, as ab's. */
	SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
	if (!cert_file) {
		if (self_signed(ctx)) {
			err_text(e, sizeof(e));
			snprintf(why, why_len,
				 "could not make a certificate: %s", e);
			SSL_CTX_free(ctx);
			return NULL;
		}
		return ctx;
	}
	if (!SSL_CTX_use_certificate_chain_file(ctx, cert_file)) {
		err_text(e, sizeof(e));
		snprintf(why, why_len, "--cert %s: %s", cert_file, e);
		SSL_CTX_free(ctx);
		return NULL;
	}
	if (!SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) ||
	    !SSL_CTX_check_private_key(ctx)) {
		err_text(e, sizeof(e));
		snprintf(why, why_len, "--key %s: %s", key_file, e);
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

SSL *tls_server_new(SSL_CTX *ctx, int fd)
{
	SSL *ssl = SSL_new(ctx);

	if (ssl && !SSL_set_fd(ssl, fd)) {
		SSL_free(ssl);
		return NULL;
	}
	if (ssl)
		SSL_set_accept_state(ssl);
	return ssl;
}

void tls_server_free(SSL *ssl)
{
	SSL_free(ssl);
	ERR_clear_error();
}

/* 0 when @r's error means waiting (and on what), -1 when it failed. */
static int waits(SSL *ssl, int r, bool *want_write)
{
	switch (SSL_get_error(ssl, r)) {
	case SSL_ERROR_WANT_READ:
		*want_write = false;
		return 0;
	case SSL_ERROR_WANT_WRITE:
		*want_write = true;
		return 0;
	default:
		ERR_clear_error();
		return -1;
	}
}

int tls_server_accept(SSL *ssl, bool *want_write)
{
	int r = SSL_do_handshake(ssl);

	*want_write = false;
	return r == 1 ? 1 : waits(ssl, r, want_write);
}

long tls_server_recv(SSL *ssl, void *buf, size_t cap, bool peek,
		     bool *want_write)
{
	size_t n = 0;
	int e;

	*want_write = false;
	if (peek ? SSL_peek_ex(ssl, buf, cap, &n)
		 : SSL_read_ex(ssl, buf, cap, &n))
		return (long)n;
	e = SSL_get_error(ssl, 0);
	if (e == SSL_ERROR_ZERO_RETURN) {
		ERR_clear_error();
		return TLS_CLOSED;
	}
	return waits(ssl, 0, want_write);
}

long tls_server_send(SSL *ssl, const void *buf, size_t len, bool *want_write)
{
	size_t n = 0;

	*want_write = false;
	if (SSL_write_ex(ssl, buf, len, &n))
		return (long)n;
	return waits(ssl, 0, want_write);
}

bool tls_server_pending(const SSL *ssl)
{
	return SSL_has_pending(ssl);
}

void tls_server_close(SSL *ssl)
{
	SSL_shutdown(ssl);
	ERR_clear_error();
}
