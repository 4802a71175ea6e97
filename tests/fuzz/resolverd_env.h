/*
 * resolverd without its sockets, for the fuzz targets on its handling of
 * client queries (fuzz_resolverd_query.c), of upstream answers
 * (fuzz_resolverd_answer.c) and of the servers' answers to its walk when
 * iterating (fuzz_resolverd_walk.c).
 *
 * One resolver with its cache runs the real resolver.c, upstream.c,
 * msg.c, cache.c and stats.c on a clock of its own. In place of server.c,
 * upstream_tcp.c and the epoll set, resolverd_env.c has the few functions
 * they provide: an upstream query is "sent" on descriptor -1 (it fails, as
 * on a network that is down, and times out), an answer from the upstream
 * is handed to rsv_up_received() as if read from the socket, and every
 * answer a client gets, at once or after waiting, is checked instead of
 * sent: at most its size limit, a DNS message libknot parses, QR set, the
 * client's ID and question. A failed check aborts with what was wrong.
 *
 * Every input starts from the same state (fenv_reset): an empty cache, no
 * query in flight, the clock at its start, the same sequence of IDs.
 */
#ifndef STEERLAB_FUZZ_RESOLVERD_ENV_H
#define STEERLAB_FUZZ_RESOLVERD_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "agents/resolverd/ctx.h"

#define FENV_CLIENTS 16

/* fenv_init: the resolver, once (LLVMFuzzerInitialize). */
void fenv_init(void);

/* fenv_reset: the state every input starts from. */
void fenv_reset(void);

/* fenv_key: k for a name in text and a type, class IN. */
void fenv_key(struct rsv_key *k, const char *name, uint16_t type);

/* fenv_ask: the query wire/len from client (0..FENV_CLIENTS-1) over UDP or
 * TCP; an answer given at once is checked. Returns its length, 0 if the
 * query waits on the upstream or got no answer. */
size_t fenv_ask(int client, int tcp, const uint8_t *wire, size_t len);

/* fenv_ask_key: fenv_ask with a query for k, ID id, an OPT of payload
 * edns if edns > 0. */
size_t fenv_ask_key(int client, int tcp, const struct rsv_key *k, uint16_t id, uint16_t edns);

/* fenv_upstream: wire/len comes back from the upstream as the answer to
 * the query in flight for k, with that query's ID written over its own:
 * over UDP, and while the query is still in flight (a retry at the other
 * upstream, TCP after TC) again over the transport it now uses, at most
 * four times. 0 if no query for k was in flight. */
int fenv_upstream(const struct rsv_key *k, const uint8_t *wire, size_t len);

/* fenv_iterate: from now on the resolver iterates (mode = iterate, the root
 * hint 127.0.0.1:53), with qname minimisation and ECS as given; its caches
 * are emptied the first time. */
void fenv_iterate(int qmin, int ecs);

/* fenv_server: wire/len comes back from the server the query at the head
 * of the queue was sent to, as its answer: that query's ID written over
 * its own, and its question (if it has one, and parses) replaced by the
 * one asked, so that a referral leads the walk on. 0 if no query was in
 * flight. */
int fenv_server(const uint8_t *wire, size_t len);

/* fenv_answer: an authoritative answer to k in out (64 KiB): NOERROR with
 * one A record of ttl for an A query, NODATA with a SOA (MINIMUM ttl)
 * for any other type, NXDOMAIN with it if nx; or, big, 16 TXT records of
 * 100 bytes (more than 1232 bytes). Returns its length. */
size_t fenv_answer(const struct rsv_key *k, uint32_t ttl, int nx, int big, uint8_t *out);

/* fenv_advance: the clock moves on by ns (no timer runs). */
void fenv_advance(int64_t ns);

/* fenv_settle: time runs until no query is in flight: every attempt times
 * out, and the waiters get stale answers or SERVFAIL (checked). */
void fenv_settle(void);

#endif
