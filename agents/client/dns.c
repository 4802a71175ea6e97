/* The client's DNS lookups through libknot; see dns.h. */
#include "dns.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libknot/libknot.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "timeutil.h"

int client_dns_build_query(const uint8_t *qname, uint16_t id, uint8_t *buf, size_t len)
{
	return client_dns_build_query_type(qname, KNOT_RRTYPE_A, id, buf, len);
}

int client_dns_build_query_type(const uint8_t *qname, uint16_t qtype, uint16_t id, uint8_t *buf,
				size_t len)
{
	knot_rrset_t opt;
	knot_pkt_t *pkt;
	int n = -1;

	if (len > UINT16_MAX)
		len = UINT16_MAX;
	/* knot_pkt_new over a buffer keeps what is there: start clean */
	memset(buf, 0, len);
	if ((pkt = knot_pkt_new(buf, (uint16_t)len, NULL)) == NULL)
		return -1;
	knot_wire_set_id(pkt->wire, id);
	knot_wire_set_rd(pkt->wire);
	/* with an OPT, so that a resolver can say an answer is stale (EDE 3,
	 * RFC 8914), as resolverd does */
	if (knot_pkt_put_question(pkt, qname, KNOT_CLASS_IN, qtype) == KNOT_EOK &&
	    knot_edns_init(&opt, CLIENT_DNS_EDNS_PAYLOAD, 0, 0, NULL) == KNOT_EOK) {
		if (knot_pkt_begin(pkt, KNOT_ADDITIONAL) == KNOT_EOK &&
		    knot_pkt_put(pkt, KNOT_COMPR_HINT_NONE, &opt, 0) == KNOT_EOK)
			n = (int)pkt->size;
		knot_rrset_clear(&opt, NULL);
	}
	knot_pkt_free(pkt);
	return n;
}

/* client_dns_stale: the response carries EDE 3, Stale Answer */
static int client_dns_stale(const knot_pkt_t *pkt)
{
	uint8_t *o = NULL;

	if (!knot_pkt_has_edns(pkt))
		return 0;
	while ((o = knot_edns_get_option(pkt->opt_rr, KNOT_EDNS_OPTION_EDE, o)) != NULL)
		if (knot_edns_opt_get_length(o) >= 2 &&
		    knot_wire_read_u16(knot_edns_opt_get_data(o)) == KNOT_EDNS_EDE_STALE)
			return 1;
	return 0;
}

int client_dns_parse_answer(const uint8_t *buf, size_t len, uint16_t id, const uint8_t *qname,
			    struct in_addr *addr, uint32_t *ttl)
{
	struct client_dns_response r;

	if (client_dns_parse_response(buf, len, id, qname, &r) != 0)
		return -1;
	*addr = r.addr;
	*ttl = r.ttl;
	return 0;
}

int client_dns_parse_response(const uint8_t *buf, size_t len, uint16_t id, const uint8_t *qname,
			      struct client_dns_response *r)
{
	uint8_t copy[KNOT_WIRE_MAX_PKTSIZE];
	const knot_pktsection_t *an;
	const knot_dname_t *want = qname;
	uint32_t minttl = UINT32_MAX;
	knot_pkt_t *pkt;
	int rc = -1;

	if (len < KNOT_WIRE_HEADER_SIZE || len > sizeof(copy))
		return -1;
	memcpy(copy, buf, len);
	if ((pkt = knot_pkt_new(copy, (uint16_t)len, NULL)) == NULL)
		return -1;
	if (knot_pkt_parse(pkt, 0) != KNOT_EOK || !knot_wire_get_qr(pkt->wire) ||
	    knot_wire_get_id(pkt->wire) != id || knot_pkt_qname(pkt) == NULL ||
	    !knot_dname_is_equal(knot_pkt_qname(pkt), qname))
		goto out;
	memset(r, 0, sizeof(*r));
	r->qtype = knot_pkt_qtype(pkt);
	r->rcode = knot_wire_get_rcode(pkt->wire);
	r->stale = client_dns_stale(pkt);
	rc = 1; /* a response to the query, with no address (yet) */
	if (r->rcode != KNOT_RCODE_NOERROR)
		goto out;
	an = knot_pkt_section(pkt, KNOT_ANSWER);
	/* a CNAME chain in order, as authoritative servers and resolvers send
	 * it; records of class IN only: libknot parses another class with no
	 * rdata at all */
	for (uint16_t i = 0; i < an->count; i++) {
		const knot_rrset_t *rr = knot_pkt_rr(an, i);
		const knot_rdata_t *rd = rr->rrs.rdata;

		if (rr->rclass != KNOT_CLASS_IN || rr->rrs.count == 0 ||
		    !knot_dname_is_equal(rr->owner, want))
			continue;
		if (rr->ttl < minttl)
			minttl = rr->ttl;
		if (rr->type == KNOT_RRTYPE_CNAME) {
			if (knot_dname_wire_check(rd->data, rd->data + rd->len, NULL) != rd->len)
				break;
			want = knot_cname_name(rd);
		} else if (rr->type == KNOT_RRTYPE_A) {
			/* every A record of the name, an RR or an RRset each */
			for (uint16_t k = 0; k < rr->rrs.count; k++) {
				const knot_rdata_t *a = knot_rdataset_at(&rr->rrs, k);

				if (a->len == 4 && r->naddrs < CLIENT_DNS_ADDRS_MAX)
					memcpy(&r->addrs[r->naddrs++].s_addr, a->data, 4);
			}
		} else if (rr->type == KNOT_RRTYPE_AAAA) {
			for (uint16_t k = 0; k < rr->rrs.count; k++) {
				const knot_rdata_t *a = knot_rdataset_at(&rr->rrs, k);

				if (a->len == 16 && r->naddrs6 < CLIENT_DNS_ADDRS_MAX)
					memcpy(&r->addrs6[r->naddrs6++], a->data, 16);
			}
		}
	}
	/* an answer to an AAAA question is its IPv6 addresses */
	if (r->qtype == KNOT_RRTYPE_AAAA && r->naddrs6 > 0) {
		r->addr6 = r->addrs6[0];
		r->ttl = minttl;
		rc = 0;
	} else if (r->qtype != KNOT_RRTYPE_AAAA && r->naddrs > 0) {
		r->addr = r->addrs[0];
		r->ttl = minttl;
		rc = 0;
	}
out:
	knot_pkt_free(pkt);
	return rc;
}

static const char *const client_pick_words[] = {
    [CLIENT_PICK_FIRST] = "first",
    [CLIENT_PICK_RANDOM] = "random",
    [CLIENT_PICK_SORTED] = "sorted",
    [CLIENT_PICK_NEXT] = "next",
};

int client_pick_parse(const char *s, enum client_pick *pick)
{
	for (size_t i = 0; i < sizeof(client_pick_words) / sizeof(client_pick_words[0]); i++)
		if (strcmp(s, client_pick_words[i]) == 0) {
			*pick = (enum client_pick)i;
			return 0;
		}
	return -1;
}

const char *client_pick_name(enum client_pick pick)
{
	return client_pick_words[pick];
}

/* client_dns_shared: the leading bits the size bytes at a and b have in
 * common, at most max */
static unsigned client_dns_shared(const uint8_t *a, const uint8_t *b, size_t size, unsigned max)
{
	unsigned bits = 0;

	for (size_t i = 0; i < size && bits < max; i++) {
		uint8_t x = a[i] ^ b[i];

		if (x != 0) {
			bits += (unsigned)__builtin_clz((unsigned)x) - 24;
			break;
		}
		bits += 8;
	}
	return bits < max ? bits : max;
}

/* client_dns_order_bytes: client_dns_order over n addresses of size bytes
 * (network order), the shared prefix counted up to max bits */
static void client_dns_order_bytes(const uint8_t *in, size_t size, unsigned n,
				   enum client_pick pick, const uint8_t *src, unsigned max,
				   uint32_t draw, uint8_t *out)
{
	unsigned first = pick == CLIENT_PICK_RANDOM ? draw % n : 0, k = 0;
	uint8_t a[16];

	if (size > sizeof(a))
		return;
	memcpy(out + size * k++, in + size * first, size);
	for (unsigned i = 0; i < n; i++)
		if (i != first)
			memcpy(out + size * k++, in + size * i, size);
	if (pick != CLIENT_PICK_SORTED)
		return;
	/* insertion sort, stable: the longest shared prefix first */
	for (unsigned i = 1; i < n; i++) {
		unsigned bits, j = i;

		memcpy(a, out + size * i, size);
		bits = client_dns_shared(a, src, size, max);
		for (; j > 0 && client_dns_shared(out + size * (j - 1), src, size, max) < bits; j--)
			memcpy(out + size * j, out + size * (j - 1), size);
		memcpy(out + size * j, a, size);
	}
}

void client_dns_order(const struct in_addr *in, unsigned n, enum client_pick pick,
		      struct in_addr src, uint32_t draw, struct in_addr *out)
{
	client_dns_order_bytes((const uint8_t *)in, sizeof(*in), n, pick,
			       (const uint8_t *)&src.s_addr, 32, draw, (uint8_t *)out);
}

void client_dns_order6(const struct in6_addr *in, unsigned n, enum client_pick pick,
		       const struct in6_addr *src, uint32_t draw, struct in6_addr *out)
{
	client_dns_order_bytes((const uint8_t *)in, sizeof(*in), n, pick, src->s6_addr, 64, draw,
			       (uint8_t *)out);
}

/* client_dns_source: the address the client sends from towards to (to's
 * family: a connected UDP socket's, no packet sent) into *local (left as
 * it is when the kernel has no route) */
static void client_dns_source(const struct sockaddr *to, socklen_t len,
			      struct sockaddr_storage *local)
{
	struct sockaddr_storage peer;
	socklen_t llen = sizeof(*local);
	int fd = socket(to->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd == -1)
		return;
	memcpy(&peer, to, len);
	/* the port sits at one offset in both families' sockaddr */
	((struct sockaddr_in *)&peer)->sin_port = htons(9);
	if (connect(fd, (const struct sockaddr *)&peer, len) == 0)
		(void)getsockname(fd, (struct sockaddr *)local, &llen);
	close(fd);
}

/* client_dns_source4, client_dns_source6: the same for an address of each
 * family: 0.0.0.0 or :: when not known */
static struct in_addr client_dns_source4(struct in_addr to)
{
	struct sockaddr_in peer = {.sin_family = AF_INET, .sin_addr = to};
	struct sockaddr_storage local = {0};

	client_dns_source((const struct sockaddr *)&peer, sizeof(peer), &local);
	return local.ss_family == AF_INET ? ((struct sockaddr_in *)&local)->sin_addr
					  : (struct in_addr){0};
}

static struct in6_addr client_dns_source6(const struct in6_addr *to)
{
	struct sockaddr_in6 peer = {.sin6_family = AF_INET6, .sin6_addr = *to};
	struct sockaddr_storage local = {0};

	client_dns_source((const struct sockaddr *)&peer, sizeof(peer), &local);
	return local.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&local)->sin6_addr
					   : in6addr_any;
}

int client_dns_open(const char *name, char *namebuf, uint8_t *qname)
{
	return client_dns_open_family(name, namebuf, qname, AF_INET);
}

int client_dns_open_family(const char *name, char *namebuf, uint8_t *qname, int family)
{
	int fd;

	if (strlen(name) > CLIENT_DNS_NAME_MAX ||
	    knot_dname_from_str(qname, name, CLIENT_DNS_NAME_MAX + 1) == NULL) {
		log_warnx("not a domain name: '%s'", name);
		return -1;
	}
	strcpy(namebuf, name);
	knot_dname_to_lower(qname);
	fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1)
		log_warn("%s: socket", __func__);
	return fd;
}

int client_dns_init(struct client_dns *d, const struct sockaddr_in *resolver, const char *name,
		    int64_t sticky_ns, enum client_pick pick)
{
	return client_dns_init_family(d, (const struct sockaddr *)resolver, sizeof(*resolver), name,
				      sticky_ns, pick, AF_INET);
}

int client_dns_init_family(struct client_dns *d, const struct sockaddr *resolver, socklen_t len,
			   const char *name, int64_t sticky_ns, enum client_pick pick, int family)
{
	memset(d, 0, sizeof(*d));
	d->qtype = family == AF_INET6 ? KNOT_RRTYPE_AAAA : KNOT_RRTYPE_A;
	d->fd = -1;
	if (len > sizeof(d->resolver))
		len = sizeof(d->resolver);
	memcpy(&d->resolver, resolver, len);
	d->resolver_len = len;
	d->sticky_ns = sticky_ns;
	d->pick = pick;
	if ((d->fd = client_dns_open_family(name, d->name, d->qname, resolver->sa_family)) == -1)
		return -1;
	return 0;
}

const char *client_dns_resolver_text(const struct client_dns *d, char *buf, size_t len)
{
	const struct sockaddr *sa = (const struct sockaddr *)&d->resolver;

	if (sa->sa_family == AF_INET6)
		return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf,
				 (socklen_t)len);
	return inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf, (socklen_t)len);
}

int client_dns_query(struct client_dns *d, int64_t now)
{
	uint8_t buf[512];
	int n;

	if (getrandom(&d->qid, sizeof(d->qid), 0) != sizeof(d->qid))
		d->qid = (uint16_t)now;
	if ((n = client_dns_build_query_type(d->qname, d->qtype, d->qid, buf, sizeof(buf))) == -1) {
		log_warnx("cannot build a query for %s", d->name);
		return -1;
	}
	if (d->pending)
		d->failures++; /* the previous one was never answered */
	d->pending = 1;
	d->responded = 0;
	d->sent_ns = now;
	d->queries++;
	if (sendto(d->fd, buf, (size_t)n, 0, (const struct sockaddr *)&d->resolver,
		   d->resolver_len) == -1) {
		char a[INET6_ADDRSTRLEN];

		log_warn("%s: query to %s", __func__, client_dns_resolver_text(d, a, sizeof(a)));
		return -1;
	}
	return 0;
}

/* client_dns_hold: an answer of ttl taken now: when to ask again. 1. */
static int client_dns_hold(struct client_dns *d, uint32_t ttl, int64_t now)
{
	int64_t hold = d->sticky_ns > 0 ? d->sticky_ns : (int64_t)ttl * NSEC_PER_SEC;

	if (hold < CLIENT_DNS_MIN_TTL_NS)
		hold = CLIENT_DNS_MIN_TTL_NS;
	d->ttl = ttl;
	d->refresh_ns = now + hold;
	return 1;
}

int client_dns_receive(struct client_dns *d, int64_t now)
{
	uint8_t buf[KNOT_WIRE_MAX_PKTSIZE];
	struct client_dns_response r;
	ssize_t n = recv(d->fd, buf, sizeof(buf), 0);
	uint32_t draw = 0;
	int rc;

	if (n == -1)
		return (errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED) ? 0 : -1;
	if (!d->pending || d->responded ||
	    (rc = client_dns_parse_response(buf, (size_t)n, d->qid, d->qname, &r)) == -1)
		return 0;
	d->last = r;
	d->last_latency_ns = now - d->sent_ns;
	if (rc == 1) {
		/* SERVFAIL, NXDOMAIN, no address: the query stays pending, and
		 * is asked again when CLIENT_DNS_RETRY_NS runs out (a failure
		 * then), but is not a timeout */
		d->responded = 1;
		return 2;
	}
	d->pending = 0;
	d->answers++;
	if (d->pick == CLIENT_PICK_RANDOM && getrandom(&draw, sizeof(draw), 0) != sizeof(draw))
		draw = (uint32_t)now;
	if (d->qtype == KNOT_RRTYPE_AAAA) {
		/* IPv6: the AAAA records, ordered as the A's are */
		if (d->pick == CLIENT_PICK_SORTED && IN6_IS_ADDR_UNSPECIFIED(&d->src6))
			d->src6 = client_dns_source6(&r.addrs6[0]);
		client_dns_order6(r.addrs6, r.naddrs6, d->pick, &d->src6, draw, d->addrs6);
		d->naddrs = r.naddrs6;
		if (d->have && memcmp(&d->addrs6[0], &d->addr6, sizeof(d->addr6)) != 0)
			d->changes++;
		d->have = 1;
		d->addr6 = d->addrs6[0];
		return client_dns_hold(d, r.ttl, now);
	}
	if (d->pick == CLIENT_PICK_SORTED && d->src.s_addr == 0)
		d->src = client_dns_source4(r.addr);
	client_dns_order(r.addrs, r.naddrs, d->pick, d->src, draw, d->addrs);
	d->naddrs = r.naddrs;
	if (d->have && d->addrs[0].s_addr != d->addr.s_addr)
		d->changes++;
	d->have = 1;
	d->addr = d->addrs[0];
	return client_dns_hold(d, r.ttl, now);
}

int64_t client_dns_next_ns(const struct client_dns *d)
{
	if (d->pending)
		return d->sent_ns + CLIENT_DNS_RETRY_NS;
	return d->refresh_ns;
}

void client_dns_close(struct client_dns *d)
{
	if (d->fd != -1)
		close(d->fd);
	d->fd = -1;
}
