/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TLS for --listen (--web-config's tls_server_config), OpenSSL linked statically like libbpf so
 * that the binary still needs glibc alone. The context is made before the serving process drops
 * its privileges (the key may be root's alone); each connection's TLS runs non-blocking in the
 * same poll loop as plain HTTP, so a handshake that never ends is a head that never comes: it
 * has the same deadline and the same place in the eviction order.
 */
#ifndef SLOTSCOPE_TLS_H
#define SLOTSCOPE_TLS_H

#include <stddef.h>
#include <sys/types.h>
#include "run/webconfig.h"

struct tls_server;
struct ssl_st;

/* the context of @wc's files: 0, or -errno with one line in @why naming the file and the fix */
int tls_server_new(struct tls_server **out, const struct web_config *wc, char *why, size_t len);
void tls_server_free(struct tls_server *t);

/* a connection's TLS over socket @fd (the server's side): NULL when out of memory */
struct ssl_st *tls_conn_new(struct tls_server *t, int fd);
/*
 * Read or write through @s (the handshake first, as needed): the bytes moved (> 0); 0 when the
 * connection is over (closed, or a TLS error: a client speaking plain HTTP to the TLS port, a
 * refused certificate); -EAGAIN when it must wait, *@want then POLLIN or POLLOUT.
 */
ssize_t tls_recv(struct ssl_st *s, void *buf, size_t len, short *want);
ssize_t tls_send(struct ssl_st *s, const void *buf, size_t len, short *want);
/* TLS's close_notify, if the socket takes it now (never waits), then @s freed */
void tls_conn_free(struct ssl_st *s);

#endif
