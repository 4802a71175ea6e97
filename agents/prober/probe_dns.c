/* The prober's dns check: a name server answers a zone's SOA; see probe.h. */
#include "probe.h"

#include <errno.h>
#include <libknot/libknot.h>
#include <string.h>
#include <sys/socket.h>

#include "log.h"
#include "timeutil.h"

int prober_dns_send(struct prober_probe *p, int64_t timeout_ns)
{
	uint8_t qname[KNOT_DNAME_MAXLEN];
	knot_pkt_t *q;
	int rc = -1;

	p->seq++;
	p->in_flight = 1;
	p->sent = now_mono_ns();
	p->deadline = p->sent + timeout_ns;
	if (knot_dname_from_str(qname, p->dns_zone ? p->dns_zone : ".", sizeof(qname)) == NULL ||
	    (q = knot_pkt_new(NULL, KNOT_WIRE_MIN_PKTSIZE, NULL)) == NULL) {
		errno = EINVAL;
		return -1;
	}
	/* the probe's id: its sequence number's low 16 bits */
	if (knot_pkt_put_question(q, qname, KNOT_CLASS_IN, KNOT_RRTYPE_SOA) == KNOT_EOK) {
		knot_wire_set_id(q->wire, (uint16_t)p->seq);
		rc = send(p->fd, q->wire, q->size, 0) == (ssize_t)q->size ? 0 : -1;
	}
	knot_pkt_free(q);
	return rc;
}

enum prober_reply prober_dns_check(const uint8_t *buf, size_t len, uint64_t seq, const char *zone)
{
	uint8_t qname[KNOT_DNAME_MAXLEN];
	const knot_dname_t *asked;

	if (len < KNOT_WIRE_HEADER_SIZE || !knot_wire_get_qr(buf) ||
	    knot_wire_get_qdcount(buf) != 1)
		return PROBER_REPLY_BAD;
	if (knot_wire_get_id(buf) != (uint16_t)seq)
		return PROBER_REPLY_STALE;
	asked = buf + KNOT_WIRE_HEADER_SIZE;
	if (knot_dname_from_str(qname, zone ? zone : ".", sizeof(qname)) == NULL ||
	    knot_dname_wire_check(asked, buf + len, NULL) <= 0 ||
	    !knot_dname_is_case_equal(asked, qname))
		return PROBER_REPLY_BAD;
	/* NOERROR with its SOA, as the zone's server: anything else (a
	 * SERVFAIL, a REFUSED, a referral) is a server not serving it */
	if (knot_wire_get_rcode(buf) != KNOT_RCODE_NOERROR || !knot_wire_get_aa(buf) ||
	    knot_wire_get_ancount(buf) == 0)
		return PROBER_REPLY_UNAVAILABLE;
	return PROBER_REPLY_OK;
}

int prober_dns_read(struct prober_probe *p)
{
	uint8_t buf[4096];
	ssize_t n = recv(p->fd, buf, sizeof(buf), 0);

	if (n == -1)
		return -1;
	return (int)prober_dns_check(buf, (size_t)n, p->seq, p->dns_zone);
}

/* open and close are the udp check's: a socket connected to the server */
const struct prober_check prober_check_dns = {"dns", prober_probe_open, prober_dns_send,
					      prober_dns_read, prober_probe_close};
