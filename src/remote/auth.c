/* SPDX-License-Identifier: MIT */
/*
 * Shared-key authentication: a key file, and the challenge-response proofs
 * of docs/protocol.md computed with libsodium's HMAC-SHA-512-256.  Nothing
 * here is home-made cryptography: only which bytes go into the MAC.
 */
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "remote/remote_internal.h"

/* Labels keep a client's proof from ever passing as a server's. */
static const char label_client[] = "ipcperf-remote-1 client";
static const char label_server[] = "ipcperf-remote-1 server";

static void ready(void)
{
	/* Idempotent and thread-safe since libsodium 1.0.11. */
	if (sodium_init() < 0)
		abort();
}

int ipc_rkey_load(const char *path, struct ipc_rkey *key, char *why,
		  size_t why_len)
{
	uint8_t buf[IPC_REMOTE_KEY_MAX + 1];
	struct stat st;
	ssize_t n;
	size_t got = 0;
	int fd, rc = 0;

	memset(key, 0, sizeof(*key));
	/* Non-blocking: a FIFO given for a key must not wait for a writer. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		rc = -errno;
		snprintf(why, why_len, "cannot open '%s': %s", path,
			 strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st)) {
		rc = -errno;
		snprintf(why, why_len, "cannot stat '%s': %s", path,
			 strerror(-rc));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		snprintf(why, why_len, "'%s' is not a regular file", path);
		goto out;
	}
	/*
	 * Another user's key file is that user's to swap: whoever can write
	 * it chooses the key this process trusts.
	 */
	if (st.st_uid != geteuid()) {
		rc = -EPERM;
		snprintf(why, why_len,
			 "'%s' belongs to uid %u, not to this user (uid %u); "
			 "a key file must be the user's own",
			 path, (unsigned)st.st_uid, (unsigned)geteuid());
		goto out;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		rc = -EPERM;
		snprintf(why, why_len,
			 "'%s' may be read by others (mode %03o); chmod 600 it",
			 path, (unsigned)(st.st_mode & 0777));
		goto out;
	}
	/* One byte more than the maximum tells a file that is too long. */
	while (got <= IPC_REMOTE_KEY_MAX) {
		n = read(fd, buf + got, sizeof(buf) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			snprintf(why, why_len, "cannot read '%s': %s", path,
				 strerror(-rc));
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got < IPC_REMOTE_KEY_MIN || got > IPC_REMOTE_KEY_MAX) {
		rc = -EINVAL;
		snprintf(why, why_len,
			 "'%s' holds %s%zu bytes; a key has %d to %d (make one "
			 "with: head -c 32 /dev/urandom > FILE)",
			 path, got > IPC_REMOTE_KEY_MAX ? "over " : "",
			 got > IPC_REMOTE_KEY_MAX ? (size_t)IPC_REMOTE_KEY_MAX
						  : got,
			 IPC_REMOTE_KEY_MIN, IPC_REMOTE_KEY_MAX);
		goto out;
	}
	memcpy(key->bytes, buf, got);
	key->len = got;
out:
	sodium_memzero(buf, sizeof(buf));
	close(fd);
	if (rc)
		ipc_rkey_wipe(key);
	return rc;
}

void ipc_rkey_wipe(struct ipc_rkey *key)
{
	ready();
	sodium_memzero(key, sizeof(*key));
}

void ipc_rauth_mac(const struct ipc_rkey *key, enum ipc_rauth_role role,
		   const uint8_t challenge[IPC_REMOTE_NONCE_BYTES],
		   const uint8_t nonce[IPC_REMOTE_NONCE_BYTES],
		   uint8_t mac[IPC_REMOTE_MAC_BYTES])
{
	crypto_auth_hmacsha512256_state st;
	const char *label =
		role == IPC_RAUTH_SERVER ? label_server : label_client;
	const uint8_t *first = role == IPC_RAUTH_SERVER ? nonce : challenge;
	const uint8_t *second = role == IPC_RAUTH_SERVER ? challenge : nonce;

	ready();
	/* HMAC takes a key of any length (hashed when over a block). */
	crypto_auth_hmacsha512256_init(&st, key->bytes, key->len);
	crypto_auth_hmacsha512256_update(&st, (const uint8_t *)label,
					 strlen(label) + 1);
	crypto_auth_hmacsha512256_update(&st, first, IPC_REMOTE_NONCE_BYTES);
	crypto_auth_hmacsha512256_update(&st, second, IPC_REMOTE_NONCE_BYTES);
	crypto_auth_hmacsha512256_final(&st, mac);
	sodium_memzero(&st, sizeof(st));
}

bool ipc_rauth_check(const struct ipc_rkey *key, enum ipc_rauth_role role,
		     const uint8_t challenge[IPC_REMOTE_NONCE_BYTES],
		     const uint8_t nonce[IPC_REMOTE_NONCE_BYTES],
		     const uint8_t mac[IPC_REMOTE_MAC_BYTES])
{
	uint8_t want[IPC_REMOTE_MAC_BYTES];
	bool same;

	ipc_rauth_mac(key, role, challenge, nonce, want);
	same = crypto_verify_32(want, mac) == 0;
	sodium_memzero(want, sizeof(want));
	return same;
}
