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
	if (knot_pkt_put_question(pkt, qname, KNOT_CLASS_IN, KNOT_RRTYPE_A) == KNOT_EOK)
		n = (int)pkt->size;
	knot_pkt_free(pkt);
	return n;
}

int client_dns_parse_answer(const uint8_t *buf, size_t len, uint16_t id, const uint8_t *qname,
			    struct in_addr *addr, uint32_t *ttl)
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
	    knot_wire_get_id(pkt->wire) != id || knot_wire_get_rcode(pkt->wire) != KNOT_RCODE_NOERROR ||
	    knot_pkt_qname(pkt) == NULL || !knot_dname_is_equal(knot_pkt_qname(pkt), qname))
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
		} else if (rr->type == KNOT_RRTYPE_A && rd->len == 4) {
			memcpy(&addr->s_addr, rd->data, 4);
			*ttl = minttl;
			rc = 0;
			break;
		}
	}
out:
	knot_pkt_free(pkt);
	return rc;
}

int client_dns_init(struct client_dns *d, const struct sockaddr_in *resolver, const char *name,
		    int64_t sticky_ns)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->resolver = *resolver;
	d->sticky_ns = sticky_ns;
	if (strlen(name) > CLIENT_DNS_NAME_MAX ||
	    knot_dname_from_str(d->qname, name, sizeof(d->qname)) == NULL) {
		log_warnx("not a domain name: '%s'", name);
		return -1;
	}
	strcpy(d->name, name);
	knot_dname_to_lower(d->qname);
	d->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (d->fd == -1) {
		log_warn("%s: socket", __func__);
		return -1;
	}
	return 0;
}

int client_dns_query(struct client_dns *d, int64_t now)
{
	uint8_t buf[512];
	int n;

	if (getrandom(&d->qid, sizeof(d->qid), 0) != sizeof(d->qid))
		d->qid = (uint16_t)now;
	if ((n = client_dns_build_query(d->qname, d->qid, buf, sizeof(buf))) == -1) {
		log_warnx("cannot build a query for %s", d->name);
		return -1;
	}
	if (d->pending)
		d->failures++; /* the previous one was never answered */
	d->pending = 1;
	d->sent_ns = now;
	d->queries++;
	if (sendto(d->fd, buf, (size_t)n, 0, (const struct sockaddr *)&d->resolver,
		   sizeof(d->resolver)) == -1) {
		log_warn("%s: query to %s", __func__, inet_ntoa(d->resolver.sin_addr));
		return -1;
	}
	return 0;
}

int client_dns_receive(struct client_dns *d, int64_t now)
{
	uint8_t buf[KNOT_WIRE_MAX_PKTSIZE];
	struct in_addr addr;
	uint32_t ttl;
	ssize_t n = recv(d->fd, buf, sizeof(buf), 0);
	int64_t hold;

	if (n == -1)
		return (errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED) ? 0 : -1;
	if (!d->pending ||
	    client_dns_parse_answer(buf, (size_t)n, d->qid, d->qname, &addr, &ttl) == -1)
		return 0;
	d->pending = 0;
	d->answers++;
	if (d->have && addr.s_addr != d->addr.s_addr)
		d->changes++;
	d->have = 1;
	d->addr = addr;
	d->ttl = ttl;
	hold = d->sticky_ns > 0 ? d->sticky_ns : (int64_t)ttl * NSEC_PER_SEC;
	if (hold < CLIENT_DNS_MIN_TTL_NS)
		hold = CLIENT_DNS_MIN_TTL_NS;
	d->refresh_ns = now + hold;
	return 1;
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
