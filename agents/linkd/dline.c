/* The delay line's decisions and its heap of held packets; see dline.h. */
#include "dline.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

static int dline_before(const struct dline_pkt *a, const struct dline_pkt *b)
{
	return a->release_ns < b->release_ns || (a->release_ns == b->release_ns && a->seq < b->seq);
}

int dline_heap_push(struct dline_heap *h, int64_t release_ns, uint32_t id, uint16_t link)
{
	struct dline_pkt p = {.release_ns = release_ns, .seq = h->seq++, .id = id, .link = link};
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 1024;
		struct dline_pkt *v = realloc(h->v, cap * sizeof(*v));

		if (v == NULL)
			return -1;
		h->v = v;
		h->cap = cap;
	}
	for (i = h->n++; i > 0 && dline_before(&p, &h->v[(i - 1) / 2]); i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	h->v[i] = p;
	return 0;
}

const struct dline_pkt *dline_heap_peek(const struct dline_heap *h)
{
	return h->n ? &h->v[0] : NULL;
}

int dline_heap_pop(struct dline_heap *h, struct dline_pkt *out)
{
	struct dline_pkt last;
	size_t i = 0;

	if (h->n == 0)
		return -1;
	*out = h->v[0];
	last = h->v[--h->n];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && dline_before(&h->v[c + 1], &h->v[c]))
			c++;
		if (!dline_before(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
	return 0;
}

void dline_heap_free(struct dline_heap *h)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
}

void dline_link_init(struct dline_link *l, const char *ifname, uint16_t queue,
		     const struct impair *im, uint64_t seed)
{
	memset(l, 0, sizeof(*l));
	strncpy(l->ifname, ifname, sizeof(l->ifname) - 1);
	l->queue = queue;
	l->im = *im;
	impair_sampler_init(&l->s, im, seed);
}

void dline_link_set(struct dline_link *l, const struct impair *im, uint64_t seed)
{
	l->im = *im;
	impair_sampler_init(&l->s, im, seed);
}

enum dline_verdict dline_decide(struct dline_link *l, int64_t arrival_ns, uint32_t flow,
				int64_t *release_ns)
{
	int64_t *last = &l->flow_last[flow % DLINE_FLOWS], t;

	l->counts.queued++;
	/* netem's order of draws: loss first, then reorder, then the delay */
	if (impair_sample_loss(&l->s)) {
		l->counts.dropped++;
		return DLINE_DROP;
	}
	if (impair_sample_reorder(&l->s)) {
		l->counts.reordered++;
		*release_ns = arrival_ns;
		return DLINE_RELEASE;
	}
	t = arrival_ns + impair_sample_delay_ns(&l->s);
	if (t < *last)
		t = *last;
	*last = t;
	*release_ns = t;
	return DLINE_RELEASE;
}

/* dline_mix: one step of FNV-1a over n bytes */
static uint32_t dline_mix(uint32_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

uint32_t dline_flow_hash(const uint8_t *pkt, size_t len)
{
	uint32_t h = 2166136261u;
	size_t l4;
	uint8_t proto;

	if (len < 1)
		return 0;
	if ((pkt[0] >> 4) == 4 && len >= 20) {
		l4 = (size_t)(pkt[0] & 0x0f) * 4;
		proto = pkt[9];
		h = dline_mix(h, pkt + 12, 8);
		/* a fragment after the first has no ports */
		if ((pkt[6] & 0x1f) || pkt[7])
			l4 = len;
	} else if ((pkt[0] >> 4) == 6 && len >= 40) {
		l4 = 40;
		proto = pkt[6];
		h = dline_mix(h, pkt + 8, 32);
	} else {
		return 0;
	}
	h = dline_mix(h, &proto, 1);
	if ((proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_SCTP) &&
	    l4 + 4 <= len)
		h = dline_mix(h, pkt + l4, 4);
	return h;
}
