/* The kernel ring of each captured link, sized by what it carries; see topology.h. */
#include "topology.h"

#include <stdio.h>

#include "capring.h"

/* the ring a capture takes per packet: TPACKET_V3's 48-byte header and the
 * link address, aligned, then a request's 90 bytes (192), rounded up: a DNS
 * message cut at the snaplen of 128 takes 240 */
#define TOPO_CAPTURE_PACKET_BYTES 256
/* how long a busy link's ring holds its packets while the collector is away
 * (a busy machine): docs/agents.md measured a 1 s stall absorbed. A quiet
 * link's ring holds its blocks times the timeout (lib/capring.h): the
 * fewest blocks are what holds it */
#define TOPO_CAPTURE_HOLD_S 1
#define TOPO_CAPTURE_BLOCK CAPRING_BLOCK
#define TOPO_CAPTURE_MIN (CAPRING_MIN_BLOCKS * TOPO_CAPTURE_BLOCK)
#define TOPO_CAPTURE_SITE_MIN (CAPRING_SITE_MIN_BLOCKS * TOPO_CAPTURE_BLOCK)
/* the default of old, enough for 200,000 requests/s a link */
#define TOPO_CAPTURE_MAX (64u << 20)

/* topo_capture_size: the ring for pps packets a second, at least min */
static uint64_t topo_capture_size(double pps, uint64_t min)
{
	double bytes = pps * TOPO_CAPTURE_PACKET_BYTES * TOPO_CAPTURE_HOLD_S;
	uint64_t b;

	if (bytes >= TOPO_CAPTURE_MAX)
		return TOPO_CAPTURE_MAX;
	b = (uint64_t)bytes + TOPO_CAPTURE_BLOCK - 1;
	b -= b % TOPO_CAPTURE_BLOCK;
	return b < min ? min : b;
}

/* topo_flows: the requests a second of client n's flows of one scheme
 * (dns: its DNS-steered flow, else its anycast one) */
static double topo_flow_rate(const struct topo_node *n, int dns)
{
	if (n->kind != TOPO_CLIENT)
		return 0;
	if (n->mode == TOPO_MODE_BOTH || (n->mode == TOPO_MODE_DNS) == dns)
		return n->rate;
	return 0;
}

uint64_t topo_capture_ring(const struct topology *t, int link)
{
	const struct topo_node *end = &t->nodes[t->links[link].node];
	double pps = 0;

	if (t->capture_buffer)
		return t->capture_buffer;
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *n = &t->nodes[i];

		switch (end->kind) {
		case TOPO_SITE:
			/* every flow may end here (the others' site failed),
			 * and every [prober] probes every site: each request
			 * and its reply */
			pps += 2 * (topo_flow_rate(n, 0) + topo_flow_rate(n, 1));
			if (n->kind == TOPO_PROBER && n->probe_interval_ns > 0)
				pps += 2e9 / (double)n->probe_interval_ns;
			break;
		case TOPO_RESOLVER:
			/* its clients' queries and its answers, and its own
			 * queries upstream and their answers: at most one
			 * resolution a request (a TTL of 0) */
			if (n->resolver == t->links[link].node)
				pps += 4 * topo_flow_rate(n, 1);
			break;
		case TOPO_DNS:
			/* a query and its answer for every DNS request that no
			 * cache answered: at most every one */
			pps += 2 * topo_flow_rate(n, 1);
			break;
		default:
			break;
		}
	}
	return topo_capture_size(pps,
				 end->kind == TOPO_SITE ? TOPO_CAPTURE_SITE_MIN : TOPO_CAPTURE_MIN);
}

uint64_t topo_capture_ring_rlink(const struct topology *t, int rlink)
{
	(void)rlink;
	/* BGP: a few messages a second, an UPDATE per route change */
	return t->capture_buffer ? t->capture_buffer : TOPO_CAPTURE_MIN;
}

int topo_has_tcp(const struct topology *t)
{
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].kind == TOPO_CLIENT && t->nodes[i].proto != TOPO_PROTO_UDP)
			return 1;
	return 0;
}

int topo_has_http(const struct topology *t)
{
	for (int i = 0; i < t->nnodes; i++)
		if ((t->nodes[i].kind == TOPO_CLIENT && t->nodes[i].proto == TOPO_PROTO_HTTP) ||
		    ((t->nodes[i].kind == TOPO_SITE || t->nodes[i].kind == TOPO_PROBER) &&
		     t->nodes[i].check == TOPO_CHECK_HTTP))
			return 1;
	return 0;
}

int topo_captured(const struct topology *t, int link)
{
	enum topo_kind kind = t->nodes[t->links[link].node].kind;

	return kind == TOPO_SITE || kind == TOPO_DNS || kind == TOPO_RESOLVER;
}

int topo_captured_bgp(const struct topology *t, int link)
{
	return t->routing == TOPO_ROUTING_BGP && t->nodes[t->links[link].node].kind == TOPO_SITE;
}

uint64_t topo_capture_total(const struct topology *t, int router, int *nlinks)
{
	uint64_t sum = 0;
	int n = 0;

	for (int i = 0; i < t->nlinks; i++) {
		if (!topo_captured(t, i) || (router >= 0 && t->links[i].router != router))
			continue;
		sum += topo_capture_ring(t, i);
		n++;
		if (topo_captured_bgp(t, i)) {
			sum += topo_capture_ring_rlink(t, -1);
			n++;
		}
	}
	/* a [link R1 R2] is captured by R1 */
	for (int j = 0; j < t->nrlinks; j++) {
		if (router >= 0 && t->rlinks[j].a != router)
			continue;
		sum += topo_capture_ring_rlink(t, j);
		n++;
	}
	if (nlinks)
		*nlinks = n;
	return sum;
}
