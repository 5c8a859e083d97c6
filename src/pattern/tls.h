/* SPDX-License-Identifier: MIT */
/*
 * TLS for http's client and the built-in target, over OpenSSL.  The
 * client runs TLS through memory buffers, so that any engine (poll,
 * epoll, io_uring, busy) moves the encrypted bytes as it moves plain ones;
 * the target, which waits on its sockets itself, lets OpenSSL use them.
 * Private to the pattern layer.
 */
#ifndef IPCPERF_PATTERN_TLS_H
#define IPCPERF_PATTERN_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

struct tls_client_opts {
	const char *host;   /* the URL's host: SNI and the name checked */
	const char *cacert; /* a PEM file of trusted CAs, NULL: the system's */
	bool insecure;	    /* do not verify the server's certificate */
	unsigned version;   /* 12 or 13: only that version; 0: either */
	bool h2;	    /* offer h2 before http/1.1 by ALPN */
};

/*
 * A client context: TLS 1.2 or 1.3, ALPN "http/1.1" (or "h2" then
 * "http/1.1" with o->h2), sessions kept for
 * resumption (tls_session_*).  NULL with one sentence in @why.
 */
SSL_CTX *tls_client_ctx(const struct tls_client_opts *o, char *why,
			size_t why_len);

/*
 * A server context from @cert_file and @key_file (PEM), or, both NULL,
 * with a certificate for localhost and 127.0.0.1 made now and signed by
 * itself; by ALPN it chooses h2 when offered, else http/1.1 (tls_alpn_h2
 * tells which).  NULL with one sentence in @why.
 */
SSL_CTX *tls_server_ctx(const char *cert_file, const char *key_file, char *why,
			size_t why_len);

void tls_ctx_free(SSL_CTX *ctx);

/*
 * A client connection over memory buffers: the bytes the network brought
 * go in with tls_put, the bytes to send come out with tls_take.  @sess:
 * a session to resume (tls_session_*), or NULL.
 */
SSL *tls_client_new(SSL_CTX *ctx, const struct tls_client_opts *o, void *sess);

/* Free @ssl after keeping its session in *@sess (freeing the old one). */
void tls_client_free(SSL *ssl, void **sess);

/* Forget a kept session; NULL is a no-op. */
void tls_session_free(void *sess);

/*
 * Move the handshake on: 1 done, 0 it waits for bytes from the server,
 * -1 it failed (tls_why says why).
 */
int tls_handshake(SSL *ssl);

/* Encrypted bytes that came from the network, into @ssl.  0 or -1. */
int tls_put(SSL *ssl, const void *buf, size_t len);

/* Encrypted bytes to send, up to @cap, into @buf: how many (0: none). */
size_t tls_take(SSL *ssl, void *buf, size_t cap);

/* Encrypt up to @len bytes of @buf: how many it took, or -1. */
long tls_write(SSL *ssl, const void *buf, size_t len);

/*
 * Decrypt into @buf: bytes, 0 when it waits for more from the network,
 * TLS_CLOSED when the server said close_notify, -1 on an error (an alert,
 * bytes that are not TLS).
 */
#define TLS_CLOSED (-2)
long tls_read(SSL *ssl, void *buf, size_t cap);

/* Was h2 chosen by ALPN (either side's connection)? */
bool tls_alpn_h2(const SSL *ssl);

/* Was @ssl's session resumed? */
bool tls_resumed(const SSL *ssl);

/*
 * Its protocol, cipher and ALPN in words: "TLSv1.3 TLS_AES_256_GCM_SHA384
 * http/1.1".  Returns @buf.
 */
char *tls_describe(const SSL *ssl, char *buf, size_t len);

/*
 * Why the last operation on @ssl failed, in words (the verification's
 * reason when that failed, else OpenSSL's first error), into @buf; true
 * when the certificate did not verify.
 */
bool tls_why(const SSL *ssl, char *buf, size_t len);

/* ---- the built-in target's side: OpenSSL on the socket -------------- */

/* A server connection on @fd (non-blocking), NULL when out of memory. */
SSL *tls_server_new(SSL_CTX *ctx, int fd);

void tls_server_free(SSL *ssl);

/*
 * Non-blocking accept, read and write on the socket.  accept: 1 done, 0
 * waiting (*@want_write: for the socket to take more), -1 failed.
 * recv: bytes, 0 waiting, TLS_CLOSED at the client's close (or its end
 * of stream), -1 failed; with @peek the bytes stay to be read again.  send: bytes taken, 0 waiting, -1 failed.
 */
int tls_server_accept(SSL *ssl, bool *want_write);
long tls_server_recv(SSL *ssl, void *buf, size_t cap, bool peek,
		     bool *want_write);
long tls_server_send(SSL *ssl, const void *buf, size_t len, bool *want_write);

/* Does @ssl hold bytes read and not yet given out? */
bool tls_server_pending(const SSL *ssl);

/* Send close_notify, if the socket takes it now. */
void tls_server_close(SSL *ssl);

#endif
