// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include <openssl/ssl.h>
#include "run/webconfig.h"
#include "lib/util.h"

/* the longest web-config read: a few hundred bytes in practice */
#define WEB_CONFIG_MAX (256 * 1024)
#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

struct wc_doc {
	yaml_document_t doc;
	const char *name, *dir;
	char *why;
	size_t len;
};

static int say(struct wc_doc *d, const yaml_node_t *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int say(struct wc_doc *d, const yaml_node_t *at, const char *fmt, ...)
{
	int n = snprintf(d->why, d->len, "--web-config %s line %zu: ", d->name, at ? at->start_mark.line + 1 : 1);
	va_list ap;

	if (n < 0 || (size_t)n >= d->len)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(d->why + n, d->len - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* a path as exporter-toolkit takes it: relative to the file's own directory */
static int path_of(struct wc_doc *d, const yaml_node_t *v, const char *key, char *out, size_t len)
{
	const char *s = scalar(v);
	int n;

	if (!s || !*s)
		return say(d, v, "%s: give a file's path", key);
	n = s[0] == '/' || !d->dir[0] ? snprintf(out, len, "%s", s) : snprintf(out, len, "%s/%s", d->dir, s);
	if (n < 0 || (size_t)n >= len)
		return say(d, v, "%s: path too long", key);
	return 0;
}

/* Go's names for TLS versions (exporter-toolkit's min_version, max_version) */
static int version_of(struct wc_doc *d, const yaml_node_t *v, const char *key, int *out)
{
	static const struct { const char *name; int v; } vs[] = {
		{ "TLS10", TLS1_VERSION }, { "TLS11", TLS1_1_VERSION },
		{ "TLS12", TLS1_2_VERSION }, { "TLS13", TLS1_3_VERSION },
	};
	const char *s = scalar(v);

	for (size_t i = 0; s && i < NELEMS(vs); i++)
		if (!strcmp(s, vs[i].name)) {
			*out = vs[i].v;
			return 0;
		}
	return say(d, v, "%s: %s is no TLS version: say TLS10, TLS11, TLS12 or TLS13", key, s ? s : "(not a word)");
}

static int client_auth_of(struct wc_doc *d, const yaml_node_t *v, enum web_client_auth *out)
{
	static const char *const names[] = {
		[WEB_NO_CLIENT_CERT] = "NoClientCert",
		[WEB_REQUEST_CLIENT_CERT] = "RequestClientCert",
		[WEB_REQUIRE_ANY_CLIENT_CERT] = "RequireAnyClientCert",
		[WEB_VERIFY_CLIENT_CERT_IF_GIVEN] = "VerifyClientCertIfGiven",
		[WEB_REQUIRE_AND_VERIFY_CLIENT_CERT] = "RequireAndVerifyClientCert",
	};
	const char *s = scalar(v);

	for (size_t i = 0; s && i < NELEMS(names); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum web_client_auth)i;
			return 0;
		}
	return say(d, v, "client_auth_type: %s is not one of NoClientCert, RequestClientCert, RequireAnyClientCert, "
		   "VerifyClientCertIfGiven, RequireAndVerifyClientCert", s ? s : "(not a word)");
}

/* @at: the section's name, where what is wrong with the section as a whole is said */
static int tls_section(struct wc_doc *d, const yaml_node_t *at, const yaml_node_t *m, struct web_config *wc)
{
	const yaml_node_t *cert = NULL, *key = NULL;
	int err = 0;

	if (m->type != YAML_MAPPING_NODE)
		return say(d, at, "tls_server_config: give its settings (cert_file, key_file, ...)");
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; !err && p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(&d->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(&d->doc, p->value);
		const char *ks = scalar(k);

		if (!ks)
			err = say(d, k, "tls_server_config: a key must be a word");
		else if (!strcmp(ks, "cert_file"))
			err = path_of(d, v, ks, wc->cert_file, sizeof(wc->cert_file)), cert = v;
		else if (!strcmp(ks, "key_file"))
			err = path_of(d, v, ks, wc->key_file, sizeof(wc->key_file)), key = v;
		else if (!strcmp(ks, "client_ca_file"))
			err = path_of(d, v, ks, wc->client_ca_file, sizeof(wc->client_ca_file));
		else if (!strcmp(ks, "client_auth_type"))
			err = client_auth_of(d, v, &wc->client_auth);
		else if (!strcmp(ks, "min_version"))
			err = version_of(d, v, ks, &wc->min_version);
		else if (!strcmp(ks, "max_version"))
			err = version_of(d, v, ks, &wc->max_version);
		/* Go ignores it since 1.18: so does everyone reading this format */
		else if (!strcmp(ks, "prefer_server_cipher_suites"))
			continue;
		else if (!strcmp(ks, "cert") || !strcmp(ks, "key"))
			err = say(d, k, "tls_server_config: %s inline is not read by slotscope: put it in a file and give %s_file",
				  ks, ks);
		else if (!strcmp(ks, "cipher_suites") || !strcmp(ks, "curve_preferences") ||
			 !strcmp(ks, "client_allowed_sans"))
			err = say(d, k, "tls_server_config: %s is not honoured by slotscope (OpenSSL's defaults apply): remove it",
				  ks);
		else
			err = say(d, k, "tls_server_config: unknown setting '%s'", ks);
	}
	if (err)
		return err;
	if (!cert || !key)
		return say(d, at, "tls_server_config: give both cert_file and key_file");
	if (wc->client_auth >= WEB_VERIFY_CLIENT_CERT_IF_GIVEN && !wc->client_ca_file[0])
		return say(d, at, "tls_server_config: client_auth_type verifies client certificates: give client_ca_file");
	if (wc->max_version && wc->max_version < wc->min_version)
		return say(d, at, "tls_server_config: max_version is below min_version");
	wc->tls = true;
	return 0;
}

static int http_section(struct wc_doc *d, const yaml_node_t *m)
{
	if (m->type != YAML_MAPPING_NODE)
		return say(d, m, "http_server_config: give its settings");
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(&d->doc, p->key);
		const char *ks = scalar(k);

		/* slotscope speaks HTTP/1.1 only, which http2: true allows too */
		if (ks && !strcmp(ks, "http2"))
			continue;
		if (ks && !strcmp(ks, "headers"))
			return say(d, k, "http_server_config: headers are not sent by slotscope: remove them");
		return say(d, k, "http_server_config: unknown setting '%s'", ks ? ks : "");
	}
	return 0;
}

static int users_section(struct wc_doc *d, const yaml_node_t *m, struct web_config *wc)
{
	size_t n;

	if (m->type != YAML_MAPPING_NODE)
		return say(d, m, "basic_auth_users: give user: bcrypt-hash pairs");
	n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
	wc->users = calloc(n ? n : 1, sizeof(*wc->users));
	if (!wc->users)
		return -ENOMEM;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(&d->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(&d->doc, p->value);
		const char *ks = scalar(k), *vs = scalar(v);
		struct web_user *u = &wc->users[wc->nusers];

		if (!ks || !*ks || strchr(ks, ':') || strlen(ks) >= sizeof(u->name))
			return say(d, k, "basic_auth_users: a user name is a word without ':' (under %zu bytes)",
				   sizeof(u->name));
		for (size_t i = 0; i < wc->nusers; i++)
			if (!strcmp(wc->users[i].name, ks))
				return say(d, k, "basic_auth_users: %s is given twice", ks);
		/* bcrypt only, as exporter-toolkit: $2?$NN$ and 53 characters of salt and hash */
		if (!vs || strlen(vs) != 60 || vs[0] != '$' || vs[1] != '2' || !strchr("aby", vs[2]) || vs[3] != '$' ||
		    vs[6] != '$')
			return say(d, v, "basic_auth_users: %s's password must be a bcrypt hash ($2y$...; htpasswd -nBC 10 %s)",
				   ks, ks);
		snprintf(u->name, sizeof(u->name), "%s", ks);
		snprintf(u->hash, sizeof(u->hash), "%s", vs);
		wc->nusers++;
	}
	return 0;
}

int web_config_parse(const char *text, size_t n, const char *name, const char *dir, struct web_config *wc,
		     char *why, size_t len)
{
	struct wc_doc d = { .name = name, .dir = dir ? dir : "", .why = why, .len = len };
	yaml_parser_t parser;
	yaml_node_t *root;
	int err = 0;

	memset(wc, 0, sizeof(*wc));
	wc->min_version = TLS1_2_VERSION;
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, n);
	if (!yaml_parser_load(&parser, &d.doc)) {
		snprintf(why, len, "--web-config %s line %zu: not YAML: %s", name, parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "unreadable");
		yaml_parser_delete(&parser);
		return -EINVAL;
	}
	yaml_parser_delete(&parser);
	root = yaml_document_get_root_node(&d.doc);
	/* an empty file is exporter-toolkit's "no TLS, no auth": as without the option */
	if (root && root->type != YAML_MAPPING_NODE && !(root->type == YAML_SCALAR_NODE && !root->data.scalar.length))
		err = say(&d, root, "give tls_server_config and/or basic_auth_users");
	for (yaml_node_pair_t *p = root && root->type == YAML_MAPPING_NODE ? root->data.mapping.pairs.start : NULL;
	     !err && p && p < root->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(&d.doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(&d.doc, p->value);
		const char *ks = scalar(k);

		/* YAML lets a key come twice; which one a reader takes is not for a port's security */
		for (yaml_node_pair_t *q = root->data.mapping.pairs.start; ks && q < p; q++) {
			const char *qs = scalar(yaml_document_get_node(&d.doc, q->key));

			if (qs && !strcmp(qs, ks))
				err = say(&d, k, "%s is given twice", ks);
		}
		if (err)
			break;
		if (ks && !strcmp(ks, "tls_server_config"))
			err = tls_section(&d, k, v, wc);
		else if (ks && !strcmp(ks, "http_server_config"))
			err = http_section(&d, v);
		else if (ks && !strcmp(ks, "basic_auth_users"))
			err = users_section(&d, v, wc);
		else
			err = say(&d, k, "unknown section '%s': slotscope reads tls_server_config, http_server_config, "
				  "basic_auth_users", ks ? ks : "");
	}
	yaml_document_delete(&d.doc);
	if (err)
		web_config_free(wc);
	return err;
}

/*
 * the whole of @path, NUL ended, up to WEB_CONFIG_MAX bytes, and its length: 0 or -errno (-EFBIG
 * past it). Not read_file_at(): its text ends at the first NUL, and a NUL must reach the YAML
 * reader (which refuses it), not cut the file short before a section that secures the port.
 */
static int slurp(const char *path, char **out, size_t *n)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t got;
	int err = 0;

	if (!f)
		return -errno;
	buf = malloc(WEB_CONFIG_MAX + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	got = fread(buf, 1, WEB_CONFIG_MAX + 1, f);
	if (ferror(f))
		err = -EIO;
	else if (got > WEB_CONFIG_MAX)
		err = -EFBIG;
	fclose(f);
	if (err) {
		free(buf);
		return err;
	}
	buf[got] = 0;
	*out = buf;
	*n = got;
	return 0;
}

int web_config_read(const char *path, struct web_config *wc, char *why, size_t len)
{
	char dir[PATH_MAX], *text = NULL, *slash;
	size_t n = 0;
	int err;

	err = slurp(path, &text, &n);
	if (err) {
		snprintf(why, len, "--web-config %s: %s%s", path, strerror(-err),
			 err == -EFBIG ? ": a web-config is a few lines" : ": give a readable file");
		return err;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		dir[0] = 0;
	err = web_config_parse(text, n, path, slash ? (dir[0] ? dir : "/") : "", wc, why, len);
	free(text);
	return err;
}

void web_config_free(struct web_config *wc)
{
	free(wc->users);
	wc->users = NULL;
	wc->nusers = 0;
}
