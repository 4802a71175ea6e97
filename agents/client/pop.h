/*
 * A client population: N logical clients in one agent (docs/agents.md,
 * "Populations"). Logical client j sends as client id base + j, at its own
 * rate, on its own schedule, and in DNS mode holds its own answer.
 *
 * Rates. The agent's rate is the aggregate; each logical client gets a
 * share of it by the skew: equal; harmonic (share of j proportional to
 * 1/(j+1), the seeds' model); zipf:S (1/(j+1)^S); or list:W1,W2,...
 * (client j weighs W[j mod k]).
 *
 * Arrivals. Paced: client j's requests are 1/rate_j apart, the first at a
 * phase of its interval spread over [0, 1) by the golden-ratio sequence, so
 * that the clients do not send in step. Poisson: exponential gaps of mean
 * 1/rate_j from a seeded generator (the same seed, the same run).
 *
 * Scheduling. Paced clients of one rate keep their order: each one's
 * next request comes a whole interval after its last, after every other
 * one's. So when every client has the same interval (paced, equal: the
 * usual case), the schedule is a ring in send order, and pop_due() takes
 * the next client off its head and puts it back at its tail, O(1).
 * Otherwise (Poisson arrivals, skewed rates) it is a 4-ary min-heap by
 * the next due time, each entry holding its due time beside the client's
 * index, four children to a cache line (the heap is 64-byte aligned):
 * O(log N). Either way pop_due() gives the clients in the order of their
 * due times.
 *
 * DNS. Each logical client holds an address, when to ask again (the TTL,
 * or its stickiness if it is sticky), a resolver of the node's list (in
 * turn: client j asks resolver j mod k) and the id of its outstanding
 * query. sticky_share q makes client j sticky when floor((j+1) q) >
 * floor(j q): spread evenly over the population, as topo_sticky spreads it
 * over nodes. The first answer is shared by the clients of a resolver, but
 * each one's first hold is a fraction (pop_hold_phase) of a whole one, as if it
 * had asked at a random time before the start: expiries spread from the
 * start instead of all falling due together. A client re-asks when it is
 * due to send and its hold has run out (its stub cache is empty); its
 * requests keep going to the address it holds until the answer comes.
 *
 * Families (pop_dns_init): a population of family 6 asks for AAAA records
 * instead, and holds an IPv6 address (addr6); one of both families (dual,
 * Happy Eyeballs) looks the A up beside, apart, each as its own TTL says,
 * as one dual client does: its second lookup's state is c4[j], of the same
 * shape, whose address is the IPv4 fallback of client j's requests.
 */
#ifndef STEERLAB_CLIENT_POP_H
#define STEERLAB_CLIENT_POP_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "popseq.h"

#define POP_MAX 131072	      /* logical clients per agent: WIRE_POP_INDEX_MASK + 1 */
#define POP_MAX_RESOLVERS 250 /* a [resolver] node's caches at most */
#define POP_MAX_WEIGHTS 1024

enum pop_skew {
	POP_EQUAL,
	POP_HARMONIC,
	POP_ZIPF,
	POP_LIST,
};

struct pop_rates {
	enum pop_skew skew;
	double exponent; /* POP_ZIPF */
	double weights[POP_MAX_WEIGHTS];
	int nweights; /* POP_LIST */
};

/* pop_rates_parse: "equal", "harmonic", "zipf:S" (0 < S <= 10) or
 * "list:W1,W2,..." (each > 0). 0, or -1 if s is none of them. */
int pop_rates_parse(const char *s, struct pop_rates *r);

/* pop_rates_fill: rate[j] for j < n, adding up to total. */
void pop_rates_fill(const struct pop_rates *r, uint32_t n, double total, double *rate);

/* the generator of Poisson gaps: xorshift64*, seeded */
uint64_t pop_rand(uint64_t *state);
/* pop_exp_ns: an exponential gap of mean 1 / rate seconds, in ns, >= 1 */
int64_t pop_exp_ns(uint64_t *state, double rate);

struct pop_client {
	int64_t gap_ns;	    /* paced: 1 / rate */
	double rate;	    /* requests per second */
	int64_t refresh_ns; /* DNS: when its hold runs out */
	int64_t asked_ns;   /* DNS: when its outstanding query left */
	struct in_addr addr;
	uint16_t qid;	  /* its outstanding query's id */
	uint8_t resolver; /* index in the node's list */
	uint8_t flags;	  /* POP_F_* */
};

/* an entry of the schedule (its ring or its heap): client j is due at
 * due_ns (CLOCK_MONOTONIC) */
struct pop_entry {
	int64_t due_ns;
	uint32_t j;
};

#define POP_F_STICKY 0x01
#define POP_F_ASKING 0x02 /* a query is outstanding */

/* a logical client's lookups: its own (A; AAAA for family 6 and dual), and
 * a dual one's A beside it */
#define POP_LOOKUP 0
#define POP_LOOKUP_A 1

struct pop {
	uint32_t n, base; /* clients, and client j's id is base + j */
	int poisson;
	uint64_t rng;
	struct pop_client *c;
	struct pop_entry *heap;	    /* the schedule: the ring, or the heap (see above) */
	struct pop_entry *heap_mem; /* its allocation, heap - 3: a level's children in a line */
	uint32_t nheap;		    /* clients with a request still to send */
	uint32_t head, ring;	    /* ring: the next one's index, the ring's size; heap: 0 */
	int64_t ring_gap_ns;	    /* ring: every client's interval */
	int64_t end_ns;		    /* no request is due at or after it; INT64_MAX: no end */
	int64_t due_ns;		    /* when the request pop_due last gave was due */
	uint32_t *byqid;	    /* DNS: qid -> client + 1 (+ POP_MAX: its A lookup) */
	struct in6_addr *addr6;	    /* family 6 and dual: client j's AAAA address */
	struct pop_client *c4;	    /* dual: client j's A lookup (its addr, hold, query) */
	uint32_t src_net, src_size; /* source_block (host order); size 0: none */
	uint32_t asking;	    /* outstanding queries */
};

/* pop_init: n clients with ids from base, rates by r adding up to total.
 * 0, or -1 if out of memory. */
int pop_init(struct pop *p, uint32_t n, uint32_t base, const struct pop_rates *r, double total,
	     int poisson, uint64_t seed);

/* pop_start: the schedule: the first requests from start_ns on, none due at
 * or after start_ns + duration_ns (0: no end). */
void pop_start(struct pop *p, int64_t start_ns, int64_t duration_ns);
void pop_free(struct pop *p);

/* pop_next_ns: when the next request is due (INT64_MAX: none is, the run
 * is over) */
static inline int64_t pop_next_ns(const struct pop *p)
{
	return p->nheap ? p->heap[p->head].due_ns : INT64_MAX;
}

/* pop_due: the client whose request is due at or before now, moved on to
 * its next request (the instant that request was due in p->due_ns); -1 if
 * none is due. */
int64_t pop_due(struct pop *p, int64_t now);

/* pop_source: client j's source address from the block: net + (j mod
 * size); 0.0.0.0 (the kernel's choice) without a block */
static inline struct in_addr pop_source(const struct pop *p, uint32_t j)
{
	struct in_addr a = {0};

	if (p->src_size)
		a.s_addr = htonl(p->src_net + j % p->src_size);
	return a;
}

/* pop_dns_init: DNS state: client j asks resolver j mod nresolvers, or
 * with weights (NULL: in turn) resolver k with probability w[k] / sum: the
 * one whose share of [0, 1) holds pop_resolver_point(j); and is sticky by
 * q. family: AF_INET (A records), AF_INET6 (AAAA) or AF_UNSPEC (both: the
 * AAAA, and the A apart, POP_LOOKUP_A). 0, or -1 if out of memory. */
int pop_dns_init(struct pop *p, int nresolvers, const double *weights, double q, int family);

/* pop_lookup: client j's lookup (POP_LOOKUP, or a dual one's POP_LOOKUP_A):
 * its hold, its outstanding query (its flags' POP_F_ASKING) */
static inline struct pop_client *pop_lookup(const struct pop *p, uint32_t j, int lookup)
{
	return lookup == POP_LOOKUP_A ? &p->c4[j] : &p->c[j];
}

/* pop_lookup_family: the family of a lookup's addresses (AF_INET: an A's,
 * AF_INET6: an AAAA's) */
static inline int pop_lookup_family(const struct pop *p, int lookup)
{
	return lookup == POP_LOOKUP && p->addr6 ? AF_INET6 : AF_INET;
}

/* pop_dns_addr: client j's address of lookup, a struct in_addr or a
 * struct in6_addr by pop_lookup_family */
static inline void *pop_dns_addr(const struct pop *p, uint32_t j, int lookup)
{
	return pop_lookup_family(p, lookup) == AF_INET6 ? (void *)&p->addr6[j]
							: (void *)&pop_lookup(p, j, lookup)->addr;
}

/* pop_dns_set: client j's address of lookup (as pop_dns_addr has it) is
 * addr; 1 if it changed, else 0 */
int pop_dns_set(struct pop *p, uint32_t j, int lookup, const void *addr);

/* pop_dns_first: the first answer of resolver k to lookup (addr as
 * pop_dns_set takes it; hold_ns: the TTL's or the stickiness') to its
 * clients, each holding it a phase of hold_ns from now: expiries spread
 * over one hold. sticky_ns applies to sticky ones. */
void pop_dns_first(struct pop *p, int k, int lookup, const void *addr, int64_t ttl_ns,
		   int64_t sticky_ns, int64_t now);

/* pop_dns_take_qid: a free query id for client j's lookup (marked asking);
 * -1 if 65536 queries are outstanding. pop_dns_client: the client asking
 * qid (and in *lookup which of its lookups), or -1. pop_dns_done: its
 * query is over. */
int pop_dns_take_qid(struct pop *p, uint32_t j, int lookup, uint16_t hint, int64_t now);
int64_t pop_dns_client(const struct pop *p, uint16_t qid, int *lookup);
void pop_dns_done(struct pop *p, uint32_t j, int lookup);

#endif
