// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include "links/nl.h"
#include "links/tcpdiag.h"
#include "lib/util.h"

/* tcp_info up to and including tcpi_sndbuf_limited: what a kernel before 4.10 does not send */
#define TCPI_NEED (offsetof(struct tcp_info, tcpi_sndbuf_limited) + sizeof(__u64))

int tcpdiag_parse(const void *buf, size_t len, struct tcp_conn_stat *st)
{
	const struct inet_diag_msg *m = buf;
	const unsigned char *p = (const unsigned char *)buf + NLMSG_ALIGN(sizeof(*m));
	size_t left = len > NLMSG_ALIGN(sizeof(*m)) ? len - NLMSG_ALIGN(sizeof(*m)) : 0;
	struct tcp_info ti;
	bool found = false;

	if (len < sizeof(*m) || (m->idiag_family != AF_INET && m->idiag_family != AF_INET6))
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->family = m->idiag_family;
	memcpy(st->daddr, m->id.idiag_dst, m->idiag_family == AF_INET ? 4 : 16);
	st->dport = ntohs(m->id.idiag_dport);
	st->sport = ntohs(m->id.idiag_sport);
	while (left >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t alen = a->nla_len, step = NLA_ALIGN(alen);

		if (alen < NLA_HDRLEN || alen > left)
			return -EINVAL;
		if ((a->nla_type & NLA_TYPE_MASK) == INET_DIAG_INFO) {
			if (alen - NLA_HDRLEN < TCPI_NEED)
				return -ENOENT;
			memset(&ti, 0, sizeof(ti));
			memcpy(&ti, p + NLA_HDRLEN, alen - NLA_HDRLEN < sizeof(ti) ? alen - NLA_HDRLEN : sizeof(ti));
			st->busy_us = ti.tcpi_busy_time;
			st->rwnd_us = ti.tcpi_rwnd_limited;
			st->sndbuf_us = ti.tcpi_sndbuf_limited;
			st->retrans = ti.tcpi_total_retrans;
			st->segs_out = ti.tcpi_segs_out;
			/*
			 * The most the server can advertise: a 16-bit window shifted by the scale it
			 * chose at the handshake from its largest buffer (RFC 7323); unscaled, 64 KiB
			 */
			st->wnd_max = (uint64_t)65535 << (ti.tcpi_options & TCPI_OPT_WSCALE ? ti.tcpi_snd_wscale : 0);
			st->min_rtt_us = ti.tcpi_min_rtt;
			found = true;
		} else if ((a->nla_type & NLA_TYPE_MASK) == INET_DIAG_SKMEMINFO &&
			   alen - NLA_HDRLEN >= (SK_MEMINFO_SNDBUF + 1) * sizeof(__u32)) {
			__u32 mem[SK_MEMINFO_SNDBUF + 1];

			memcpy(mem, p + NLA_HDRLEN, sizeof(mem));
			st->sndbuf = mem[SK_MEMINFO_SNDBUF];
		}
		if (step >= left)
			break;
		p += step;
		left -= step;
	}
	return found ? 0 : -ENOENT;
}

static int parse_conn(const void *buf, size_t len, void *st)
{
	return tcpdiag_parse(buf, len, st);
}

/*
 * The kernel's own filter (inet_diag_bc_run(), as `ss` builds one): the source ports @sports, else
 * the destination port @dport, so that the connections not asked for are not dumped with their
 * tcp_info. A port is a GE and an LE test; one that fails either tries the next port, the last's
 * failure jumps past the end (rejected). A port that passes is followed by a JMP to the end
 * (accepted); the last needs none. inet_diag_bc_audit() walks the "yes" jumps and wants every
 * "no" target on that walk: so each "yes" is the next op.
 */
#define FILTER_PORTS 16

struct port_filter {
	struct nlattr a;
	struct inet_diag_bc_op op[5 * FILTER_PORTS];
};

static size_t port_filter(struct port_filter *f, const unsigned int *sports, size_t n, unsigned int dport)
{
	size_t k = 0, len = n ? 20 * n - 4 : 16;
	unsigned short ge = n ? INET_DIAG_BC_S_GE : INET_DIAG_BC_D_GE;
	unsigned short le = n ? INET_DIAG_BC_S_LE : INET_DIAG_BC_D_LE;

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < (n ? n : 1); i++) {
		size_t at = 20 * i;
		bool last = i + 1 >= (n ? n : 1);
		unsigned short port = (unsigned short)(n ? sports[i] : dport);

		f->op[k++] = (struct inet_diag_bc_op){ .code = (__u8)ge, .yes = 8,
			.no = (unsigned short)(last ? len - at + 4 : 20) };
		f->op[k++].no = port;
		f->op[k++] = (struct inet_diag_bc_op){ .code = (__u8)le, .yes = 8,
			.no = (unsigned short)(last ? len - at - 8 + 4 : 12) };
		f->op[k++].no = port;
		if (!last)
			f->op[k++] = (struct inet_diag_bc_op){ .code = INET_DIAG_BC_JMP, .yes = 4,
				.no = (unsigned short)(len - at - 16) };
	}
	f->a.nla_type = INET_DIAG_REQ_BYTECODE;
	f->a.nla_len = (unsigned short)(NLA_HDRLEN + len);
	return NLA_ALIGN(f->a.nla_len);
}

int tcp_conns_sample(int *fd, const unsigned int *sports, size_t nsports, unsigned int dport, bool v6,
		     struct tcp_conn_stat **out, size_t *n, size_t *cap)
{
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
		struct port_filter f;
	} req[2];
	struct nlmsghdr *reqs[] = { &req[0].h, &req[1].h };
	struct nl_acc a = { .type = SOCK_DIAG_BY_FAMILY, .parse = parse_conn, .size = sizeof(**out), .first = 32,
			    .out = out, .n = n, .cap = cap };
	size_t flen;

	if (nsports > FILTER_PORTS)
		nsports = 0;
	memset(&req[0], 0, sizeof(req[0]));
	flen = nsports || dport ? port_filter(&req[0].f, sports, nsports, dport) : 0;
	req[0].h.nlmsg_len = (__u32)(NLMSG_LENGTH(sizeof(req[0].r)) + flen);
	req[0].h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req[0].h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req[0].r.sdiag_family = AF_INET;
	req[0].r.sdiag_protocol = IPPROTO_TCP;
	req[0].r.idiag_states = 1u << 1;	/* TCP_ESTABLISHED */
	/* tcp_info, and the socket's memory (its send buffer: SK_MEMINFO_SNDBUF, 2.6.33) */
	req[0].r.idiag_ext = 1u << (INET_DIAG_INFO - 1) | 1u << (INET_DIAG_SKMEMINFO - 1);
	req[1] = req[0];
	req[1].r.sdiag_family = AF_INET6;
	return nl_dump_kept(fd, NETLINK_SOCK_DIAG, reqs, v6 ? 2 : 1, &a);
}

static const struct tcp_conn_stat *sum_of(const struct tcp_conn_stat *s, size_t n, __u64 key, __u64 first_seen)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].key == key && s[i].first_seen == first_seen)
			return &s[i];
	return NULL;
}

int tcp_sum_delta(const struct tcp_conn_stat *a, size_t na, const struct tcp_conn_stat *b, size_t nb,
		  __u64 key, __u64 first_seen, struct tcp_limits *l)
{
	const struct tcp_conn_stat *y = sum_of(b, nb, key, first_seen), *x = sum_of(a, na, key, first_seen);

	memset(l, 0, sizeof(*l));
	if (!y)
		return -ENOENT;
	l->wnd_max = (double)y->wnd_max;
	l->sndbuf_bytes = (double)y->sndbuf;
	l->min_rtt_s = y->min_rtt_us / 1e6;
	/* read for its limits only (a slot-bound transport's): no sums */
	if (!y->watched)
		return -ENOENT;
	l->known = true;
	/* sums only grow: one that went back is not the same (a slot reused): all of @b's */
	if (x && (x->busy_us > y->busy_us || x->rwnd_us > y->rwnd_us || x->sndbuf_us > y->sndbuf_us ||
		  x->retrans > y->retrans || x->segs_out > y->segs_out || x->read_us > y->read_us))
		x = NULL;
	l->read_s = (double)(y->read_us - (x ? x->read_us : 0)) / 1e6;
	l->busy_s = (double)(y->busy_us - (x ? x->busy_us : 0)) / 1e6;
	l->rwnd_s = (double)(y->rwnd_us - (x ? x->rwnd_us : 0)) / 1e6;
	l->sndbuf_s = (double)(y->sndbuf_us - (x ? x->sndbuf_us : 0)) / 1e6;
	l->retrans = y->retrans - (x ? x->retrans : 0);
	l->segs_out = y->segs_out - (x ? x->segs_out : 0);
	return 0;
}
