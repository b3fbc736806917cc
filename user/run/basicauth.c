// SPDX-License-Identifier: GPL-2.0
#include <crypt.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include "run/basicauth.h"

/* "user:password" decoded from base64 is at most this long */
#define CRED_MAX 512

/* a user nobody has, hashed at cost 10: an unknown name costs what a known one does */
static const char decoy[] = "$2b$10$RTOE2jPvPANNHnxhFpJiG..Z94ebnZWXZIZ0e5cEGkEFLDlXwSowS";

/*
 * libxcrypt's salt maker (crypt_gensalt, linked in beside crypt_r and never called here) uses
 * arc4random_buf where it was built with it: glibc's since 2.36, which would make the one binary
 * refuse RHEL 9 and Ubuntu 22.04 (glibc 2.34, 2.35). Ours, from getrandom (2.25), stands in.
 */
void arc4random_buf(void *buf, size_t n);
void arc4random_buf(void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = getrandom((char *)buf + got, n - got, 0);

		if (r > 0)
			got += (size_t)r;
		else if (errno != EINTR)
			abort();
	}
}

int basic_auth_init(struct basic_auth *a, const struct web_config *wc)
{
	memset(a, 0, sizeof(*a));
	if (!wc->nusers)
		return 0;
	a->users = malloc(wc->nusers * sizeof(*a->users));
	a->cd = calloc(1, sizeof(*a->cd));
	if (!a->users || !a->cd) {
		basic_auth_free(a);
		return -ENOMEM;
	}
	memcpy(a->users, wc->users, wc->nusers * sizeof(*a->users));
	a->nusers = wc->nusers;
	return 0;
}

void basic_auth_free(struct basic_auth *a)
{
	if (a->cd)
		OPENSSL_cleanse(a->cd, sizeof(*a->cd));
	free(a->cd);
	free(a->users);
	OPENSSL_cleanse(a->ok, sizeof(a->ok));
	memset(a, 0, sizeof(*a));
}

/*
 * RFC 4648 base64, padded as every client sends it, by OpenSSL's decoder (which counts the
 * padding as zero bytes): the bytes, or -1
 */
static int unbase64(const char *in, size_t n, char *out, size_t cap)
{
	int got, pad = n && in[n - 1] == '=' ? 1 + (n > 1 && in[n - 2] == '=') : 0;

	if (!n || n % 4 || n / 4 * 3 > cap)
		return -1;
	got = EVP_DecodeBlock((unsigned char *)out, (const unsigned char *)in, (int)n);
	return got < 0 ? -1 : got - pad;
}

static bool remembered(struct basic_auth *a, const unsigned char key[32], double now)
{
	for (size_t i = 0; i < AUTH_REMEMBERED; i++)
		if (a->ok[i].at && !CRYPTO_memcmp(a->ok[i].key, key, 32)) {
			a->ok[i].at = now;
			return true;
		}
	return false;
}

static void remember(struct basic_auth *a, const unsigned char key[32], double now)
{
	size_t v = 0;

	for (size_t i = 1; i < AUTH_REMEMBERED; i++)
		if (a->ok[i].at < a->ok[v].at)
			v = i;
	memcpy(a->ok[v].key, key, 32);
	a->ok[v].at = now;
}

enum auth_result basic_auth_check(struct basic_auth *a, const char *hdr, size_t len, double now)
{
	char cred[CRED_MAX + 1], *pass;
	const struct web_user *u = NULL;
	unsigned char key[32];
	const char *h;
	int n;

	if (!a->nusers)
		return AUTH_OK;
	if (!hdr || len < 6 || strncasecmp(hdr, "Basic ", 6))
		return AUTH_REFUSED;
	for (hdr += 6, len -= 6; len && *hdr == ' '; hdr++, len--)
		;
	n = unbase64(hdr, len, cred, CRED_MAX);
	if (n < 0)
		return AUTH_REFUSED;
	cred[n] = 0;
	pass = memchr(cred, ':', (size_t)n);
	if (!pass || memchr(cred, 0, (size_t)n))
		return AUTH_REFUSED;
	if (!EVP_Digest(cred, (size_t)n, key, NULL, EVP_sha256(), NULL))
		return AUTH_REFUSED;
	if (remembered(a, key, now)) {
		OPENSSL_cleanse(cred, sizeof(cred));
		return AUTH_OK;
	}
	if (now - a->window >= 1) {
		a->window = now;
		a->checks = 0;
	}
	if (a->checks >= AUTH_CHECKS_PER_S) {
		OPENSSL_cleanse(cred, sizeof(cred));
		return AUTH_BUSY;
	}
	a->checks++;
	*pass++ = 0;
	for (size_t i = 0; i < a->nusers && !u; i++)
		if (!strcmp(a->users[i].name, cred))
			u = &a->users[i];
	/* crypt_rn, not crypt_r: sanitizers intercept crypt_r and call a shared libcrypt we do not load */
	h = crypt_rn(pass, u ? u->hash : decoy, a->cd, (int)sizeof(*a->cd));
	OPENSSL_cleanse(cred, sizeof(cred));
	if (!u || !h || strlen(h) != strlen(u->hash) || CRYPTO_memcmp(h, u->hash, strlen(h)))
		return AUTH_REFUSED;
	remember(a, key, now);
	return AUTH_OK;
}
