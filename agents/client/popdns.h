/*
 * A population's DNS I/O (pop.h has the state): one socket for every
 * logical client's queries, to the resolver each one was given; answers
 * matched back to their client by query id. Changed answers are written
 * as dns_answer events (a population's clients ask thousands of times a
 * minute: the unchanged ones only count in dns_summary). The resolvers are
 * of one family, IPv4 or IPv6 (a dual lab's clients of family 6 or dual
 * ask over IPv6); what each client looks up (A, AAAA, or both) is the
 * population's (pop_dns_init).
 */
#ifndef STEERLAB_CLIENT_POPDNS_H
#define STEERLAB_CLIENT_POPDNS_H

#include <netinet/in.h>
#include <stdint.h>

#include "dns.h"
#include "pop.h"
#include "traffic.h"

struct event_log;

struct popdns {
	int fd;
	union client_addr res[POP_MAX_RESOLVERS]; /* of one family */
	int nres;
	char name[CLIENT_DNS_NAME_MAX + 1];
	uint8_t qname[CLIENT_DNS_NAME_MAX + 1];
	int64_t sticky_ns; /* for the sticky clients */
	struct pop *pop;
	struct event_log *ev;
	uint64_t queries, answers, failures, changes;
	uint64_t rng;	      /* the queries' ids (lib/rng.h) */
	struct udp_batch *io; /* queries queued, answers read, POPDNS_BATCH at once */
};

#define POPDNS_BATCH 64
#define POPDNS_QUERY_MAX 512
#define POPDNS_ANSWER_MAX 4096 /* an answer for a name's A or AAAA records; a longer one is cut */

/* popdns_open: the socket; the name; the resolvers' list, of one family.
 * 0 or -1 (logged). */
int popdns_open(struct popdns *d, struct pop *pop, const union client_addr *res, int nres,
		const char *name, int64_t sticky_ns, struct event_log *ev);

/* popdns_first: ask every resolver at once (up to 5 tries a second apart),
 * for each of the population's lookups, and give its answers to its
 * clients (pop_dns_first). 0, or -1 (logged) if one of them does not
 * answer. */
int popdns_first(struct popdns *d);

/* popdns_check: client j is about to send at now: for each of its lookups,
 * it asks if its hold has run out, or asks again if its query went
 * unanswered CLIENT_DNS_RETRY_NS. */
void popdns_check(struct popdns *d, uint32_t j, int64_t now);

/* popdns_flush: sends the queries popdns_check queued (with the requests'
 * batch, before it: a client's query leaves before its request). */
void popdns_flush(struct popdns *d);

/* popdns_receive: reads the answers waiting. */
void popdns_receive(struct popdns *d, int64_t now);

void popdns_close(struct popdns *d);

#endif
