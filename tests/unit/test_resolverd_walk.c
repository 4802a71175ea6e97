/*
 * resolverd's iterative walk (agents/resolverd/iter.c) end to end, without
 * sockets: a resolver in this process asks a fake tree of authoritative
 * servers, on a fake clock. The test stands in for server.c (the answers
 * a client gets are recorded, not sent) and for upstream_tcp.c; a query
 * "sent" upstream goes to descriptor -1 and waits in the deadline queue,
 * where the fake server of its address answers it (rsv_up_received, as if
 * read from the socket) or lets it time out (rsv_up_tick). Every answer
 * is built with libknot from the zones of the test's tree.
 *
 * Checked, as the queries each server saw and the answers the clients
 * got: referrals from the root down, glue in and out of bailiwick, an NS
 * name without glue resolved first, CNAMEs across zones with each link's
 * TTL, CNAME and referral loops ended, lame servers (REFUSED, SERVFAIL,
 * nothing, an upward referral, a server of another zone), timeouts and
 * retries at the next server, the work bound, the delegation cache's
 * TTLs (NS, glue, max_ttl), negative answers, serve-stale and prefetch
 * through the walk, qname minimisation, TC then TCP, and ECS.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <errno.h>

#include "agents/resolverd/ctx.h"
#include "agents/resolverd/deleg.h"
#include "agents/resolverd/iter.h"
#include "agents/resolverd/iter_msg.h"
#include "agents/resolverd/msg.h"
#include "agents/resolverd/upstream_int.h"
#include "timeutil.h"

#define S NSEC_PER_SEC
#define T0 (1000 * S)
#define WALK_CLIENTS 4
#define WALK_RECORDS 24
#define WALK_ZONES 8
#define WALK_ASKED 64

/* A zone of the fake tree: its apex, its servers' addresses, its
 * records ("OWNER TTL TYPE DATA" lines: A, NS or CNAME), the TTL and
 * MINIMUM of its SOA (60 if 0), and the ECS scope its servers echo. */
struct fzone {
	const char *apex;
	const char *servers;
	const char *records;
	uint32_t neg_ttl;
	uint8_t ecs_scope;
};

struct frec {
	knot_dname_storage_t owner;
	uint16_t type;
	uint32_t ttl;
	uint8_t rd[KNOT_DNAME_MAXLEN];
	uint16_t rdlen;
};

struct fzone_rt {
	const struct fzone *z;
	knot_dname_storage_t apex;
	struct in_addr server[4];
	int nserver;
	struct frec rec[WALK_RECORDS];
	int nrec;
	/* what its servers do with the queries, in turn ("timeout refused"),
	 * then always (NULL: they answer) */
	char script[512];
	const char *always;
};

struct walk {
	struct rsv_conf conf;
	struct rsv_inst_conf iconf;
	struct rsv_ctx ctx;
	struct rsv_inst in;
	struct fzone_rt zone[WALK_ZONES];
	int nzone;
	char log[4096]; /* the queries the servers saw */
	struct in_addr asked[WALK_ASKED];
	int nasked;
	char answer[WALK_CLIENTS][1024]; /* the last answer each client got */
	int answers[WALK_CLIENTS];
	uint8_t scratch[RSV_TCP_MAX];
};

static struct walk W;

static void answer_text(const uint8_t *wire, size_t len, char *out, size_t max);

/*
 * What server.c, upstream_tcp.c and ctx.c give the code under test.
 */

uint8_t *rsv_srv_scratch(struct rsv_ctx *ctx)
{
	(void)ctx;
	return W.scratch;
}

void rsv_srv_reply(struct rsv_inst *in, const struct rsv_client *who, const uint8_t *buf,
		   size_t len)
{
	int c = ntohs(who->addr.sin_port) - 1000; /* ask() */

	(void)in;
	assert_in_range(c, 0, WALK_CLIENTS - 1);
	answer_text(buf, len, W.answer[c], sizeof(W.answer[c]));
	W.answers[c]++;
}

int rsv_up_tcp_start(struct rsv_pending *p, const uint8_t *q, size_t qlen)
{
	(void)q, (void)qlen;
	snprintf(p->tcp_src, sizeof(p->tcp_src), "198.18.99.1:40000");
	return 0; /* "connected": serve() answers it */
}

void rsv_up_tcp_close(struct rsv_pending *p)
{
	(void)p;
}

int rsv_watch(struct rsv_ctx *ctx, struct rsv_fd *f, uint32_t events)
{
	(void)ctx, (void)f, (void)events;
	errno = ENOSYS;
	return -1;
}

/*
 * Text.
 */

static void dname(knot_dname_storage_t dn, const char *s)
{
	assert_non_null(knot_dname_from_str(dn, s, sizeof(knot_dname_storage_t)));
	knot_dname_to_lower(dn);
}

static void appendf(char *buf, size_t max, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void appendf(char *buf, size_t max, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	assert_true((size_t)vsnprintf(buf + n, max - n, fmt, ap) < max - n);
	va_end(ap);
}

/* rr_text: "owner ttl TYPE data" */
static void rr_text(const knot_rrset_t *rr, char *out, size_t max)
{
	char owner[KNOT_DNAME_TXT_MAXLEN + 1], type[16], data[KNOT_DNAME_TXT_MAXLEN + 1] = "";
	const knot_rdata_t *rd = rr->rrs.rdata;

	knot_dname_to_str(owner, rr->owner, sizeof(owner));
	knot_rrtype_to_string(rr->type, type, sizeof(type));
	if (rr->type == KNOT_RRTYPE_A && rd->len == 4)
		inet_ntop(AF_INET, rd->data, data, sizeof(data));
	else if (rr->type == KNOT_RRTYPE_NS || rr->type == KNOT_RRTYPE_CNAME)
		knot_dname_to_str(data, rd->data, sizeof(data));
	appendf(out, max, "%s %u %s%s%s", owner, rr->ttl, type, data[0] ? " " : "", data);
}

/* answer_text: "RCODE an: RR, RR ns: RR ecs: ADDR/SOURCE/SCOPE" */
static void answer_text(const uint8_t *wire, size_t len, char *out, size_t max)
{
	knot_pkt_t *p = rsv_msg_parse(wire, len);
	char rc[16];
	struct in_addr a;
	uint8_t source, scope;

	assert_non_null(p);
	out[0] = 0;
	appendf(out, max, "%s", rsv_msg_rcode_name(knot_pkt_ext_rcode(p), rc, sizeof(rc)));
	for (int s = 0; s < 2; s++) {
		const knot_pktsection_t *ps =
		    knot_pkt_section(p, (knot_section_t)(KNOT_ANSWER + s));

		for (uint16_t i = 0; i < ps->count; i++) {
			appendf(out, max, "%s", i ? ", " : s == 0 ? " an: " : " ns: ");
			rr_text(knot_pkt_rr(ps, i), out, max);
		}
	}
	if (rsv_iter_ecs(p, &a, &source, &scope)) {
		char t[INET_ADDRSTRLEN];

		appendf(out, max, " ecs: %s/%u/%u", inet_ntop(AF_INET, &a, t, sizeof(t)), source,
			scope);
	}
	knot_pkt_free(p);
}

/*
 * The fake tree.
 */

static void fake_parse(struct fzone_rt *rt)
{
	const char *s = rt->z->records;
	char servers[128], *tok, *save;

	dname(rt->apex, rt->z->apex);
	snprintf(servers, sizeof(servers), "%s", rt->z->servers);
	for (tok = strtok_r(servers, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		assert_int_equal(inet_pton(AF_INET, tok, &rt->server[rt->nserver++]), 1);
	while (s && *s) {
		char owner[256], type[16], data[256];
		unsigned ttl;
		int used;
		struct frec *r = &rt->rec[rt->nrec++];

		assert_true(rt->nrec <= WALK_RECORDS);
		assert_int_equal(sscanf(s, "%255s %u %15s %255s%n", owner, &ttl, type, data, &used),
				 4);
		s += used;
		while (*s == '\n')
			s++;
		dname(r->owner, owner);
		r->ttl = ttl;
		if (strcmp(type, "A") == 0) {
			r->type = KNOT_RRTYPE_A;
			assert_int_equal(inet_pton(AF_INET, data, r->rd), 1);
			r->rdlen = 4;
		} else {
			knot_dname_storage_t dn;

			assert_true(strcmp(type, "NS") == 0 || strcmp(type, "CNAME") == 0);
			r->type = type[0] == 'N' ? KNOT_RRTYPE_NS : KNOT_RRTYPE_CNAME;
			dname(dn, data);
			r->rdlen = (uint16_t)knot_dname_size(dn);
			memcpy(r->rd, dn, r->rdlen);
		}
	}
}

/* tree: the zones of the fake tree, for the test that follows */
static void tree(const struct fzone *z, int n)
{
	assert_true(n <= WALK_ZONES);
	memset(W.zone, 0, sizeof(W.zone));
	W.nzone = n;
	for (int i = 0; i < n; i++) {
		W.zone[i].z = &z[i];
		fake_parse(&W.zone[i]);
	}
}

static struct fzone_rt *zone_of(const char *apex)
{
	knot_dname_storage_t dn;

	dname(dn, apex);
	for (int i = 0; i < W.nzone; i++)
		if (knot_dname_is_equal(W.zone[i].apex, dn))
			return &W.zone[i];
	fail_msg("no zone %s", apex);
	return NULL;
}

/* script: what apex's servers do with its next queries, in turn; then,
 * always (NULL: answer) */
static void script(const char *apex, const char *steps, const char *always)
{
	struct fzone_rt *z = zone_of(apex);

	snprintf(z->script, sizeof(z->script), "%s", steps);
	z->always = always;
}

/* fake_zone: of the zones addr serves, the closest to name */
static struct fzone_rt *fake_zone(struct in_addr addr, const knot_dname_t *name)
{
	struct fzone_rt *best = NULL;

	for (int i = 0; i < W.nzone; i++) {
		struct fzone_rt *z = &W.zone[i];
		int serves = 0;

		for (int j = 0; j < z->nserver; j++)
			serves |= z->server[j].s_addr == addr.s_addr;
		if (serves && rsv_iter_under(name, z->apex) &&
		    (best == NULL ||
		     knot_dname_labels(z->apex, NULL) > knot_dname_labels(best->apex, NULL)))
			best = z;
	}
	return best;
}

/* fake_next: what z's server does with this query */
static const char *fake_next(struct fzone_rt *z, char *word, size_t max)
{
	char *sp;
	size_t n;

	if (z->script[0] == 0)
		return z->always;
	sp = strchr(z->script, ' ');
	n = sp ? (size_t)(sp - z->script) : strlen(z->script);
	assert_true(n < max);
	memcpy(word, z->script, n);
	word[n] = 0;
	memmove(z->script, sp ? sp + 1 : z->script + n, strlen(sp ? sp + 1 : z->script + n) + 1);
	return word;
}

static void fake_put(knot_pkt_t *r, const struct frec *f)
{
	knot_rrset_t *rr = knot_rrset_new(f->owner, f->type, KNOT_CLASS_IN, f->ttl, NULL);

	assert_non_null(rr);
	assert_int_equal(knot_rrset_add_rdata(rr, f->rd, f->rdlen, NULL), KNOT_EOK);
	assert_int_equal(knot_pkt_put(r, KNOT_COMPR_HINT_NONE, rr, KNOT_PF_FREE), KNOT_EOK);
	free(rr);
}

static void fake_soa(knot_pkt_t *r, const struct fzone_rt *z)
{
	struct frec f = {.type = KNOT_RRTYPE_SOA};
	const uint8_t names[] = "\2ns\0\2hm"; /* ns. hm. */
	uint32_t neg = z->z->neg_ttl ? z->z->neg_ttl : 60;
	uint32_t v[5] = {1, 3600, 600, 86400, neg};

	memcpy(f.owner, z->apex, knot_dname_size(z->apex));
	f.ttl = neg;
	memcpy(f.rd, names, sizeof(names));
	f.rdlen = sizeof(names);
	for (int i = 0; i < 5; i++, f.rdlen += 4)
		knot_wire_write_u32(f.rd + f.rdlen, v[i]);
	assert_int_equal(knot_pkt_begin(r, KNOT_AUTHORITY), KNOT_EOK);
	fake_put(r, &f);
}

/* fake_auth: z's authoritative answer to (qname, qtype) in r, as NSD or
 * Knot would give it; what it is */
static const char *fake_auth(const struct fzone_rt *z, const knot_dname_t *qname, uint16_t qtype,
			     knot_pkt_t *r)
{
	const struct frec *cut = NULL, *put[8];
	knot_dname_storage_t cur;
	int exists = 0;

	/* a cut below the apex at or above qname: the topmost, referred to */
	for (int i = 0; i < z->nrec; i++) {
		const struct frec *f = &z->rec[i];

		if (f->type == KNOT_RRTYPE_NS && !knot_dname_is_equal(f->owner, z->apex) &&
		    rsv_iter_under(qname, f->owner) &&
		    (cut == NULL ||
		     knot_dname_labels(f->owner, NULL) < knot_dname_labels(cut->owner, NULL)))
			cut = f;
	}
	if (cut != NULL) {
		assert_int_equal(knot_pkt_begin(r, KNOT_AUTHORITY), KNOT_EOK);
		for (int i = 0; i < z->nrec; i++)
			if (z->rec[i].type == KNOT_RRTYPE_NS &&
			    knot_dname_is_equal(z->rec[i].owner, cut->owner))
				fake_put(r, &z->rec[i]);
		assert_int_equal(knot_pkt_begin(r, KNOT_ADDITIONAL), KNOT_EOK);
		for (int i = 0; i < z->nrec; i++)
			for (int j = 0; j < z->nrec; j++)
				if (z->rec[j].type == KNOT_RRTYPE_NS &&
				    knot_dname_is_equal(z->rec[j].owner, cut->owner) &&
				    z->rec[i].type == KNOT_RRTYPE_A &&
				    knot_dname_is_equal(z->rec[i].owner, z->rec[j].rd))
					fake_put(r, &z->rec[i]);
		return "referral";
	}
	knot_wire_set_aa(r->wire);
	assert_int_equal(knot_pkt_begin(r, KNOT_ANSWER), KNOT_EOK);
	assert_true(knot_dname_store(cur, qname) > 0);
	knot_dname_to_lower(cur);
	for (int hop = 0;; hop++) {
		const struct frec *cname = NULL;
		int found = 0;

		if (hop == 8)
			return "loop";

		for (int i = 0; i < z->nrec; i++) {
			if (!knot_dname_is_equal(z->rec[i].owner, cur))
				continue;
			if (z->rec[i].type == qtype) {
				fake_put(r, &z->rec[i]);
				found = 1;
			} else if (z->rec[i].type == KNOT_RRTYPE_CNAME) {
				cname = &z->rec[i];
			}
		}
		if (found)
			return "answer";
		if (cname == NULL)
			break;
		for (int i = 0; i < hop; i++)
			if (put[i] == cname)
				return "loop"; /* the CNAMEs once, as Knot and NSD stop */
		put[hop] = cname;
		fake_put(r, cname);
		assert_true(knot_dname_store(cur, cname->rd) > 0);
		if (!rsv_iter_under(cur, z->apex))
			return "cname";
	}
	for (int i = 0; i < z->nrec; i++)
		exists |= rsv_iter_under(z->rec[i].owner, cur);
	if (!exists)
		knot_wire_set_rcode(r->wire, KNOT_RCODE_NXDOMAIN);
	fake_soa(r, z);
	return exists ? "nodata" : "nxdomain";
}

/* fake_ecs: the query's ECS option echoed with z's scope */
static void fake_ecs(knot_pkt_t *r, const knot_pkt_t *q, const struct fzone_rt *z)
{
	struct in_addr a;
	uint8_t source, scope, o[8];
	uint32_t h;
	knot_rrset_t opt;

	if (!rsv_iter_ecs(q, &a, &source, &scope) || z->z->ecs_scope == 0)
		return;
	h = ntohl(a.s_addr);
	o[0] = 0, o[1] = 1, o[2] = source, o[3] = z->z->ecs_scope;
	for (int i = 0; i < 4; i++)
		o[4 + i] = (uint8_t)(h >> (24 - 8 * i));
	assert_int_equal(knot_edns_init(&opt, 1232, 0, 0, NULL), KNOT_EOK);
	assert_int_equal(knot_edns_add_option(&opt, KNOT_EDNS_OPTION_CLIENT_SUBNET,
					      (uint16_t)(4 + (source + 7) / 8), o, NULL),
			 KNOT_EOK);
	assert_int_equal(knot_pkt_begin(r, KNOT_ADDITIONAL), KNOT_EOK);
	assert_int_equal(knot_pkt_put(r, KNOT_COMPR_HINT_NONE, &opt, KNOT_PF_FREE), KNOT_EOK);
}

/* serve_one: the server p was sent to answers it, or lets it time out */
static void serve_one(struct rsv_pending *p)
{
	uint8_t q[KNOT_WIRE_MIN_PKTSIZE], a[KNOT_WIRE_MAX_PKTSIZE];
	char word[32], name[KNOT_DNAME_TXT_MAXLEN + 1], type[16], ecs[64] = "", zone[64];
	const char *what;
	int qn = rsv_iter_wire(p, q, sizeof(q));
	knot_pkt_t *qp, *r;
	struct fzone_rt *z;
	struct in_addr ea;
	uint8_t source, scope;
	size_t len;

	assert_true(qn > 0);
	qp = rsv_msg_parse(q, (size_t)qn);
	assert_non_null(qp);
	assert_true(W.nasked < WALK_ASKED);
	W.asked[W.nasked++] = p->to.sin_addr;
	z = fake_zone(p->to.sin_addr, knot_pkt_qname(qp));
	/* the cut the resolver thinks it asks (the CSV's zone) is the zone
	 * that answers */
	if (z != NULL)
		assert_string_equal(rsv_iter_zone(p, zone, sizeof(zone)), z->z->apex);
	r = knot_pkt_new(a, sizeof(a), NULL);
	assert_non_null(r);
	assert_int_equal(knot_pkt_init_response(r, qp), KNOT_EOK);
	if (z == NULL || knot_pkt_qclass(qp) != KNOT_CLASS_IN) {
		what = "refused"; /* a server of no zone of the name's, or of class IN only */
	} else if ((what = fake_next(z, word, sizeof(word))) == NULL) {
		what = fake_auth(z, knot_pkt_qname(qp), knot_pkt_qtype(qp), r);
		fake_ecs(r, qp, z);
	}
	knot_dname_to_str(name, knot_pkt_qname(qp), sizeof(name));
	knot_rrtype_to_string(knot_pkt_qtype(qp), type, sizeof(type));
	if (knot_pkt_qclass(qp) != KNOT_CLASS_IN)
		snprintf(type + strlen(type), sizeof(type) - strlen(type), "/%u",
			 knot_pkt_qclass(qp));
	if (rsv_iter_ecs(qp, &ea, &source, &scope)) {
		char t[INET_ADDRSTRLEN];

		snprintf(ecs, sizeof(ecs), " ecs %s/%u", inet_ntop(AF_INET, &ea, t, sizeof(t)),
			 source);
	}
	if (z == NULL)
		appendf(W.log, sizeof(W.log), "%s %s%s @- %s%s; ", name, type, ecs, what,
			p->tcp ? "/tcp" : "");
	else
		appendf(W.log, sizeof(W.log), "%s %s%s @%s %s%s; ", name, type, ecs, z->z->apex,
			what, p->tcp ? "/tcp" : "");
	if (strcmp(what, "timeout") == 0) {
		knot_pkt_free(r);
		knot_pkt_free(qp);
		W.ctx.now = p->deadline;
		rsv_up_tick(&W.ctx);
		return;
	}
	if (strcmp(what, "refused") == 0) {
		knot_wire_set_rcode(r->wire, KNOT_RCODE_REFUSED);
	} else if (strcmp(what, "servfail") == 0) {
		knot_wire_set_rcode(r->wire, KNOT_RCODE_SERVFAIL);
	} else if (strcmp(what, "bare-nxdomain") == 0) {
		knot_wire_set_aa(r->wire);
		knot_wire_set_rcode(r->wire, KNOT_RCODE_NXDOMAIN);
	} else if (strcmp(what, "tc") == 0) {
		knot_wire_set_tc(r->wire);
	} else if (strcmp(what, "upward") == 0) {
		/* a server that does not know the zone refers to the root */
		struct frec f = {.type = KNOT_RRTYPE_NS, .ttl = 3600, .rdlen = 4};

		memcpy(f.rd, "\2ns\0", 4);
		assert_int_equal(knot_pkt_begin(r, KNOT_AUTHORITY), KNOT_EOK);
		fake_put(r, &f);
	} /* lame: nothing at all; or what fake_auth wrote */
	len = r->size;
	knot_pkt_free(r);
	knot_pkt_free(qp);
	if (p->tcp) {
		knot_pkt_t *pkt = rsv_msg_parse(a, len);

		assert_non_null(pkt);
		assert_true(rsv_msg_matches(pkt, p->ask, p->id));
		rsv_up_answer(p, pkt, a, len);
		knot_pkt_free(pkt);
	} else {
		struct sockaddr_in from = p->to;

		rsv_up_received(&W.in, &from, a, len, 0);
	}
}

/* serve: the fake servers answer each query in flight in turn until none
 * is left */
static void serve(void)
{
	for (int n = 0; W.ctx.up.q_head != NULL; n++) {
		struct rsv_pending *p = W.ctx.up.q_head;

		assert_true(n < WALK_ASKED);
		if (p->doomed) {
			if (p->deadline > W.ctx.now)
				W.ctx.now = p->deadline;
			rsv_up_tick(&W.ctx);
			continue;
		}
		serve_one(p);
	}
}

/* ask_ecs: client c (198.18.10c.1, port 1000 + c) asks name/type over
 * UDP, with an ECS option of ecs_addr/ecs_source if ecs_addr is not NULL;
 * an answer at once is recorded as rsv_srv_reply records the others.
 * Returns 1 if it was answered at once. */
static int ask_ecs(int c, const char *name, uint16_t type, const char *ecs_addr, uint8_t ecs_source)
{
	uint8_t wire[512], out[RSV_UDP_MAX];
	knot_dname_storage_t dn;
	knot_pkt_t *p = knot_pkt_new(wire, sizeof(wire), NULL);
	struct rsv_client who = {.tcp = 0};
	char a[32];
	size_t n, len;

	assert_non_null(p);
	knot_pkt_clear(p);
	knot_wire_set_id(p->wire, (uint16_t)(100 + c));
	knot_wire_set_rd(p->wire);
	dname(dn, name);
	assert_int_equal(knot_pkt_put_question(p, dn, KNOT_CLASS_IN, type), KNOT_EOK);
	if (ecs_addr != NULL) {
		uint8_t o[8] = {0, 1, ecs_source, 0};
		knot_rrset_t opt;

		assert_int_equal(inet_pton(AF_INET, ecs_addr, o + 4), 1);
		assert_int_equal(knot_edns_init(&opt, 1232, 0, 0, NULL), KNOT_EOK);
		assert_int_equal(knot_edns_add_option(&opt, KNOT_EDNS_OPTION_CLIENT_SUBNET,
						      (uint16_t)(4 + (ecs_source + 7) / 8), o,
						      NULL),
				 KNOT_EOK);
		assert_int_equal(knot_pkt_begin(p, KNOT_ADDITIONAL), KNOT_EOK);
		assert_int_equal(knot_pkt_put(p, KNOT_COMPR_HINT_NONE, &opt, KNOT_PF_FREE),
				 KNOT_EOK);
	}
	len = p->size;
	knot_pkt_free(p);
	snprintf(a, sizeof(a), "198.18.%d.1", 100 + c);
	who.addr.sin_family = AF_INET;
	inet_pton(AF_INET, a, &who.addr.sin_addr);
	who.addr.sin_port = htons((uint16_t)(1000 + c));
	W.answer[c][0] = 0;
	n = rsv_client_query(&W.in, wire, len, &who, out, sizeof(out));
	if (n == 0)
		return 0;
	answer_text(out, n, W.answer[c], sizeof(W.answer[c]));
	W.answers[c]++;
	return 1;
}

static int ask(int c, const char *name, uint16_t type)
{
	return ask_ecs(c, name, type, NULL, 0);
}

/* resolve_ecs: client c asks with an ECS option, the tree answers; the
 * queries the servers saw */
static const char *resolve_ecs(int c, const char *name, uint16_t type, const char *ecs_addr,
			       uint8_t ecs_source)
{
	W.log[0] = 0;
	ask_ecs(c, name, type, ecs_addr, ecs_source);
	serve();
	return W.log;
}

/* resolve: client c asks, the tree answers; the queries the servers saw */
static const char *resolve(int c, const char *name, uint16_t type)
{
	W.log[0] = 0;
	ask(c, name, type);
	serve();
	return W.log;
}

static int walk_setup(void **state)
{
	struct rsv_cache_cfg dcfg;

	(void)state;
	memset(&W, 0, sizeof(W));
	W.conf.mode = RSV_MODE_ITERATE;
	W.conf.root[0].sin_family = AF_INET;
	inet_pton(AF_INET, "198.18.0.1", &W.conf.root[0].sin_addr);
	W.conf.root[0].sin_port = htons(53);
	W.conf.nroot = 1;
	W.conf.timeout_ns = 500 * NSEC_PER_MSEC;
	W.conf.retries = 2;
	W.conf.port = 53;
	W.conf.max_pending = 64;
	snprintf(W.iconf.name, sizeof(W.iconf.name), "r1");
	inet_pton(AF_INET, "198.18.99.1", &W.iconf.addr);
	rsv_conf_defaults(&W.iconf.cache);
	W.conf.inst = &W.iconf;
	W.conf.ninst = 1;
	W.ctx.conf = &W.conf;
	W.ctx.now = T0;
	assert_int_equal(rsv_up_init(&W.ctx), 0);
	W.ctx.up.rng = 0x9e3779b97f4a7c15ULL; /* the same IDs, the same first servers */
	W.in.ctx = &W.ctx;
	W.in.conf = &W.iconf;
	W.in.udp.fd = W.in.tcp.fd = W.in.up.fd = -1;
	snprintf(W.in.src, sizeof(W.in.src), "198.18.99.1:5353");
	W.ctx.inst = &W.in;
	W.ctx.ninst = 1;
	rsv_deleg_cfg(&dcfg, &W.iconf.cache);
	assert_int_equal(rsv_cache_init(&W.in.cache, &W.iconf.cache), 0);
	assert_int_equal(rsv_cache_init(&W.in.deleg, &dcfg), 0);
	return 0;
}

static int walk_teardown(void **state)
{
	(void)state;
	rsv_up_finish(&W.ctx);
	rsv_cache_free(&W.in.cache);
	rsv_cache_free(&W.in.deleg);
	return 0;
}

/* the tree most tests walk: the root; the TLD example.; lab.example. on
 * two servers with their glue in example.; cdn.example. on one */
static const struct fzone base[] = {
    {.apex = ".",
     .servers = "198.18.0.1",
     .records = "example. 86400 NS ns.example.\n"
		"ns.example. 86400 A 198.18.0.2\n"},
    {.apex = "example.",
     .servers = "198.18.0.2",
     .records = "lab.example. 3600 NS ns1.lab.example.\n"
		"lab.example. 3600 NS ns2.lab.example.\n"
		"ns1.lab.example. 3600 A 198.18.1.1\n"
		"ns2.lab.example. 3600 A 198.18.1.2\n"
		"cdn.example. 3600 NS ns.cdn.example.\n"
		"ns.cdn.example. 3600 A 198.18.2.1\n"},
    {.apex = "lab.example.",
     .servers = "198.18.1.1 198.18.1.2",
     .records = "www.lab.example. 300 A 198.18.10.1\n"
		"alias.lab.example. 60 CNAME www.lab.example.\n"
		"edge.lab.example. 30 CNAME edge.cdn.example.\n"
		"deep.ent.lab.example. 300 A 198.18.10.2\n"
		"dangling.lab.example. 60 CNAME gone.lab.example.\n",
     .neg_ttl = 5},
    {.apex = "cdn.example.",
     .servers = "198.18.2.1",
     .records = "edge.cdn.example. 10 A 198.18.20.1\n",
     .ecs_scope = 24},
};

#define BASE (int)(sizeof(base) / sizeof(base[0]))

static void test_referrals(void **state)
{
	(void)state;
	tree(base, BASE);
	/* from the root down, each cut's servers from the glue */
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @. referral; "
			    "www.lab.example. A @example. referral; "
			    "www.lab.example. A @lab.example. answer; ");
	assert_string_equal(W.answer[0], "NOERROR an: www.lab.example. 300 A 198.18.10.1");
	assert_int_equal(W.in.n.upstream_queries, 3);
	/* the answer from the cache, its TTL running down */
	W.ctx.now += 100 * S;
	assert_int_equal(ask(1, "www.lab.example.", KNOT_RRTYPE_A), 1);
	assert_string_equal(W.answer[1], "NOERROR an: www.lab.example. 200 A 198.18.10.1");
	/* another name under a known cut: its servers at once */
	assert_string_equal(resolve(1, "alias.lab.example.", KNOT_RRTYPE_A),
			    "alias.lab.example. A @lab.example. answer; ");
	/* one link: each record with the link's TTL, the smaller */
	assert_string_equal(W.answer[1],
			    "NOERROR an: alias.lab.example. 60 CNAME www.lab.example., "
			    "www.lab.example. 60 A 198.18.10.1");
	/* a name under another cut of the TLD: the TLD, not the root */
	assert_string_equal(resolve(2, "edge.cdn.example.", KNOT_RRTYPE_A),
			    "edge.cdn.example. A @example. referral; "
			    "edge.cdn.example. A @cdn.example. answer; ");
	/* the answer expired, the cut not: only its servers again */
	W.ctx.now += 300 * S;
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @lab.example. answer; ");
	assert_int_equal(W.answers[0], 2);
	assert_int_equal(W.in.n.servfail, 0);
}

static void test_negative(void **state)
{
	(void)state;
	tree(base, BASE);
	/* NXDOMAIN from the zone, cached for its SOA's 5 s */
	assert_string_equal(resolve(0, "nx.lab.example.", KNOT_RRTYPE_A),
			    "nx.lab.example. A @. referral; "
			    "nx.lab.example. A @example. referral; "
			    "nx.lab.example. A @lab.example. nxdomain; ");
	assert_string_equal(W.answer[0], "NXDOMAIN ns: lab.example. 5 SOA");
	W.ctx.now += 4 * S;
	assert_int_equal(ask(1, "nx.lab.example.", KNOT_RRTYPE_A), 1);
	assert_string_equal(W.answer[1], "NXDOMAIN ns: lab.example. 1 SOA");
	W.ctx.now += 1 * S;
	assert_string_equal(resolve(1, "nx.lab.example.", KNOT_RRTYPE_A),
			    "nx.lab.example. A @lab.example. nxdomain; ");
	/* NODATA for a type the name does not have */
	assert_string_equal(resolve(2, "www.lab.example.", KNOT_RRTYPE_AAAA),
			    "www.lab.example. AAAA @lab.example. nodata; ");
	assert_string_equal(W.answer[2], "NOERROR ns: lab.example. 5 SOA");
	/* NXDOMAIN from the TLD, with its own SOA (60 s) */
	assert_string_equal(resolve(3, "nx.example.", KNOT_RRTYPE_A),
			    "nx.example. A @example. nxdomain; ");
	assert_string_equal(W.answer[3], "NXDOMAIN ns: example. 60 SOA");
	W.ctx.now += 59 * S;
	assert_int_equal(ask(3, "nx.example.", KNOT_RRTYPE_A), 1);
	assert_int_equal(W.in.n.negative_hits, 2);
	/* a CNAME to a name of the zone that does not exist: NXDOMAIN, for
	 * the smaller of the CNAME's TTL and the SOA's */
	assert_string_equal(resolve(0, "dangling.lab.example.", KNOT_RRTYPE_A),
			    "dangling.lab.example. A @lab.example. nxdomain; ");
	assert_string_equal(W.answer[0], "NXDOMAIN an: dangling.lab.example. 5 CNAME "
					 "gone.lab.example. ns: lab.example. 5 SOA");
	/* an NXDOMAIN without a SOA is passed on, not cached */
	script("lab.example.", "bare-nxdomain bare-nxdomain", NULL);
	assert_string_equal(resolve(1, "nx2.lab.example.", KNOT_RRTYPE_A),
			    "nx2.lab.example. A @lab.example. bare-nxdomain; ");
	assert_string_equal(W.answer[1], "NXDOMAIN");
	assert_string_equal(resolve(1, "nx2.lab.example.", KNOT_RRTYPE_A),
			    "nx2.lab.example. A @lab.example. bare-nxdomain; ");
}

/* lab.example.'s server is named in another TLD, other., without glue;
 * example. adds an address for it that it has no say over. The first of
 * multi.example.'s two servers has a name that does not exist. */
static const struct fzone glueless[] = {
    {.apex = ".",
     .servers = "198.18.0.1",
     .records = "example. 86400 NS ns.example.\n"
		"ns.example. 86400 A 198.18.0.2\n"
		"other. 86400 NS ns.other.\n"
		"ns.other. 86400 A 198.18.0.3\n"},
    {.apex = "example.",
     .servers = "198.18.0.2",
     .records = "lab.example. 3600 NS ns.dns.other.\n"
		"ns.dns.other. 3600 A 198.18.66.66\n"
		"self.example. 3600 NS ns.self.example.\n"
		"multi.example. 3600 NS ns.gone.other.\n"
		"multi.example. 3600 NS ns.dns.other.\n"},
    {.apex = "other.", .servers = "198.18.0.3", .records = "ns.dns.other. 120 A 198.18.1.1\n"},
    {.apex = "lab.example.",
     .servers = "198.18.1.1",
     .records = "www.lab.example. 30 A 198.18.10.1\n"},
    {.apex = "multi.example.",
     .servers = "198.18.1.1",
     .records = "www.multi.example. 30 A 198.18.10.3\n"},
    {.apex = "self.example.",
     .servers = "198.18.4.1",
     .records = "www.self.example. 30 A 198.18.10.1\n"},
};

static void test_glue(void **state)
{
	(void)state;
	tree(glueless, 6);
	/* the glue out of example.'s bailiwick is not taken: the NS name is
	 * resolved first, from the root, then the walk goes on */
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @. referral; "
			    "www.lab.example. A @example. referral; "
			    "ns.dns.other. A @. referral; "
			    "ns.dns.other. A @other. answer; "
			    "www.lab.example. A @lab.example. answer; ");
	assert_string_equal(W.answer[0], "NOERROR an: www.lab.example. 30 A 198.18.10.1");
	for (int i = 0; i < W.nasked; i++)
		assert_int_not_equal(W.asked[i].s_addr, htonl(0xc6124242)); /* 198.18.66.66 */
	/* the server's address is kept for its own TTL (120 s) */
	W.ctx.now += 31 * S;
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @lab.example. answer; ");
	W.ctx.now += 90 * S;
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "ns.dns.other. A @other. answer; "
			    "www.lab.example. A @lab.example. answer; ");
	/* a server named inside its own zone without glue cannot be reached:
	 * the parent is asked again, refers again, and the walk gives up */
	assert_string_equal(resolve(1, "www.self.example.", KNOT_RRTYPE_A),
			    "www.self.example. A @example. referral; "
			    "www.self.example. A @example. referral; ");
	assert_string_equal(W.answer[1], "SERVFAIL");
	assert_int_equal(W.in.n.servfail, 1);
}

static void test_glue_unresolvable(void **state)
{
	(void)state;
	tree(glueless, 6);
	/* an NS name that does not resolve: the cut's next one */
	assert_string_equal(resolve(0, "www.multi.example.", KNOT_RRTYPE_A),
			    "www.multi.example. A @. referral; "
			    "www.multi.example. A @example. referral; "
			    "ns.gone.other. A @. referral; "
			    "ns.gone.other. A @other. nxdomain; "
			    "ns.dns.other. A @other. answer; "
			    "www.multi.example. A @multi.example. answer; ");
	assert_string_equal(W.answer[0], "NOERROR an: www.multi.example. 30 A 198.18.10.3");
	/* the same with qname minimisation: the NXDOMAIN of gone.other.
	 * ends that name's walk */
	walk_teardown(state);
	walk_setup(state);
	tree(glueless, 6);
	W.conf.qname_minimisation = 1;
	assert_string_equal(resolve(0, "www.multi.example.", KNOT_RRTYPE_A),
			    "example. A @. referral; "
			    "multi.example. A @example. referral; "
			    "other. A @. referral; "
			    "gone.other. A @other. nxdomain; "
			    "dns.other. A @other. nodata; "
			    "ns.dns.other. A @other. answer; "
			    "www.multi.example. A @multi.example. answer; ");
	assert_string_equal(W.answer[0], "NOERROR an: www.multi.example. 30 A 198.18.10.3");
}

/* glue that expires before its NS set */
static const struct fzone short_glue[] = {
    {.apex = ".",
     .servers = "198.18.0.1",
     .records = "example. 200 NS ns.example.\n"
		"ns.example. 200 A 198.18.0.2\n"},
    {.apex = "example.",
     .servers = "198.18.0.2",
     .records = "lab.example. 120 NS ns1.lab.example.\n"
		"ns1.lab.example. 60 A 198.18.1.1\n"},
    {.apex = "lab.example.",
     .servers = "198.18.1.1",
     .records = "www.lab.example. 30 A 198.18.10.1\n"},
};

static void test_deleg_ttl(void **state)
{
	(void)state;
	tree(short_glue, 3);
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @. referral; "
			    "www.lab.example. A @example. referral; "
			    "www.lab.example. A @lab.example. answer; ");
	/* the answer expired (30 s), the cut is fresh */
	W.ctx.now = T0 + 30 * S;
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @lab.example. answer; ");
	/* the glue expired (60 s) before the NS set (120 s): the parent, not
	 * the root, gives it again */
	W.ctx.now = T0 + 60 * S;
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @example. referral; "
			    "www.lab.example. A @lab.example. answer; ");
	/* that referral came at 60 s: the cut is good until 180 s */
	W.ctx.now = T0 + 179 * S;
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @example. referral; "
			    "www.lab.example. A @lab.example. answer; ");
	/* at 210 s example.'s own delegation has expired (200 s), not
	 * lab.example.'s (299 s), nor its glue (239 s): each cut by its own
	 * TTL */
	W.ctx.now = T0 + 210 * S;
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @lab.example. answer; ");
	/* all expired: from the root */
	W.ctx.now = T0 + 300 * S;
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @. referral; "
			    "www.lab.example. A @example. referral; "
			    "www.lab.example. A @lab.example. answer; ");
	/* max_ttl clamps a delegation as any answer: all of them expired
	 * after 10 s, not 120 or 200 */
	W.in.deleg.cfg.max_ttl = 10;
	W.in.cache.cfg.max_ttl = 5;
	W.ctx.now = T0 + 500 * S;
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @. referral; "
			    "www.lab.example. A @example. referral; "
			    "www.lab.example. A @lab.example. answer; ");
	W.ctx.now += 10 * S;
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @. referral; "
			    "www.lab.example. A @example. referral; "
			    "www.lab.example. A @lab.example. answer; ");
}

static void test_cname_across_zones(void **state)
{
	(void)state;
	tree(base, BASE);
	/* the CNAME leaves lab.example.: the target's own cut is asked */
	assert_string_equal(resolve(0, "edge.lab.example.", KNOT_RRTYPE_A),
			    "edge.lab.example. A @. referral; "
			    "edge.lab.example. A @example. referral; "
			    "edge.lab.example. A @lab.example. cname; "
			    "edge.cdn.example. A @example. referral; "
			    "edge.cdn.example. A @cdn.example. answer; ");
	assert_string_equal(W.answer[0],
			    "NOERROR an: edge.lab.example. 30 CNAME edge.cdn.example., "
			    "edge.cdn.example. 10 A 198.18.20.1");
	/* each link with its own TTL */
	W.ctx.now += 4 * S;
	assert_int_equal(ask(1, "edge.lab.example.", KNOT_RRTYPE_A), 1);
	assert_string_equal(W.answer[1],
			    "NOERROR an: edge.lab.example. 26 CNAME edge.cdn.example., "
			    "edge.cdn.example. 6 A 198.18.20.1");
	/* the target expired, the CNAME not: only the target is asked */
	W.ctx.now += 6 * S;
	assert_string_equal(resolve(1, "edge.lab.example.", KNOT_RRTYPE_A),
			    "edge.cdn.example. A @cdn.example. answer; ");
	assert_string_equal(W.answer[1],
			    "NOERROR an: edge.lab.example. 20 CNAME edge.cdn.example., "
			    "edge.cdn.example. 10 A 198.18.20.1");
	/* a CNAME inside the zone: one answer */
	assert_string_equal(resolve(2, "alias.lab.example.", KNOT_RRTYPE_A),
			    "alias.lab.example. A @lab.example. answer; ");
}

/* two zones whose names point at each other */
static const struct fzone loops[] = {
    {.apex = ".",
     .servers = "198.18.0.1",
     .records = "example. 86400 NS ns.example.\n"
		"ns.example. 86400 A 198.18.0.2\n"},
    {.apex = "example.",
     .servers = "198.18.0.2",
     .records = "one.example. 3600 NS ns.one.example.\n"
		"ns.one.example. 3600 A 198.18.1.1\n"
		"two.example. 3600 NS ns.two.example.\n"
		"ns.two.example. 3600 A 198.18.2.1\n"
		"a.example. 3600 NS ns.b.example.\n"
		"b.example. 3600 NS ns.a.example.\n"},
    {.apex = "one.example.",
     .servers = "198.18.1.1",
     .records = "a.one.example. 300 CNAME b.two.example.\n"
		"x.one.example. 300 CNAME y.one.example.\n"
		"y.one.example. 300 CNAME x.one.example.\n"},
    {.apex = "two.example.",
     .servers = "198.18.2.1",
     .records = "b.two.example. 300 CNAME a.one.example.\n"},
};

static void test_cname_loop(void **state)
{
	(void)state;
	tree(loops, 4);
	/* a loop across zones: 9 links, then SERVFAIL, not a spin */
	assert_string_equal(resolve(0, "a.one.example.", KNOT_RRTYPE_A),
			    "a.one.example. A @. referral; "
			    "a.one.example. A @example. referral; "
			    "a.one.example. A @one.example. cname; "
			    "b.two.example. A @example. referral; "
			    "b.two.example. A @two.example. cname; "
			    "a.one.example. A @one.example. cname; "
			    "b.two.example. A @two.example. cname; "
			    "a.one.example. A @one.example. cname; "
			    "b.two.example. A @two.example. cname; "
			    "a.one.example. A @one.example. cname; "
			    "b.two.example. A @two.example. cname; "
			    "a.one.example. A @one.example. cname; ");
	assert_string_equal(W.answer[0], "SERVFAIL");
	/* the links are cached: asked again, the chain in the cache is
	 * followed to its limit, and one more link ends it */
	assert_string_equal(resolve(1, "a.one.example.", KNOT_RRTYPE_A),
			    "a.one.example. A @one.example. cname; ");
	assert_string_equal(W.answer[1], "SERVFAIL");
	/* a loop inside one zone: lame, at every attempt */
	assert_string_equal(resolve(2, "x.one.example.", KNOT_RRTYPE_A),
			    "x.one.example. A @one.example. loop; "
			    "x.one.example. A @one.example. loop; "
			    "x.one.example. A @one.example. loop; ");
	assert_string_equal(W.answer[2], "SERVFAIL");
	assert_int_equal(W.in.n.servfail, 3);
}

static void test_referral_loop(void **state)
{
	(void)state;
	tree(loops, 4);
	/* a.example. is served by ns.b.example., b.example. by ns.a.example.,
	 * neither with glue: each NS name is tried, then the goal fails */
	assert_string_equal(resolve(0, "www.a.example.", KNOT_RRTYPE_A),
			    "www.a.example. A @. referral; "
			    "www.a.example. A @example. referral; "
			    "ns.b.example. A @example. referral; "
			    "ns.a.example. A @example. referral; "
			    "ns.b.example. A @example. referral; "
			    "www.a.example. A @example. referral; ");
	assert_string_equal(W.answer[0], "SERVFAIL");
	assert_true(W.nasked <= RSV_ITER_MAX_QUERIES);
}

static void test_lame(void **state)
{
	static const char *const lame[] = {"refused", "servfail", "lame", "upward"};

	(void)state;
	tree(base, BASE);
	resolve(0, "www.lab.example.", KNOT_RRTYPE_A);
	/* each kind of lame answer: the next server of the cut answers */
	for (int i = 0; i < 4; i++) {
		char want[256];

		W.ctx.now += 301 * S;
		script("lab.example.", lame[i], NULL);
		snprintf(want, sizeof(want),
			 "www.lab.example. A @lab.example. %s; "
			 "www.lab.example. A @lab.example. answer; ",
			 lame[i]);
		W.nasked = 0;
		assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A), want);
		assert_string_equal(W.answer[0], "NOERROR an: www.lab.example. 300 A 198.18.10.1");
		assert_int_not_equal(W.asked[0].s_addr, W.asked[1].s_addr);
	}
	/* every server lame: 1 + retries attempts, then SERVFAIL */
	W.ctx.now += 301 * S;
	script("lab.example.", "", "refused");
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @lab.example. refused; "
			    "www.lab.example. A @lab.example. refused; "
			    "www.lab.example. A @lab.example. refused; ");
	assert_string_equal(W.answer[0], "SERVFAIL");
	assert_int_equal(W.in.n.servfail, 1);
}

/* lab.example.'s servers named inside cdn.example. (198.18.2.1): a server
 * that is no server of lab.example. */
static const struct fzone wrong_zone[] = {
    {.apex = ".",
     .servers = "198.18.0.1",
     .records = "example. 86400 NS ns.example.\n"
		"ns.example. 86400 A 198.18.0.2\n"},
    {.apex = "example.",
     .servers = "198.18.0.2",
     .records = "lab.example. 3600 NS ns.cdn.example.\n"
		"cdn.example. 3600 NS ns.cdn.example.\n"
		"ns.cdn.example. 3600 A 198.18.2.1\n"},
    {.apex = "cdn.example.",
     .servers = "198.18.2.1",
     .records = "edge.cdn.example. 10 A 198.18.20.1\n"},
};

static void test_wrong_zone(void **state)
{
	(void)state;
	tree(wrong_zone, 3);
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @. referral; "
			    "www.lab.example. A @example. referral; "
			    "www.lab.example. A @- refused; "
			    "www.lab.example. A @- refused; "
			    "www.lab.example. A @- refused; ");
	assert_string_equal(W.answer[0], "SERVFAIL");
}

static void test_timeouts(void **state)
{
	(void)state;
	tree(base, BASE);
	/* the first server asked times out: the other one, one timeout later */
	script("lab.example.", "timeout", NULL);
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @. referral; "
			    "www.lab.example. A @example. referral; "
			    "www.lab.example. A @lab.example. timeout; "
			    "www.lab.example. A @lab.example. answer; ");
	assert_string_equal(W.answer[0], "NOERROR an: www.lab.example. 300 A 198.18.10.1");
	assert_int_not_equal(W.asked[2].s_addr, W.asked[3].s_addr);
	assert_int_equal(W.ctx.now, T0 + 500 * NSEC_PER_MSEC);
	assert_int_equal(W.in.n.upstream_timeouts, 1);
	/* all of them: 1 + retries attempts, each a timeout, then SERVFAIL */
	script("cdn.example.", "", "timeout");
	assert_string_equal(resolve(1, "edge.cdn.example.", KNOT_RRTYPE_A),
			    "edge.cdn.example. A @example. referral; "
			    "edge.cdn.example. A @cdn.example. timeout; "
			    "edge.cdn.example. A @cdn.example. timeout; "
			    "edge.cdn.example. A @cdn.example. timeout; ");
	assert_string_equal(W.answer[1], "SERVFAIL");
	assert_int_equal(W.ctx.now, T0 + 2 * S);
	assert_int_equal(W.in.n.upstream_timeouts, 4);
	/* every cut expired; a timeout at the root and at the TLD: retried
	 * there too (the root's one server asked again) */
	W.ctx.now += 86400 * S;
	script(".", "timeout", NULL);
	script("example.", "timeout", NULL);
	script("cdn.example.", "", NULL);
	assert_string_equal(resolve(2, "edge.cdn.example.", KNOT_RRTYPE_A),
			    "edge.cdn.example. A @. timeout; "
			    "edge.cdn.example. A @. referral; "
			    "edge.cdn.example. A @example. timeout; "
			    "edge.cdn.example. A @example. referral; "
			    "edge.cdn.example. A @cdn.example. answer; ");
}

static void test_work_bound(void **state)
{
	(void)state;
	tree(base, BASE);
	/* however many retries are allowed, a walk sends 32 queries at most */
	W.conf.retries = 100;
	script("lab.example.", "", "servfail");
	resolve(0, "www.lab.example.", KNOT_RRTYPE_A);
	assert_int_equal(W.nasked, RSV_ITER_MAX_QUERIES);
	assert_int_equal(W.in.n.upstream_queries, RSV_ITER_MAX_QUERIES);
	assert_string_equal(W.answer[0], "SERVFAIL");
}

/* many: n times word, space separated */
static const char *many(const char *word, int n)
{
	static char buf[512];

	buf[0] = 0;
	for (int i = 0; i < n; i++)
		appendf(buf, sizeof(buf), "%s%s", i ? " " : "", word);
	return buf;
}

static void test_work_bound_step(void **state)
{
	(void)state;
	tree(base, BASE);
	W.conf.retries = 100;
	/* the 32nd query brings a referral: not followed */
	script("example.", many("servfail", 30), NULL);
	resolve(0, "www.lab.example.", KNOT_RRTYPE_A);
	assert_int_equal(W.nasked, RSV_ITER_MAX_QUERIES);
	assert_string_equal(W.answer[0], "SERVFAIL");
	/* nor, with qname minimisation, one more label after the 32nd */
	walk_teardown(state);
	walk_setup(state);
	tree(base, BASE);
	W.conf.retries = 100;
	W.conf.qname_minimisation = 1;
	script("lab.example.", many("servfail", 29), NULL);
	resolve(0, "deep.ent.lab.example.", KNOT_RRTYPE_A);
	assert_int_equal(W.nasked, RSV_ITER_MAX_QUERIES);
	assert_string_equal(W.answer[0], "SERVFAIL");
}

static void test_stale(void **state)
{
	(void)state;
	tree(base, BASE);
	W.in.cache.cfg.serve_stale = 1;
	resolve(0, "edge.lab.example.", KNOT_RRTYPE_A);
	/* both links expired; the walk fails: each link stale, 30 s */
	W.ctx.now += 31 * S;
	script("lab.example.", "", "refused");
	assert_string_equal(resolve(1, "edge.lab.example.", KNOT_RRTYPE_A),
			    "edge.lab.example. A @lab.example. refused; "
			    "edge.lab.example. A @lab.example. refused; "
			    "edge.lab.example. A @lab.example. refused; ");
	assert_string_equal(W.answer[1],
			    "NOERROR an: edge.lab.example. 30 CNAME edge.cdn.example., "
			    "edge.cdn.example. 30 A 198.18.20.1");
	assert_int_equal(W.in.n.stale_answers, 1);
	/* during the recheck, stale at once, no query */
	assert_string_equal(resolve(2, "edge.lab.example.", KNOT_RRTYPE_A), "");
	assert_string_equal(W.answer[2],
			    "NOERROR an: edge.lab.example. 30 CNAME edge.cdn.example., "
			    "edge.cdn.example. 30 A 198.18.20.1");
	/* nothing to serve stale: SERVFAIL */
	assert_string_equal(resolve(3, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @lab.example. refused; "
			    "www.lab.example. A @lab.example. refused; "
			    "www.lab.example. A @lab.example. refused; ");
	assert_string_equal(W.answer[3], "SERVFAIL");
}

static void test_prefetch(void **state)
{
	(void)state;
	tree(base, BASE);
	W.in.cache.cfg.prefetch_pct = 50;
	resolve(0, "www.lab.example.", KNOT_RRTYPE_A);
	/* past half the TTL: answered at once, and refreshed behind it */
	W.ctx.now += 200 * S;
	assert_int_equal(ask(1, "www.lab.example.", KNOT_RRTYPE_A), 1);
	assert_string_equal(W.answer[1], "NOERROR an: www.lab.example. 100 A 198.18.10.1");
	W.log[0] = 0;
	serve();
	assert_string_equal(W.log, "www.lab.example. A @lab.example. answer; ");
	assert_int_equal(W.in.n.prefetches, 1);
	assert_int_equal(ask(1, "www.lab.example.", KNOT_RRTYPE_A), 1);
	assert_string_equal(W.answer[1], "NOERROR an: www.lab.example. 300 A 198.18.10.1");
	/* a prefetch that fails answers nobody and leaves the entry */
	W.ctx.now += 200 * S;
	script("lab.example.", "", "refused");
	assert_int_equal(ask(1, "www.lab.example.", KNOT_RRTYPE_A), 1);
	W.log[0] = 0;
	serve();
	assert_string_equal(W.log, "www.lab.example. A @lab.example. refused; "
				   "www.lab.example. A @lab.example. refused; "
				   "www.lab.example. A @lab.example. refused; ");
	assert_int_equal(W.answers[1], 3);
	assert_int_equal(ask(1, "www.lab.example.", KNOT_RRTYPE_A), 1);
	assert_string_equal(W.answer[1], "NOERROR an: www.lab.example. 100 A 198.18.10.1");
}

static void test_qmin(void **state)
{
	(void)state;
	tree(base, BASE);
	W.conf.qname_minimisation = 1;
	/* each cut asked one label more than itself, QTYPE A, until the
	 * full name */
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_AAAA),
			    "example. A @. referral; "
			    "lab.example. A @example. referral; "
			    "www.lab.example. AAAA @lab.example. nodata; ");
	/* no cut at ent.lab.example.: one more label from the same server */
	assert_string_equal(resolve(0, "deep.ent.lab.example.", KNOT_RRTYPE_A),
			    "ent.lab.example. A @lab.example. nodata; "
			    "deep.ent.lab.example. A @lab.example. answer; ");
	assert_string_equal(W.answer[0], "NOERROR an: deep.ent.lab.example. 300 A 198.18.10.2");
	/* NXDOMAIN on the way: nothing below it (RFC 8020) */
	assert_string_equal(resolve(1, "a.nx.lab.example.", KNOT_RRTYPE_A),
			    "nx.lab.example. A @lab.example. nxdomain; ");
	assert_string_equal(W.answer[1], "NXDOMAIN ns: lab.example. 5 SOA");
	assert_int_equal(ask(2, "a.nx.lab.example.", KNOT_RRTYPE_A), 1);
	/* a lame minimised answer: the next server, the same question */
	script("lab.example.", "refused", NULL);
	assert_string_equal(resolve(3, "b.ent.lab.example.", KNOT_RRTYPE_A),
			    "ent.lab.example. A @lab.example. refused; "
			    "ent.lab.example. A @lab.example. nodata; "
			    "b.ent.lab.example. A @lab.example. nxdomain; ");
}

static void test_tc(void **state)
{
	(void)state;
	tree(base, BASE);
	/* a truncated referral: asked again over TCP; the next step over UDP */
	script("example.", "tc", NULL);
	assert_string_equal(resolve(0, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A @. referral; "
			    "www.lab.example. A @example. tc; "
			    "www.lab.example. A @example. referral/tcp; "
			    "www.lab.example. A @lab.example. answer; ");
	assert_string_equal(W.answer[0], "NOERROR an: www.lab.example. 300 A 198.18.10.1");
}

static void test_foreign_answer(void **state)
{
	uint8_t q[KNOT_WIRE_MIN_PKTSIZE];
	struct sockaddr_in other = {.sin_family = AF_INET, .sin_port = htons(53)};
	struct rsv_pending *p;
	knot_pkt_t *qp;
	uint8_t a[KNOT_WIRE_MAX_PKTSIZE];
	knot_pkt_t *r;
	int n;

	(void)state;
	tree(base, BASE);
	ask(0, "www.lab.example.", KNOT_RRTYPE_A);
	/* an answer with the right ID and question from another address than
	 * the root's is not taken */
	p = W.ctx.up.q_head;
	assert_non_null(p);
	n = rsv_iter_wire(p, q, sizeof(q));
	qp = rsv_msg_parse(q, (size_t)n);
	r = knot_pkt_new(a, sizeof(a), NULL);
	assert_int_equal(knot_pkt_init_response(r, qp), KNOT_EOK);
	knot_wire_set_rcode(r->wire, KNOT_RCODE_NXDOMAIN);
	inet_pton(AF_INET, "198.18.66.66", &other.sin_addr);
	rsv_up_received(&W.in, &other, a, r->size, 0);
	knot_pkt_free(r);
	knot_pkt_free(qp);
	assert_ptr_equal(W.ctx.up.q_head, p);
	assert_int_equal(W.answers[0], 0);
	serve();
	assert_string_equal(W.answer[0], "NOERROR an: www.lab.example. 300 A 198.18.10.1");
}

/* geo.cdn.example. answers per /24; www.lab.example. is a CNAME to it */
static const struct fzone geo[] = {
    {.apex = ".",
     .servers = "198.18.0.1",
     .records = "example. 86400 NS ns.example.\n"
		"ns.example. 86400 A 198.18.0.2\n"},
    {.apex = "example.",
     .servers = "198.18.0.2",
     .records = "lab.example. 3600 NS ns.lab.example.\n"
		"ns.lab.example. 3600 A 198.18.1.1\n"
		"cdn.example. 3600 NS ns.cdn.example.\n"
		"ns.cdn.example. 3600 A 198.18.2.1\n"},
    {.apex = "lab.example.",
     .servers = "198.18.1.1",
     .records = "www.lab.example. 300 CNAME geo.cdn.example.\n"},
    {.apex = "cdn.example.",
     .servers = "198.18.2.1",
     .records = "geo.cdn.example. 20 A 198.18.20.1\n",
     .ecs_scope = 24},
};

static void test_ecs(void **state)
{
	(void)state;
	tree(geo, 4);
	W.conf.ecs = 1;
	/* the client's /24 goes with every full question; the answer's
	 * scope 24 keeps it to that /24 */
	assert_string_equal(resolve(0, "geo.cdn.example.", KNOT_RRTYPE_A),
			    "geo.cdn.example. A ecs 198.18.100.0/24 @. referral; "
			    "geo.cdn.example. A ecs 198.18.100.0/24 @example. referral; "
			    "geo.cdn.example. A ecs 198.18.100.0/24 @cdn.example. answer; ");
	assert_string_equal(W.answer[0], "NOERROR an: geo.cdn.example. 20 A 198.18.20.1");
	/* another /24: asked again, with its own subnet */
	assert_string_equal(resolve(1, "geo.cdn.example.", KNOT_RRTYPE_A),
			    "geo.cdn.example. A ecs 198.18.101.0/24 @cdn.example. answer; ");
	/* the same /24 again: from the cache */
	assert_int_equal(ask(0, "geo.cdn.example.", KNOT_RRTYPE_A), 1);
	/* a client's own ECS, /16, is passed on as it is; the answer's scope
	 * 24 is cut to its source and echoed */
	assert_string_equal(resolve_ecs(3, "geo.cdn.example.", KNOT_RRTYPE_A, "198.18.0.0", 16),
			    "geo.cdn.example. A ecs 198.18.0.0/16 @cdn.example. answer; ");
	assert_string_equal(W.answer[3],
			    "NOERROR an: geo.cdn.example. 20 A 198.18.20.1 ecs: 198.18.0.0/16/16");
	/* a client sending SOURCE 0 opts out: nothing passed on */
	assert_string_equal(resolve_ecs(3, "geo.cdn.example.", KNOT_RRTYPE_A, "0.0.0.0", 0),
			    "geo.cdn.example. A @cdn.example. answer; ");
	/* expired, the servers failing: each subnet its own stale answer */
	W.in.cache.cfg.serve_stale = 1;
	W.ctx.now += 20 * S;
	script("cdn.example.", "", "refused");
	assert_string_equal(resolve(0, "geo.cdn.example.", KNOT_RRTYPE_A),
			    "geo.cdn.example. A ecs 198.18.100.0/24 @cdn.example. refused; "
			    "geo.cdn.example. A ecs 198.18.100.0/24 @cdn.example. refused; "
			    "geo.cdn.example. A ecs 198.18.100.0/24 @cdn.example. refused; ");
	assert_string_equal(W.answer[0], "NOERROR an: geo.cdn.example. 30 A 198.18.20.1");
	assert_int_equal(W.in.n.servfail, 0);
}

static void test_ecs_cname(void **state)
{
	(void)state;
	tree(geo, 4);
	W.conf.ecs = 1;
	/* a CNAME from another zone to a scoped answer: the target asked in
	 * class IN, with the subnet */
	assert_string_equal(resolve(2, "www.lab.example.", KNOT_RRTYPE_A),
			    "www.lab.example. A ecs 198.18.102.0/24 @. referral; "
			    "www.lab.example. A ecs 198.18.102.0/24 @example. referral; "
			    "www.lab.example. A ecs 198.18.102.0/24 @lab.example. cname; "
			    "geo.cdn.example. A ecs 198.18.102.0/24 @example. referral; "
			    "geo.cdn.example. A ecs 198.18.102.0/24 @cdn.example. answer; ");
	assert_string_equal(W.answer[2], "NOERROR an: www.lab.example. 300 CNAME geo.cdn.example., "
					 "geo.cdn.example. 20 A 198.18.20.1");
	/* the chain answered from the cache */
	W.ctx.now += 5 * S;
	assert_int_equal(ask(2, "www.lab.example.", KNOT_RRTYPE_A), 1);
	assert_string_equal(W.answer[2], "NOERROR an: www.lab.example. 295 CNAME geo.cdn.example., "
					 "geo.cdn.example. 15 A 198.18.20.1");
	/* once the target expired, only the target again, in class IN */
	W.ctx.now += 15 * S;
	assert_string_equal(resolve(2, "www.lab.example.", KNOT_RRTYPE_A),
			    "geo.cdn.example. A ecs 198.18.102.0/24 @cdn.example. answer; ");
	assert_string_equal(W.answer[2], "NOERROR an: www.lab.example. 280 CNAME geo.cdn.example., "
					 "geo.cdn.example. 20 A 198.18.20.1");
	/* another /24 follows the cached CNAME to its own answer */
	assert_string_equal(resolve(3, "www.lab.example.", KNOT_RRTYPE_A),
			    "geo.cdn.example. A ecs 198.18.103.0/24 @cdn.example. answer; ");
	assert_int_equal(W.in.n.servfail, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_referrals, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_negative, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_glue, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_glue_unresolvable, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_deleg_ttl, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_cname_across_zones, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_cname_loop, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_referral_loop, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_lame, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_wrong_zone, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_timeouts, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_work_bound, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_work_bound_step, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_stale, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_prefetch, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_qmin, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_tc, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_foreign_answer, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_ecs, walk_setup, walk_teardown),
	    cmocka_unit_test_setup_teardown(test_ecs_cname, walk_setup, walk_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
