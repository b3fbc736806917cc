// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>
#include "links/rdma.h"
#include "lib/util.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif

static const struct rdma_port *port(const struct link_sample *s, const char *dev)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->ports[i].dev, dev))
			return &s->ports[i];
	return NULL;
}

static const struct port_delta *delta(const struct port_delta *d, size_t n, const char *dev)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(d[i].dev, dev))
			return &d[i];
	return NULL;
}

static const struct hw_counter *hw(const struct port_delta *d, const char *name)
{
	for (size_t i = 0; i < d->nhw; i++)
		if (!strcmp(d->hw[i].name, name))
			return &d->hw[i];
	return NULL;
}

static void test_parse_rate(void **state)
{
	double g;

	(void)state;
	assert_int_equal(parse_rate("200 Gb/sec (4X HDR)", &g), 0);
	assert_true(g == 200);
	assert_int_equal(parse_rate("2.5 Gb/sec (1X SDR)", &g), 0);
	assert_true(g == 2.5);
	assert_int_equal(parse_rate("N/A", &g), -22);
	assert_int_equal(parse_rate("", &g), -22);
	assert_int_equal(parse_rate("100 Mb/sec", &g), -22);
}

static void test_verbs_rate(void **state)
{
	(void)state;
	assert_true(verbs_rate_gbps(64, 2) == 200);	/* HDR 4x */
	assert_true(verbs_rate_gbps(128, 2) == 400);	/* NDR 4x */
	assert_true(verbs_rate_gbps(128, 16) == 200);	/* NDR 2x */
	assert_true(verbs_rate_gbps(32, 2) == 100);	/* EDR 4x, as the kernel quotes it */
	assert_true(verbs_rate_gbps(1, 1) == 2.5);	/* SDR 1x: what rxe claims */
	assert_true(verbs_rate_gbps(256, 2) == 800);	/* XDR 4x (active_speed_ex) */
	assert_true(verbs_rate_gbps(0, 2) == 0);
	assert_true(verbs_rate_gbps(1024, 2) == 0);
}

static void test_counter_delta(void **state)
{
	(void)state;
	assert_int_equal(counter_delta(10, 25), 15);
	assert_int_equal(counter_delta(4294967000u, 704), 1000);		/* 32-bit wrap */
	/* a decrease anywhere else is a reset: what it holds now was counted since */
	assert_int_equal(counter_delta(UINT64_MAX - 9, 10), 10);
	assert_int_equal(counter_delta(5000000000000ull, 1234), 1234);	/* perfquery -R */
	assert_int_equal(counter_delta(1000000, 20), 20);			/* low 32-bit value */
}

static void test_sample(void **state)
{
	struct link_sample s;
	const struct rdma_port *p;

	(void)state;
	assert_int_equal(link_sample(FIXTURES "/links/t0", NULL, 0, NULL, &s), 0);
	assert_int_equal(s.n, 5);
	p = port(&s, "mlx5_0");
	assert_non_null(p);
	assert_string_equal(p->state, "ACTIVE");
	assert_string_equal(p->link_layer, "Ethernet");
	assert_true(p->rate_gbps == 200);
	assert_int_equal(p->pc_valid, 15);
	assert_int_equal(p->pc[PC_XMIT_WORDS], 1000000);
	assert_int_equal(p->nhw, 4);				/* lifespan is a knob, not a counter */
	assert_string_equal(p->nd.name, "ens1f0");
	assert_true(p->nd.speed_gbps == 200);
	p = port(&s, "rxe0");
	assert_int_equal(p->pc_valid, 0);			/* rxe has no counters/ */
	assert_string_equal(p->nd.name, "eth0");
	assert_true(p->nd.speed_gbps == 0);
	assert_int_equal(port(&s, "mlx5_2")->pc_valid, 0);	/* N/A (no PMA) */
	assert_string_equal(port(&s, "mlx5_2")->state, "DOWN");
	assert_int_equal(port_of_netdev(&s, "eth0"), (int)(port(&s, "rxe0") - s.ports));
	assert_int_equal(port_of_netdev(&s, "lo"), -1);
	link_sample_free(&s);
}

static void test_verbs_rate_overrides_sysfs(void **state)
{
	struct verbs_rate r = { .dev = "rxe0", .port = 1, .gbps = 10 };
	struct link_sample s;

	(void)state;
	assert_int_equal(link_sample(FIXTURES "/links/t0", &r, 1, NULL, &s), 0);
	assert_true(port(&s, "rxe0")->rate_gbps == 10);
	assert_true(port(&s, "rxe0")->rate_from_verbs);
	assert_false(port(&s, "mlx5_0")->rate_from_verbs);
	link_sample_free(&s);
}

static void test_delta(void **state)
{
	struct link_sample a, b;
	struct port_delta *d;
	const struct port_delta *x;
	size_t n;

	(void)state;
	assert_int_equal(link_sample(FIXTURES "/links/t0", NULL, 0, NULL, &a), 0);
	assert_int_equal(link_sample(FIXTURES "/links/t1", NULL, 0, NULL, &b), 0);
	b.ts_ns = a.ts_ns + 2000000000ull;	/* two seconds apart */
	assert_int_equal(link_delta(&a, &b, &d, &n), 0);
	assert_int_equal(n, 5);
	/* mlx5: 25e6 words = 100 MB in 2 s = 0.4 Gb/s of 200 */
	x = delta(d, n, "mlx5_0");
	assert_string_equal(x->bytes_from, "counters");
	assert_int_equal(x->tx_bytes, 100000000);
	assert_int_equal(x->rx_bytes, 2000000);
	assert_int_equal(x->tx_pkts, 100000);
	assert_true(x->tx_gbps > 0.3999 && x->tx_gbps < 0.4001);
	assert_true(x->tx_util_pct > 0.19999 && x->tx_util_pct < 0.20001);
	assert_int_equal(hw(x, "np_cnp_sent")->v, 15);
	/* a 32-bit PMA counter that wrapped: 1000 words */
	assert_int_equal(delta(d, n, "mlx5_1")->tx_bytes, 4000);
	/* rxe: bytes from eth0 */
	x = delta(d, n, "rxe0");
	assert_string_equal(x->bytes_from, "netdev");
	assert_int_equal(x->tx_bytes, 1000000);
	assert_int_equal(hw(x, "sent_pkts")->v, 1000);
	/* no PMA: no bytes, no utilization, no crash */
	assert_false(delta(d, n, "mlx5_2")->have_bytes);
	/* gone between the samples */
	assert_true(delta(d, n, "mlx5_3")->removed);
	free(d);
	link_sample_free(&a);
	link_sample_free(&b);
}

static void test_no_rdma(void **state)
{
	struct link_sample s;

	(void)state;
	assert_int_equal(link_sample(FIXTURES "/nonexistent", NULL, 0, NULL, &s), 0);
	assert_int_equal(s.n, 0);
	assert_non_null(strstr(s.why_empty, "no RDMA devices"));
}

static int port_of(const struct link_sample *s, const char *dev)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->ports[i].dev, dev))
			return (int)i;
	return -1;
}

/*
 * State and rate are read when a port is first seen and then once per PORT_ATTR_REFRESH_NS: a
 * rate changed in between is not seen (it was not read), one older than that is; so are the link
 * layer and a RoCE port's netdev. Counters are read every time.
 */
static void test_link_sampler_kept(void **state)
{
	char root[] = "/tmp/slotscope-attrs-XXXXXX", cmd[512], rate[600], ctr[600], ll[600], nd[600];
	struct link_sampler pa = { 0 };
	struct link_sample a, b, c;
	FILE *f;
	int i;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -a %s/links/t0/. %s/", FIXTURES, root);
	assert_int_equal(system(cmd), 0);
	snprintf(rate, sizeof(rate), "%s/sys/class/infiniband/mlx5_0/ports/1/rate", root);
	snprintf(ctr, sizeof(ctr), "%s/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", root);
	snprintf(ll, sizeof(ll), "%s/sys/class/infiniband/mlx5_0/ports/1/link_layer", root);
	snprintf(nd, sizeof(nd), "%s/sys/class/net/ens1f0/statistics/tx_bytes", root);
	assert_int_equal(link_sample(root, NULL, 0, &pa, &a), 0);
	i = port_of(&a, "mlx5_0");
	assert_true(i >= 0 && a.ports[i].rate_gbps == 200);
	assert_string_equal(a.ports[i].link_layer, "Ethernet");
	assert_string_equal(a.ports[i].nd.name, "ens1f0");
	f = fopen(rate, "w");
	fputs("400 Gb/sec (4X NDR)\n", f);
	fclose(f);
	f = fopen(ll, "w");
	fputs("InfiniBand\n", f);
	fclose(f);
	f = fopen(nd, "w");
	fputs("123456\n", f);
	fclose(f);
	f = fopen(ctr, "w");
	fputs("777\n", f);
	fclose(f);
	assert_int_equal(link_sample(root, NULL, 0, &pa, &b), 0);
	i = port_of(&b, "mlx5_0");
	assert_true(b.ports[i].rate_gbps == 200);
	assert_string_equal(b.ports[i].link_layer, "Ethernet");
	assert_int_equal(b.ports[i].pc[PC_XMIT_WORDS], 777);
	/* the RoCE netdev's counters are read every time, once: the port's are its row's */
	assert_string_equal(b.ports[i].nd.name, "ens1f0");
	assert_int_equal(b.ports[i].nd.tx_bytes, 123456);
	for (size_t k = 0; k < b.nnd; k++)
		if (!strcmp(b.nds[k].name, "ens1f0"))
			assert_int_equal(b.nds[k].tx_bytes, 123456);
	/* the kept read ages past the refresh: the new rate is read */
	for (size_t k = 0; k < pa.n; k++)
		pa.a[k].read_ns -= PORT_ATTR_REFRESH_NS;
	assert_int_equal(link_sample(root, NULL, 0, &pa, &c), 0);
	i = port_of(&c, "mlx5_0");
	assert_true(c.ports[i].rate_gbps == 400);
	assert_string_equal(c.ports[i].link_layer, "InfiniBand");
	assert_string_equal(c.ports[i].state, a.ports[port_of(&a, "mlx5_0")].state);
	/* a fixture's plain files are read afresh each time (a file of a device gone would read on) */
	struct link_sample d;

	assert_int_equal(pa.nkept, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/class/net/ens1f0", root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(link_sample(root, NULL, 0, &pa, &d), 0);
	for (size_t k = 0; k < d.nnd; k++)
		assert_string_not_equal(d.nds[k].name, "ens1f0");
	i = port_of(&d, "mlx5_0");
	assert_false(d.ports[i].nd.valid);
	link_sample_free(&a);
	link_sample_free(&b);
	link_sample_free(&c);
	link_sample_free(&d);
	link_sampler_free(&pa);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

/* what libibverbs would say of mlx5_0 port 1: set by the test, asked by link_sample */
static double fake_gbps;
static int fake_asks;

static int fake_rates(struct verbs_rate **out, size_t *n, const char **why)
{
	struct verbs_rate *r = calloc(1, sizeof(*r));

	(void)why;
	if (!r)
		return -ENOMEM;
	snprintf(r->dev, sizeof(r->dev), "mlx5_0");
	r->port = 1;
	r->gbps = fake_gbps;
	*out = r;
	*n = 1;
	fake_asks++;
	return 0;
}

/*
 * A link that renegotiates from 200 to 100 Gb/s: the verbs rate is asked again with the port's
 * attributes, so utilisation and a link-bound verdict follow within PORT_ATTR_REFRESH_NS.
 */
static void test_verbs_rate_renegotiated(void **state)
{
	struct link_sampler pa = { .read_rates = fake_rates };
	struct link_sample a, b, c;
	int i;

	(void)state;
	fake_gbps = 200;
	assert_int_equal(link_sample(FIXTURES "/links/t0", NULL, 0, &pa, &a), 0);
	i = port_of(&a, "mlx5_0");
	assert_true(i >= 0 && a.ports[i].rate_gbps == 200 && a.ports[i].rate_from_verbs);
	fake_gbps = 100;
	assert_int_equal(link_sample(FIXTURES "/links/t0", NULL, 0, &pa, &b), 0);
	assert_true(b.ports[port_of(&b, "mlx5_0")].rate_gbps == 200);	/* not asked at every tick */
	assert_int_equal(fake_asks, 1);
	pa.rates_ns -= PORT_ATTR_REFRESH_NS;
	for (size_t k = 0; k < pa.n; k++)
		pa.a[k].read_ns -= PORT_ATTR_REFRESH_NS;
	assert_int_equal(link_sample(FIXTURES "/links/t0", NULL, 0, &pa, &c), 0);
	assert_true(c.ports[port_of(&c, "mlx5_0")].rate_gbps == 100);
	assert_int_equal(fake_asks, 2);
	link_sample_free(&a);
	link_sample_free(&b);
	link_sample_free(&c);
	link_sampler_free(&pa);
}

/* one datagram sent over lo; false when it cannot be (lo down: a bare network namespace) */
static bool lo_datagram(void)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int sk = socket(AF_INET, SOCK_DGRAM, 0);
	bool sent = sk >= 0 && sendto(sk, "x", 1, 0, (struct sockaddr *)&to, sizeof(to)) == 1;

	if (sk >= 0)
		close(sk);
	return sent;
}

/*
 * sysfs's counter files are kept open and read again (this host's netdevs: lo at least; the
 * rtnetlink dump off, as when it cannot be had): the second sample reads them through the kept
 * descriptors, no fewer, and lo's counters do not go back; a sample that reads none closes them
 * all.
 */
static void test_kept_sysfs(void **state)
{
	struct link_sampler pa = { .nl_off = true };
	struct link_sample a, b, c;
	const struct netdev_stat *la = NULL, *lb = NULL;
	size_t kept;

	(void)state;
	if (access("/sys/class/net/lo/statistics/tx_bytes", R_OK)) {
		skip();
		return;
	}
	assert_int_equal(link_sample("/", NULL, 0, &pa, &a), 0);
	kept = pa.nkept;
	assert_true(kept >= 4);
	for (size_t k = 0; k < pa.nkept; k++)
		assert_non_null(strstr(pa.kept[k].path, "/sys/class/"));
	/* a datagram over lo between the samples: the kept descriptors must show it */
	if (!lo_datagram()) {
		link_sample_free(&a);
		link_sampler_free(&pa);
		skip();
		return;
	}
	assert_int_equal(link_sample("/", NULL, 0, &pa, &b), 0);
	assert_int_equal(pa.nkept, kept);
	for (size_t k = 0; k < a.nnd; k++)
		if (!strcmp(a.nds[k].name, "lo"))
			la = &a.nds[k];
	for (size_t k = 0; k < b.nnd; k++)
		if (!strcmp(b.nds[k].name, "lo"))
			lb = &b.nds[k];
	assert_non_null(la);
	assert_non_null(lb);
	assert_true(lb->tx_packets > la->tx_packets && lb->tx_bytes > la->tx_bytes);
	/* a sample elsewhere reads none of them: all closed */
	assert_int_equal(link_sample(FIXTURES "/links/t0", NULL, 0, &pa, &c), 0);
	assert_int_equal(pa.nkept, 0);
	link_sample_free(&a);
	link_sample_free(&b);
	link_sample_free(&c);
	link_sampler_free(&pa);
}

static const struct netdev_stat *netdev_of(const struct link_sample *s, const char *name)
{
	for (size_t k = 0; k < s->nnd; k++)
		if (!strcmp(s->nds[k].name, name))
			return &s->nds[k];
	return NULL;
}

static uint64_t lo_file(const char *f)
{
	char path[128];
	long v = -1;

	snprintf(path, sizeof(path), "/sys/class/net/lo/statistics/%s", f);
	assert_int_equal(read_long(path, &v), 0);
	return (uint64_t)v;
}

static size_t netdev_dirs(void)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir("/sys/class/net");

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* no counter file of a netdev kept open (an RDMA port's may be) */
static void no_netdev_files(const struct link_sampler *pa)
{
	for (size_t k = 0; k < pa->nkept; k++)
		assert_null(strstr(pa->kept[k].path, "/sys/class/net/"));
}

/*
 * On the live sysfs the netdevs' counters come from one rtnetlink dump: lo's lie between its
 * sysfs files read just before and just after each sample (packets sent between the samples
 * show), no netdev counter file is kept open, and the netdevs of /sys/class/net are all there.
 */
static void test_netdev_dump(void **state)
{
	struct link_sampler pa = { 0 };
	struct link_sample a, b;
	const struct netdev_stat *la, *lb;
	uint64_t tx0, tx1, p0, p1;
	size_t dirs0, dirs1;

	(void)state;
	if (access("/sys/class/net/lo/statistics/tx_bytes", R_OK)) {
		skip();
		return;
	}
	dirs0 = netdev_dirs();
	tx0 = lo_file("tx_bytes");
	assert_int_equal(link_sample("/", NULL, 0, &pa, &a), 0);
	tx1 = lo_file("tx_bytes");
	dirs1 = netdev_dirs();
	assert_false(pa.nl_off);
	assert_true(pa.nl_sock > 0);
	no_netdev_files(&pa);
	la = netdev_of(&a, "lo");
	assert_non_null(la);
	assert_true(la->valid && la->tx_bytes >= tx0 && la->tx_bytes <= tx1);
	/* netdevs may come and go meanwhile (a container host): between the two counts */
	assert_true(a.nnd >= (dirs0 < dirs1 ? dirs0 : dirs1) && a.nnd <= (dirs0 > dirs1 ? dirs0 : dirs1));
	if (!lo_datagram()) {
		link_sample_free(&a);
		link_sampler_free(&pa);
		skip();
		return;
	}
	p0 = lo_file("tx_packets");
	assert_int_equal(link_sample("/", NULL, 0, &pa, &b), 0);
	p1 = lo_file("tx_packets");
	lb = netdev_of(&b, "lo");
	assert_non_null(lb);
	assert_true(lb->tx_packets > la->tx_packets && lb->tx_packets >= p0 && lb->tx_packets <= p1);
	no_netdev_files(&pa);
	link_sample_free(&a);
	link_sample_free(&b);
	link_sampler_free(&pa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_rate),
		cmocka_unit_test(test_verbs_rate),
		cmocka_unit_test(test_counter_delta),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_verbs_rate_overrides_sysfs),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_no_rdma),
		cmocka_unit_test(test_link_sampler_kept),
		cmocka_unit_test(test_kept_sysfs),
		cmocka_unit_test(test_netdev_dump),
		cmocka_unit_test(test_verbs_rate_renegotiated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
