// SPDX-License-Identifier: GPL-2.0
/*
 * --web-config: the file in exporter-toolkit's format read, its paths resolved against its
 * directory, and every setting slotscope cannot honour refused with its line; then basic auth:
 * credentials against a bcrypt hash, remembered once they passed, new ones bounded a second.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <openssl/ssl.h>
#include "run/basicauth.h"
#include "run/webconfig.h"

/* "s3cret" at bcrypt's cost 4 (python3's crypt, METHOD_BLOWFISH): quick to check */
#define HASH "$2b$04$3509bNssCVn2Au5xHNrUS.3PAh.n6.x46S2feRSXj0JXn2uoCImi6"

static int parse(const char *text, struct web_config *wc, char *why, size_t len)
{
	return web_config_parse(text, strlen(text), "w.yml", "/etc/slotscope", wc, why, len);
}

static void test_read(void **state)
{
	struct web_config wc;
	char why[320];

	(void)state;
	assert_int_equal(parse("tls_server_config:\n"
			       "  cert_file: tls/cert.pem\n"
			       "  key_file: /k/key.pem\n"
			       "  client_auth_type: RequireAndVerifyClientCert\n"
			       "  client_ca_file: ca.pem\n"
			       "  min_version: TLS13\n"
			       "  prefer_server_cipher_suites: true\n"
			       "http_server_config:\n"
			       "  http2: true\n"
			       "basic_auth_users:\n"
			       "  prom: " HASH "\n"
			       "  \"other\": '" HASH "'\n", &wc, why, sizeof(why)), 0);
	assert_true(wc.tls);
	assert_string_equal(wc.cert_file, "/etc/slotscope/tls/cert.pem");
	assert_string_equal(wc.key_file, "/k/key.pem");
	assert_string_equal(wc.client_ca_file, "/etc/slotscope/ca.pem");
	assert_int_equal(wc.client_auth, WEB_REQUIRE_AND_VERIFY_CLIENT_CERT);
	assert_int_equal(wc.min_version, TLS1_3_VERSION);
	assert_int_equal(wc.max_version, 0);
	assert_int_equal(wc.nusers, 2);
	assert_string_equal(wc.users[1].name, "other");
	assert_string_equal(wc.users[1].hash, HASH);
	web_config_free(&wc);
	/* basic auth alone (over plain HTTP, as exporter-toolkit allows); TLS 1.2 by default */
	assert_int_equal(parse("basic_auth_users:\n  a: " HASH "\n", &wc, why, sizeof(why)), 0);
	assert_false(wc.tls);
	assert_int_equal(wc.min_version, TLS1_2_VERSION);
	web_config_free(&wc);
	/* an empty file: neither */
	assert_int_equal(parse("", &wc, why, sizeof(why)), 0);
	assert_false(wc.tls);
	assert_int_equal(wc.nusers, 0);
}

/* @text refused, its message holding @words */
static void refused(const char *text, const char *words)
{
	struct web_config wc;
	char why[320] = "";

	assert_int_equal(parse(text, &wc, why, sizeof(why)), -EINVAL);
	if (!strstr(why, words))
		fail_msg("said \"%s\", not \"%s\"", why, words);
	assert_null(wc.users);
}

static void test_refused(void **state)
{
	(void)state;
	refused("tls_server_config:\n  cert_file: c\n", "line 1: tls_server_config: give both cert_file and key_file");
	refused("tls_server_config:\n  cert_file: c\n  key_file: k\n  cipher_suites: [a]\n",
		"line 4: tls_server_config: cipher_suites is not honoured by slotscope");
	refused("tls_server_config:\n  cert: |\n    x\n  key_file: k\n", "cert inline is not read by slotscope");
	refused("tls_server_config:\n  cert_file: c\n  key_file: k\n  client_auth_type: VerifyClientCertIfGiven\n",
		"give client_ca_file");
	refused("tls_server_config:\n  cert_file: c\n  key_file: k\n  client_auth_type: Maybe\n",
		"line 4: client_auth_type: Maybe is not one of");
	refused("tls_server_config:\n  cert_file: c\n  key_file: k\n  min_version: TLS14\n",
		"min_version: TLS14 is no TLS version");
	refused("tls_server_config:\n  cert_file: c\n  key_file: k\n  min_version: TLS13\n  max_version: TLS12\n",
		"max_version is below min_version");
	refused("tls_server_config:\n  cert_file: c\n  key_file: k\n  sni: x\n", "unknown setting 'sni'");
	refused("http_server_config:\n  headers:\n    X-Frame-Options: deny\n", "headers are not sent by slotscope");
	refused("basic_auth_users:\n  prom: s3cret\n", "line 2: basic_auth_users: prom's password must be a bcrypt hash");
	refused("basic_auth_users:\n  \"a:b\": " HASH "\n", "without ':'");
	refused("basic_auth_users:\n  a: " HASH "\n  a: " HASH "\n", "a is given twice");
	refused("tls_config:\n  cert_file: c\n", "line 1: unknown section 'tls_config'");
	refused("basic_auth_users:\n  a: " HASH "\nbasic_auth_users:\n  b: " HASH "\n",
		"line 3: basic_auth_users is given twice");
	refused("- a\n- b\n", "give tls_server_config and/or basic_auth_users");
	refused("tls_server_config: [\n", "not YAML");
}

static enum auth_result check(struct basic_auth *a, const char *hdr, double now)
{
	return basic_auth_check(a, hdr, hdr ? strlen(hdr) : 0, now);
}

static void test_auth(void **state)
{
	struct web_user u = { .name = "prom", .hash = HASH };
	struct web_config wc = { .users = &u, .nusers = 1 };
	struct basic_auth a;

	(void)state;
	assert_int_equal(basic_auth_init(&a, &wc), 0);
	/* no header, another scheme, bad base64, no colon: refused without a check */
	assert_int_equal(check(&a, NULL, 10), AUTH_REFUSED);
	assert_int_equal(check(&a, "Bearer cHJvbTpzM2NyZXQ=", 10), AUTH_REFUSED);
	assert_int_equal(check(&a, "Basic cHJvbTpzM2NyZXQ", 10), AUTH_REFUSED);
	assert_int_equal(check(&a, "Basic cHJvbXMzY3JldA==", 10), AUTH_REFUSED);
	assert_int_equal(a.checks, 0);
	/* the right password, the scheme in any case */
	assert_int_equal(check(&a, "basic cHJvbTpzM2NyZXQ=", 10), AUTH_OK);
	assert_int_equal(a.checks, 1);
	/* remembered: no bcrypt again */
	assert_int_equal(check(&a, "Basic cHJvbTpzM2NyZXQ=", 10.1), AUTH_OK);
	assert_int_equal(a.checks, 1);
	/* a wrong password and an unknown user each cost a check; past four a second: busy */
	assert_int_equal(check(&a, "Basic cHJvbTp3cm9uZw==", 10.2), AUTH_REFUSED);
	assert_int_equal(check(&a, "Basic bm9ib2R5OnMzY3JldA==", 10.3), AUTH_REFUSED);
	assert_int_equal(check(&a, "Basic cHJvbTp3cm9uZw==", 10.4), AUTH_REFUSED);
	assert_int_equal(check(&a, "Basic cHJvbTp3cm9uZw==", 10.5), AUTH_BUSY);
	/* ... which the remembered scraper never is */
	assert_int_equal(check(&a, "Basic cHJvbTpzM2NyZXQ=", 10.6), AUTH_OK);
	/* the next second counts anew */
	assert_int_equal(check(&a, "Basic cHJvbTp3cm9uZw==", 11.1), AUTH_REFUSED);
	basic_auth_free(&a);
	/* no users: everyone */
	wc.nusers = 0;
	assert_int_equal(basic_auth_init(&a, &wc), 0);
	assert_int_equal(check(&a, NULL, 1), AUTH_OK);
	basic_auth_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_auth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
