/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --web-config FILE: TLS and basic auth for --listen, from a file in the format Prometheus's
 * exporters read (exporter-toolkit's web-config: tls_server_config, basic_auth_users), so that
 * one file serves node_exporter and slotscope on a node. What slotscope cannot honour is
 * refused, named, never ignored: a setting meant to protect the port that silently did nothing
 * would be worse than none.
 */
#ifndef SLOTSCOPE_WEBCONFIG_H
#define SLOTSCOPE_WEBCONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* exporter-toolkit's client_auth_type, by its Go name */
enum web_client_auth {
	WEB_NO_CLIENT_CERT,
	WEB_REQUEST_CLIENT_CERT,
	WEB_REQUIRE_ANY_CLIENT_CERT,
	WEB_VERIFY_CLIENT_CERT_IF_GIVEN,
	WEB_REQUIRE_AND_VERIFY_CLIENT_CERT,
};

struct web_user {
	char name[128];
	char hash[128];		/* bcrypt: $2a$, $2b$ or $2y$ */
};

struct web_config {
	bool tls;
	/* absolute, or resolved against the file's directory as exporter-toolkit does */
	char cert_file[PATH_MAX], key_file[PATH_MAX], client_ca_file[PATH_MAX];
	enum web_client_auth client_auth;
	int min_version, max_version;	/* OpenSSL's TLS1_x_VERSION; max 0: the newest */
	struct web_user *users;
	size_t nusers;
};

/*
 * Read @path into *@wc: 0, or -errno with one line in @why naming the file, the line and the fix
 * (-ENOENT, -EACCES: the file; -EINVAL: what it says). Files it names are not opened here.
 */
int web_config_read(const char *path, struct web_config *wc, char *why, size_t len);
/* the same from @text (@name in messages; @dir resolves relative paths): tests and fuzzing */
int web_config_parse(const char *text, size_t n, const char *name, const char *dir, struct web_config *wc,
		     char *why, size_t len);
void web_config_free(struct web_config *wc);

#endif
