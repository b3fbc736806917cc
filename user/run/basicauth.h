/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --web-config's basic_auth_users: an Authorization header checked against a user's bcrypt hash
 * (libxcrypt's crypt_rn, linked statically). bcrypt costs tens of milliseconds a check by design,
 * and the serving loop answers everyone: credentials that passed are remembered (their SHA-256),
 * so a scraper pays once, and checks of credentials not seen before are bounded per second, so a
 * client that sends wrong passwords cannot starve the loop (the rest get 429 and a Retry-After).
 */
#ifndef SLOTSCOPE_BASICAUTH_H
#define SLOTSCOPE_BASICAUTH_H

#include <stddef.h>
#include "run/webconfig.h"

/* credentials remembered once they passed */
#define AUTH_REMEMBERED 8
/* bcrypt checks a second of credentials not remembered */
#define AUTH_CHECKS_PER_S 4

enum auth_result { AUTH_OK, AUTH_REFUSED, AUTH_BUSY };

struct crypt_data;

struct basic_auth {
	struct web_user *users;		/* a copy of the web-config's */
	size_t nusers;
	struct {
		unsigned char key[32];		/* SHA-256 of "user:password" */
		double at;			/* when last used; 0: free */
	} ok[AUTH_REMEMBERED];
	double window;				/* the second the checks are counted in */
	unsigned int checks;
	struct crypt_data *cd;
};

/* @wc's users, copied; 0 or -ENOMEM */
int basic_auth_init(struct basic_auth *a, const struct web_config *wc);
/* an Authorization header's value (@hdr NULL: none) at CLOCK_MONOTONIC @now */
enum auth_result basic_auth_check(struct basic_auth *a, const char *hdr, size_t len, double now);
void basic_auth_free(struct basic_auth *a);

#endif
