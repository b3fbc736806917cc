// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include "run/tls.h"

struct tls_server {
	SSL_CTX *ctx;
};

/*
 * OpenSSL's error, as one phrase: the errno of a file it could not open (its queue holds it,
 * ERR_LIB_SYS), else its last reason
 */
static const char *ossl_reason(char *buf, size_t len)
{
	unsigned long e, last = 0;
	const char *r;
	int sys = 0;

	while ((e = ERR_get_error())) {
		if (ERR_GET_LIB(e) == ERR_LIB_SYS && !sys)
			sys = ERR_GET_REASON(e);
		last = e;
	}
	r = sys ? strerror(sys) : last ? ERR_reason_error_string(last) : NULL;
	snprintf(buf, len, "%s", r ? r : "unreadable");
	return buf;
}

/* RequestClientCert and RequireAnyClientCert take a certificate without judging it, as Go does */
static int accept_any(int ok, X509_STORE_CTX *x)
{
	(void)ok;
	(void)x;
	return 1;
}

static int client_auth(SSL_CTX *ctx, const struct web_config *wc, char *why, size_t len)
{
	static const int modes[] = {
		[WEB_NO_CLIENT_CERT] = SSL_VERIFY_NONE,
		[WEB_REQUEST_CLIENT_CERT] = SSL_VERIFY_PEER,
		[WEB_REQUIRE_ANY_CLIENT_CERT] = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
		[WEB_VERIFY_CLIENT_CERT_IF_GIVEN] = SSL_VERIFY_PEER,
		[WEB_REQUIRE_AND_VERIFY_CLIENT_CERT] = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
	};
	bool judged = wc->client_auth >= WEB_VERIFY_CLIENT_CERT_IF_GIVEN;
	char r[160];

	if (wc->client_ca_file[0]) {
		STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(wc->client_ca_file);

		if (!names || !SSL_CTX_load_verify_locations(ctx, wc->client_ca_file, NULL)) {
			if (names)
				sk_X509_NAME_pop_free(names, X509_NAME_free);
			snprintf(why, len, "--web-config: client_ca_file %s: %s: give PEM certificates", wc->client_ca_file,
				 ossl_reason(r, sizeof(r)));
			return -EINVAL;
		}
		SSL_CTX_set_client_CA_list(ctx, names);
	}
	SSL_CTX_set_verify(ctx, modes[wc->client_auth], judged ? NULL : accept_any);
	return 0;
}

int tls_server_new(struct tls_server **out, const struct web_config *wc, char *why, size_t len)
{
	struct tls_server *t;
	char r[160];
	int err;

	t = calloc(1, sizeof(*t));
	if (!t || !(t->ctx = SSL_CTX_new(TLS_server_method()))) {
		free(t);
		snprintf(why, len, "--web-config: out of memory for TLS");
		return -ENOMEM;
	}
	SSL_CTX_set_min_proto_version(t->ctx, wc->min_version);
	if (wc->max_version)
		SSL_CTX_set_max_proto_version(t->ctx, wc->max_version);
	/*
	 * a scrape is one request on one connection: no tickets or cache to keep, no renegotiation
	 * for a client to make the server pay for; buffers given back between reads (32 connections)
	 */
	SSL_CTX_set_options(t->ctx, SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION);
	SSL_CTX_set_session_cache_mode(t->ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
				 SSL_MODE_RELEASE_BUFFERS);
	if (SSL_CTX_use_certificate_chain_file(t->ctx, wc->cert_file) != 1) {
		snprintf(why, len, "--web-config: cert_file %s: %s: give a PEM certificate (chain) readable by the user "
			 "slotscope runs as",
			 wc->cert_file, ossl_reason(r, sizeof(r)));
		err = -EINVAL;
	} else if (SSL_CTX_use_PrivateKey_file(t->ctx, wc->key_file, SSL_FILETYPE_PEM) != 1) {
		snprintf(why, len, "--web-config: key_file %s: %s: give the certificate's PEM key, readable by the user "
			 "slotscope runs as",
			 wc->key_file, ossl_reason(r, sizeof(r)));
		err = -EINVAL;
	} else if (SSL_CTX_check_private_key(t->ctx) != 1) {
		snprintf(why, len, "--web-config: key_file %s is not cert_file %s's key", wc->key_file, wc->cert_file);
		ERR_clear_error();
		err = -EINVAL;
	} else {
		err = client_auth(t->ctx, wc, why, len);
	}
	if (err) {
		tls_server_free(t);
		return err;
	}
	*out = t;
	return 0;
}

void tls_server_free(struct tls_server *t)
{
	if (!t)
		return;
	SSL_CTX_free(t->ctx);
	free(t);
}

SSL *tls_conn_new(struct tls_server *t, int fd)
{
	SSL *s = SSL_new(t->ctx);

	if (s && SSL_set_fd(s, fd) != 1) {
		SSL_free(s);
		return NULL;
	}
	if (s)
		SSL_set_accept_state(s);
	return s;
}

static ssize_t outcome(SSL *s, int n, short *want)
{
	if (n > 0)
		return n;
	switch (SSL_get_error(s, n)) {
	case SSL_ERROR_WANT_READ:
		*want = POLLIN;
		return -EAGAIN;
	case SSL_ERROR_WANT_WRITE:
		*want = POLLOUT;
		return -EAGAIN;
	default:
		/* the peer's close, or a failed handshake (plain HTTP, a refused certificate) */
		ERR_clear_error();
		return 0;
	}
}

ssize_t tls_recv(SSL *s, void *buf, size_t len, short *want)
{
	ERR_clear_error();
	return outcome(s, SSL_read(s, buf, len > INT32_MAX ? INT32_MAX : (int)len), want);
}

ssize_t tls_send(SSL *s, const void *buf, size_t len, short *want)
{
	ERR_clear_error();
	return outcome(s, SSL_write(s, buf, len > INT32_MAX ? INT32_MAX : (int)len), want);
}

void tls_conn_free(SSL *s)
{
	if (!s)
		return;
	if (SSL_is_init_finished(s)) {
		ERR_clear_error();
		SSL_shutdown(s);
		ERR_clear_error();
	}
	SSL_free(s);
}
